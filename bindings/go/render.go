// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <stdlib.h>
#include <trainer.h>
*/
import "C"

import (
	"io"
	"runtime"
)

// RenderOptions are the inputs of Render that are not documents. An empty field means the
// library default (given in brackets).
type RenderOptions struct {
	UID             string          // owner-reference UID [the TrainJob's own metadata.uid, else a random UUID]
	Namespace       string          // namespace of namespaced inputs without one ["default"]
	FeatureGates    string          // upstream's --feature-gates syntax, e.g. "TrainJobStatus=true" [all off]
	Gates           map[string]bool // the gates as a map, {"TrainJobStatus": true}; not with FeatureGates [all off]
	SSHPrivateKey   string          // MPI: PEM of an ECDSA P-521 private key [a fresh key pair]
	Now             string          // RFC 3339 time stamp [the system clock]
	BuiltinRuntimes bool            // a ClusterTrainingRuntime not among the inputs may be a built-in one
	Parse           *ParseOptions   // parsing limits [the library's]
	// Framework is the plugin pipeline [the built-in plugins of the gates]. With a Framework,
	// its gates apply: FeatureGates and Gates must be empty.
	Framework *Framework
	// ProgressServer is a local run's progress server: its port and CA go into the rendered
	// TrainJobStatus env and <job>-tls-config [upstream's port, the Secret among the inputs].
	ProgressServer *ProgressServer
}

// RenderedObject is one object a render produced.
type RenderedObject struct {
	Kind       string
	APIVersion string
	Name       string
	Namespace  string // "" for cluster-scoped objects
	JSON       []byte // compact JSON
}

// RenderResult is what Render produced. It holds only Go memory, so it needs no Close and may
// be shared between goroutines.
type RenderResult struct {
	Objects       []RenderedObject
	Warnings      []string // admission warnings (kubectl prints them as "Warning: <text>")
	SkippedReason string   // why nothing was rendered (managedBy another controller); "" otherwise
	yaml          []byte
	list          []byte
	pretty        []byte
}

// Encode returns every object as `trainerctl render` prints them: FormatYAML a "---"-separated
// YAML stream, FormatJSON or FormatJSONPretty a v1 List.
func (r *RenderResult) Encode(format Format) ([]byte, error) {
	switch format {
	case FormatYAML:
		return append([]byte(nil), r.yaml...), nil
	case FormatJSON:
		return append([]byte(nil), r.list...), nil
	case FormatJSONPretty:
		return append([]byte(nil), r.pretty...), nil
	}
	return nil, &Error{Code: CodeInvalidArgument, Message: "unknown format"}
}

// Render renders the one TrainJob among the documents of input (a YAML stream or JSON; a v1
// List stands for its items) with the (Cluster)TrainingRuntime it references, as the Kubeflow
// Trainer controller would (trainer_render). Objects of other kinds are taken as objects that
// already exist in the cluster. opts may be nil. Errors are *Error values: CodeInvalid with
// every field error for rejected inputs, CodeNotFound for a runtime that is not among the
// inputs, CodeInvalidArgument for unusable options.
func Render(input []byte, opts *RenderOptions) (*RenderResult, error) {
	var copts C.trainer_render_options
	if st := C.trainer_render_options_init(&copts, C.TRAINER_RENDER_OPTIONS_VERSION); st != C.TRAINER_OK {
		return nil, optionsError(st, "render")
	}
	// copts is Go memory handed to C: by cgo's pointer rules it may point only to C memory.
	var cmem cStrings
	defer cmem.free()
	if opts != nil {
		var err error
		if opts.Gates != nil {
			if opts.FeatureGates != "" {
				return nil, &Error{Code: CodeInvalidArgument, Message: "RenderOptions: set FeatureGates or Gates, not both"}
			}
			gates := *opts
			if gates.FeatureGates, err = formatGates(opts.Gates); err != nil {
				return nil, err
			}
			opts = &gates
		}
		fw, unlock, err := opts.Framework.use()
		if err != nil {
			return nil, err
		}
		defer unlock()
		copts.framework = fw
		ps, unlockServer, err := opts.ProgressServer.use()
		if err != nil {
			return nil, err
		}
		defer unlockServer()
		copts.progress_server = ps
		fields := []struct {
			dst **C.char
			val string
		}{
			{&copts.uid, opts.UID}, {&copts.namespace_name, opts.Namespace},
			{&copts.feature_gates, opts.FeatureGates}, {&copts.ssh_private_key, opts.SSHPrivateKey},
			{&copts.now, opts.Now},
		}
		for _, f := range fields {
			if *f.dst, err = cmem.checked(f.val, "RenderOptions strings"); err != nil {
				return nil, err
			}
		}
		if opts.BuiltinRuntimes {
			copts.builtin_runtimes = 1
		}
		if copts.parse, err = cmem.parseOptions(opts.Parse); err != nil {
			return nil, err
		}
	}
	p, n := bytesArg(input)
	var out *C.trainer_render_result
	var cerr *C.trainer_error
	st := C.trainer_render(p, n, &copts, &out, &cerr)
	runtime.KeepAlive(input)
	if err := takeError(st, cerr); err != nil {
		C.trainer_render_result_free(out)
		return nil, err
	}
	defer C.trainer_render_result_free(out)
	return copyRenderResult(out)
}

// RenderReader is Render of the text read from r. It reads at most the parse limit on the
// whole input (ParseOptions.MaxDocumentBytes, 4 MiB by default) plus one byte, so a longer
// input fails with ErrLimit without being read to its end.
func RenderReader(r io.Reader, opts *RenderOptions) (*RenderResult, error) {
	var limits *ParseOptions
	if opts != nil {
		limits = opts.Parse
	}
	input, err := readLimited(r, limits)
	if err != nil {
		return nil, err
	}
	return Render(input, opts)
}

// copyRenderResult copies everything out of the C result (which the caller frees).
func copyRenderResult(out *C.trainer_render_result) (*RenderResult, error) {
	r := &RenderResult{SkippedReason: C.GoString(C.trainer_render_result_skipped_reason(out))}
	count := int(C.trainer_render_result_count(out))
	r.Objects = make([]RenderedObject, count)
	for i := range r.Objects {
		ci := C.size_t(i)
		r.Objects[i] = RenderedObject{
			Kind:       C.GoString(C.trainer_render_result_kind(out, ci)),
			APIVersion: C.GoString(C.trainer_render_result_api_version(out, ci)),
			Name:       C.GoString(C.trainer_render_result_name(out, ci)),
			Namespace:  C.GoString(C.trainer_render_result_namespace(out, ci)),
			JSON:       []byte(C.GoString(C.trainer_render_result_json(out, ci))),
		}
	}
	nw := int(C.trainer_render_result_warning_count(out))
	for i := 0; i < nw; i++ {
		r.Warnings = append(r.Warnings, C.GoString(C.trainer_render_result_warning(out, C.size_t(i))))
	}
	for _, f := range []struct {
		format C.trainer_format
		dst    *[]byte
	}{{C.TRAINER_FORMAT_YAML, &r.yaml}, {C.TRAINER_FORMAT_JSON, &r.list}, {C.TRAINER_FORMAT_JSON_PRETTY, &r.pretty}} {
		var buf C.trainer_buffer
		var cerr *C.trainer_error
		if err := takeError(C.trainer_render_result_encode(out, f.format, &buf, &cerr), cerr); err != nil {
			return nil, err
		}
		*f.dst = takeBuffer(&buf)
	}
	return r, nil
}
