// SPDX-License-Identifier: Apache-2.0

// Package plugin is the plugin side of libtrainer's plugin ABI (trainer/plugin.h) in Go: the
// Plugin interface and one small interface per extension point, the Request a callback
// receives and the Reply it gives.
//
// A plugin is used two ways. In process, package trainer registers it in a Framework
// (trainer.NewFramework(...).Add(p)). As a loadable library of its own, a main package exports
// trainer_plugin_entry through Entry and is built with `go build -buildmode=c-shared`; that
// library does not link libtrainer: it reaches the library only through the host table the
// loader hands to its entry point. This package therefore needs only the header <trainer.h>
// (found in this repository's include/ folder, or through CGO_CFLAGS), never libtrainer itself.
//
// Which TrainJobs a plugin handles is its own decision, made from the request; the convention is
// the runtime label trainer.kubeflow.org/framework (Request.RuntimeLabel). A plugin returns a
// nil *Reply for TrainJobs that are not its own.
//
// Callbacks come from any thread and concurrently (several renders, the controller's workers):
// a plugin that keeps state synchronizes it itself. A Request is valid only during the call.
package plugin

import (
	"encoding/json"
	"strings"
)

// Plugin is a framework plugin: a name, unique in a framework (letters, digits, '-', '_', '.';
// at most 63 bytes), and any of the phase interfaces below, detected by type assertion.
type Plugin interface {
	Name() string
}

// Validator takes part in admission (upstream's CustomValidationPlugin): its Reply's Errors
// reject the TrainJob with their field paths, its Warnings are admission warnings.
type Validator interface {
	Validate(req *Request) (*Reply, error)
}

// MLPolicyEnforcer sets counts, env, ports and volumes (EnforceMLPolicyPlugin): Reply.Info is a
// strategic-merge patch of the runtime info, Reply.TrainJob a JSON merge patch of the TrainJob
// that may change its spec only (docs/plugins.md, "What a plugin may change").
type MLPolicyEnforcer interface {
	EnforceMLPolicy(req *Request) (*Reply, error)
}

// PodGroupPolicyEnforcer sets gang-scheduling labels and annotations (Reply.Info).
type PodGroupPolicyEnforcer interface {
	EnforcePodGroupPolicy(req *Request) (*Reply, error)
}

// PodSpecEnforcer handles pod spec concerns that have no policy of their own (Reply.Info).
type PodSpecEnforcer interface {
	EnforcePodSpec(req *Request) (*Reply, error)
}

// PreBuildSyncer reconciles the info with the concrete template before build (Reply.Info).
type PreBuildSyncer interface {
	PreBuildSync(req *Request) (*Reply, error)
}

// ComponentBuilder adds objects to create (ComponentBuilderPlugin): Reply.Objects, of namespaced
// kinds, in the TrainJob's namespace, controlled by the TrainJob (docs/plugins.md).
type ComponentBuilder interface {
	Build(req *Request) (*Reply, error)
}

// StatusReporter refines the TrainJob status on a cluster (TrainJobStatusPlugin): Reply.Status
// is a JSON merge patch of the status. A framework takes at most one.
type StatusReporter interface {
	Status(req *Request) (*Reply, error)
}

// FieldError is one field violation of a Validator's reply, with Kubernetes' field.Error types
// ("FieldValueInvalid", "FieldValueRequired", "FieldValueNotSupported", "FieldValueForbidden",
// "FieldValueDuplicate", "FieldValueTooLong", "FieldValueTooMany").
type FieldError struct {
	Type   string      `json:"type"`
	Field  string      `json:"field"` // e.g. "spec.trainer.numNodes"
	Value  interface{} `json:"value,omitempty"`
	Detail string      `json:"detail,omitempty"`
}

// Reply is what a callback answers; every member is optional (docs/plugins.md has the shapes).
// It is marshalled with encoding/json, so the members may be any JSON-marshallable Go value
// (maps, structs, json.RawMessage). Raw, when set, is sent as the reply instead.
type Reply struct {
	Info     interface{}   `json:"info,omitempty"`     // strategic-merge patch of the runtime info
	TrainJob interface{}   `json:"trainJob,omitempty"` // MLPolicyEnforcer: JSON merge patch
	Errors   []FieldError  `json:"errors,omitempty"`   // Validator
	Warnings []string      `json:"warnings,omitempty"` // Validator
	Objects  []interface{} `json:"objects,omitempty"`  // ComponentBuilder
	Status   interface{}   `json:"status,omitempty"`   // StatusReporter: JSON merge patch

	Raw json.RawMessage `json:"-"`
}

// bytes is the reply document (nil for a nil reply).
func (r *Reply) bytes() ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	if r.Raw != nil {
		return r.Raw, nil
	}
	return json.Marshal(r)
}

// Error is an error a callback returns to fail the operation with a given status code (a
// trainer status such as -3 for TRAINER_E_INVALID); any other error fails it with the code of
// a failed callback (-9).
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

// source is what a Request reads: the library's request through its host table.
type source interface {
	json() []byte
	get(pointer string) ([]byte, bool)
	getString(pointer string) (string, bool)
	getInt(pointer string) (int64, bool)
}

// Request is the request document of one callback. Valid only during the call, and only on the
// callback's goroutine.
type Request struct {
	src  source
	text []byte
}

// JSON returns the whole request as JSON text (a copy the caller may keep).
func (r *Request) JSON() []byte {
	if r.text == nil {
		r.text = r.src.json()
	}
	return append([]byte(nil), r.text...)
}

// Decode unmarshals the whole request into v with encoding/json.
func (r *Request) Decode(v interface{}) error {
	if r.text == nil {
		r.text = r.src.json()
	}
	return json.Unmarshal(r.text, v)
}

// Phase returns the phase name ("validate", "enforceMLPolicy", ...).
func (r *Request) Phase() string {
	s, _ := r.String("/phase")
	return s
}

// Get returns the value at JSON pointer (RFC 6901, e.g. "/trainJob/spec/trainer/numNodes") as
// compact JSON text; false when absent or the pointer is malformed.
func (r *Request) Get(pointer string) (json.RawMessage, bool) {
	b, ok := r.src.get(pointer)
	return json.RawMessage(b), ok
}

// String returns the string at pointer; false when absent or not a string.
func (r *Request) String(pointer string) (string, bool) { return r.src.getString(pointer) }

// Int returns the integer at pointer; false when absent or not an integer.
func (r *Request) Int(pointer string) (int64, bool) { return r.src.getInt(pointer) }

// RuntimeLabel returns label `key` of the (Cluster)TrainingRuntime the TrainJob uses
// (info.runtime.labels), e.g. RuntimeLabel(FrameworkLabel).
func (r *Request) RuntimeLabel(key string) (string, bool) {
	return r.String("/info/runtime/labels/" + EscapePointer(key))
}

// FrameworkLabel is the runtime label that names a runtime's framework ("torch", "mlx", ...),
// by which a plugin recognizes the TrainJobs that are its own.
const FrameworkLabel = "trainer.kubeflow.org/framework"

// EscapePointer escapes one JSON-pointer reference token ("~" -> "~0", "/" -> "~1").
func EscapePointer(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}
