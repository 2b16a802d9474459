// SPDX-License-Identifier: Apache-2.0

// Package trainer is the Go binding of libtrainer, the embeddable core of Kubeflow Trainer v2.
//
// It wraps the C ABI declared in <trainer.h> through cgo and has no dependencies besides the
// standard library. The library is found with pkg-config (package "libtrainer"); point
// PKG_CONFIG_PATH at an install prefix's lib/pkgconfig, or at a build tree's pkgconfig/
// directory (which holds libtrainer-uninstalled.pc), or override with CGO_CFLAGS/CGO_LDFLAGS.
//
// Handles (such as *DocumentList) own C memory: call Close when done. A finalizer frees a
// handle that was never closed, but relying on it keeps C memory alive longer than needed.
//
// Every fallible function returns a *Error (see errors.go); compare codes with errors.Is, for
// example errors.Is(err, trainer.ErrInvalid).
package trainer

/*
#cgo pkg-config: libtrainer
#include <stdlib.h>
#include <trainer.h>

// Passed for empty inputs, so the library never sees NULL with a zero length.
static char *go_trainer_empty(void) {
  static char empty[1];
  return empty;
}

#if TRAINER_VERSION_MAJOR != 0 || TRAINER_VERSION_MINOR < 1
#error "this Go binding supports libtrainer 0.x headers from 0.1 on"
#endif
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Header version this package was compiled against.
const (
	HeaderVersionMajor  = int(C.TRAINER_VERSION_MAJOR)
	HeaderVersionMinor  = int(C.TRAINER_VERSION_MINOR)
	HeaderVersionPatch  = int(C.TRAINER_VERSION_PATCH)
	HeaderVersionNumber = uint32(C.TRAINER_VERSION_NUMBER)
	HeaderVersionString = C.TRAINER_VERSION_STRING
)

// Version returns the version string of the loaded library ("0.1.0").
func Version() string { return C.GoString(C.trainer_version_string()) }

// VersionNumber returns the version of the loaded library as major*10000 + minor*100 + patch.
func VersionNumber() uint32 { return uint32(C.trainer_version_number()) }

// checkVersion reports whether a library of version `lib` can serve code compiled against the
// header version `header`. During 0.x every minor release may break the ABI, so major and minor
// must match, and the library must be at least as new as the header (a newer patch may add
// functions this package calls).
func checkVersion(header, lib uint32) error {
	if header/100 != lib/100 || lib < header {
		return fmt.Errorf("libtrainer: compiled against header %d.%d.%d but loaded library %d.%d.%d",
			header/10000, header/100%100, header%100, lib/10000, lib/100%100, lib%100)
	}
	return nil
}

// The dynamic loader already refuses a library with another SONAME (libtrainer.so.MAJOR.MINOR);
// this catches a library older than the header within the same SONAME, or a build that linked
// against a mismatched copy through CGO_LDFLAGS.
func init() {
	if err := checkVersion(HeaderVersionNumber, VersionNumber()); err != nil {
		panic(err)
	}
}

// Feature is a bit of Features().
type Feature uint32

// Optional features a library may have been built with.
const (
	FeatureMPI  Feature = C.TRAINER_FEATURE_MPI  // Open MPI collectives backend
	FeatureNCCL Feature = C.TRAINER_FEATURE_NCCL // CUDA/NCCL collectives backend
)

// Features returns the bitmask of features compiled into the loaded library.
func Features() Feature { return Feature(C.trainer_features()) }

// Has reports whether every bit of `f` is set in `s`.
func (s Feature) Has(f Feature) bool { return s&f == f }

// String lists the set feature bits ("mpi|nccl"), "none" for an empty set.
func (s Feature) String() string {
	names := []struct {
		bit  Feature
		name string
	}{{FeatureMPI, "mpi"}, {FeatureNCCL, "nccl"}}
	out := ""
	rest := s
	for _, n := range names {
		if s&n.bit != 0 {
			if out != "" {
				out += "|"
			}
			out += n.name
			rest &^= n.bit
		}
	}
	if rest != 0 {
		if out != "" {
			out += "|"
		}
		out += fmt.Sprintf("0x%x", uint32(rest))
	}
	if out == "" {
		return "none"
	}
	return out
}

// takeBuffer copies a library-owned buffer into Go memory and frees it.
func takeBuffer(buf *C.trainer_buffer) []byte {
	defer C.trainer_buffer_free(buf)
	out := make([]byte, int(buf.len))
	if buf.data != nil && buf.len > 0 {
		copy(out, unsafe.Slice((*byte)(unsafe.Pointer(buf.data)), int(buf.len)))
	}
	return out
}

// bytesArg returns a pointer/length pair borrowing `b` for the duration of one C call. The
// memory holds no Go pointers, so cgo allows passing it; the library copies what it keeps.
func bytesArg(b []byte) (*C.char, C.size_t) {
	if len(b) == 0 {
		return C.go_trainer_empty(), 0
	}
	return (*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b))
}
