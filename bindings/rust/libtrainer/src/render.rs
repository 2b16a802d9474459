// SPDX-License-Identifier: Apache-2.0
//! Render (`trainer_render`): a TrainJob and its runtime in, the objects the controller would
//! create out, as `trainerctl render` prints them.

use crate::cluster::CStrings;
use crate::{
    opt_string, sys, Buffer, Code, Error, Format, Framework, ParseOptions, ProgressServer, Result,
};
use core::ffi::c_char;
use core::ptr::{self, NonNull};

/// Options of [`render`]. `None` means the library default (in brackets).
#[derive(Clone, Default)]
pub struct RenderOptions {
    /// TrainJob UID used in owner references [the TrainJob's `metadata.uid`, else random].
    pub uid: Option<String>,
    /// Namespace of inputs that have none, as `kubectl --namespace` ["default"].
    pub namespace: Option<String>,
    /// Upstream's `--feature-gates` (`TrainJobStatus=true`) [all off]. Must be `None` with a
    /// [`RenderOptions::framework`]: the framework's gates apply.
    pub feature_gates: Option<String>,
    /// MPI: PEM text of the ECDSA P-521 private key for the SSH Secret [a fresh key pair].
    pub ssh_private_key: Option<String>,
    /// RFC 3339 UTC time stamp used where a step needs the time [the system clock].
    pub now: Option<String>,
    /// A ClusterTrainingRuntime that is not among the inputs may be a built-in one.
    pub builtin_runtimes: bool,
    /// Limits for parsing the input [library defaults].
    pub parse: Option<ParseOptions>,
    /// The plugins [the built-in plugins of `feature_gates`].
    pub framework: Option<Framework>,
    /// A local run's progress server: its port and CA in the rendered TrainJobStatus env and
    /// `<job>-tls-config` [upstream's port, the Secret among the inputs].
    pub progress_server: Option<ProgressServer>,
}

/// One rendered object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedObject {
    pub kind: String,
    pub api_version: String,
    pub name: String,
    /// "" for cluster-scoped objects.
    pub namespace: String,
    /// The object as compact JSON.
    pub json: String,
}

/// The outcome of one render (`trainer_render_result`): immutable, so `Send` and `Sync`.
pub struct RenderResult(NonNull<sys::trainer_render_result>);

// SAFETY: trainer_render_result is shareable (immutable); Drop is the last call.
unsafe impl Send for RenderResult {}
unsafe impl Sync for RenderResult {}

impl Drop for RenderResult {
    fn drop(&mut self) {
        // SAFETY: owned, freed once.
        unsafe { sys::trainer_render_result_free(self.0.as_ptr()) }
    }
}

/// Renders the one TrainJob among the documents of `input` (a YAML stream or JSON; a `v1` List
/// stands for its items) as `trainerctl render`: defaults, admission (every plugin's rules), the
/// runtime and the plugin pipeline. Errors: [`Code::INVALID`] with field errors,
/// [`Code::NOT_FOUND`] for a runtime that is not among the inputs, [`Code::PARSE`],
/// [`Code::LIMIT`], [`Code::INVALID_ARGUMENT`] for bad options, or a plugin's error.
pub fn render(input: impl AsRef<[u8]>, options: &RenderOptions) -> Result<RenderResult> {
    let input = input.as_ref();
    let mut strs = CStrings::default();
    let mut opts = sys::trainer_render_options::INIT;
    opts.uid = strs.opt(&options.uid)?;
    opts.namespace_name = strs.opt(&options.namespace)?;
    opts.feature_gates = strs.opt(&options.feature_gates)?;
    opts.ssh_private_key = strs.opt(&options.ssh_private_key)?;
    opts.now = strs.opt(&options.now)?;
    opts.builtin_runtimes = i32::from(options.builtin_runtimes);
    let parse = options.parse.as_ref().map(ParseOptions::raw);
    opts.parse = parse.as_ref().map_or(ptr::null(), |p| p as *const _);
    opts.framework = options.framework.as_ref().map_or(ptr::null(), Framework::in_use);
    opts.progress_server =
        options.progress_server.as_ref().map_or(ptr::null(), ProgressServer::raw);
    let mut out = ptr::null_mut();
    let mut err = ptr::null_mut();
    // SAFETY: the input, strings and options live for the call; out-parameters are valid.
    unsafe {
        Error::check(
            sys::trainer_render(
                input.as_ptr().cast::<c_char>(),
                input.len(),
                &opts,
                &mut out,
                &mut err,
            ),
            err,
        )?
    };
    NonNull::new(out)
        .map(RenderResult)
        .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_render returned no result"))
}

impl RenderResult {
    fn raw(&self) -> *const sys::trainer_render_result {
        self.0.as_ptr()
    }

    /// Number of rendered objects.
    pub fn len(&self) -> usize {
        // SAFETY: live result.
        unsafe { sys::trainer_render_result_count(self.raw()) }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The objects, in the order of docs/framework.md (copies).
    pub fn objects(&self) -> Vec<RenderedObject> {
        let r = self.raw();
        // SAFETY: live result; borrowed strings are copied while it lives.
        (0..self.len())
            .map(|i| unsafe {
                RenderedObject {
                    kind: opt_string(sys::trainer_render_result_kind(r, i)).unwrap_or_default(),
                    api_version: opt_string(sys::trainer_render_result_api_version(r, i))
                        .unwrap_or_default(),
                    name: opt_string(sys::trainer_render_result_name(r, i)).unwrap_or_default(),
                    namespace: opt_string(sys::trainer_render_result_namespace(r, i))
                        .unwrap_or_default(),
                    json: opt_string(sys::trainer_render_result_json(r, i)).unwrap_or_default(),
                }
            })
            .collect()
    }

    /// The admission warnings (kubectl prints them as `Warning: <text>`).
    pub fn warnings(&self) -> Vec<String> {
        let r = self.raw();
        // SAFETY: as objects.
        unsafe {
            (0..sys::trainer_render_result_warning_count(r))
                .filter_map(|i| opt_string(sys::trainer_render_result_warning(r, i)))
                .collect()
        }
    }

    /// Why nothing was rendered (the TrainJob is managed by another controller); `None` when
    /// the objects were rendered.
    pub fn skipped_reason(&self) -> Option<String> {
        // SAFETY: live result.
        opt_string(unsafe { sys::trainer_render_result_skipped_reason(self.raw()) })
            .filter(|s| !s.is_empty())
    }

    /// Every object as `trainerctl render` prints them: YAML, a `---`-separated stream; JSON, a
    /// `v1` List.
    pub fn encode(&self, format: Format) -> Result<String> {
        let mut buf = Buffer::new();
        let mut err = ptr::null_mut();
        // SAFETY: live result; `buf` is empty as required.
        let st = unsafe {
            sys::trainer_render_result_encode(self.raw(), format.raw(), &mut buf.0, &mut err)
        };
        // SAFETY: `err` came from the call above.
        unsafe { Error::check(st, err) }?;
        buf.into_string()
    }
}

impl core::fmt::Debug for RenderResult {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RenderResult")
            .field("objects", &self.objects().iter().map(|o| &o.name).collect::<Vec<_>>())
            .field("warnings", &self.warnings())
            .field("skipped_reason", &self.skipped_reason())
            .finish()
    }
}
