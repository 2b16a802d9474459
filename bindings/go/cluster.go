// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <stdint.h>
#include <stdlib.h>
#include <trainer.h>

// Defined by //export in cluster_export.go (with non-const char*: cgo's spelling).
extern trainer_status goTrainerWarning(void*, char*, size_t);
extern void goTrainerWarningFree(void*);
extern trainer_status goTrainerWatchEvent(void*, char*, char*, size_t);
extern trainer_status goTrainerLogChunk(void*, char*, char*, size_t);

// user_data is a cgo.Handle: an integer, passed as one so that Go never converts it to a
// pointer itself.
static void go_trainer_set_warning(trainer_client_options* o, uintptr_t handle) {
  o->on_warning = (trainer_warning_fn)goTrainerWarning;
  o->warning_user_data = (void*)handle;
  o->warning_user_data_free = goTrainerWarningFree;
}

// The log callback has the warning callback's shape, so it shares its Go functions.
static void go_trainer_set_log(trainer_client_options* o, uintptr_t handle) {
  o->on_log = (trainer_client_log_fn)goTrainerWarning;
  o->log_user_data = (void*)handle;
  o->log_user_data_free = goTrainerWarningFree;
}

static trainer_status go_trainer_cluster_watch(trainer_client* c, const char* ns,
                                               const trainer_cluster_watch_options* o,
                                               uintptr_t handle, trainer_error** err) {
  return trainer_cluster_watch(c, ns, o, (trainer_cluster_watch_fn)goTrainerWatchEvent,
                               (void*)handle, err);
}

static trainer_status go_trainer_cluster_logs(trainer_client* c, const char* ns, const char* name,
                                              const trainer_cluster_logs_options* o,
                                              uintptr_t handle, trainer_error** err) {
  return trainer_cluster_logs(c, ns, name, o, (trainer_cluster_logs_fn)goTrainerLogChunk,
                              (void*)handle, err);
}
*/
import "C"

import (
	"context"
	"runtime"
	"runtime/cgo"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// ClientOptions configure NewClient as kubectl's flags do. A zero field means the default in
// brackets.
type ClientOptions struct {
	// Kubeconfig is kubectl's --kubeconfig: only this file [$KUBECONFIG (colon-separated,
	// merged), else ~/.kube/config, else the in-cluster service account].
	Kubeconfig string
	Context    string // --context [the kubeconfig's current-context]
	// Namespace is -n: the namespace of calls that pass "" [the context's, else "default"].
	Namespace string
	// RequestTimeout bounds each non-streaming request, retries included [30 s].
	RequestTimeout time.Duration
	QPS            float64 // client-side rate limit, requests per second; negative: none [5]
	Burst          int     // rate limiter burst [10]
	UserAgent      string  // [libtrainer/<version> (linux/<arch>)]
	// MaxResponseBytes bounds one response body (one object, one page of a list), after gzip
	// decoding; over it a call fails with CodeLimit naming max_response_bytes [256 MiB].
	MaxResponseBytes uint64
	// MaxWatchEventBytes bounds one watch event (one object); over it Watch ends with
	// CodeLimit naming max_watch_event_bytes [16 MiB].
	MaxWatchEventBytes uint64
	// OnWarning receives the API server's warnings, local admission warnings of Apply and
	// configuration warnings. It may be called from several goroutines at once.
	OnWarning func(text string)
	// OnLog receives what the client recovers from by itself, one line each: a watch (or its
	// list) that failed and is retried, with the cause and the wait, and a Retry-After retry.
	// It may be called from several goroutines at once.
	OnLog func(line string)
}

// Client is a Kubernetes API client for the TrainJob operations (trainer_client). Its methods
// may be called from any number of goroutines at once, also from inside a Watch or Logs
// callback. Close it when done; a finalizer frees a client that was never closed.
type Client struct {
	mu       sync.Mutex
	idle     *sync.Cond // signalled when the last call in flight returns
	c        *C.trainer_client
	inFlight int
	closing  bool
}

type warningSink struct{ fn func(string) }

// NewClient loads the configuration as kubectl does and makes a client, without contacting the
// server. opts may be nil.
func NewClient(opts *ClientOptions) (*Client, error) {
	var copts C.trainer_client_options
	if st := C.trainer_client_options_init(&copts, C.TRAINER_CLIENT_OPTIONS_VERSION); st != C.TRAINER_OK {
		return nil, optionsError(st, "client")
	}
	var strs cStrings
	defer strs.free()
	if opts != nil {
		if opts.RequestTimeout < 0 || opts.Burst < 0 {
			return nil, &Error{Code: CodeInvalidArgument, Message: "ClientOptions: RequestTimeout and Burst must not be negative"}
		}
		copts.kubeconfig = strs.get(opts.Kubeconfig)
		copts.context = strs.get(opts.Context)
		copts.namespace_name = strs.get(opts.Namespace)
		copts.request_timeout_ms = C.int64_t(durationMS(opts.RequestTimeout))
		copts.qps = C.double(opts.QPS)
		copts.burst = C.int32_t(opts.Burst)
		copts.user_agent = strs.get(opts.UserAgent)
		copts.max_response_bytes = C.uint64_t(opts.MaxResponseBytes)
		copts.max_watch_event_bytes = C.uint64_t(opts.MaxWatchEventBytes)
		if opts.OnWarning != nil {
			// Deleted by goTrainerWarningFree when the library lets go of it.
			h := cgo.NewHandle(&warningSink{fn: opts.OnWarning})
			C.go_trainer_set_warning(&copts, C.uintptr_t(h))
		}
		if opts.OnLog != nil {
			// Deleted by goTrainerWarningFree when the library lets go of it.
			h := cgo.NewHandle(&warningSink{fn: opts.OnLog})
			C.go_trainer_set_log(&copts, C.uintptr_t(h))
		}
	}
	var c *C.trainer_client
	var cerr *C.trainer_error
	if err := takeError(C.trainer_client_new(&copts, &c, &cerr), cerr); err != nil {
		return nil, err
	}
	client := &Client{c: c}
	client.idle = sync.NewCond(&client.mu)
	runtime.SetFinalizer(client, (*Client).Close)
	return client, nil
}

// Close frees the client once the calls in flight have returned; calls that start meanwhile
// fail with ErrInvalidArgument. It is idempotent.
func (cl *Client) Close() error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.c == nil {
		return nil
	}
	cl.closing = true
	for cl.inFlight > 0 {
		cl.idle.Wait()
	}
	C.trainer_client_free(cl.c)
	cl.c = nil
	runtime.SetFinalizer(cl, nil)
	return nil
}

// acquire returns the C client for one call, or nil once Close has begun.
func (cl *Client) acquire() *C.trainer_client {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.c == nil || cl.closing {
		return nil
	}
	cl.inFlight++
	return cl.c
}

func (cl *Client) release() {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.inFlight--; cl.inFlight == 0 {
		cl.idle.Broadcast()
	}
}

// Namespace is the namespace of calls that pass "" ("" after Close).
func (cl *Client) Namespace() string {
	c := cl.acquire()
	if c == nil {
		return ""
	}
	defer cl.release()
	return C.GoString(C.trainer_client_namespace(c))
}

// Server is the URL of the API server ("" after Close).
func (cl *Client) Server() string {
	c := cl.acquire()
	if c == nil {
		return ""
	}
	defer cl.release()
	return C.GoString(C.trainer_client_server(c))
}

// call runs fn with the C client and a cancel token that ctx's end cancels, and maps the
// result: a call cancelled because ctx ended also matches ctx.Err() under errors.Is.
func (cl *Client) call(ctx context.Context, fn func(c *C.trainer_client, token *C.trainer_cancel_token) error) error {
	c := cl.acquire()
	if c == nil {
		return &Error{Code: CodeInvalidArgument, Message: "the client is closed"}
	}
	defer cl.release()
	if err := ctx.Err(); err != nil {
		return &Error{Code: CodeCanceled, Message: err.Error(), cause: err}
	}
	var token *C.trainer_cancel_token
	var cerr *C.trainer_error
	if err := takeError(C.trainer_cancel_token_new(&token, &cerr), cerr); err != nil {
		return err
	}
	defer C.trainer_cancel_token_free(token)
	if done := ctx.Done(); done != nil {
		stop := make(chan struct{})
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			select {
			case <-done:
				C.trainer_cancel_token_cancel(token)
			case <-stop:
			}
		}()
		// The goroutine is gone before the token is freed.
		defer func() { close(stop); <-exited }()
	}
	err := fn(c, token)
	if e, ok := err.(*Error); ok && e.Code == CodeCanceled && ctx.Err() != nil {
		e.cause = ctx.Err()
	}
	return err
}

// AppliedObject is one object Apply applied.
type AppliedObject struct {
	Ref  string // kubectl's reference: "trainjob.trainer.kubeflow.org/mnist"
	JSON []byte // the object as the server returned it, compact JSON
}

// ApplyOptions are the options of Apply. A zero field means the default in brackets.
type ApplyOptions struct {
	Namespace    string        // namespace of objects that name none [the client's]
	FieldManager string        // server-side apply field manager ["trainerctl"]
	DryRun       bool          // server dry run: nothing is stored
	Force        bool          // take over fields other managers own
	Parse        *ParseOptions // limits for parsing documents [the library's]
	Framework    *Framework    // the plugins that admit TrainJobs first [the built-in plugins, gates off]
}

// Apply server-side applies every object of documents (a YAML stream or JSON; a v1 List stands
// for its items) in order, as `trainerctl apply -f` does. Every TrainJob and runtime is first
// admitted locally: when any is rejected, the error is ErrInvalid with its field errors
// (HTTPStatus 0) and nothing is applied. The first server error stops the call; objects
// applied before it stay applied. opts may be nil.
func (cl *Client) Apply(ctx context.Context, documents []byte, opts *ApplyOptions) ([]AppliedObject, error) {
	var copts C.trainer_cluster_apply_options
	if st := C.trainer_cluster_apply_options_init(&copts, C.TRAINER_CLUSTER_APPLY_OPTIONS_VERSION); st != C.TRAINER_OK {
		return nil, optionsError(st, "apply")
	}
	var strs cStrings
	defer strs.free()
	if opts != nil {
		copts.namespace_name = strs.get(opts.Namespace)
		copts.field_manager = strs.get(opts.FieldManager)
		copts.dry_run = cBool(opts.DryRun)
		copts.force = cBool(opts.Force)
		fw, unlock, err := opts.Framework.use()
		if err != nil {
			return nil, err
		}
		defer unlock()
		copts.framework = fw
		if copts.parse, err = strs.parseOptions(opts.Parse); err != nil {
			return nil, err
		}
	}
	// The text is copied into C memory: Go 1.19 cannot pass a string's bytes without a copy.
	data := C.CBytes(documents)
	defer C.free(data)
	var out []AppliedObject
	err := cl.call(ctx, func(c *C.trainer_client, token *C.trainer_cancel_token) error {
		copts.cancel = token
		var result *C.trainer_cluster_apply_result
		var cerr *C.trainer_error
		st := C.trainer_cluster_apply(c, (*C.char)(data), C.size_t(len(documents)), &copts, &result, &cerr)
		if err := takeError(st, cerr); err != nil {
			return err
		}
		defer C.trainer_cluster_apply_result_free(result)
		n := int(C.trainer_cluster_apply_result_count(result))
		out = make([]AppliedObject, n)
		for i := range out {
			out[i] = AppliedObject{
				Ref:  C.GoString(C.trainer_cluster_apply_result_ref(result, C.size_t(i))),
				JSON: []byte(C.GoString(C.trainer_cluster_apply_result_json(result, C.size_t(i)))),
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns one object as format text. kind is a Trainer kind as kubectl accepts it
// ("trainjob", "trainjobs", "TrainJob", "trainingruntime", "clustertrainingruntimes", ...);
// namespace "" is the client's. A missing object is ErrNotFound (HTTPStatus 404).
func (cl *Client) Get(ctx context.Context, kind, namespace, name string, format Format) ([]byte, error) {
	var strs cStrings
	defer strs.free()
	ckind, cns, cname := strs.get(kind), strs.get(namespace), strs.get(name)
	var copts C.trainer_cluster_get_options
	C.trainer_cluster_get_options_init(&copts, C.TRAINER_CLUSTER_GET_OPTIONS_VERSION)
	var out []byte
	err := cl.call(ctx, func(c *C.trainer_client, token *C.trainer_cancel_token) error {
		copts.cancel = token
		var buf C.trainer_buffer
		var cerr *C.trainer_error
		st := C.trainer_cluster_get(c, ckind, cns, cname, &copts, C.trainer_format(format), &buf, &cerr)
		if err := takeError(st, cerr); err != nil {
			return err
		}
		out = takeBuffer(&buf)
		return nil
	})
	return out, err
}

// ListOptions are the options of List.
type ListOptions struct {
	LabelSelector string // kubectl's -l [every object]
	AllNamespaces bool   // kubectl's -A
}

// List returns every object of kind in namespace ("" is the client's) as one <Kind>List in
// format text. opts may be nil.
func (cl *Client) List(ctx context.Context, kind, namespace string, opts *ListOptions, format Format) ([]byte, error) {
	var strs cStrings
	defer strs.free()
	ckind, cns := strs.get(kind), strs.get(namespace)
	var copts C.trainer_cluster_get_options
	C.trainer_cluster_get_options_init(&copts, C.TRAINER_CLUSTER_GET_OPTIONS_VERSION)
	if opts != nil {
		copts.label_selector = strs.get(opts.LabelSelector)
		copts.all_namespaces = cBool(opts.AllNamespaces)
	}
	var out []byte
	err := cl.call(ctx, func(c *C.trainer_client, token *C.trainer_cancel_token) error {
		copts.cancel = token
		var buf C.trainer_buffer
		var cerr *C.trainer_error
		st := C.trainer_cluster_list(c, ckind, cns, &copts, C.trainer_format(format), &buf, &cerr)
		if err := takeError(st, cerr); err != nil {
			return err
		}
		out = takeBuffer(&buf)
		return nil
	})
	return out, err
}

// WatchEvent is one change of a TrainJob.
type WatchEvent struct {
	Type   string // "ADDED", "MODIFIED", "DELETED" or "BOOKMARK"
	Object []byte // the TrainJob, compact JSON
}

// WatchOptions are the options of Watch.
type WatchOptions struct {
	Name          string // only this TrainJob [every TrainJob]
	LabelSelector string // [every TrainJob]
	AllNamespaces bool
	// ResourceVersion: changes after this version [the current TrainJobs first, as ADDED
	// events, then the changes].
	ResourceVersion string
}

// Watch watches TrainJobs in namespace ("" is the client's) and calls fn for each event, on the
// calling goroutine's behalf (never concurrently), until fn returns false (then nil), ctx ends
// (an error matching ErrCanceled and ctx.Err()) or an error the watch cannot recover from. A
// panic in fn ends the watch and is raised again here. opts may be nil.
func (cl *Client) Watch(ctx context.Context, namespace string, opts *WatchOptions, fn func(WatchEvent) bool) error {
	if fn == nil {
		return &Error{Code: CodeInvalidArgument, Message: "Watch: fn is nil"}
	}
	var strs cStrings
	defer strs.free()
	cns := strs.get(namespace)
	var copts C.trainer_cluster_watch_options
	C.trainer_cluster_watch_options_init(&copts, C.TRAINER_CLUSTER_WATCH_OPTIONS_VERSION)
	if opts != nil {
		copts.name = strs.get(opts.Name)
		copts.label_selector = strs.get(opts.LabelSelector)
		copts.all_namespaces = cBool(opts.AllNamespaces)
		copts.resource_version = strs.get(opts.ResourceVersion)
	}
	state := &callbackState{watch: fn}
	h := cgo.NewHandle(state)
	defer h.Delete()
	err := cl.call(ctx, func(c *C.trainer_client, token *C.trainer_cancel_token) error {
		copts.cancel = token
		var cerr *C.trainer_error
		return takeError(C.go_trainer_cluster_watch(c, cns, &copts, C.uintptr_t(h), &cerr), cerr)
	})
	if state.panicked != nil {
		panic(state.panicked)
	}
	return err
}

// WatchChan is Watch delivering into a channel: the events arrive on the first channel, which
// is closed when the watch ends; then the second receives its error (nil when ctx ended it).
// The caller must drain the events or cancel ctx, otherwise the watch blocks.
func (cl *Client) WatchChan(ctx context.Context, namespace string, opts *WatchOptions) (<-chan WatchEvent, <-chan error) {
	events := make(chan WatchEvent)
	result := make(chan error, 1)
	go func() {
		defer close(result)
		err := cl.Watch(ctx, namespace, opts, func(ev WatchEvent) bool {
			select {
			case events <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		})
		close(events)
		if ctx.Err() != nil {
			err = nil
		}
		result <- err
	}()
	return events, result
}

// WaitOptions are the options of Wait.
type WaitOptions struct {
	// Status is the condition status waited for ["True"].
	Status string
	// Timeout bounds the wait: 0 means until ctx's deadline when it has one, else kubectl's
	// 30 s; a negative value checks once. Running out is ErrTimeout.
	Timeout time.Duration
}

// Wait waits until the TrainJob's condition (Complete, Failed, Suspended or any type, compared
// case-insensitively) has the wanted status, as `kubectl wait --for=condition=...` does, and
// returns the TrainJob then (compact JSON). Errors: ErrTimeout; ErrNotFound (missing or
// deleted meanwhile); ErrFailed (waiting for another condition than Failed, the TrainJob
// failed); ErrCanceled with ctx.Err(). opts may be nil.
func (cl *Client) Wait(ctx context.Context, namespace, name, condition string, opts *WaitOptions) ([]byte, error) {
	var strs cStrings
	defer strs.free()
	cns, cname, ccond := strs.get(namespace), strs.get(name), strs.get(condition)
	var copts C.trainer_cluster_wait_options
	C.trainer_cluster_wait_options_init(&copts, C.TRAINER_CLUSTER_WAIT_OPTIONS_VERSION)
	timeout := 30 * time.Second
	if _, ok := ctx.Deadline(); ok {
		timeout = -1 // no bound of the library's own: ctx's deadline cancels the wait
	}
	if opts != nil {
		copts.status = strs.get(opts.Status)
		switch {
		case opts.Timeout > 0:
			timeout = opts.Timeout
		case opts.Timeout < 0:
			timeout = 0
		}
	}
	waitMS := int64(-1)
	if timeout >= 0 {
		waitMS = durationMS(timeout)
	}
	var out []byte
	err := cl.call(ctx, func(c *C.trainer_client, token *C.trainer_cancel_token) error {
		copts.cancel = token
		var buf C.trainer_buffer
		var cerr *C.trainer_error
		st := C.trainer_cluster_wait(c, cns, cname, ccond, C.int64_t(waitMS), &copts, &buf, &cerr)
		if err := takeError(st, cerr); err != nil {
			return err
		}
		out = takeBuffer(&buf)
		return nil
	})
	return out, err
}

// LogsOptions select the pods and the part of their logs Logs reads.
type LogsOptions struct {
	Node          *int   // the trainer node index (--node N) [the replicated job's pods]
	ReplicatedJob string // ["node" when the JobSet has it, else every pod]
	All           bool   // every pod of the TrainJob
	Container     string // ["node" for trainer pods, else the only container]
	Follow        bool   // stream until the containers end
	TailLines     *int64 // the last lines only [the whole log]
	Since         time.Duration
}

// Logs streams the logs of the TrainJob's pods to fn (a chunk at a time, with the pod's name;
// never concurrently), until they end, fn returns false (then nil) or ctx ends. A TrainJob
// without a matching pod is ErrNotFound. A panic in fn is raised again here. opts may be nil.
func (cl *Client) Logs(ctx context.Context, namespace, name string, opts *LogsOptions, fn func(pod string, data []byte) bool) error {
	if fn == nil {
		return &Error{Code: CodeInvalidArgument, Message: "Logs: fn is nil"}
	}
	var strs cStrings
	defer strs.free()
	cns, cname := strs.get(namespace), strs.get(name)
	var copts C.trainer_cluster_logs_options
	C.trainer_cluster_logs_options_init(&copts, C.TRAINER_CLUSTER_LOGS_OPTIONS_VERSION)
	if opts != nil {
		if opts.Node != nil {
			if *opts.Node < 0 {
				return &Error{Code: CodeInvalidArgument, Message: "LogsOptions.Node must not be negative"}
			}
			copts.node = C.int32_t(*opts.Node)
		}
		copts.replicated_job = strs.get(opts.ReplicatedJob)
		copts.all = cBool(opts.All)
		copts.container = strs.get(opts.Container)
		copts.follow = cBool(opts.Follow)
		if opts.TailLines != nil {
			copts.tail_lines = C.int64_t(*opts.TailLines)
		}
		if opts.Since > 0 {
			copts.since_seconds = C.int64_t((opts.Since + time.Second - 1) / time.Second)
		}
	}
	state := &callbackState{logs: fn}
	h := cgo.NewHandle(state)
	defer h.Delete()
	err := cl.call(ctx, func(c *C.trainer_client, token *C.trainer_cancel_token) error {
		copts.cancel = token
		var cerr *C.trainer_error
		return takeError(C.go_trainer_cluster_logs(c, cns, cname, &copts, C.uintptr_t(h), &cerr), cerr)
	})
	if state.panicked != nil {
		panic(state.panicked)
	}
	return err
}

// Propagation is the deletion propagation policy.
type Propagation int

// Propagation policies.
const (
	PropagationBackground Propagation = C.TRAINER_PROPAGATION_BACKGROUND // dependents by the GC (kubectl's default)
	PropagationForeground Propagation = C.TRAINER_PROPAGATION_FOREGROUND // dependents first
	PropagationOrphan     Propagation = C.TRAINER_PROPAGATION_ORPHAN     // dependents are left
)

// DeleteOptions are the options of Delete.
type DeleteOptions struct {
	Propagation Propagation // [PropagationBackground]
	DryRun      bool
}

// Delete deletes the object of kind named name (see Get for kind and namespace). A missing
// object is ErrNotFound. opts may be nil.
func (cl *Client) Delete(ctx context.Context, kind, namespace, name string, opts *DeleteOptions) error {
	var strs cStrings
	defer strs.free()
	ckind, cns, cname := strs.get(kind), strs.get(namespace), strs.get(name)
	var copts C.trainer_cluster_delete_options
	C.trainer_cluster_delete_options_init(&copts, C.TRAINER_CLUSTER_DELETE_OPTIONS_VERSION)
	if opts != nil {
		copts.propagation = C.int32_t(opts.Propagation)
		copts.dry_run = cBool(opts.DryRun)
	}
	return cl.call(ctx, func(c *C.trainer_client, token *C.trainer_cancel_token) error {
		copts.cancel = token
		var cerr *C.trainer_error
		return takeError(C.trainer_cluster_delete(c, ckind, cns, cname, &copts, &cerr), cerr)
	})
}

// cStrings collects C copies of Go strings for one call and frees them together.
type cStrings []unsafe.Pointer

// get returns a C copy of s, NULL for "".
func (s *cStrings) get(v string) *C.char {
	if v == "" {
		return nil
	}
	p := C.CString(v)
	*s = append(*s, unsafe.Pointer(p))
	return p
}

// checked returns a C copy of v, NULL for "", refusing a NUL byte (C would cut the string
// there) with "<what> must not contain NUL".
func (s *cStrings) checked(v, what string) (*C.char, error) {
	if strings.IndexByte(v, 0) >= 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: what + " must not contain NUL"}
	}
	return s.get(v), nil
}

// parseOptions returns a C copy of o, NULL for nil: an options struct is Go memory handed to C,
// which by cgo's pointer rules may point only to C memory.
func (s *cStrings) parseOptions(o *ParseOptions) (*C.trainer_parse_options, error) {
	if o == nil {
		return nil, nil
	}
	limits, err := o.toC()
	if err != nil {
		return nil, err
	}
	p := (*C.trainer_parse_options)(C.malloc(C.size_t(unsafe.Sizeof(limits))))
	*s = append(*s, unsafe.Pointer(p))
	*p = limits
	return p, nil
}

func (s *cStrings) free() {
	for _, p := range *s {
		C.free(p)
	}
	*s = nil
}

func cBool(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// durationMS rounds d up to whole milliseconds, so that a positive duration never becomes 0.
func durationMS(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}
