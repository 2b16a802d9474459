// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A Training Operator v1 PyTorchJob; cleanPodPolicy: All has no Trainer v2 equivalent.
const convertPyTorchJob = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pt
spec:
  runPolicy:
    cleanPodPolicy: All
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/library/busybox:1.36
              command: [sh, -c, echo $RANK]
    Worker:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/library/busybox:1.36
              command: [sh, -c, echo $RANK]
`

func TestConvertPyTorchJob(t *testing.T) {
	r, err := ConvertReader(strings.NewReader(convertPyTorchJob), &ConvertOptions{Namespace: "team-go"})
	if err != nil {
		t.Fatal(err)
	}
	var trainJob *struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct{ Name, Namespace string }
	}
	for _, o := range r.Objects {
		var v struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct{ Name, Namespace string }
		}
		if err := json.Unmarshal(o, &v); err != nil {
			t.Fatalf("object %s: %v", o, err)
		}
		if v.Kind == "PyTorchJob" {
			t.Errorf("the v1 job is still there: %s", o)
		}
		if v.Kind == "TrainJob" {
			trainJob = &v
		}
	}
	if trainJob == nil || trainJob.APIVersion != "trainer.kubeflow.org/v1alpha1" ||
		trainJob.Metadata.Name != "pt" || trainJob.Metadata.Namespace != "team-go" {
		t.Fatalf("no TrainJob team-go/pt among %d objects: %+v", len(r.Objects), trainJob)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, "spec.runPolicy.cleanPodPolicy")
	}
	if !found {
		t.Errorf("no cleanPodPolicy warning in %q", r.Warnings)
	}
	y, err := r.Encode(FormatYAML)
	if err != nil || !strings.Contains(string(y), "kind: TrainJob") {
		t.Errorf("YAML (%v):\n%s", err, y)
	}
	for _, f := range []Format{FormatJSON, FormatJSONPretty} {
		list, err := r.Encode(f)
		var l struct {
			Kind  string
			Items []json.RawMessage
		}
		if err != nil || json.Unmarshal(list, &l) != nil || l.Kind != "List" || len(l.Items) != len(r.Objects) {
			t.Errorf("format %d (%v): %s", f, err, list)
		}
	}
}

func TestConvertStrictAndErrors(t *testing.T) {
	_, err := Convert([]byte(convertPyTorchJob), &ConvertOptions{Strict: true})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalid {
		t.Fatalf("strict: %#v", err)
	}
	found := false
	for _, f := range e.Fields {
		found = found || strings.Contains(f.Path, "spec.runPolicy.cleanPodPolicy")
	}
	if !found {
		t.Errorf("strict: no field error at spec.runPolicy.cleanPodPolicy: %v", e)
	}
	if _, err := Convert([]byte("a: ["), nil); !errors.Is(err, ErrParse) {
		t.Errorf("malformed input: %v", err)
	}
	r, err := Convert([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n"), nil)
	if err != nil || len(r.Objects) != 1 || !strings.Contains(string(r.Objects[0]), `"name":"keep"`) || len(r.Warnings) != 0 {
		t.Errorf("pass-through: %v %+v", err, r)
	}
}
