// SPDX-License-Identifier: Apache-2.0

package trainer

// The C callback of the controller (a file of its own, as cluster_export.go explains).
// user_data is a cgo.Handle of a *reconcileSink.

/*
#include <trainer.h>
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

//export goTrainerReconcile
func goTrainerReconcile(user unsafe.Pointer, result *C.char, n C.size_t, cerr *C.trainer_error) C.trainer_status {
	s := cgo.Handle(uintptr(user)).Value().(*reconcileSink)
	// Called on a worker thread of the loop: a panic must not unwind into C, and a callback
	// cannot fail the loop, so it is dropped.
	defer func() { _ = recover() }()
	r, decodeErr := decodeReconcileResult(C.GoBytes(unsafe.Pointer(result), C.int(n)))
	var err error
	if cerr != nil {
		err = copyError(cerr)
	} else if decodeErr != nil {
		err = decodeErr
	}
	s.fn(r, err)
	return C.TRAINER_OK
}

//export goTrainerReconcileFree
func goTrainerReconcileFree(user unsafe.Pointer) {
	cgo.Handle(uintptr(user)).Delete()
}
