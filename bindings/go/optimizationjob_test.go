// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"errors"
	"strings"
	"testing"
)

// An OptimizationJob whose trials use the torch-distributed runtime of runtimeYAML.
const optimizationJobYAML = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata:
  name: tune
  namespace: default
spec:
  objectives: [{metric: loss}]
  parameters:
    - name: lr
      searchSpace: {logUniform: {min: "0.0001", max: "0.1"}}
  numTrials: 4
  parallelTrials: PARALLEL
  trainJobTemplate:
    spec:
      runtimeRef: {name: torch-distributed}
      trainer:
        numNodes: 2
        command: ["torchrun", "train.py", "--lr=$(KUBEFLOW_TRAINER_OPT_LR)"]
`

func TestOptimizationJobDocument(t *testing.T) {
	l := parse(t, runtimeYAML+"---\n"+strings.Replace(optimizationJobYAML, "PARALLEL", "2", 1))
	d := l.Document(1)
	if d.Kind() != "OptimizationJob" || d.Name() != "tune" {
		t.Fatalf("document = %s %s", d.Kind(), d.Name())
	}
	if err := d.Default(); err != nil {
		t.Fatal(err)
	}
	out, err := d.Encode(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"direction":"Minimize"`, `"searchAlgorithm":{"random":{}}`,
		`"type":"Float"`, `"managedBy":"trainer.kubeflow.org/trainjob-controller"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("defaulted document lacks %s: %s", want, out)
		}
	}
	warnings, err := d.Validate(l)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Validate = %q, %v", warnings, err)
	}
}

func TestOptimizationJobValidationErrors(t *testing.T) {
	l := parse(t, runtimeYAML+"---\n"+strings.Replace(optimizationJobYAML, "PARALLEL", "5", 1))
	d := l.Document(1)
	if err := d.Default(); err != nil {
		t.Fatal(err)
	}
	_, err := d.Validate(l)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	var te *Error
	errors.As(err, &te)
	if len(te.Fields) != 1 || te.Fields[0].String() !=
		"spec: Invalid value: parallelTrials cannot exceed numTrials" {
		t.Errorf("fields = %+v", te.Fields)
	}
}
