// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <stdint.h>
#include <stdlib.h>
#include <trainer.h>

// Defined by //export in controller_export.go (cgo's spelling: no const).
extern trainer_status goTrainerReconcile(void*, char*, size_t, trainer_error*);
extern void goTrainerReconcileFree(void*);

// user_data is a cgo.Handle, passed as an integer (see cluster.go).
static void go_trainer_set_reconcile(trainer_controller_options* o, uintptr_t handle) {
  o->on_reconcile = (trainer_controller_reconcile_fn)goTrainerReconcile;
  o->reconcile_user_data = (void*)handle;
  o->reconcile_user_data_free = goTrainerReconcileFree;
}
*/
import "C"

import (
	"context"
	"encoding/json"
	"runtime"
	"runtime/cgo"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// ControllerOptions configure NewController. A zero field means the default in brackets.
type ControllerOptions struct {
	Namespace    string // watch only this namespace [every namespace]
	Workers      int    // TrainJobs reconciled at the same time [5]
	FeatureGates string // upstream's --feature-gates, "TrainJobStatus=true" [all off]
	// Gates are the gates as a map, {"TrainJobStatus": true}; not with FeatureGates [all off].
	Gates map[string]bool
	// Framework is the plugin pipeline of every reconcile [the built-in plugins of the gates];
	// with one, FeatureGates and Gates must be empty. The controller keeps its own reference.
	Framework *Framework
	NoEvents  bool // record no Events on TrainJobs
	// Once makes Run reconcile every TrainJob that exists when it starts once and return; it
	// fails with the first error when any reconcile failed.
	Once            bool
	ResyncPeriod    time.Duration // every TrainJob is queued again this often [10 h]
	ShutdownTimeout time.Duration // in-flight reconciles get this long after a stop [30 s]
	// LeaderElect: reconcile only while holding a coordination.k8s.io Lease, so that of several
	// controllers only one writes.
	LeaderElect             bool
	LeaderElectionNamespace string        // ["default"]
	LeaderElectionID        string        // the Lease's name ["trainer.kubeflow.org"]
	LeaderElectionIdentity  string        // [<hostname>_<random>]
	LeaseDuration           time.Duration // [15 s]
	RenewDeadline           time.Duration // [10 s]
	RetryPeriod             time.Duration // [2 s]
	// Serving: the HTTPS endpoints Run serves (docs/controller.md, "Admission webhooks").
	Serving ServingOptions
	// OnReconcile receives every reconcile of Run and its error (nil on success). It is called
	// from the controller's worker threads, possibly from several goroutines at once. A panic in
	// it is dropped (it cannot stop the loop).
	OnReconcile func(ReconcileResult, error)
}

// ServingOptions are the controller's HTTPS endpoints and their certificate. A zero field means
// the default in brackets.
type ServingOptions struct {
	// OperatorNamespace holds the webhook Service and certificate Secret [the in-cluster service
	// account's namespace, else "kubeflow-system"].
	OperatorNamespace  string
	WebhookServiceName string // the Service the certificate names ["kubeflow-trainer-controller-manager"]
	WebhookSecretName  string // the Secret of the certificates ["kubeflow-trainer-webhook-cert"]
	// WebhookCertDir: bring your own tls.crt and tls.key (and ca.crt); no Secret, no caBundle
	// patching [generated].
	WebhookCertDir string
	// WebhookCertHosts are more subject alternative names (IP addresses or DNS names) of the
	// generated certificate, e.g. "127.0.0.1".
	WebhookCertHosts   []string
	WebhookBindAddress string // ["0.0.0.0"]
	WebhookPort        int    // admission webhooks over HTTPS on this port; 0: not served [0]
	// StatusServerBindAddress and StatusServerPort: the TrainJobStatus progress server, served
	// when that gate is on ["0.0.0.0", 10443]; StatusServerPort -1: not served.
	StatusServerBindAddress string
	StatusServerPort        int
}

// ReconcileCondition is one condition of a TrainJob's status after a reconcile.
type ReconcileCondition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
	LastTransitionTime string `json:"lastTransitionTime"`
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
}

// ReconcileResult is what one reconcile did.
type ReconcileResult struct {
	Key string `json:"key"` // "<namespace>/<name>"
	// Skipped: the TrainJob does not exist or another controller manages it.
	Skipped       bool                 `json:"skipped"`
	Applied       []string             `json:"applied"` // kubectl refs: "jobset.jobset.x-k8s.io/x"
	StatusPatched bool                 `json:"statusPatched"`
	Conditions    []ReconcileCondition `json:"conditions"`
	// RequeueAfter is when the reconcile wants to run again (a pending deadline); 0: on events.
	RequeueAfter time.Duration `json:"-"`
}

func decodeReconcileResult(data []byte) (ReconcileResult, error) {
	var r struct {
		ReconcileResult
		RequeueAfterMs int64 `json:"requeueAfterMs"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return ReconcileResult{}, &Error{Code: CodeInternal, Message: "reconcile result: " + err.Error()}
	}
	r.ReconcileResult.RequeueAfter = time.Duration(r.RequeueAfterMs) * time.Millisecond
	return r.ReconcileResult, nil
}

type reconcileSink struct{ fn func(ReconcileResult, error) }

// Controller is libtrainer as the TrainJob controller over a Client (trainer_controller): Run
// blocks until its context ends; Stop, Metrics and Reconcile may be called from any goroutine
// meanwhile. Close it when done; a finalizer closes one that was not.
type Controller struct {
	mu      sync.Mutex
	idle    *sync.Cond // signalled when Run returns
	c       *C.trainer_controller
	client  *Client
	cclient *C.trainer_client // held (acquired) until Close, so the client outlives us
	running bool
	opts    ControllerOptions
}

// NewController makes a controller over client, without contacting the server. The client
// stays in use until the controller is closed (its Close waits for that). opts may be nil.
func NewController(client *Client, opts *ControllerOptions) (*Controller, error) {
	if client == nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: "client is nil"}
	}
	var o ControllerOptions
	if opts != nil {
		o = *opts
	}
	if o.Workers < 0 || o.ResyncPeriod < 0 || o.ShutdownTimeout < 0 || o.LeaseDuration < 0 ||
		o.RenewDeadline < 0 || o.RetryPeriod < 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "ControllerOptions: Workers and durations must not be negative"}
	}
	var copts C.trainer_controller_options
	if st := C.trainer_controller_options_init(&copts, C.TRAINER_CONTROLLER_OPTIONS_VERSION); st != C.TRAINER_OK {
		return nil, optionsError(st, "controller")
	}
	var strs cStrings
	defer strs.free()
	copts.namespace_name = strs.get(o.Namespace)
	copts.workers = C.int32_t(o.Workers)
	gates := o.FeatureGates
	if o.Gates != nil {
		if gates != "" {
			return nil, &Error{Code: CodeInvalidArgument, Message: "ControllerOptions: set FeatureGates or Gates, not both"}
		}
		var err error
		if gates, err = formatGates(o.Gates); err != nil {
			return nil, err
		}
	}
	copts.feature_gates = strs.get(gates)
	o.FeatureGates, o.Gates = gates, nil // what Reconcile passes on
	fw, unlockFw, err := o.Framework.use()
	if err != nil {
		return nil, err
	}
	defer unlockFw()
	copts.framework = fw
	copts.no_events = cBool(o.NoEvents)
	copts.once = cBool(o.Once)
	copts.resync_period_ms = C.int64_t(durationMS(o.ResyncPeriod))
	copts.shutdown_timeout_ms = C.int64_t(durationMS(o.ShutdownTimeout))
	copts.leader_elect = cBool(o.LeaderElect)
	copts.leader_election_namespace = strs.get(o.LeaderElectionNamespace)
	copts.leader_election_id = strs.get(o.LeaderElectionID)
	copts.leader_election_identity = strs.get(o.LeaderElectionIdentity)
	copts.lease_duration_ms = C.int64_t(durationMS(o.LeaseDuration))
	copts.renew_deadline_ms = C.int64_t(durationMS(o.RenewDeadline))
	copts.retry_period_ms = C.int64_t(durationMS(o.RetryPeriod))
	sv := o.Serving
	if sv.WebhookPort < 0 || sv.WebhookPort > 65535 || sv.StatusServerPort < -1 || sv.StatusServerPort > 65535 {
		return nil, &Error{Code: CodeInvalidArgument, Message: "ControllerOptions.Serving: WebhookPort must be 0 to 65535, StatusServerPort -1 to 65535"}
	}
	copts.operator_namespace = strs.get(sv.OperatorNamespace)
	copts.webhook_service_name = strs.get(sv.WebhookServiceName)
	copts.webhook_secret_name = strs.get(sv.WebhookSecretName)
	copts.webhook_cert_dir = strs.get(sv.WebhookCertDir)
	copts.webhook_cert_hosts = strs.get(strings.Join(sv.WebhookCertHosts, ","))
	copts.webhook_bind_address = strs.get(sv.WebhookBindAddress)
	copts.webhook_port = C.int32_t(sv.WebhookPort)
	copts.status_server_bind_address = strs.get(sv.StatusServerBindAddress)
	copts.status_server_port = C.int32_t(sv.StatusServerPort)

	cclient := client.acquire()
	if cclient == nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: "the client is closed"}
	}
	if o.OnReconcile != nil {
		// Deleted by goTrainerReconcileFree when the library lets go of it (also on failure).
		h := cgo.NewHandle(&reconcileSink{fn: o.OnReconcile})
		C.go_trainer_set_reconcile(&copts, C.uintptr_t(h))
	}
	var c *C.trainer_controller
	var cerr *C.trainer_error
	if err := takeError(C.trainer_controller_new(cclient, &copts, &c, &cerr), cerr); err != nil {
		client.release()
		return nil, err
	}
	ctl := &Controller{c: c, client: client, cclient: cclient, opts: o}
	ctl.idle = sync.NewCond(&ctl.mu)
	runtime.SetFinalizer(ctl, (*Controller).Close)
	return ctl, nil
}

// Run runs the loop until ctx ends or Stop is called (then nil, after the reconciles in flight
// finished), or with Once until every TrainJob present at the start was reconciled once. A
// controller runs at most once. Errors: a lost leader lease, a watch that cannot continue, with
// Once the first failed reconcile.
func (ctl *Controller) Run(ctx context.Context) error {
	ctl.mu.Lock()
	if ctl.c == nil {
		ctl.mu.Unlock()
		return &Error{Code: CodeInvalidArgument, Message: "the controller is closed"}
	}
	c := ctl.c
	ctl.running = true
	ctl.mu.Unlock()
	defer func() {
		ctl.mu.Lock()
		ctl.running = false
		ctl.idle.Broadcast()
		ctl.mu.Unlock()
	}()
	if done := ctx.Done(); done != nil {
		stop := make(chan struct{})
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			select {
			case <-done:
				C.trainer_controller_stop(c)
			case <-stop:
			}
		}()
		defer func() { close(stop); <-exited }()
	}
	var cerr *C.trainer_error
	return takeError(C.trainer_controller_run(c, &cerr), cerr)
}

// Stop asks Run to return (also before it started: it then returns at once). Any goroutine.
func (ctl *Controller) Stop() {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if ctl.c != nil {
		C.trainer_controller_stop(ctl.c)
	}
}

// Metrics is the controller's counters as Prometheus text (exposition format 0.0.4).
func (ctl *Controller) Metrics() (string, error) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if ctl.c == nil {
		return "", &Error{Code: CodeInvalidArgument, Message: "the controller is closed"}
	}
	var buf C.trainer_buffer
	var cerr *C.trainer_error
	if err := takeError(C.trainer_controller_metrics(ctl.c, &buf, &cerr), cerr); err != nil {
		return "", err
	}
	defer C.trainer_buffer_free(&buf)
	return C.GoStringN(buf.data, C.int(buf.len)), nil
}

// Reconcile does one reconcile of the TrainJob namespace/name ("" namespace: the client's) as
// the loop does it, with the controller's FeatureGates and NoEvents, without the loop: its
// objects applied, its status written. A TrainJob that does not exist is Skipped, not an error.
// ctx's end cancels it. A controller made with a Framework reconciles with its plugins; the
// Framework must then still be open.
func (ctl *Controller) Reconcile(ctx context.Context, namespace, name string) (ReconcileResult, error) {
	fw, unlockFw, err := ctl.opts.Framework.use()
	if err != nil {
		return ReconcileResult{}, err
	}
	defer unlockFw()
	var copts C.trainer_controller_reconcile_options
	if st := C.trainer_controller_reconcile_options_init(&copts, C.TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION); st != C.TRAINER_OK {
		return ReconcileResult{}, optionsError(st, "reconcile")
	}
	var strs cStrings
	defer strs.free()
	copts.feature_gates = strs.get(ctl.opts.FeatureGates)
	copts.framework = fw
	copts.no_events = cBool(ctl.opts.NoEvents)
	cns, cname := strs.get(namespace), strs.get(name)
	var data []byte
	err = ctl.client.call(ctx, func(c *C.trainer_client, token *C.trainer_cancel_token) error {
		copts.cancel = token
		var buf C.trainer_buffer
		var cerr *C.trainer_error
		if err := takeError(C.trainer_controller_reconcile(c, cns, cname, &copts, &buf, &cerr), cerr); err != nil {
			return err
		}
		defer C.trainer_buffer_free(&buf)
		data = C.GoBytes(unsafe.Pointer(buf.data), C.int(buf.len))
		return nil
	})
	if err != nil {
		return ReconcileResult{}, err
	}
	return decodeReconcileResult(data)
}

// Close stops the controller, waits for Run to return, frees it and lets go of the client. It
// is idempotent.
func (ctl *Controller) Close() error {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if ctl.c == nil {
		return nil
	}
	C.trainer_controller_stop(ctl.c)
	for ctl.running {
		ctl.idle.Wait()
	}
	C.trainer_controller_free(ctl.c)
	ctl.c = nil
	ctl.client.release()
	runtime.SetFinalizer(ctl, nil)
	return nil
}
