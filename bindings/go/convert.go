// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <stdlib.h>
#include <trainer.h>
*/
import "C"

import (
	"encoding/json"
	"io"
	"runtime"
)

// ConvertOptions are the inputs of Convert that are not documents. An empty field means the
// library default (given in brackets).
type ConvertOptions struct {
	Namespace string        // namespace of a job that names none ["default"]
	Strict    bool          // every warning is an error instead (CodeInvalid, one field error each)
	Parse     *ParseOptions // parsing limits [the library's]
}

// ConvertResult is what Convert produced. It holds only Go memory, so it needs no Close and
// may be shared between goroutines.
type ConvertResult struct {
	Objects  [][]byte // every object as compact JSON, in apply order
	Warnings []string // one per v1 field Trainer v2 cannot express, naming its path
	yaml     []byte
}

// Encode returns every object as `trainerctl convert` prints them: FormatYAML a
// "---"-separated YAML stream, FormatJSON or FormatJSONPretty a v1 List.
func (r *ConvertResult) Encode(format Format) ([]byte, error) {
	switch format {
	case FormatYAML:
		return append([]byte(nil), r.yaml...), nil
	case FormatJSON, FormatJSONPretty:
		// The objects' bytes go into the List as they are (json.RawMessage keeps key order).
		items := make([]json.RawMessage, len(r.Objects))
		for i, o := range r.Objects {
			items[i] = o
		}
		list := struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Items      []json.RawMessage `json:"items"`
		}{"v1", "List", items}
		if format == FormatJSONPretty {
			return json.MarshalIndent(list, "", "  ")
		}
		return json.Marshal(list)
	}
	return nil, &Error{Code: CodeInvalidArgument, Message: "unknown format"}
}

// Convert replaces every Training Operator v1 job (kubeflow.org/v1 PyTorchJob, TFJob, MPIJob,
// XGBoostJob, JAXJob, PaddleJob) among the documents of input by its Trainer v2 objects (a
// generated TrainingRuntime where no built-in runtime fits, then the TrainJob) and every Katib
// Experiment by an OptimizationJob, as `trainerctl convert` does (trainer_convert); other
// documents are kept as they are. opts may be nil. The conversion is a pure function of its
// input, so it takes no context. Errors are *Error values: CodeInvalid with one field error
// per problem (paths in the v1 object), CodeParse for malformed input, CodeInvalidArgument for
// unusable options.
func Convert(input []byte, opts *ConvertOptions) (*ConvertResult, error) {
	var copts C.trainer_convert_options
	if st := C.trainer_convert_options_init(&copts, C.TRAINER_CONVERT_OPTIONS_VERSION); st != C.TRAINER_OK {
		return nil, optionsError(st, "convert")
	}
	// copts is Go memory handed to C: by cgo's pointer rules it may point only to C memory.
	var cmem cStrings
	defer cmem.free()
	if opts != nil {
		var err error
		if copts.namespace_name, err = cmem.checked(opts.Namespace, "ConvertOptions.Namespace"); err != nil {
			return nil, err
		}
		copts.strict = cBool(opts.Strict)
		if copts.parse, err = cmem.parseOptions(opts.Parse); err != nil {
			return nil, err
		}
	}
	p, n := bytesArg(input)
	var out *C.trainer_convert_result
	var cerr *C.trainer_error
	st := C.trainer_convert(p, n, &copts, &out, &cerr)
	runtime.KeepAlive(input)
	if err := takeError(st, cerr); err != nil {
		C.trainer_convert_result_free(out)
		return nil, err
	}
	defer C.trainer_convert_result_free(out)
	r := &ConvertResult{yaml: []byte(C.GoString(C.trainer_convert_result_text(out)))}
	count := int(C.trainer_convert_result_count(out))
	r.Objects = make([][]byte, count)
	for i := range r.Objects {
		r.Objects[i] = []byte(C.GoString(C.trainer_convert_result_json(out, C.size_t(i))))
	}
	nw := int(C.trainer_convert_result_warning_count(out))
	for i := 0; i < nw; i++ {
		r.Warnings = append(r.Warnings, C.GoString(C.trainer_convert_result_warning(out, C.size_t(i))))
	}
	return r, nil
}

// ConvertReader is Convert of the text read from r (at most the whole-input limit plus one
// byte, see RenderReader).
func ConvertReader(r io.Reader, opts *ConvertOptions) (*ConvertResult, error) {
	var limits *ParseOptions
	if opts != nil {
		limits = opts.Parse
	}
	input, err := readLimited(r, limits)
	if err != nil {
		return nil, err
	}
	return Convert(input, opts)
}
