// SPDX-License-Identifier: Apache-2.0
//! Plugins written in Rust (`trainer/plugin.h`): the [`Plugin`] trait, the adapter that turns a
//! plugin into the C descriptor, [`Framework`] (the built-in plugins plus yours) and
//! [`export_plugin!`](crate::export_plugin) for a plugin in a `cdylib` that libtrainer loads.
//!
//! A plugin sees one request document per phase (JSON: `phase`, `trainJob`, `info`, `context`,
//! ..., docs/plugins.md) and answers with an optional reply document (JSON: an `info` patch,
//! `errors`/`warnings`, `objects`, ...). Calls come from any thread, concurrently, so a plugin is
//! `Send + Sync`; a panic inside a method is caught at the boundary and reported as an error of
//! the operation (`plugin "<name>": <phase>: panicked: <message>`), never unwound into C.

use crate::{opt_string, sys, Code, Error, Result};
use core::ffi::{c_char, c_void, CStr};
use std::any::Any;
use std::ffi::CString;
use std::fmt;
use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

// ---- Phases -----------------------------------------------------------------------------------

/// The extension points a plugin takes part in (a set). Only these callbacks are registered, so
/// the library builds no request for the others.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Phases(u32);

impl Phases {
    pub const NONE: Phases = Phases(0);
    pub const VALIDATE: Phases = Phases(1 << 0);
    pub const ENFORCE_ML_POLICY: Phases = Phases(1 << 1);
    pub const ENFORCE_POD_GROUP_POLICY: Phases = Phases(1 << 2);
    pub const ENFORCE_POD_SPEC: Phases = Phases(1 << 3);
    pub const PRE_BUILD_SYNC: Phases = Phases(1 << 4);
    pub const BUILD: Phases = Phases(1 << 5);
    /// TrainJob status (cluster only). A framework holds at most one plugin with this phase,
    /// so it is not in [`Phases::DEFAULT`]: a status plugin says so.
    pub const STATUS: Phases = Phases(1 << 6);
    /// Every phase but [`Phases::STATUS`]: what [`Plugin::phases`] returns unless overridden.
    pub const DEFAULT: Phases = Phases(0b011_1111);
    pub const ALL: Phases = Phases(0b111_1111);

    /// Whether every phase of `other` is in `self`.
    pub fn contains(self, other: Phases) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for Phases {
    type Output = Phases;
    fn bitor(self, rhs: Phases) -> Phases {
        Phases(self.0 | rhs.0)
    }
}

impl fmt::Debug for Phases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> =
            PHASE_NAMES.iter().filter(|(p, _)| self.contains(*p)).map(|(_, n)| *n).collect();
        write!(f, "Phases({})", names.join("|"))
    }
}

const PHASE_NAMES: [(Phases, &str); 7] = [
    (Phases::VALIDATE, "validate"),
    (Phases::ENFORCE_ML_POLICY, "enforceMLPolicy"),
    (Phases::ENFORCE_POD_GROUP_POLICY, "enforcePodGroupPolicy"),
    (Phases::ENFORCE_POD_SPEC, "enforcePodSpec"),
    (Phases::PRE_BUILD_SYNC, "preBuildSync"),
    (Phases::BUILD, "build"),
    (Phases::STATUS, "status"),
];

// ---- Errors and results -----------------------------------------------------------------------

/// A plugin's failure: the operation fails with `code` and the message
/// `plugin "<name>": <phase>: <message>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginError {
    /// A `TRAINER_E_*` code; [`Code::USER`] unless said otherwise.
    pub code: Code,
    pub message: String,
}

impl PluginError {
    /// An error with [`Code::USER`].
    pub fn new(message: impl Into<String>) -> Self {
        PluginError { code: Code::USER, message: message.into() }
    }

    /// An error with another code (e.g. [`Code::INVALID`]).
    pub fn with_code(code: Code, message: impl Into<String>) -> Self {
        PluginError { code, message: message.into() }
    }
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for PluginError {}

impl From<String> for PluginError {
    fn from(message: String) -> Self {
        PluginError::new(message)
    }
}

impl From<&str> for PluginError {
    fn from(message: &str) -> Self {
        PluginError::new(message)
    }
}

/// What a phase returns: `Ok(None)` changes nothing, `Ok(Some(json))` is the reply document
/// (docs/plugins.md: `{"info": {...}}`, `{"errors": [...], "warnings": [...]}`, ...).
pub type PluginResult = std::result::Result<Option<String>, PluginError>;

// ---- Requests ---------------------------------------------------------------------------------

/// The request document of one callback, borrowed for the callback (and its thread: a
/// `Request` is neither `Send` nor `Sync`). Reads go through the library's accessors, so a
/// plugin parses no JSON to find a field: [`Request::get_str`] with a JSON pointer.
pub struct Request<'a> {
    raw: *const sys::trainer_plugin_request,
    host: &'a sys::trainer_plugin_host,
}

/// The JSON pointer of the runtime label that says which plugin a TrainJob belongs to.
pub const FRAMEWORK_LABEL_POINTER: &str = "/info/runtime/labels/trainer.kubeflow.org~1framework";

impl<'a> Request<'a> {
    /// The whole request as JSON text.
    pub fn json(&self) -> &str {
        let Some(f) = self.host.request_json else { return "" };
        let mut len = 0usize;
        // SAFETY: the request lives for the callback; the text is borrowed from it.
        let p = unsafe { f(self.raw, &mut len) };
        // SAFETY: as above; `len` bytes at `p`.
        unsafe { text(p, len) }.unwrap_or("")
    }

    /// The value at JSON pointer `pointer` (RFC 6901: `/trainJob/spec/trainer/numNodes`, `~1`
    /// for `/` in a key) as compact JSON text; `None` when absent or `pointer` is malformed.
    pub fn get(&self, pointer: &str) -> Option<&str> {
        let f = self.host.request_get?;
        let pointer = CString::new(pointer).ok()?;
        let mut len = 0usize;
        // SAFETY: the request lives for the callback; `pointer` is NUL-terminated.
        let p = unsafe { f(self.raw, pointer.as_ptr(), &mut len) };
        // SAFETY: borrowed from the request, `len` bytes.
        unsafe { text(p, len) }
    }

    /// The string at `pointer`, unquoted; `None` when absent or not a string.
    pub fn get_str(&self, pointer: &str) -> Option<&str> {
        let f = self.host.request_get_string?;
        let pointer = CString::new(pointer).ok()?;
        // SAFETY: as get; the result is NUL-terminated and borrowed from the request.
        let p = unsafe { f(self.raw, pointer.as_ptr()) };
        if p.is_null() {
            return None;
        }
        // SAFETY: NUL-terminated, borrowed from the request for the callback.
        unsafe { CStr::from_ptr(p) }.to_str().ok()
    }

    /// The integer at `pointer`; `None` when absent or not an integer.
    pub fn get_i64(&self, pointer: &str) -> Option<i64> {
        let f = self.host.request_get_int?;
        let pointer = CString::new(pointer).ok()?;
        let mut out = 0i64;
        // SAFETY: as get.
        (unsafe { f(self.raw, pointer.as_ptr(), &mut out) } != 0).then_some(out)
    }

    /// The phase's name (`validate`, `enforceMLPolicy`, ...).
    pub fn phase(&self) -> &str {
        self.get_str("/phase").unwrap_or("")
    }

    /// The runtime's `trainer.kubeflow.org/framework` label: by convention, the TrainJobs whose
    /// runtime names a plugin are that plugin's own.
    pub fn framework_label(&self) -> Option<&str> {
        self.get_str(FRAMEWORK_LABEL_POINTER)
    }
}

impl fmt::Debug for Request<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request").field("phase", &self.phase()).finish()
    }
}

/// `len` bytes of UTF-8 at `p`, or `None` for NULL.
///
/// # Safety
/// `p` is NULL or points to `len` bytes that live for `'b`.
unsafe fn text<'b>(p: *const c_char, len: usize) -> Option<&'b str> {
    if p.is_null() {
        return None;
    }
    // SAFETY (caller): `len` readable bytes.
    std::str::from_utf8(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) }).ok()
}

/// `text` as a JSON string, quotes included, for building replies without a JSON crate:
/// `format!(r#"{{"warnings":[{}]}}"#, json_quote(&message))`.
pub fn json_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ---- The trait --------------------------------------------------------------------------------

/// A plugin of the pipeline. Implement [`Plugin::name`] and the phases you take part in; every
/// phase defaults to "no change". Each method gets the request and returns a [`PluginResult`].
/// The convention: reply nothing for TrainJobs that are not yours
/// ([`Request::framework_label`]).
///
/// Methods are called from any thread, concurrently, on the same value: keep state behind a
/// `Mutex` or atomics. A method must not use the [`Framework`] it belongs to.
pub trait Plugin: Send + Sync + 'static {
    /// Registry name, unique in a framework: letters, digits, `-`, `_`, `.`, at most 63 bytes.
    fn name(&self) -> &str;

    /// The phases whose callbacks are registered [`Phases::DEFAULT`]: every one but status.
    fn phases(&self) -> Phases {
        Phases::DEFAULT
    }

    /// Admission checks of a TrainJob. Reply: `{"errors": [{"type": "FieldValueInvalid",
    /// "field": "spec.x", "value": 1, "detail": "..."}], "warnings": ["..."]}`.
    fn validate(&self, _request: &Request<'_>) -> PluginResult {
        Ok(None)
    }
    /// Counts, env, ports, volumes. Reply: `{"info": patch, "trainJob": merge patch}`; the
    /// TrainJob patch may change the `spec` only (docs/plugins.md, "What a plugin may change").
    fn enforce_ml_policy(&self, _request: &Request<'_>) -> PluginResult {
        Ok(None)
    }
    /// Gang-scheduling labels and annotations. Reply: `{"info": patch}`.
    fn enforce_pod_group_policy(&self, _request: &Request<'_>) -> PluginResult {
        Ok(None)
    }
    /// Pod spec concerns without a policy. Reply: `{"info": patch}`.
    fn enforce_pod_spec(&self, _request: &Request<'_>) -> PluginResult {
        Ok(None)
    }
    /// Info against the concrete template. Reply: `{"info": patch}`.
    fn pre_build_sync(&self, _request: &Request<'_>) -> PluginResult {
        Ok(None)
    }
    /// Extra objects to create. Reply: `{"objects": [...]}`: namespaced kinds in the TrainJob's
    /// namespace, controlled by the TrainJob (docs/plugins.md, "What a plugin may change").
    fn build(&self, _request: &Request<'_>) -> PluginResult {
        Ok(None)
    }
    /// Refines the TrainJob status (cluster). Reply: `{"status": merge patch}`. Registered only
    /// when [`Plugin::phases`] contains [`Phases::STATUS`].
    fn status(&self, _request: &Request<'_>) -> PluginResult {
        Ok(None)
    }
}

// ---- The adapter to the C descriptor -----------------------------------------------------------

/// What the descriptor's `user_data` points to: the plugin, the host table its callbacks use
/// (the library's own in process, the one handed to `trainer_plugin_entry` in a cdylib) and the
/// storage of the descriptor and name the library copies.
struct Adapter {
    plugin: Box<dyn Plugin>,
    host: &'static sys::trainer_plugin_host,
    name: CString,
    descriptor: sys::trainer_plugin_descriptor,
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

fn set_error(host: &sys::trainer_plugin_host, reply: *mut sys::trainer_plugin_reply, msg: &str) {
    if let Some(f) = host.reply_set_error {
        let msg = CString::new(msg.replace('\0', " ")).unwrap_or_default();
        // SAFETY: the reply lives for the callback; the message is copied.
        unsafe { f(reply, msg.as_ptr()) }
    }
}

/// The callback of phase `P` (a bit of [`Phases`]): runs the plugin's method with panics caught.
unsafe extern "C" fn call<const P: u32>(
    user: *mut c_void,
    request: *const sys::trainer_plugin_request,
    reply: *mut sys::trainer_plugin_reply,
) -> sys::trainer_status {
    // SAFETY: `user` is the Adapter of this descriptor, alive until free_adapter; callbacks
    // only read it (the plugin is Sync).
    let adapter = unsafe { &*(user as *const Adapter) };
    let host = adapter.host;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let req = Request { raw: request, host };
        let p = &*adapter.plugin;
        match Phases(P) {
            Phases::VALIDATE => p.validate(&req),
            Phases::ENFORCE_ML_POLICY => p.enforce_ml_policy(&req),
            Phases::ENFORCE_POD_GROUP_POLICY => p.enforce_pod_group_policy(&req),
            Phases::ENFORCE_POD_SPEC => p.enforce_pod_spec(&req),
            Phases::PRE_BUILD_SYNC => p.pre_build_sync(&req),
            Phases::BUILD => p.build(&req),
            _ => p.status(&req),
        }
    }));
    match outcome {
        Ok(Ok(None)) => sys::TRAINER_OK,
        Ok(Ok(Some(json))) => match host.reply_set {
            // SAFETY: the reply lives for the callback; the text is copied.
            Some(f) => unsafe { f(reply, json.as_ptr().cast(), json.len()) },
            None => sys::TRAINER_E_INTERNAL,
        },
        Ok(Err(e)) => {
            set_error(host, reply, &e.message);
            if e.code.0 < 0 {
                e.code.0
            } else {
                sys::TRAINER_E_USER
            }
        }
        Err(panic) => {
            set_error(host, reply, &format!("panicked: {}", panic_message(&*panic)));
            sys::TRAINER_E_USER
        }
    }
}

unsafe extern "C" fn free_adapter(user: *mut c_void) {
    // SAFETY: called once by the library with the pointer Box::into_raw made. A panic in the
    // plugin's Drop must not unwind into C.
    let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(user as *mut Adapter) })));
}

type PluginFn = unsafe extern "C" fn(
    *mut c_void,
    *const sys::trainer_plugin_request,
    *mut sys::trainer_plugin_reply,
) -> sys::trainer_status;

/// Boxes `plugin` with `host` and fills the descriptor that points to it. The caller owns the
/// returned adapter until the library took it (then `free_adapter` drops it).
fn adapter(
    plugin: Box<dyn Plugin>,
    host: &'static sys::trainer_plugin_host,
) -> std::result::Result<*mut Adapter, String> {
    let name = CString::new(plugin.name())
        .map_err(|_| format!("plugin name {:?} contains a NUL character", plugin.name()))?;
    let phases = plugin.phases();
    let cb = |phase: Phases, f: PluginFn| -> sys::trainer_plugin_fn {
        phases.contains(phase).then_some(f)
    };
    let mut descriptor = sys::trainer_plugin_descriptor::INIT;
    descriptor.user_data_free = Some(free_adapter);
    descriptor.validate = cb(Phases::VALIDATE, call::<{ Phases::VALIDATE.0 }>);
    descriptor.enforce_ml_policy =
        cb(Phases::ENFORCE_ML_POLICY, call::<{ Phases::ENFORCE_ML_POLICY.0 }>);
    descriptor.enforce_pod_group_policy =
        cb(Phases::ENFORCE_POD_GROUP_POLICY, call::<{ Phases::ENFORCE_POD_GROUP_POLICY.0 }>);
    descriptor.enforce_pod_spec =
        cb(Phases::ENFORCE_POD_SPEC, call::<{ Phases::ENFORCE_POD_SPEC.0 }>);
    descriptor.pre_build_sync = cb(Phases::PRE_BUILD_SYNC, call::<{ Phases::PRE_BUILD_SYNC.0 }>);
    descriptor.build = cb(Phases::BUILD, call::<{ Phases::BUILD.0 }>);
    descriptor.status = cb(Phases::STATUS, call::<{ Phases::STATUS.0 }>);
    let raw = Box::into_raw(Box::new(Adapter { plugin, host, name, descriptor }));
    // The name and user data point into the box, whose address no longer changes.
    // SAFETY: `raw` was just made and is exclusively ours.
    unsafe {
        (*raw).descriptor.name = (*raw).name.as_ptr();
        (*raw).descriptor.user_data = raw.cast();
    }
    Ok(raw)
}

/// The body of the `trainer_plugin_entry` that [`export_plugin!`](crate::export_plugin)
/// writes: checks the host's plugin ABI major version, makes the plugin and returns its
/// descriptor (NULL to refuse, also when `make` panics). Uses only `host`, never a libtrainer
/// symbol, so the cdylib does not link libtrainer.
///
/// # Safety
/// `host` is NULL or the host table of the loading library (static storage).
pub unsafe fn plugin_entry(
    host: *const sys::trainer_plugin_host,
    make: impl FnOnce() -> Box<dyn Plugin>,
) -> *const sys::trainer_plugin_descriptor {
    // SAFETY (caller): static storage.
    let Some(host) = (unsafe { host.as_ref() }) else { return ptr::null() };
    if host.abi_version >> 16 != sys::TRAINER_PLUGIN_ABI_VERSION_MAJOR {
        return ptr::null();
    }
    match catch_unwind(AssertUnwindSafe(|| adapter(make(), host))) {
        // The library copies the descriptor and takes the user data; if it refuses the plugin
        // after that (a bad name), the adapter is never freed: the library stays loaded anyway.
        // SAFETY: `raw` lives until the library frees it.
        Ok(Ok(raw)) => unsafe { &(*raw).descriptor },
        _ => ptr::null(),
    }
}

/// Exports a plugin from a `cdylib` crate: writes `trainer_plugin_entry`, which makes the plugin
/// with the given expression each time the library is loaded. The crate depends on `libtrainer`
/// for the trait only; the entry uses the host table it receives, so the cdylib links no
/// libtrainer.so (load it with [`Framework::load`] or `trainerctl --plugin`).
///
/// ```ignore
/// struct Paddle;
/// impl libtrainer::Plugin for Paddle { fn name(&self) -> &str { "paddle" } }
/// libtrainer::export_plugin!(Paddle);
/// ```
#[macro_export]
macro_rules! export_plugin {
    ($make:expr) => {
        /// The plugin entry point libtrainer looks up (`TRAINER_PLUGIN_ENTRY_SYMBOL`).
        ///
        /// # Safety
        /// Called by libtrainer with its host table.
        #[no_mangle]
        pub unsafe extern "C" fn trainer_plugin_entry(
            host: *const $crate::sys::trainer_plugin_host,
        ) -> *const $crate::sys::trainer_plugin_descriptor {
            // SAFETY: the loading library passes its host table.
            unsafe {
                $crate::plugin_entry(host, || {
                    ::std::boxed::Box::new($make) as ::std::boxed::Box<dyn $crate::Plugin>
                })
            }
        }
    };
}

// ---- Plugin handles ---------------------------------------------------------------------------

/// A plugin made in this process or loaded from a shared library (`trainer_plugin`), before it
/// is added to a [`Framework`]. Shareable, so `Send` and `Sync`.
pub struct PluginHandle(NonNull<sys::trainer_plugin>);

// SAFETY: trainer_plugin is shareable once created; its callbacks are Send + Sync (Plugin).
unsafe impl Send for PluginHandle {}
unsafe impl Sync for PluginHandle {}

impl PluginHandle {
    /// A plugin of `plugin` in this process. Errors: [`Code::INVALID_ARGUMENT`] for a bad name.
    pub fn new(plugin: impl Plugin) -> Result<PluginHandle> {
        Self::from_box(Box::new(plugin))
    }

    /// As [`PluginHandle::new`], for a boxed plugin.
    pub fn from_box(plugin: Box<dyn Plugin>) -> Result<PluginHandle> {
        // SAFETY: no arguments; static storage.
        let host = unsafe { sys::trainer_plugin_host_table().as_ref() }
            .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_plugin_host_table returned NULL"))?;
        let raw = adapter(plugin, host).map_err(|m| Error::new(Code::INVALID_ARGUMENT, m))?;
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: the descriptor lives in the adapter; on success the plugin owns the adapter.
        let st = unsafe { sys::trainer_plugin_new(&(*raw).descriptor, &mut out, &mut err) };
        // SAFETY: `err` came from the call above.
        if let Err(e) = unsafe { Error::check(st, err) } {
            // On failure nothing was called and the adapter is still ours.
            // SAFETY: made by Box::into_raw in `adapter`, not taken by the library.
            drop(unsafe { Box::from_raw(raw) });
            return Err(e);
        }
        NonNull::new(out)
            .map(PluginHandle)
            .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_plugin_new returned NULL"))
    }

    /// Loads the plugin library at `path` (a Rust cdylib made with
    /// [`export_plugin!`](crate::export_plugin), or C, C++, Go). The library is never unloaded.
    /// Errors: [`Code::IO`] (cannot be loaded), [`Code::NOT_FOUND`] (no `trainer_plugin_entry`),
    /// [`Code::USER`] (the entry refused), [`Code::UNSUPPORTED`] (another plugin ABI).
    pub fn load(path: impl AsRef<Path>) -> Result<PluginHandle> {
        use std::os::unix::ffi::OsStrExt;
        let path = CString::new(path.as_ref().as_os_str().as_bytes())
            .map_err(|_| Error::new(Code::INVALID_ARGUMENT, "path contains a NUL character"))?;
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: the path lives for the call; out-parameters are valid.
        unsafe { Error::check(sys::trainer_plugin_load(path.as_ptr(), &mut out, &mut err), err)? };
        NonNull::new(out)
            .map(PluginHandle)
            .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_plugin_load returned NULL"))
    }

    /// The plugin's name.
    pub fn name(&self) -> &str {
        // SAFETY: borrowed from the plugin, valid while self lives.
        unsafe { CStr::from_ptr(sys::trainer_plugin_name(self.0.as_ptr())) }.to_str().unwrap_or("")
    }

    fn into_raw(self) -> *mut sys::trainer_plugin {
        ManuallyDrop::new(self).0.as_ptr()
    }
}

impl Drop for PluginHandle {
    fn drop(&mut self) {
        // SAFETY: owned, not added to a framework (add takes it with into_raw).
        unsafe { sys::trainer_plugin_free(self.0.as_ptr()) }
    }
}

impl fmt::Debug for PluginHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PluginHandle").field(&self.name()).finish()
    }
}

// ---- Frameworks -------------------------------------------------------------------------------

struct FrameworkHandle {
    ptr: NonNull<sys::trainer_framework>,
    /// Set once the handle went to a render, validation, apply or controller: from then on it is
    /// shared (the C rule: movable while plugins are added, shareable once in use).
    in_use: AtomicBool,
}

// SAFETY: trainer_framework is shareable once in use; plugins are only added through
// `Framework::add_handle`, which needs the only reference and a framework not yet in use.
unsafe impl Send for FrameworkHandle {}
unsafe impl Sync for FrameworkHandle {}

impl Drop for FrameworkHandle {
    fn drop(&mut self) {
        // SAFETY: our reference; a controller that took the framework keeps its own.
        unsafe { sys::trainer_framework_free(self.ptr.as_ptr()) }
    }
}

/// The plugins of one pipeline: the built-in plugins for a set of feature gates, then the added
/// ones in the order they were added. Pass it in [`RenderOptions`](crate::RenderOptions),
/// [`ApplyOptions`](crate::ApplyOptions), [`ControllerOptions`](crate::ControllerOptions) and
/// to [`Document::validate_with`](crate::Document::validate_with), so a plugin's rules hold on
/// every path. Clones share one framework; plugins are added before it is cloned or used.
#[derive(Clone)]
pub struct Framework(Arc<FrameworkHandle>);

impl Framework {
    /// The built-in plugins for `feature_gates` (upstream's `--feature-gates` syntax, `""` all
    /// off). Errors: [`Code::INVALID_ARGUMENT`] for malformed or unknown gates.
    pub fn new(feature_gates: &str) -> Result<Framework> {
        let gates = CString::new(feature_gates)
            .map_err(|_| Error::new(Code::INVALID_ARGUMENT, "feature gates contain a NUL"))?;
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: the string lives for the call; out-parameters are valid.
        unsafe {
            Error::check(sys::trainer_framework_new(gates.as_ptr(), &mut out, &mut err), err)?
        };
        let ptr = NonNull::new(out)
            .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_framework_new returned NULL"))?;
        Ok(Framework(Arc::new(FrameworkHandle { ptr, in_use: AtomicBool::new(false) })))
    }

    /// Adds `plugin` after the plugins already there. Errors: [`Code::INVALID`] for a name that
    /// is taken (`plugin name "x" is already registered`) or a second status plugin;
    /// [`Code::INVALID_ARGUMENT`] when the framework is already shared or in use.
    pub fn add(&mut self, plugin: impl Plugin) -> Result<()> {
        self.add_handle(PluginHandle::new(plugin)?)
    }

    /// As [`Framework::add`], for a boxed plugin.
    pub fn add_boxed(&mut self, plugin: Box<dyn Plugin>) -> Result<()> {
        self.add_handle(PluginHandle::from_box(plugin)?)
    }

    /// Adds a plugin made with [`PluginHandle::new`] or [`PluginHandle::load`].
    pub fn add_handle(&mut self, plugin: PluginHandle) -> Result<()> {
        let fw = self.exclusive()?;
        let mut err = ptr::null_mut();
        // SAFETY: exclusive access (checked above); the plugin passes to the framework in every
        // case.
        unsafe { Error::check(sys::trainer_framework_add(fw, plugin.into_raw(), &mut err), err) }
    }

    /// Loads the plugin library at `path` and adds its plugin; returns the plugin's name.
    pub fn load(&mut self, path: impl AsRef<Path>) -> Result<String> {
        self.exclusive()?;
        let plugin = PluginHandle::load(path)?;
        let name = plugin.name().to_string();
        self.add_handle(plugin)?;
        Ok(name)
    }

    /// The names of every plugin, built-in and added, in framework order.
    pub fn names(&self) -> Vec<String> {
        let fw = self.0.ptr.as_ptr();
        // SAFETY: reads of a live framework; strings copied while it lives.
        unsafe {
            (0..sys::trainer_framework_plugin_count(fw))
                .filter_map(|i| opt_string(sys::trainer_framework_plugin_name(fw, i)))
                .collect()
        }
    }

    fn exclusive(&mut self) -> Result<*mut sys::trainer_framework> {
        match Arc::get_mut(&mut self.0) {
            Some(h) if !h.in_use.load(Ordering::Acquire) => Ok(h.ptr.as_ptr()),
            _ => Err(Error::new(
                Code::INVALID_ARGUMENT,
                "plugins are added to a framework before it is cloned or used",
            )),
        }
    }

    /// The handle for a call that uses the framework; from now on no plugin can be added.
    pub(crate) fn in_use(&self) -> *const sys::trainer_framework {
        self.0.in_use.store(true, Ordering::Release);
        self.0.ptr.as_ptr()
    }
}

impl fmt::Debug for Framework {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Framework").field(&self.names()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases() {
        assert!(Phases::ALL.contains(Phases::DEFAULT | Phases::STATUS));
        assert!(!Phases::DEFAULT.contains(Phases::STATUS));
        assert_eq!(format!("{:?}", Phases::VALIDATE | Phases::BUILD), "Phases(validate|build)");
    }

    #[test]
    fn json_quote_escapes() {
        assert_eq!(json_quote("a\"b\\c\nd\u{1}é"), r#""a\"b\\c\nd\u0001é""#);
    }

    #[test]
    fn panic_messages() {
        assert_eq!(panic_message(&"x"), "x");
        assert_eq!(panic_message(&String::from("y")), "y");
        assert_eq!(panic_message(&3), "a panic without a message");
    }
}
