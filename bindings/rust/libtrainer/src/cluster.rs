// SPDX-License-Identifier: Apache-2.0
//! The TrainJob operations on a cluster (`trainer/cluster.h`): a Kubernetes [`Client`] that
//! reads its configuration as kubectl does, and apply, get, list, watch, wait and delete.
//! Objects are JSON or YAML text. Every call blocks until it is done; a [`CancelToken`] in its
//! options, cancelled from another thread, ends it with [`Code::CANCELLED`].

use crate::{opt_string, sys, Buffer, Code, Error, Format, Framework, Result};
use core::ffi::{c_char, c_void, CStr};
use std::ffi::CString;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Duration;

// ---- Cancellation -----------------------------------------------------------------------------

struct TokenHandle(NonNull<sys::trainer_cancel_token>);

// SAFETY: trainer_cancel_token is shareable: cancel and cancelled may be called from any thread
// at once; it is freed once, when the last clone goes.
unsafe impl Send for TokenHandle {}
unsafe impl Sync for TokenHandle {}

impl Drop for TokenHandle {
    fn drop(&mut self) {
        // SAFETY: owned; no call holds it any more (calls borrow a clone of the Arc).
        unsafe { sys::trainer_cancel_token_free(self.0.as_ptr()) }
    }
}

/// A cancellation signal for the calls whose options hold it. Clones share one token: cancel a
/// clone from any thread to end the calls with [`Code::CANCELLED`].
#[derive(Clone)]
pub struct CancelToken(Arc<TokenHandle>);

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Result<CancelToken> {
        let mut token = core::ptr::null_mut();
        let mut err = core::ptr::null_mut();
        // SAFETY: out-parameters are valid; the error is consumed by check.
        unsafe { Error::check(sys::trainer_cancel_token_new(&mut token, &mut err), err)? };
        let token = NonNull::new(token)
            .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_cancel_token_new returned NULL"))?;
        Ok(CancelToken(Arc::new(TokenHandle(token))))
    }

    /// Cancels every call holding the token, now and later. Idempotent.
    pub fn cancel(&self) {
        // SAFETY: the token lives while self does; cancel is thread-safe.
        unsafe { sys::trainer_cancel_token_cancel(self.raw()) }
    }

    /// Whether the token was cancelled.
    pub fn is_cancelled(&self) -> bool {
        // SAFETY: as cancel.
        unsafe { sys::trainer_cancel_token_cancelled(self.raw()) != 0 }
    }

    fn raw(&self) -> *mut sys::trainer_cancel_token {
        self.0 .0.as_ptr()
    }
}

pub(crate) fn token_ptr(token: &Option<CancelToken>) -> *mut sys::trainer_cancel_token {
    token.as_ref().map_or(core::ptr::null_mut(), CancelToken::raw)
}

// ---- Strings and numbers ----------------------------------------------------------------------

/// C strings of one call; `""` and `None` become NULL (the library's default).
#[derive(Default)]
pub(crate) struct CStrings(Vec<CString>);

impl CStrings {
    pub(crate) fn get(&mut self, s: &str) -> Result<*const c_char> {
        if s.is_empty() {
            return Ok(core::ptr::null());
        }
        let c = CString::new(s).map_err(|_| {
            Error::new(Code::INVALID_ARGUMENT, format!("{s:?} contains a NUL character"))
        })?;
        let p = c.as_ptr();
        self.0.push(c);
        Ok(p)
    }

    pub(crate) fn opt(&mut self, s: &Option<String>) -> Result<*const c_char> {
        self.get(s.as_deref().unwrap_or(""))
    }
}

/// Milliseconds, rounded up so that a positive duration never becomes 0 (the default).
pub(crate) fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_nanos().div_ceil(1_000_000)).unwrap_or(i64::MAX)
}

pub(crate) fn opt_millis(d: Option<Duration>) -> i64 {
    d.map_or(0, millis)
}

// ---- Client -----------------------------------------------------------------------------------

/// A warning handler: the API server's `Warning` headers, local admission warnings of
/// [`Client::apply`] and configuration warnings. Called from the threads that make calls.
pub type WarningFn = Box<dyn Fn(&str) + Send + Sync>;

/// Options of [`Client::new`], as kubectl's flags. `None` means the library default.
#[derive(Default)]
pub struct ClientOptions {
    /// `--kubeconfig`: only this file [`$KUBECONFIG`, else `~/.kube/config`, else in-cluster].
    pub kubeconfig: Option<String>,
    /// `--context` [the kubeconfig's `current-context`].
    pub context: Option<String>,
    /// `-n`: the namespace of calls that pass `""` [the context's, else `default`].
    pub namespace: Option<String>,
    /// Bound on each non-streaming request, retries included [30 s].
    pub request_timeout: Option<Duration>,
    /// Client-side rate limit in requests per second; negative: none \[5\].
    pub qps: Option<f64>,
    /// Rate limiter burst \[10\].
    pub burst: Option<u32>,
    /// [`libtrainer/<version> (linux/<arch>)`].
    pub user_agent: Option<String>,
    /// Bound on one response body (one object, one page of a list), after gzip decoding; over
    /// it a call fails with [`Code::LIMIT`] naming `max_response_bytes` \[256 MiB\].
    pub max_response_bytes: Option<u64>,
    /// Bound on one watch event (one object); over it [`Client::watch`] ends with
    /// [`Code::LIMIT`] naming `max_watch_event_bytes` \[16 MiB\].
    pub max_watch_event_bytes: Option<u64>,
    pub on_warning: Option<WarningFn>,
    /// What the client recovers from by itself, one line each: a watch (or its list) that
    /// failed and is retried, with the cause and the wait, and a `Retry-After` retry. Called from
    /// the threads that make calls; a panic in it is dropped.
    pub on_log: Option<WarningFn>,
}

unsafe extern "C" fn warning_trampoline(
    user: *mut c_void,
    text: *const c_char,
    _len: usize,
) -> sys::trainer_status {
    // SAFETY: user is the Box<WarningFn> given to trainer_client_new, alive until freed below.
    let f = unsafe { &*(user as *const WarningFn) };
    // SAFETY: text is NUL-terminated and borrowed for the call.
    let text = unsafe { CStr::from_ptr(text) }.to_string_lossy();
    // A warning cannot fail a call, and a panic must not unwind into C: it is dropped.
    let _ = catch_unwind(AssertUnwindSafe(|| f(&text)));
    sys::TRAINER_OK
}

unsafe extern "C" fn warning_free(user: *mut c_void) {
    // SAFETY: called exactly once by the library with the pointer Box::into_raw made.
    drop(unsafe { Box::from_raw(user as *mut WarningFn) });
}

/// A Kubernetes API client (`trainer_client`): shareable, so `Send` and `Sync`; its calls may
/// run from any number of threads at once.
pub struct Client(NonNull<sys::trainer_client>);

// SAFETY: trainer_client is shareable (documented thread class); Drop is the last call.
unsafe impl Send for Client {}
unsafe impl Sync for Client {}

impl Drop for Client {
    fn drop(&mut self) {
        // SAFETY: owned; &mut self means no call is running.
        unsafe { sys::trainer_client_free(self.0.as_ptr()) }
    }
}

impl Client {
    /// Loads the configuration as kubectl does and makes a client, without contacting the
    /// server.
    pub fn new(options: ClientOptions) -> Result<Client> {
        let mut strs = CStrings::default();
        let mut opts = sys::trainer_client_options::INIT;
        opts.kubeconfig = strs.opt(&options.kubeconfig)?;
        opts.context = strs.opt(&options.context)?;
        opts.namespace_name = strs.opt(&options.namespace)?;
        opts.request_timeout_ms = opt_millis(options.request_timeout);
        opts.qps = options.qps.unwrap_or(0.0);
        opts.burst = match options.burst {
            Some(b) => i32::try_from(b)
                .map_err(|_| Error::new(Code::INVALID_ARGUMENT, "burst is too large"))?,
            None => 0,
        };
        opts.user_agent = strs.opt(&options.user_agent)?;
        opts.max_response_bytes = options.max_response_bytes.unwrap_or(0);
        opts.max_watch_event_bytes = options.max_watch_event_bytes.unwrap_or(0);
        if let Some(f) = options.on_warning {
            // Freed by the library through warning_free, also when the call fails.
            opts.on_warning = Some(warning_trampoline);
            opts.warning_user_data = Box::into_raw(Box::new(f)) as *mut c_void;
            opts.warning_user_data_free = Some(warning_free);
        }
        if let Some(f) = options.on_log {
            // The same shape as a warning handler; freed by the library, also on failure.
            opts.on_log = Some(warning_trampoline);
            opts.log_user_data = Box::into_raw(Box::new(f)) as *mut c_void;
            opts.log_user_data_free = Some(warning_free);
        }
        let mut client = core::ptr::null_mut();
        let mut err = core::ptr::null_mut();
        // SAFETY: opts and its strings live for the call; out-parameters are valid.
        unsafe { Error::check(sys::trainer_client_new(&opts, &mut client, &mut err), err)? };
        NonNull::new(client)
            .map(Client)
            .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_client_new returned NULL"))
    }

    pub(crate) fn raw(&self) -> *mut sys::trainer_client {
        self.0.as_ptr()
    }

    /// The namespace of calls that pass `""`.
    pub fn namespace(&self) -> &str {
        // SAFETY: borrowed from the client, valid while self lives; ASCII (a namespace name).
        unsafe { CStr::from_ptr(sys::trainer_client_namespace(self.raw())) }.to_str().unwrap_or("")
    }

    /// The URL of the API server.
    pub fn server(&self) -> &str {
        // SAFETY: as namespace.
        unsafe { CStr::from_ptr(sys::trainer_client_server(self.raw())) }.to_str().unwrap_or("")
    }

    /// Server-side applies every object of `documents` (a YAML stream or JSON; a `v1` List
    /// stands for its items) in order, as `trainerctl apply -f`. Every TrainJob and runtime is
    /// admitted locally first: when any is rejected the error is [`Code::INVALID`] with its
    /// field errors (`http_status` 0) and nothing is applied.
    pub fn apply(&self, documents: &str, options: &ApplyOptions) -> Result<Vec<AppliedObject>> {
        let mut strs = CStrings::default();
        let mut opts = sys::trainer_cluster_apply_options::INIT;
        opts.namespace_name = strs.opt(&options.namespace)?;
        opts.field_manager = strs.opt(&options.field_manager)?;
        opts.dry_run = i32::from(options.dry_run);
        opts.force = i32::from(options.force);
        opts.cancel = token_ptr(&options.cancel);
        opts.timeout_ms = opt_millis(options.timeout);
        opts.framework = options.framework.as_ref().map_or(core::ptr::null(), Framework::in_use);
        let mut result = core::ptr::null_mut();
        let mut err = core::ptr::null_mut();
        // SAFETY: the text and options live for the call.
        unsafe {
            Error::check(
                sys::trainer_cluster_apply(
                    self.raw(),
                    documents.as_ptr().cast(),
                    documents.len(),
                    &opts,
                    &mut result,
                    &mut err,
                ),
                err,
            )?
        };
        struct Guard(*mut sys::trainer_cluster_apply_result);
        impl Drop for Guard {
            fn drop(&mut self) {
                // SAFETY: owned result, freed once.
                unsafe { sys::trainer_cluster_apply_result_free(self.0) }
            }
        }
        let result = Guard(result);
        // SAFETY: the borrowed strings are copied while the result lives.
        unsafe {
            let n = sys::trainer_cluster_apply_result_count(result.0);
            Ok((0..n)
                .map(|i| AppliedObject {
                    reference: opt_string(sys::trainer_cluster_apply_result_ref(result.0, i))
                        .unwrap_or_default(),
                    json: opt_string(sys::trainer_cluster_apply_result_json(result.0, i))
                        .unwrap_or_default(),
                })
                .collect())
        }
    }

    /// One object as `format` text. `kind` is a Trainer kind as kubectl accepts it
    /// (`trainjob`, `TrainJob`, `trainingruntimes`, ...); `namespace` `""` is the client's. A
    /// missing object is [`Code::NOT_FOUND`] with `http_status` 404.
    pub fn get(
        &self,
        kind: &str,
        namespace: &str,
        name: &str,
        format: Format,
        options: &GetOptions,
    ) -> Result<String> {
        let mut strs = CStrings::default();
        let (kind, namespace, name) = (strs.get(kind)?, strs.get(namespace)?, strs.get(name)?);
        let opts = options.raw(&mut strs)?;
        let mut out = Buffer::new();
        let mut err = core::ptr::null_mut();
        // SAFETY: every pointer lives for the call; out is empty.
        unsafe {
            Error::check(
                sys::trainer_cluster_get(
                    self.raw(),
                    kind,
                    namespace,
                    name,
                    &opts,
                    format.raw(),
                    &mut out.0,
                    &mut err,
                ),
                err,
            )?
        };
        out.into_string()
    }

    /// Every object of `kind` in `namespace` (or every namespace) as one `<Kind>List`.
    pub fn list(
        &self,
        kind: &str,
        namespace: &str,
        format: Format,
        options: &GetOptions,
    ) -> Result<String> {
        let mut strs = CStrings::default();
        let (kind, namespace) = (strs.get(kind)?, strs.get(namespace)?);
        let opts = options.raw(&mut strs)?;
        let mut out = Buffer::new();
        let mut err = core::ptr::null_mut();
        // SAFETY: as get.
        unsafe {
            Error::check(
                sys::trainer_cluster_list(
                    self.raw(),
                    kind,
                    namespace,
                    &opts,
                    format.raw(),
                    &mut out.0,
                    &mut err,
                ),
                err,
            )?
        };
        out.into_string()
    }

    /// Watches TrainJobs in `namespace` and calls `f(event_type, object_json)` for each event
    /// (`ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`) on this thread, until `f` returns false
    /// (then `Ok`), the token is cancelled ([`Code::CANCELLED`]) or an error the watch cannot
    /// recover from. A panic in `f` ends the watch and is resumed here.
    pub fn watch<F>(&self, namespace: &str, options: &WatchOptions, mut f: F) -> Result<()>
    where
        F: FnMut(&str, &str) -> bool,
    {
        struct State<'a> {
            f: &'a mut dyn FnMut(&str, &str) -> bool,
            panic: Option<Box<dyn std::any::Any + Send>>,
        }
        unsafe extern "C" fn trampoline(
            user: *mut c_void,
            event_type: *const c_char,
            object: *const c_char,
            len: usize,
        ) -> sys::trainer_status {
            // SAFETY: user is the State below, alive for the call; strings are borrowed.
            let state = unsafe { &mut *(user as *mut State) };
            let (event_type, object) = unsafe {
                (
                    CStr::from_ptr(event_type).to_string_lossy(),
                    String::from_utf8_lossy(std::slice::from_raw_parts(object.cast::<u8>(), len)),
                )
            };
            match catch_unwind(AssertUnwindSafe(|| (state.f)(&event_type, &object))) {
                Ok(true) => sys::TRAINER_CALLBACK_CONTINUE,
                Ok(false) => sys::TRAINER_CALLBACK_STOP,
                Err(panic) => {
                    state.panic = Some(panic);
                    -1
                }
            }
        }
        let mut strs = CStrings::default();
        let namespace = strs.get(namespace)?;
        let mut opts = sys::trainer_cluster_watch_options::INIT;
        opts.name = strs.opt(&options.name)?;
        opts.label_selector = strs.opt(&options.label_selector)?;
        opts.all_namespaces = i32::from(options.all_namespaces);
        opts.resource_version = strs.opt(&options.resource_version)?;
        opts.cancel = token_ptr(&options.cancel);
        opts.timeout_ms = opt_millis(options.timeout);
        let mut state = State { f: &mut f, panic: None };
        let mut err = core::ptr::null_mut();
        // SAFETY: state and the options live for the call; the callback runs on this thread.
        let result = unsafe {
            Error::check(
                sys::trainer_cluster_watch(
                    self.raw(),
                    namespace,
                    &opts,
                    Some(trampoline),
                    &mut state as *mut State as *mut c_void,
                    &mut err,
                ),
                err,
            )
        };
        if let Some(panic) = state.panic {
            resume_unwind(panic);
        }
        result
    }

    /// Waits until the TrainJob's condition `condition` (`Complete`, `Failed`, `Suspended` or
    /// any type, compared case-insensitively) has the wanted status, as
    /// `kubectl wait --for=condition=...`, for at most `timeout` ([`Duration::ZERO`] checks
    /// once; `None`: no bound but the token), and returns the TrainJob then (JSON). Errors:
    /// [`Code::TIMEOUT`], [`Code::NOT_FOUND`], [`Code::FAILED`] (the TrainJob failed while
    /// waiting for another condition), [`Code::CANCELLED`].
    pub fn wait(
        &self,
        namespace: &str,
        name: &str,
        condition: &str,
        timeout: Option<Duration>,
        options: &WaitOptions,
    ) -> Result<String> {
        let mut strs = CStrings::default();
        let (namespace, name, condition) =
            (strs.get(namespace)?, strs.get(name)?, strs.get(condition)?);
        let mut opts = sys::trainer_cluster_wait_options::INIT;
        opts.status = strs.opt(&options.status)?;
        opts.cancel = token_ptr(&options.cancel);
        opts.timeout_ms = opt_millis(options.timeout);
        let wait_ms = timeout.map_or(-1, millis);
        let mut out = Buffer::new();
        let mut err = core::ptr::null_mut();
        // SAFETY: as get.
        unsafe {
            Error::check(
                sys::trainer_cluster_wait(
                    self.raw(),
                    namespace,
                    name,
                    condition,
                    wait_ms,
                    &opts,
                    &mut out.0,
                    &mut err,
                ),
                err,
            )?
        };
        out.into_string()
    }

    /// Streams the logs of the TrainJob's pods to `f(pod, data)` (never concurrently, possibly
    /// from a library thread with `follow` and several pods) until they end, `f` returns false
    /// (then `Ok`) or the token is cancelled. A TrainJob without a matching pod is
    /// [`Code::NOT_FOUND`]. A panic in `f` ends the call and is resumed here.
    pub fn logs<F>(
        &self,
        namespace: &str,
        name: &str,
        options: &LogsOptions,
        mut f: F,
    ) -> Result<()>
    where
        F: FnMut(&str, &[u8]) -> bool + Send,
    {
        struct State<'a> {
            f: &'a mut (dyn FnMut(&str, &[u8]) -> bool + Send),
            panic: Option<Box<dyn std::any::Any + Send>>,
        }
        unsafe extern "C" fn trampoline(
            user: *mut c_void,
            pod: *const c_char,
            data: *const c_char,
            len: usize,
        ) -> sys::trainer_status {
            // SAFETY: user is the State below, alive for the call and never used concurrently
            // (the library serializes the callback); the strings are borrowed for the call.
            let state = unsafe { &mut *(user as *mut State) };
            let (pod, data) = unsafe {
                (
                    CStr::from_ptr(pod).to_string_lossy(),
                    std::slice::from_raw_parts(data.cast::<u8>(), len),
                )
            };
            match catch_unwind(AssertUnwindSafe(|| (state.f)(&pod, data))) {
                Ok(true) => sys::TRAINER_CALLBACK_CONTINUE,
                Ok(false) => sys::TRAINER_CALLBACK_STOP,
                Err(panic) => {
                    state.panic = Some(panic);
                    -1
                }
            }
        }
        let mut strs = CStrings::default();
        let (namespace, name) = (strs.get(namespace)?, strs.get(name)?);
        let mut opts = sys::trainer_cluster_logs_options::INIT;
        if let Some(node) = options.node {
            opts.node = i32::try_from(node)
                .map_err(|_| Error::new(Code::INVALID_ARGUMENT, "node is too large"))?;
        }
        opts.replicated_job = strs.opt(&options.replicated_job)?;
        opts.all = i32::from(options.all);
        opts.container = strs.opt(&options.container)?;
        opts.follow = i32::from(options.follow);
        opts.tail_lines = options.tail_lines.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        opts.since_seconds =
            options.since.map_or(-1, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        opts.cancel = token_ptr(&options.cancel);
        opts.timeout_ms = opt_millis(options.timeout);
        let mut state = State { f: &mut f, panic: None };
        let mut err = core::ptr::null_mut();
        // SAFETY: state and the options live for the call.
        let result = unsafe {
            Error::check(
                sys::trainer_cluster_logs(
                    self.raw(),
                    namespace,
                    name,
                    &opts,
                    Some(trampoline),
                    &mut state as *mut State as *mut c_void,
                    &mut err,
                ),
                err,
            )
        };
        if let Some(panic) = state.panic {
            resume_unwind(panic);
        }
        result
    }

    /// Deletes the object of `kind` named `name`; a missing one is [`Code::NOT_FOUND`].
    pub fn delete(
        &self,
        kind: &str,
        namespace: &str,
        name: &str,
        options: &DeleteOptions,
    ) -> Result<()> {
        let mut strs = CStrings::default();
        let (kind, namespace, name) = (strs.get(kind)?, strs.get(namespace)?, strs.get(name)?);
        let mut opts = sys::trainer_cluster_delete_options::INIT;
        opts.propagation = match options.propagation {
            Propagation::Foreground => sys::TRAINER_PROPAGATION_FOREGROUND,
            Propagation::Background => sys::TRAINER_PROPAGATION_BACKGROUND,
            Propagation::Orphan => sys::TRAINER_PROPAGATION_ORPHAN,
        };
        opts.dry_run = i32::from(options.dry_run);
        opts.cancel = token_ptr(&options.cancel);
        opts.timeout_ms = opt_millis(options.timeout);
        let mut err = core::ptr::null_mut();
        // SAFETY: every pointer lives for the call.
        unsafe {
            Error::check(
                sys::trainer_cluster_delete(self.raw(), kind, namespace, name, &opts, &mut err),
                err,
            )
        }
    }
}

// ---- Options and results ----------------------------------------------------------------------

/// One object [`Client::apply`] applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppliedObject {
    /// kubectl's reference, `trainjob.trainer.kubeflow.org/mnist`.
    pub reference: String,
    /// The object as the server returned it, compact JSON.
    pub json: String,
}

/// Options of [`Client::apply`]. `None` means the library default.
#[derive(Clone, Default)]
pub struct ApplyOptions {
    /// Namespace of objects that name none [the client's].
    pub namespace: Option<String>,
    /// Server-side apply field manager \[`trainerctl`\].
    pub field_manager: Option<String>,
    /// Server dry run: nothing is stored.
    pub dry_run: bool,
    /// Take over fields other managers own.
    pub force: bool,
    pub cancel: Option<CancelToken>,
    /// Bound on each request [the client's].
    pub timeout: Option<Duration>,
    /// The plugins whose rules admission applies before anything is sent [the built-in
    /// plugins, gates off].
    pub framework: Option<Framework>,
}

/// Options of [`Client::get`] and [`Client::list`].
#[derive(Clone, Default)]
pub struct GetOptions {
    /// List only: kubectl's `-l` [every object].
    pub label_selector: Option<String>,
    /// List only: kubectl's `-A`.
    pub all_namespaces: bool,
    pub cancel: Option<CancelToken>,
    /// Bound on each request [the client's].
    pub timeout: Option<Duration>,
}

impl GetOptions {
    fn raw(&self, strs: &mut CStrings) -> Result<sys::trainer_cluster_get_options> {
        let mut opts = sys::trainer_cluster_get_options::INIT;
        opts.label_selector = strs.opt(&self.label_selector)?;
        opts.all_namespaces = i32::from(self.all_namespaces);
        opts.cancel = token_ptr(&self.cancel);
        opts.timeout_ms = opt_millis(self.timeout);
        Ok(opts)
    }
}

/// Options of [`Client::watch`].
#[derive(Clone, Default)]
pub struct WatchOptions {
    /// Only this TrainJob [every TrainJob].
    pub name: Option<String>,
    pub label_selector: Option<String>,
    pub all_namespaces: bool,
    /// Changes after this version [the current TrainJobs first, as `ADDED`, then changes].
    pub resource_version: Option<String>,
    pub cancel: Option<CancelToken>,
    /// Bound on each non-streaming request [the client's].
    pub timeout: Option<Duration>,
}

/// Options of [`Client::wait`].
#[derive(Clone, Default)]
pub struct WaitOptions {
    /// The condition status waited for \[`True`\].
    pub status: Option<String>,
    pub cancel: Option<CancelToken>,
    /// Bound on each request [the client's].
    pub timeout: Option<Duration>,
}

/// Options of [`Client::logs`]: which pods of the TrainJob's JobSet, which container.
#[derive(Clone, Default)]
pub struct LogsOptions {
    /// The trainer node index (`--node N`) [the replicated job's pods].
    pub node: Option<u32>,
    /// [`node` when the JobSet has it, else every pod].
    pub replicated_job: Option<String>,
    /// Every pod of the TrainJob.
    pub all: bool,
    /// [`node` for trainer pods, else the only container].
    pub container: Option<String>,
    /// Stream until the containers end.
    pub follow: bool,
    /// The last lines only [the whole log].
    pub tail_lines: Option<u64>,
    /// Newer lines only (whole seconds) [the whole log].
    pub since: Option<Duration>,
    pub cancel: Option<CancelToken>,
    /// Bound on each non-streaming request [the client's].
    pub timeout: Option<Duration>,
}

/// Deletion propagation (`propagationPolicy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Propagation {
    /// The object first, dependents by the garbage collector (kubectl's default).
    #[default]
    Background,
    /// Dependents (the JobSet, its pods) first.
    Foreground,
    /// Dependents are left.
    Orphan,
}

/// Options of [`Client::delete`].
#[derive(Clone, Default)]
pub struct DeleteOptions {
    pub propagation: Propagation,
    /// Server dry run: nothing is deleted.
    pub dry_run: bool,
    pub cancel: Option<CancelToken>,
    /// Bound on the request [the client's].
    pub timeout: Option<Duration>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_round_up() {
        assert_eq!(millis(Duration::from_nanos(1)), 1);
        assert_eq!(millis(Duration::from_millis(1500)), 1500);
        assert_eq!(opt_millis(None), 0);
    }

    #[test]
    fn interior_nul_is_refused() {
        let err = CStrings::default().get("a\0b").unwrap_err();
        assert_eq!(err.code, Code::INVALID_ARGUMENT);
    }

    #[test]
    fn tokens_share_their_state() {
        let token = CancelToken::new().unwrap();
        let clone = token.clone();
        assert!(!token.is_cancelled());
        std::thread::spawn(move || clone.cancel()).join().unwrap();
        assert!(token.is_cancelled());
    }
}
