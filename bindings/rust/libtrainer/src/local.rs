// SPDX-License-Identifier: Apache-2.0
//! Local execution (`trainer/local.h`): the objects rendered for one TrainJob run on this
//! machine, one process per pod, until the TrainJob is Complete or Failed (docs/local.md).

use crate::cluster::millis;
use crate::{sys, Buffer, Code, Error, Result};
use core::ffi::{c_char, c_void, CStr};
use std::ffi::CString;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::ptr::{self, NonNull};
use std::sync::Arc;
use std::time::Duration;

/// How pods are isolated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Isolation {
    /// Namespaces when permitted, else the host with a warning.
    #[default]
    Auto,
    /// Own mount/UTS/PID namespaces; [`Code::UNSUPPORTED`] when not permitted.
    Namespaces,
    /// No namespaces: hostnames rewritten to 127.0.0.1.
    Host,
}

/// The phase of a run. An open set, like [`Code`]: a newer library may report another value.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Phase(pub i32);

impl Phase {
    pub const PENDING: Phase = Phase(sys::TRAINER_RUN_PENDING);
    pub const RUNNING: Phase = Phase(sys::TRAINER_RUN_RUNNING);
    pub const SUSPENDED: Phase = Phase(sys::TRAINER_RUN_SUSPENDED);
    pub const COMPLETE: Phase = Phase(sys::TRAINER_RUN_COMPLETE);
    pub const FAILED: Phase = Phase(sys::TRAINER_RUN_FAILED);

    /// "Pending", "Running", "Suspended", "Complete", "Failed"; "Unknown" for other values.
    pub fn name(self) -> &'static str {
        // SAFETY: static storage, never NULL.
        unsafe { CStr::from_ptr(sys::trainer_run_phase_name(self.0)) }.to_str().unwrap_or("Unknown")
    }

    /// Suspended, Complete and Failed are final.
    pub fn is_finished(self) -> bool {
        matches!(self, Phase::SUSPENDED | Phase::COMPLETE | Phase::FAILED)
    }
}

impl fmt::Debug for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One line a pod wrote, or a piece of one (a redraw keeps its `\r` as the last byte; a line
/// longer than 64 KiB comes in 64 KiB pieces without a terminator: docs/local.md, "Logs"),
/// borrowed for the callback.
#[derive(Debug)]
pub struct LogLine<'a> {
    /// The terminal prefix without brackets (`node-0-0`).
    pub prefix: &'a str,
    /// The pod's name.
    pub pod: &'a str,
    pub is_stderr: bool,
    /// The line without its newline.
    pub text: &'a [u8],
}

/// Receives every complete line a pod writes, from the run's supervisor thread, one line at a
/// time. Returning `false` cancels the run, and so does a panic (which is caught there).
pub type LogFn = Box<dyn FnMut(&LogLine<'_>) -> bool + Send>;

/// Options of [`Run::start`].
#[derive(Default)]
pub struct RunOptions {
    /// The run folder (created; must not hold a previous run). Required.
    pub run_dir: PathBuf,
    pub isolation: Isolation,
    /// The `trainer-pod` helper [`TRAINER_POD_HELPER`, else the installed or build-tree one].
    pub pod_helper: Option<PathBuf>,
    /// [lines only go to the run folder's log files]
    pub on_log: Option<LogFn>,
    /// The progress server the objects were rendered with [none: a projected service account
    /// token is refused with [`Code::UNSUPPORTED`]].
    pub progress_server: Option<ProgressServer>,
}

/// The TrainJobStatus progress endpoint of local runs (`trainer_progress_server`,
/// docs/local.md "Progress"): render with it ([`RenderOptions::progress_server`](
/// crate::RenderOptions::progress_server), with `TrainJobStatus=true`) and run with it
/// ([`RunOptions::progress_server`]), and the pods' progress posts become the run's
/// `trainerStatus`. Clones share one server; runs started with it keep it serving.
#[derive(Clone)]
pub struct ProgressServer(Arc<ServerHandle>);

struct ServerHandle(NonNull<sys::trainer_progress_server>);

// SAFETY: local.h: the progress server is thread-safe; free is Drop, the last call.
unsafe impl Send for ServerHandle {}
unsafe impl Sync for ServerHandle {}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        // SAFETY: owned, freed once.
        unsafe { sys::trainer_progress_server_free(self.0.as_ptr()) }
    }
}

impl ProgressServer {
    /// Listens on `bind_address` (`None`: 127.0.0.1) and `port` (0: a free one). Errors:
    /// [`Code::INVALID_ARGUMENT`] (a bad address), [`Code::IO`] (the port is taken).
    pub fn start(bind_address: Option<&str>, port: u16) -> Result<ProgressServer> {
        let address = bind_address
            .map(|a| {
                CString::new(a).map_err(|_| {
                    Error::new(Code::INVALID_ARGUMENT, "the bind address contains a NUL character")
                })
            })
            .transpose()?;
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: the address lives for the call; out-parameters are valid.
        unsafe {
            Error::check(
                sys::trainer_progress_server_start(
                    address.as_ref().map_or(ptr::null(), |a| a.as_ptr()),
                    port,
                    &mut out,
                    &mut err,
                ),
                err,
            )?
        };
        NonNull::new(out).map(|p| ProgressServer(Arc::new(ServerHandle(p)))).ok_or_else(|| {
            Error::new(Code::INTERNAL, "trainer_progress_server_start returned NULL")
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        // SAFETY: a live handle.
        unsafe { sys::trainer_progress_server_port(self.raw()) }
    }

    /// Its CA certificate (PEM), what the pods verify it with.
    pub fn ca_cert(&self) -> String {
        // SAFETY: a live handle; the text lives as long as it.
        unsafe { CStr::from_ptr(sys::trainer_progress_server_ca_cert(self.raw())) }
            .to_string_lossy()
            .into_owned()
    }

    pub(crate) fn raw(&self) -> *const sys::trainer_progress_server {
        self.0 .0.as_ptr()
    }
}

impl fmt::Debug for ProgressServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProgressServer").field("port", &self.port()).finish()
    }
}

unsafe extern "C" fn log_trampoline(
    user: *mut c_void,
    prefix: *const c_char,
    pod: *const c_char,
    is_stderr: i32,
    text: *const c_char,
    len: usize,
) -> sys::trainer_status {
    // SAFETY: `user` is the Box<LogFn> of the run, alive until log_free; the library never
    // calls this concurrently with itself, so the &mut is unique.
    let f = unsafe { &mut *(user as *mut LogFn) };
    // SAFETY: every pointer is borrowed for the call; `text` is `len` bytes.
    let (prefix, pod, text) = unsafe {
        (
            CStr::from_ptr(prefix).to_str().unwrap_or(""),
            CStr::from_ptr(pod).to_str().unwrap_or(""),
            if len == 0 { &[][..] } else { std::slice::from_raw_parts(text.cast::<u8>(), len) },
        )
    };
    let line = LogLine { prefix, pod, is_stderr: is_stderr != 0, text };
    match catch_unwind(AssertUnwindSafe(|| f(&line))) {
        Ok(true) => sys::TRAINER_OK,
        // Any other status cancels the run.
        Ok(false) | Err(_) => sys::TRAINER_E_USER,
    }
}

unsafe extern "C" fn log_free(user: *mut c_void) {
    // SAFETY: called once by the library with the pointer Box::into_raw made; a panic in the
    // closure's Drop must not unwind into C.
    let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(user as *mut LogFn) })));
}

fn path_cstring(p: &Path) -> Result<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(p.as_os_str().as_bytes()).map_err(|_| {
        Error::new(Code::INVALID_ARGUMENT, format!("{} contains a NUL character", p.display()))
    })
}

/// A running (or finished) local execution (`trainer_run`). Every method may be called from any
/// thread at once, so `Send` and `Sync`. Drop cancels a run that is still going, waits until
/// every pod process is gone and then drops the log closure.
pub struct Run(NonNull<sys::trainer_run>);

// SAFETY: local.h: every function but trainer_run_free may be called from any thread
// concurrently; free is Drop, the last call.
unsafe impl Send for Run {}
unsafe impl Sync for Run {}

impl Drop for Run {
    fn drop(&mut self) {
        // SAFETY: owned, freed once, no call in flight (&mut self).
        unsafe { sys::trainer_run_free(self.0.as_ptr()) }
    }
}

impl Run {
    /// Starts executing `objects` (a YAML stream or JSON: the JobSet and its ConfigMaps and
    /// Secrets, e.g. [`RenderResult::encode`](crate::RenderResult::encode)) and returns at
    /// once. Errors: [`Code::INVALID_ARGUMENT`] (a folder that holds a run), [`Code::PARSE`],
    /// [`Code::INVALID`] (with field paths), [`Code::NOT_FOUND`] (a ConfigMap, Secret or key,
    /// or the pod helper), [`Code::UNSUPPORTED`], [`Code::IO`].
    pub fn start(objects: impl AsRef<[u8]>, options: RunOptions) -> Result<Run> {
        let objects = objects.as_ref();
        if options.run_dir.as_os_str().is_empty() {
            return Err(Error::new(Code::INVALID_ARGUMENT, "RunOptions::run_dir is required"));
        }
        let run_dir = path_cstring(&options.run_dir)?;
        let helper = options.pod_helper.as_deref().map(path_cstring).transpose()?;
        let mut opts = sys::trainer_run_options::INIT;
        opts.run_dir = run_dir.as_ptr();
        opts.isolation = match options.isolation {
            Isolation::Auto => sys::TRAINER_ISOLATION_AUTO,
            Isolation::Namespaces => sys::TRAINER_ISOLATION_NAMESPACES,
            Isolation::Host => sys::TRAINER_ISOLATION_HOST,
        };
        opts.pod_helper = helper.as_ref().map_or(ptr::null(), |h| h.as_ptr());
        opts.progress_server =
            options.progress_server.as_ref().map_or(ptr::null(), ProgressServer::raw);
        if let Some(f) = options.on_log {
            // The library owns it from here: log_free runs when the run is freed, or at once
            // when the start fails (the options are of a known version, so they are read).
            opts.on_log = Some(log_trampoline);
            opts.log_user_data = Box::into_raw(Box::new(f)).cast();
            opts.log_user_data_free = Some(log_free);
        }
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: the text and options live for the call; out-parameters are valid.
        unsafe {
            Error::check(
                sys::trainer_run_start(
                    objects.as_ptr().cast(),
                    objects.len(),
                    &opts,
                    &mut out,
                    &mut err,
                ),
                err,
            )?
        };
        NonNull::new(out)
            .map(Run)
            .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_run_start returned NULL"))
    }

    fn raw(&self) -> *mut sys::trainer_run {
        self.0.as_ptr()
    }

    /// Waits until the run is finished and every pod process is gone, for at most `timeout`
    /// (`None`: no limit), and returns the phase then. [`Code::TIMEOUT`] when the time passed
    /// first (the run goes on).
    pub fn wait(&self, timeout: Option<Duration>) -> Result<Phase> {
        let mut phase = sys::TRAINER_RUN_FAILED;
        let mut err = ptr::null_mut();
        let ms = timeout.map_or(-1, millis);
        // SAFETY: live run; wait may run concurrently with the other calls.
        unsafe { Error::check(sys::trainer_run_wait(self.raw(), ms, &mut phase, &mut err), err)? };
        Ok(Phase(phase))
    }

    /// The current phase; never blocks long.
    pub fn phase(&self) -> Phase {
        // SAFETY: live run.
        Phase(unsafe { sys::trainer_run_phase(self.raw()) })
    }

    /// The run's status as JSON: TrainJob conditions, jobsStatus, restarts and every pod.
    pub fn status(&self) -> Result<String> {
        let mut buf = Buffer::new();
        let mut err = ptr::null_mut();
        // SAFETY: live run; `buf` is empty.
        unsafe { Error::check(sys::trainer_run_status(self.raw(), &mut buf.0, &mut err), err)? };
        buf.into_string()
    }

    /// Stops every pod (SIGTERM, the grace period, SIGKILL); the run ends Failed with reason
    /// `Cancelled` unless it had finished. Returns at once.
    pub fn cancel(&self) {
        // SAFETY: live run; cancel is thread-safe.
        unsafe { sys::trainer_run_cancel(self.raw()) }
    }
}

/// The status document of the run folder `run_dir`, written by any process (running or
/// finished; a run whose executor died reads as Failed with reason `ExecutorLost`). Errors:
/// [`Code::NOT_FOUND`] (no run there), [`Code::PARSE`].
pub fn read_run_status(run_dir: impl AsRef<Path>) -> Result<String> {
    let dir = path_cstring(run_dir.as_ref())?;
    let mut buf = Buffer::new();
    let mut err = ptr::null_mut();
    // SAFETY: the path lives for the call; `buf` is empty.
    unsafe { Error::check(sys::trainer_run_read_status(dir.as_ptr(), &mut buf.0, &mut err), err)? };
    buf.into_string()
}

impl fmt::Debug for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run").field("phase", &self.phase()).finish()
    }
}
