// SPDX-License-Identifier: Apache-2.0

package trainer

// The C callback of local runs (a file of its own, as cluster_export.go explains). user_data is
// a cgo.Handle of a *runLogSink.

/*
#include <trainer.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

//export goTrainerRunLog
func goTrainerRunLog(user unsafe.Pointer, prefix, pod *C.char, isStderr C.int32_t, text *C.char, n C.size_t) (st C.trainer_status) {
	s := cgo.Handle(uintptr(user)).Value().(*runLogSink)
	// Called on the run's supervisor thread: a panic must not unwind into C. It cancels the run
	// (a failure status does) and Wait reports it.
	defer func() {
		if r := recover(); r != nil {
			s.mu.Lock()
			s.panicked = r
			s.mu.Unlock()
			st = callbackFailed
		}
	}()
	line := LogLine{Prefix: C.GoString(prefix), Pod: C.GoString(pod), Stderr: isStderr != 0,
		Text: C.GoStringN(text, C.int(n))}
	if s.fn(line) {
		return C.TRAINER_OK
	}
	return C.TRAINER_E_CANCELLED
}

//export goTrainerRunLogFree
func goTrainerRunLogFree(user unsafe.Pointer) {
	cgo.Handle(uintptr(user)).Delete()
}
