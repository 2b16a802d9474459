// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// goldenRejectedCases lists the golden cases that admission rejects (those with
// expected/error.txt).
func goldenRejectedCases(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "tests", "golden", "cases", "*", "expected", "error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no rejected golden cases found")
	}
	var names []string
	for _, d := range dirs {
		names = append(names, filepath.Base(filepath.Dir(filepath.Dir(d))))
	}
	return names
}

// goldenFieldErrors reads a case's expected/field-errors.txt: the field errors `trainerctl
// validate` reports, one a line (tests/golden/validate_faces.hpp).
func goldenFieldErrors(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "tests", "golden", "cases", name, "expected", "field-errors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// Every rejected golden case, validated through the Go binding document by document with the
// whole input as context, reports exactly the field errors of trainerctl validate: the plugins'
// rules (reserved envs, torchtune, Volcano, ...) and a TrainingRuntime in another namespace.
func TestValidateGoldenRejectionsLikeTrainerctl(t *testing.T) {
	for _, name := range goldenRejectedCases(t) {
		t.Run(name, func(t *testing.T) {
			l, err := ParseDocuments(goldenInput(t, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			for _, d := range l.Documents() {
				if err := d.Default(); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, d := range l.Documents() {
				_, err := d.Validate(l)
				if errors.Is(err, ErrUnsupported) {
					continue // an object that exists in the cluster (PriorityClass, ...)
				}
				if err == nil {
					continue
				}
				var e *Error
				if !errors.As(err, &e) || e.Code != CodeInvalid || len(e.Fields) == 0 {
					t.Fatalf("Validate(%s %s): %v", d.Kind(), d.Name(), err)
				}
				for _, f := range e.Fields {
					got = append(got, f.String())
				}
			}
			if want := goldenFieldErrors(t, name); !reflect.DeepEqual(got, want) {
				t.Errorf("field errors\n got: %q\nwant: %q", got, want)
			}
		})
	}
}

// A TrainJob whose runtime is not among the inputs is admitted with a warning naming it.
func TestValidateWarnsAboutAnUncheckedRuntime(t *testing.T) {
	l := parse(t, trainJobYAML)
	defer l.Close()
	d := l.Documents()[0]
	if err := d.Default(); err != nil {
		t.Fatal(err)
	}
	for _, ctx := range []*DocumentList{nil, l} {
		warnings, err := d.Validate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		const want = `TrainJob default/mnist-ddp references ClusterTrainingRuntime "torch-distributed", which is not among the inputs: the TrainJob was not checked against it`
		if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
			t.Errorf("warnings = %q, want one starting with %q", warnings, want)
		}
	}
}
