// SPDX-License-Identifier: Apache-2.0
//! The TrainJob controller (`trainer/controller.h`) inside this process: [`Controller::run`]
//! watches and reconciles TrainJobs until [`Controller::stop`] from another thread;
//! [`reconcile`] does one pass for one TrainJob (docs/controller.md).

use crate::cluster::{opt_millis, token_ptr, CStrings};
use crate::{sys, Buffer, CancelToken, Client, Code, Error, Framework, Result};
use core::ffi::{c_char, c_void};
use core::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::time::Duration;

/// Receives each reconcile's outcome: its JSON (`{"key": "ns/name", "applied": [...], ...}`) and
/// the error when it failed (it is retried). Called from worker threads, possibly at once; a
/// panic is caught there and dropped.
pub type ReconcileFn = Box<dyn Fn(&str, Option<&Error>) + Send + Sync>;

/// Options of [`Controller::new`]. `None`/0 means the library default (in brackets).
#[derive(Default)]
pub struct ControllerOptions {
    /// Watch only this namespace [every namespace].
    pub namespace: Option<String>,
    /// TrainJobs reconciled at once \[5\].
    pub workers: Option<u32>,
    /// Upstream's `--feature-gates` [all off]; `None` with a framework.
    pub feature_gates: Option<String>,
    /// Record no Events on TrainJobs.
    pub no_events: bool,
    /// `run` reconciles every TrainJob present at the start once and returns.
    pub once: bool,
    /// [10 h]
    pub resync_period: Option<Duration>,
    /// Reconciles in flight get this long after `stop` [30 s].
    pub shutdown_timeout: Option<Duration>,
    /// Reconcile only while holding a coordination.k8s.io Lease.
    pub leader_elect: bool,
    /// ["default"]
    pub leader_election_namespace: Option<String>,
    /// ["trainer.kubeflow.org"]
    pub leader_election_id: Option<String>,
    /// \[`<hostname>_<random>`\]
    pub leader_election_identity: Option<String>,
    /// [15 s]
    pub lease_duration: Option<Duration>,
    /// [10 s]
    pub renew_deadline: Option<Duration>,
    /// [2 s]
    pub retry_period: Option<Duration>,
    pub on_reconcile: Option<ReconcileFn>,
    /// The plugins every reconcile renders with (the controller keeps its own reference)
    /// [the built-in plugins of `feature_gates`].
    pub framework: Option<Framework>,
    /// The HTTPS endpoints `run` serves (docs/controller.md, "Admission webhooks").
    pub serving: ServingOptions,
}

/// The controller's HTTPS endpoints and their certificate; `None`/0 mean the default in
/// brackets.
#[derive(Default, Clone, Debug)]
pub struct ServingOptions {
    /// Holds the webhook Service and certificate Secret [the in-cluster service account's
    /// namespace, else "kubeflow-system"].
    pub operator_namespace: Option<String>,
    /// ["kubeflow-trainer-controller-manager"]
    pub webhook_service_name: Option<String>,
    /// ["kubeflow-trainer-webhook-cert"]
    pub webhook_secret_name: Option<String>,
    /// Bring your own tls.crt and tls.key (and ca.crt) [generated].
    pub webhook_cert_dir: Option<String>,
    /// More subject alternative names of the generated certificate (IP addresses or DNS names).
    pub webhook_cert_hosts: Vec<String>,
    /// ["0.0.0.0"]
    pub webhook_bind_address: Option<String>,
    /// The admission webhooks over HTTPS on this port; 0: not served \[0\].
    pub webhook_port: u16,
    /// ["0.0.0.0"]
    pub status_server_bind_address: Option<String>,
    /// The TrainJobStatus progress server's port (served when that gate is on) \[10443\];
    /// `Some(0)`: not served.
    pub status_server_port: Option<u16>,
}

unsafe extern "C" fn reconcile_trampoline(
    user: *mut c_void,
    result: *const c_char,
    len: usize,
    error: *const sys::trainer_error,
) -> sys::trainer_status {
    // SAFETY: `user` is the Box<ReconcileFn> of the controller, alive until reconcile_free; the
    // closure is Sync, so concurrent calls are fine. `result` is `len` bytes.
    let f = unsafe { &*(user as *const ReconcileFn) };
    let result = unsafe { String::from_utf8_lossy(std::slice::from_raw_parts(result.cast(), len)) };
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the error is borrowed for the call; copied, never freed here.
        let error = unsafe { Error::copy(error) };
        f(&result, error.as_ref())
    }));
    sys::TRAINER_OK
}

unsafe extern "C" fn reconcile_free(user: *mut c_void) {
    // SAFETY: called once with the pointer Box::into_raw made.
    let _ =
        catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(user as *mut ReconcileFn) })));
}

fn count(what: &str, n: Option<u32>) -> Result<i32> {
    n.map_or(Ok(0), |n| {
        i32::try_from(n)
            .map_err(|_| Error::new(Code::INVALID_ARGUMENT, format!("{what} is too large")))
    })
}

/// The TrainJob controller over one [`Client`], which it borrows. `run` blocks the calling
/// thread; `stop` and `metrics` may be called from any thread meanwhile, so a `Controller` is
/// `Send` and `Sync` (share it with `std::thread::scope` or an `Arc`).
pub struct Controller<'c> {
    ptr: NonNull<sys::trainer_controller>,
    _client: PhantomData<&'c Client>,
}

// SAFETY: controller.h: stop and metrics from any thread at any time, also while run blocks;
// run at most once (a second run fails); free (Drop) after run returned, which the borrow
// checker ensures.
unsafe impl Send for Controller<'_> {}
unsafe impl Sync for Controller<'_> {}

impl Drop for Controller<'_> {
    fn drop(&mut self) {
        // SAFETY: owned; no run in flight (&mut self).
        unsafe { sys::trainer_controller_free(self.ptr.as_ptr()) }
    }
}

impl<'c> Controller<'c> {
    /// A controller over `client`; nothing is contacted until [`Controller::run`]. Errors:
    /// [`Code::INVALID_ARGUMENT`] (workers above 1024, bad feature gates, gates and a
    /// framework).
    pub fn new(client: &'c Client, options: ControllerOptions) -> Result<Controller<'c>> {
        let mut strs = CStrings::default();
        let mut opts = sys::trainer_controller_options::INIT;
        opts.namespace_name = strs.opt(&options.namespace)?;
        opts.workers = count("workers", options.workers)?;
        opts.feature_gates = strs.opt(&options.feature_gates)?;
        opts.no_events = i32::from(options.no_events);
        opts.once = i32::from(options.once);
        opts.resync_period_ms = opt_millis(options.resync_period);
        opts.shutdown_timeout_ms = opt_millis(options.shutdown_timeout);
        opts.leader_elect = i32::from(options.leader_elect);
        opts.leader_election_namespace = strs.opt(&options.leader_election_namespace)?;
        opts.leader_election_id = strs.opt(&options.leader_election_id)?;
        opts.leader_election_identity = strs.opt(&options.leader_election_identity)?;
        opts.lease_duration_ms = opt_millis(options.lease_duration);
        opts.renew_deadline_ms = opt_millis(options.renew_deadline);
        opts.retry_period_ms = opt_millis(options.retry_period);
        opts.framework = options.framework.as_ref().map_or(ptr::null(), Framework::in_use);
        let serving = &options.serving;
        opts.operator_namespace = strs.opt(&serving.operator_namespace)?;
        opts.webhook_service_name = strs.opt(&serving.webhook_service_name)?;
        opts.webhook_secret_name = strs.opt(&serving.webhook_secret_name)?;
        opts.webhook_cert_dir = strs.opt(&serving.webhook_cert_dir)?;
        let hosts = serving.webhook_cert_hosts.join(",");
        opts.webhook_cert_hosts = strs.opt(&(!hosts.is_empty()).then_some(hosts))?;
        opts.webhook_bind_address = strs.opt(&serving.webhook_bind_address)?;
        opts.webhook_port = i32::from(serving.webhook_port);
        opts.status_server_bind_address = strs.opt(&serving.status_server_bind_address)?;
        opts.status_server_port = match serving.status_server_port {
            None => 0,
            Some(0) => -1,
            Some(port) => i32::from(port),
        };
        if let Some(f) = options.on_reconcile {
            // The library owns it from here: freed with the controller, or at once on failure.
            opts.on_reconcile = Some(reconcile_trampoline);
            opts.reconcile_user_data = Box::into_raw(Box::new(f)).cast();
            opts.reconcile_user_data_free = Some(reconcile_free);
        }
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: the client outlives the controller ('c); options live for the call.
        unsafe {
            Error::check(sys::trainer_controller_new(client.raw(), &opts, &mut out, &mut err), err)?
        };
        NonNull::new(out)
            .map(|ptr| Controller { ptr, _client: PhantomData })
            .ok_or_else(|| Error::new(Code::INTERNAL, "trainer_controller_new returned NULL"))
    }

    /// Runs the loop on this thread until [`Controller::stop`] (then `Ok`), or with `once`
    /// until every TrainJob present at the start was reconciled. A controller runs once: a
    /// second run fails with [`Code::INVALID_ARGUMENT`].
    pub fn run(&self) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY: live controller; run and stop/metrics may overlap.
        unsafe { Error::check(sys::trainer_controller_run(self.ptr.as_ptr(), &mut err), err) }
    }

    /// Asks the controller to stop; returns at once. Idempotent; a stop before the run makes
    /// the run return at once.
    pub fn stop(&self) {
        // SAFETY: live controller; stop is callable from any thread at any time.
        unsafe { sys::trainer_controller_stop(self.ptr.as_ptr()) }
    }

    /// The controller's counters as Prometheus text.
    pub fn metrics(&self) -> Result<String> {
        let mut buf = Buffer::new();
        let mut err = ptr::null_mut();
        // SAFETY: live controller; `buf` is empty.
        unsafe {
            Error::check(
                sys::trainer_controller_metrics(self.ptr.as_ptr(), &mut buf.0, &mut err),
                err,
            )?
        };
        buf.into_string()
    }
}

/// Options of [`reconcile`].
#[derive(Clone, Default)]
pub struct ReconcileOptions {
    /// As [`ControllerOptions::feature_gates`] [all off].
    pub feature_gates: Option<String>,
    /// Record no Events.
    pub no_events: bool,
    pub cancel: Option<CancelToken>,
    /// The plugins the reconcile renders with [the built-in plugins of `feature_gates`]; with
    /// one, `feature_gates` must be `None`.
    pub framework: Option<Framework>,
}

/// One reconcile of the TrainJob `name` in `namespace` (`""`: the client's), as the controller
/// does it: its objects applied and its status written. Returns the result's JSON; a TrainJob
/// that does not exist is `"skipped":true`, not an error.
pub fn reconcile(
    client: &Client,
    namespace: &str,
    name: &str,
    options: &ReconcileOptions,
) -> Result<String> {
    let mut strs = CStrings::default();
    let (namespace, name) = (strs.get(namespace)?, strs.get(name)?);
    let mut opts = sys::trainer_controller_reconcile_options::INIT;
    opts.feature_gates = strs.opt(&options.feature_gates)?;
    opts.no_events = i32::from(options.no_events);
    opts.cancel = token_ptr(&options.cancel);
    opts.framework = options.framework.as_ref().map_or(ptr::null(), Framework::in_use);
    let mut buf = Buffer::new();
    let mut err = ptr::null_mut();
    // SAFETY: every pointer lives for the call; `buf` is empty.
    unsafe {
        Error::check(
            sys::trainer_controller_reconcile(
                client.raw(),
                namespace,
                name,
                &opts,
                &mut buf.0,
                &mut err,
            ),
            err,
        )?
    };
    buf.into_string()
}
