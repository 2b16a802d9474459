// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <stdint.h>
#include <stdlib.h>
#include <trainer.h>

// Defined by //export in run_export.go (with non-const char*: cgo's spelling).
extern trainer_status goTrainerRunLog(void*, char*, char*, int32_t, char*, size_t);
extern void goTrainerRunLogFree(void*);

// user_data is a cgo.Handle, passed as an integer so that Go never converts it to a pointer.
static void go_trainer_set_run_log(trainer_run_options* o, uintptr_t handle) {
  o->on_log = (trainer_run_log_fn)goTrainerRunLog;
  o->log_user_data = (void*)handle;
  o->log_user_data_free = goTrainerRunLogFree;
}
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"runtime/cgo"
	"sync"
	"time"
	"unsafe"
)

// Isolation says how the pods of a local run are isolated from each other and from the host.
type Isolation int32

// Isolation modes (docs/local.md).
const (
	IsolationAuto       Isolation = C.TRAINER_ISOLATION_AUTO       // namespaces when permitted, else host with a warning
	IsolationNamespaces Isolation = C.TRAINER_ISOLATION_NAMESPACES // own mount/UTS/PID namespaces, else ErrUnsupported
	IsolationHost       Isolation = C.TRAINER_ISOLATION_HOST       // no namespaces: hostnames resolve to 127.0.0.1
)

// RunPhase is the phase of a local run. Suspended, Complete and Failed are terminal.
type RunPhase int32

// Phases of a local run.
const (
	RunPending   RunPhase = C.TRAINER_RUN_PENDING
	RunRunning   RunPhase = C.TRAINER_RUN_RUNNING
	RunSuspended RunPhase = C.TRAINER_RUN_SUSPENDED
	RunComplete  RunPhase = C.TRAINER_RUN_COMPLETE
	RunFailed    RunPhase = C.TRAINER_RUN_FAILED
)

// String returns "Pending", "Running", "Suspended", "Complete" or "Failed" ("Unknown" otherwise).
func (p RunPhase) String() string { return C.GoString(C.trainer_run_phase_name(C.int32_t(p))) }

// Finished reports whether p is terminal (Suspended, Complete or Failed).
func (p RunPhase) Finished() bool {
	return p == RunSuspended || p == RunComplete || p == RunFailed
}

// LogLine is one line a pod of a local run wrote, or a piece of one: a redraw ends at its `\r`
// (kept as Text's last byte) and a line longer than 64 KiB comes in 64 KiB pieces without a
// terminator (docs/local.md, "Logs").
type LogLine struct {
	Prefix string // terminal prefix without brackets ("node-0-0")
	Pod    string // pod name
	Stderr bool   // the line came from stderr
	Text   string // the line without its newline
}

// RunOptions are the options of StartRun. Dir is required; a zero field means the default in
// brackets.
type RunOptions struct {
	Dir       string    // the run folder (created; must not hold a run already)
	Isolation Isolation // [IsolationAuto]
	PodHelper string    // path of the trainer-pod helper [the installed one]
	// OnLog receives every line of every pod, from one goroutine at a time (the run's
	// supervisor thread), never concurrently with itself. Returning false cancels the run, as
	// does a panic (Wait then reports it). It must not call Wait or Close of its own run.
	// [nil: lines go only to the run folder's log files]
	OnLog func(LogLine) bool
	// ProgressServer is the progress server the objects were rendered with [none: a projected
	// service account token is refused with ErrUnsupported].
	ProgressServer *ProgressServer
}

// Run is a local execution of the objects rendered for one TrainJob (trainer_run). Its methods
// may be called from any goroutine concurrently, except Close, which must be the last call.
type Run struct {
	mu   sync.RWMutex // Close takes it exclusively; every other method shares it
	ptr  *C.trainer_run
	sink *runLogSink
}

// runLogSink is the Go side of the log callback (the value of the cgo.Handle in user_data).
type runLogSink struct {
	fn       func(LogLine) bool
	mu       sync.Mutex
	panicked interface{}
}

// StartRun starts executing objects (a YAML stream or JSON of the objects Render produced: the
// JobSet and its ConfigMaps and Secrets) on this machine, one process per pod, and returns at
// once. The caller must Close the run. Errors: ErrInvalidArgument (no Dir, a folder that holds
// a run), ErrParse, ErrInvalid (with field paths), ErrNotFound (a referenced ConfigMap/Secret or
// the pod helper), ErrUnsupported, ErrIO.
func StartRun(objects []byte, opts RunOptions) (*Run, error) {
	var copts C.trainer_run_options
	copts.version = C.TRAINER_RUN_OPTIONS_VERSION
	copts.isolation = C.int32_t(opts.Isolation)
	var strs cStrings
	defer strs.free()
	if opts.Dir == "" {
		return nil, &Error{Code: CodeInvalidArgument, Message: "RunOptions.Dir is required"}
	}
	copts.run_dir = strs.get(opts.Dir)
	copts.pod_helper = strs.get(opts.PodHelper)
	ps, unlockServer, err := opts.ProgressServer.use()
	if err != nil {
		return nil, err
	}
	defer unlockServer()
	copts.progress_server = ps
	var sink *runLogSink
	if opts.OnLog != nil {
		sink = &runLogSink{fn: opts.OnLog}
		// The library deletes the handle through log_user_data_free, also when the start fails.
		C.go_trainer_set_run_log(&copts, C.uintptr_t(cgo.NewHandle(sink)))
	}
	p, n := bytesArg(objects)
	var out *C.trainer_run
	var cerr *C.trainer_error
	st := C.trainer_run_start(p, n, &copts, &out, &cerr)
	runtime.KeepAlive(objects)
	if err := takeError(st, cerr); err != nil {
		return nil, err
	}
	r := &Run{ptr: out, sink: sink}
	runtime.SetFinalizer(r, func(r *Run) { r.Close() })
	return r, nil
}

// errRunClosed is returned by the methods of a closed Run.
func errRunClosed() error {
	return &Error{Code: CodeInvalidArgument, Message: "use of a closed trainer.Run"}
}

// runWaitSlice is how long one trainer_run_wait call blocks, so that Wait notices ctx soon.
const runWaitSlice = 50 * time.Millisecond

// Wait blocks until the run is finished (Suspended, Complete or Failed) and every pod process
// is gone, and returns its phase. When ctx ends first the run is cancelled (as Cancel) and the
// error matches ErrCanceled and ctx.Err() under errors.Is; the run keeps stopping in the
// background and Close waits for its pods. A log callback that panicked is reported here as an
// error matching ErrUser.
func (r *Run) Wait(ctx context.Context) (RunPhase, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.ptr == nil {
		return RunFailed, errRunClosed()
	}
	for {
		var phase C.int32_t
		var cerr *C.trainer_error
		st := C.trainer_run_wait(r.ptr, C.int64_t(runWaitSlice/time.Millisecond), &phase, &cerr)
		if st == C.TRAINER_OK {
			C.trainer_error_free(cerr)
			return RunPhase(phase), r.sink.err()
		}
		if st != C.TRAINER_E_TIMEOUT {
			return RunPhase(phase), takeError(st, cerr)
		}
		C.trainer_error_free(cerr)
		select {
		case <-ctx.Done():
			C.trainer_run_cancel(r.ptr)
			return RunPhase(C.trainer_run_phase(r.ptr)), &Error{Code: CodeCanceled,
				Message: "waiting for the local run: " + ctx.Err().Error(), cause: ctx.Err()}
		default:
		}
	}
}

// err reports a panic of the log callback; nil for a nil sink.
func (s *runLogSink) err() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.panicked == nil {
		return nil
	}
	return &Error{Code: CodeUser, Message: fmt.Sprintf("the log callback panicked: %v", s.panicked)}
}

// Phase returns the current phase (RunFailed after Close).
func (r *Run) Phase() RunPhase {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.ptr == nil {
		return RunFailed
	}
	return RunPhase(C.trainer_run_phase(r.ptr))
}

// Status returns the run's status document (JSON: TrainJob conditions, jobsStatus, restarts,
// counts and every pod; docs/local.md).
func (r *Run) Status() ([]byte, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.ptr == nil {
		return nil, errRunClosed()
	}
	var buf C.trainer_buffer
	var cerr *C.trainer_error
	if err := takeError(C.trainer_run_status(r.ptr, &buf, &cerr), cerr); err != nil {
		C.trainer_buffer_free(&buf)
		return nil, err
	}
	return takeBuffer(&buf), nil
}

// Cancel stops every pod (SIGTERM, the pod's grace period, then SIGKILL); the run ends Failed
// with reason Cancelled unless it had finished. It returns at once.
func (r *Run) Cancel() {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.ptr != nil {
		C.trainer_run_cancel(r.ptr)
	}
}

// Close cancels the run if it is still going, waits until every pod process is gone and frees
// it. Idempotent; always returns nil. The run folder stays (see ReadRunStatus).
func (r *Run) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ptr != nil {
		C.trainer_run_free(r.ptr)
		r.ptr = nil
		runtime.SetFinalizer(r, nil)
	}
	return nil
}

// ReadRunStatus reads the status document of the run folder dir, written by any process,
// running or finished. A run whose executor died without finishing reads as Failed with reason
// ExecutorLost. Errors: ErrNotFound (no run there), ErrParse (unreadable state).
func ReadRunStatus(dir string) ([]byte, error) {
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	var buf C.trainer_buffer
	var cerr *C.trainer_error
	if err := takeError(C.trainer_run_read_status(cdir, &buf, &cerr), cerr); err != nil {
		C.trainer_buffer_free(&buf)
		return nil, err
	}
	return takeBuffer(&buf), nil
}
