// SPDX-License-Identifier: Apache-2.0

package trainer

// The C callbacks of the cluster calls. They live in a file of their own: a file with //export
// may only declare, not define, C functions in its preamble (cluster.go defines the helpers that
// pass these functions to the library). user_data is a cgo.Handle of the Go state.

/*
#include <trainer.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// callbackFailed is what a callback returns after its Go function panicked: the call ends with
// TRAINER_E_USER and the panic is raised again on the caller's goroutine.
const callbackFailed = C.trainer_status(-1)

//export goTrainerWarning
func goTrainerWarning(user unsafe.Pointer, text *C.char, n C.size_t) C.trainer_status {
	w := cgo.Handle(uintptr(user)).Value().(*warningSink)
	// A panicking warning handler must not unwind into C; a warning cannot fail a call, so the
	// panic is dropped.
	defer func() { _ = recover() }()
	w.fn(C.GoStringN(text, C.int(n)))
	return C.TRAINER_OK
}

//export goTrainerWarningFree
func goTrainerWarningFree(user unsafe.Pointer) {
	cgo.Handle(uintptr(user)).Delete()
}

//export goTrainerWatchEvent
func goTrainerWatchEvent(user unsafe.Pointer, typ *C.char, object *C.char, n C.size_t) (st C.trainer_status) {
	s := cgo.Handle(uintptr(user)).Value().(*callbackState)
	defer s.recoverInto(&st)
	ev := WatchEvent{Type: C.GoString(typ), Object: C.GoBytes(unsafe.Pointer(object), C.int(n))}
	if s.watch(ev) {
		return C.TRAINER_CALLBACK_CONTINUE
	}
	return C.TRAINER_CALLBACK_STOP
}

//export goTrainerLogChunk
func goTrainerLogChunk(user unsafe.Pointer, pod *C.char, data *C.char, n C.size_t) (st C.trainer_status) {
	s := cgo.Handle(uintptr(user)).Value().(*callbackState)
	defer s.recoverInto(&st)
	if s.logs(C.GoString(pod), C.GoBytes(unsafe.Pointer(data), C.int(n))) {
		return C.TRAINER_CALLBACK_CONTINUE
	}
	return C.TRAINER_CALLBACK_STOP
}

// callbackState is the Go side of one watch or logs call.
type callbackState struct {
	watch    func(WatchEvent) bool
	logs     func(pod string, data []byte) bool
	panicked interface{}
}

// recoverInto turns a panic of the user's function into callbackFailed, keeping the value.
func (s *callbackState) recoverInto(st *C.trainer_status) {
	if r := recover(); r != nil {
		s.panicked = r
		*st = callbackFailed
	}
}
