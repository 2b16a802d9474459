// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestVersionMatchesHeader(t *testing.T) {
	if got := VersionNumber(); got != HeaderVersionNumber {
		t.Fatalf("VersionNumber() = %d, header says %d", got, HeaderVersionNumber)
	}
	if got := Version(); got != HeaderVersionString {
		t.Fatalf("Version() = %q, header says %q", got, HeaderVersionString)
	}
	want := fmt.Sprintf("%d.%d.%d", HeaderVersionMajor, HeaderVersionMinor, HeaderVersionPatch)
	if Version() != want {
		t.Fatalf("Version() = %q, want %q from the header macros", Version(), want)
	}
}

func TestCheckVersion(t *testing.T) {
	cases := []struct {
		header, lib uint32
		ok          bool
	}{
		{100, 100, true},    // 0.1.0 / 0.1.0
		{100, 105, true},    // newer patch in the library
		{105, 100, false},   // library older than the header
		{100, 200, false},   // other minor: ABI may differ
		{10100, 100, false}, // other major
	}
	for _, c := range cases {
		err := checkVersion(c.header, c.lib)
		if (err == nil) != c.ok {
			t.Errorf("checkVersion(%d, %d) = %v, want ok=%v", c.header, c.lib, err, c.ok)
		}
	}
}

func TestFeatures(t *testing.T) {
	f := Features()
	known := FeatureMPI | FeatureNCCL
	if f&^known != 0 {
		t.Fatalf("Features() = %#x has bits this binding does not know", uint32(f))
	}
	s := f.String()
	if f == 0 && s != "none" {
		t.Fatalf("empty feature set prints %q", s)
	}
	if f.Has(FeatureMPI) != strings.Contains(s, "mpi") || f.Has(FeatureNCCL) != strings.Contains(s, "nccl") {
		t.Fatalf("Features() = %#x prints as %q", uint32(f), s)
	}
	if got := (FeatureMPI | FeatureNCCL | 0x80).String(); got != "mpi|nccl|0x80" {
		t.Fatalf("String() = %q", got)
	}
}

func TestCodeNames(t *testing.T) {
	cases := map[Code]string{
		CodeOK:              "TRAINER_OK",
		CodeInvalidArgument: "TRAINER_E_INVALID_ARGUMENT",
		CodeParse:           "TRAINER_E_PARSE",
		CodeInvalid:         "TRAINER_E_INVALID",
		CodeLimit:           "TRAINER_E_LIMIT",
		CodeNotFound:        "TRAINER_E_NOT_FOUND",
		CodeUnsupported:     "TRAINER_E_UNSUPPORTED",
		CodeNoMem:           "TRAINER_E_NOMEM",
		CodeInternal:        "TRAINER_E_INTERNAL",
		CodeUser:            "TRAINER_E_USER",
		CodeIO:              "TRAINER_E_IO",
		CodeTimeout:         "TRAINER_E_TIMEOUT",
		CodeCanceled:        "TRAINER_E_CANCELLED",
		CodeUnauthorized:    "TRAINER_E_UNAUTHORIZED",
		CodeForbidden:       "TRAINER_E_FORBIDDEN",
		CodeConflict:        "TRAINER_E_CONFLICT",
		CodeServer:          "TRAINER_E_SERVER",
		CodeFailed:          "TRAINER_E_FAILED",
		Code(-1000):         "TRAINER_E_?",
	}
	for code, want := range cases {
		if got := code.String(); got != want {
			t.Errorf("Code(%d).String() = %q, want %q", int(code), got, want)
		}
	}
}

func TestErrorIsComparesCodes(t *testing.T) {
	var err error = fmt.Errorf("loading job: %w", &Error{Code: CodeInvalid, Message: "bad",
		Fields: []FieldError{{Path: "spec.x", Type: "FieldValueRequired", Detail: "d"}}})
	if !errors.Is(err, ErrInvalid) {
		t.Fatal("errors.Is(wrapped invalid, ErrInvalid) = false")
	}
	if errors.Is(err, ErrParse) {
		t.Fatal("errors.Is(wrapped invalid, ErrParse) = true")
	}
	var te *Error
	if !errors.As(err, &te) || len(te.Fields) != 1 || te.Fields[0].Path != "spec.x" {
		t.Fatalf("errors.As lost the fields: %#v", te)
	}
	if got := te.Error(); got != "libtrainer: invalid: bad" {
		t.Fatalf("Error() = %q", got)
	}
	// Every known code has words of its own, and no error text carries a C constant name.
	for code := CodeFailed; code <= CodeOK; code++ {
		text := (&Error{Code: code}).Error()
		if strings.Contains(text, "TRAINER_") || strings.Contains(code.Text(), "error -") {
			t.Errorf("Code(%d): Error() = %q, Text() = %q", int(code), text, code.Text())
		}
	}
	if got := Code(-1000).Text(); got != "error -1000" {
		t.Errorf("unknown code Text() = %q", got)
	}
}
