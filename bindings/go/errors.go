// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <trainer.h>
*/
import "C"

import (
	"fmt"
	"strings"
)

// Code is a libtrainer status code (TRAINER_OK or a negative TRAINER_E_* value). Codes are
// append-only: a newer library may return a code this package has no constant for.
type Code int

// Status codes, taken from <trainer.h> so that drift fails to compile.
const (
	CodeOK              Code = C.TRAINER_OK
	CodeInvalidArgument Code = C.TRAINER_E_INVALID_ARGUMENT
	CodeParse           Code = C.TRAINER_E_PARSE
	CodeInvalid         Code = C.TRAINER_E_INVALID
	CodeLimit           Code = C.TRAINER_E_LIMIT
	CodeNotFound        Code = C.TRAINER_E_NOT_FOUND
	CodeUnsupported     Code = C.TRAINER_E_UNSUPPORTED
	CodeNoMem           Code = C.TRAINER_E_NOMEM
	CodeInternal        Code = C.TRAINER_E_INTERNAL
	CodeUser            Code = C.TRAINER_E_USER
	CodeIO              Code = C.TRAINER_E_IO
	CodeTimeout         Code = C.TRAINER_E_TIMEOUT
	CodeCanceled        Code = C.TRAINER_E_CANCELLED
	CodeUnauthorized    Code = C.TRAINER_E_UNAUTHORIZED
	CodeForbidden       Code = C.TRAINER_E_FORBIDDEN
	CodeConflict        Code = C.TRAINER_E_CONFLICT
	CodeServer          Code = C.TRAINER_E_SERVER
	CodeFailed          Code = C.TRAINER_E_FAILED
)

// String returns the C constant name ("TRAINER_E_PARSE"), "TRAINER_E_?" for unknown codes.
func (c Code) String() string { return C.GoString(C.trainer_status_name(C.trainer_status(c))) }

// codeTexts are the words Error() uses for each code.
var codeTexts = map[Code]string{
	CodeOK:              "ok",
	CodeInvalidArgument: "invalid argument",
	CodeParse:           "parse error",
	CodeInvalid:         "invalid",
	CodeLimit:           "limit exceeded",
	CodeNotFound:        "not found",
	CodeUnsupported:     "unsupported",
	CodeNoMem:           "out of memory",
	CodeInternal:        "internal error",
	CodeUser:            "callback failed",
	CodeIO:              "I/O error",
	CodeTimeout:         "timed out",
	CodeCanceled:        "canceled",
	CodeUnauthorized:    "unauthorized",
	CodeForbidden:       "forbidden",
	CodeConflict:        "conflict",
	CodeServer:          "server error",
	CodeFailed:          "failed",
}

// Text describes the code in words ("invalid argument", "not found"); "error <n>" for a code
// this package does not know (a newer library's).
func (c Code) Text() string {
	if t, ok := codeTexts[c]; ok {
		return t
	}
	return fmt.Sprintf("error %d", int(c))
}

// Sentinels for errors.Is: errors.Is(err, ErrInvalid) holds for every *Error whose Code is
// CodeInvalid, whatever its message and fields. A cluster call ended by its context.Context
// is ErrCanceled and also matches the context's error (context.Canceled or
// context.DeadlineExceeded).
var (
	ErrInvalidArgument = &Error{Code: CodeInvalidArgument}
	ErrParse           = &Error{Code: CodeParse}
	ErrInvalid         = &Error{Code: CodeInvalid}
	ErrLimit           = &Error{Code: CodeLimit}
	ErrNotFound        = &Error{Code: CodeNotFound}
	ErrUnsupported     = &Error{Code: CodeUnsupported}
	ErrNoMem           = &Error{Code: CodeNoMem}
	ErrInternal        = &Error{Code: CodeInternal}
	ErrUser            = &Error{Code: CodeUser}
	ErrIO              = &Error{Code: CodeIO}
	ErrTimeout         = &Error{Code: CodeTimeout}
	ErrCanceled        = &Error{Code: CodeCanceled}
	ErrUnauthorized    = &Error{Code: CodeUnauthorized}
	ErrForbidden       = &Error{Code: CodeForbidden}
	ErrConflict        = &Error{Code: CodeConflict}
	ErrServer          = &Error{Code: CodeServer}
	ErrFailed          = &Error{Code: CodeFailed}
)

// FieldError is one Kubernetes-style field violation (k8s.io/apimachinery field.Error).
type FieldError struct {
	// Path of the offending field, e.g. "spec.trainer.numNodes".
	Path string
	// Type is the Kubernetes error type name, e.g. "FieldValueInvalid", "FieldValueRequired".
	Type string
	// Value is the offending value as JSON text; empty when the violation carries no value.
	Value string
	// Detail explains the violation, e.g. "must be greater than or equal to 0".
	Detail string

	text string
}

// String returns the library's Kubernetes rendering
// ("spec.trainer.numNodes: Invalid value: 0: must be greater than or equal to 1").
func (f FieldError) String() string {
	if f.text != "" {
		return f.text
	}
	parts := []string{f.Path, f.Type}
	if f.Value != "" {
		parts = append(parts, f.Value)
	}
	if f.Detail != "" {
		parts = append(parts, f.Detail)
	}
	return strings.Join(parts, ": ")
}

// Error is the error type of every fallible function in this package.
type Error struct {
	Code    Code
	Message string
	// Fields lists the field violations of CodeInvalid and CodeParse errors.
	Fields []FieldError
	// HTTPStatus is the HTTP status code of an error a Kubernetes API server answered (404,
	// 422, ...); 0 for every other error.
	HTTPStatus int
	// Reason is the server's Status.reason ("NotFound", "Invalid", "AlreadyExists", ...); ""
	// when it sent none and for errors that did not come from a server.
	Reason string

	// cause is the context error that cancelled a cluster call (see Unwrap).
	cause error
}

// Error implements the error interface: "libtrainer: invalid: <message>". The text names the
// code in words (Code.Text), not by its C constant, so it reads the same in every binding.
func (e *Error) Error() string {
	if e.Message == "" {
		return "libtrainer: " + e.Code.Text()
	}
	return "libtrainer: " + e.Code.Text() + ": " + e.Message
}

// Is makes errors.Is(err, ErrX) compare status codes.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Unwrap returns the context error (context.Canceled, context.DeadlineExceeded) of a cluster
// call that its context ended, so that errors.Is(err, context.Canceled) holds; nil otherwise.
func (e *Error) Unwrap() error { return e.cause }

// optString converts a borrowed, possibly NULL C string.
func optString(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// takeError converts a library error into a *Error and frees it. `status` is the value the call
// returned; it is used when the library could not allocate an error object.
func takeError(status C.trainer_status, cerr *C.trainer_error) error {
	if status == C.TRAINER_OK {
		C.trainer_error_free(cerr)
		return nil
	}
	if cerr == nil {
		return &Error{Code: Code(status)}
	}
	defer C.trainer_error_free(cerr)
	return copyError(cerr)
}

// copyError converts a borrowed, non-NULL library error into a *Error (the library keeps it).
func copyError(cerr *C.trainer_error) *Error {
	e := &Error{
		Code:       Code(C.trainer_error_code(cerr)),
		Message:    C.GoString(C.trainer_error_message(cerr)),
		HTTPStatus: int(C.trainer_error_http_status(cerr)),
		Reason:     C.GoString(C.trainer_error_reason(cerr)),
	}
	n := int(C.trainer_error_field_count(cerr))
	if n > 0 {
		e.Fields = make([]FieldError, n)
		for i := range e.Fields {
			ci := C.size_t(i)
			e.Fields[i] = FieldError{
				Path:   optString(C.trainer_error_field_path(cerr, ci)),
				Type:   optString(C.trainer_error_field_type(cerr, ci)),
				Value:  optString(C.trainer_error_field_value(cerr, ci)),
				Detail: optString(C.trainer_error_field_detail(cerr, ci)),
				text:   optString(C.trainer_error_field_string(cerr, ci)),
			}
		}
	}
	return e
}

// optionsError reports that the loaded library refused an options struct of this header's
// version (a library older than the header, which the version check in init normally stops).
func optionsError(st C.trainer_status, what string) error {
	return &Error{Code: Code(st), Message: "the loaded libtrainer does not support this version of the " + what + " options"}
}
