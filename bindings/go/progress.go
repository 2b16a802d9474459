// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <stdlib.h>
#include <trainer.h>
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// ProgressServer is the TrainJobStatus progress endpoint of local runs
// (trainer_progress_server, docs/local.md "Progress"): render with it
// (RenderOptions.ProgressServer, with the TrainJobStatus gate) and run with it
// (RunOptions.ProgressServer), and the pods' progress posts (the Kubeflow SDK's
// update_trainjob_status()) become the run's trainerStatus. Runs started with it keep it serving
// after Close. Its methods may be called from any goroutine.
type ProgressServer struct {
	mu  sync.RWMutex // Close takes it exclusively
	ptr *C.trainer_progress_server
}

// StartProgressServer listens on bindAddress ("": 127.0.0.1) and port (0: a free one).
// Errors: ErrInvalidArgument (a bad address), ErrIO (the port is taken).
func StartProgressServer(bindAddress string, port uint16) (*ProgressServer, error) {
	var caddr *C.char
	if bindAddress != "" {
		caddr = C.CString(bindAddress)
		defer C.free(unsafe.Pointer(caddr))
	}
	var out *C.trainer_progress_server
	var cerr *C.trainer_error
	if err := takeError(C.trainer_progress_server_start(caddr, C.uint16_t(port), &out, &cerr), cerr); err != nil {
		return nil, err
	}
	s := &ProgressServer{ptr: out}
	runtime.SetFinalizer(s, func(s *ProgressServer) { s.Close() })
	return s, nil
}

// Port is the port it listens on (0 after Close).
func (s *ProgressServer) Port() uint16 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return uint16(C.trainer_progress_server_port(s.ptr))
}

// CACert is its CA certificate (PEM), what the pods verify it with ("" after Close).
func (s *ProgressServer) CACert() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.ptr == nil {
		return ""
	}
	return C.GoString(C.trainer_progress_server_ca_cert(s.ptr))
}

// Close releases this handle; the server stops once no run started with it is left.
func (s *ProgressServer) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr != nil {
		C.trainer_progress_server_free(s.ptr)
		s.ptr = nil
		runtime.SetFinalizer(s, nil)
	}
	return nil
}

// use hands the C handle to a call while the caller holds the returned unlock (nil server: no
// handle).
func (s *ProgressServer) use() (*C.trainer_progress_server, func(), error) {
	if s == nil {
		return nil, func() {}, nil
	}
	s.mu.RLock()
	if s.ptr == nil {
		s.mu.RUnlock()
		return nil, func() {}, &Error{Code: CodeInvalidArgument, Message: "use of a closed trainer.ProgressServer"}
	}
	return s.ptr, s.mu.RUnlock, nil
}
