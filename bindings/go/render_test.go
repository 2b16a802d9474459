// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const renderUID = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59"

// goldenInput joins a golden case's preconditions (when present), runtime and TrainJob.
func goldenInput(t *testing.T, name string) []byte {
	t.Helper()
	dir := filepath.Join("..", "..", "tests", "golden", "cases", name)
	var parts [][]byte
	for _, f := range []string{"preconditions.yaml", "runtime.yaml", "trainjob.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if errors.Is(err, os.ErrNotExist) && f == "preconditions.yaml" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, b)
	}
	return bytes.Join(parts, []byte("\n---\n"))
}

func goldenKey(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "tests", "golden", "testdata", "ssh-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRenderMPIObjects(t *testing.T) {
	opts := &RenderOptions{UID: renderUID, Now: "2025-01-01T00:00:00Z", SSHPrivateKey: goldenKey(t)}
	input := goldenInput(t, "18-mpi-openmpi-separate-launcher")
	r, err := Render(input, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ kind, name string }{
		{"ConfigMap", "test-job-runtime-snapshot"}, {"JobSet", "test-job"},
		{"Secret", "test-job-mpi-ssh-auth"}, {"ConfigMap", "test-job-mpi-hostfile"},
	}
	if len(r.Objects) != len(want) {
		t.Fatalf("got %d objects, want %d", len(r.Objects), len(want))
	}
	for i, w := range want {
		o := r.Objects[i]
		if o.Kind != w.kind || o.Name != w.name || o.Namespace != "default" {
			t.Errorf("object %d: %s %s/%s, want %s default/%s", i, o.Kind, o.Namespace, o.Name, w.kind, w.name)
		}
		var v struct {
			Metadata struct {
				OwnerReferences []struct{ UID string } `json:"ownerReferences"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(o.JSON, &v); err != nil {
			t.Fatalf("object %d: %v", i, err)
		}
		if len(v.Metadata.OwnerReferences) != 1 || v.Metadata.OwnerReferences[0].UID != renderUID {
			t.Errorf("object %d: owner references %+v", i, v.Metadata.OwnerReferences)
		}
	}
	if r.SkippedReason != "" || len(r.Warnings) != 0 {
		t.Errorf("skipped %q, warnings %v", r.SkippedReason, r.Warnings)
	}

	// Fixed UID, clock and key: the same bytes again.
	again, err := Render(input, opts)
	if err != nil {
		t.Fatal(err)
	}
	y1, _ := r.Encode(FormatYAML)
	y2, _ := again.Encode(FormatYAML)
	if !bytes.Equal(y1, y2) || strings.Count(string(y1), "\n---\n") != 3 {
		t.Errorf("YAML streams differ or do not hold 4 documents:\n%s", y1)
	}
	for _, f := range []Format{FormatJSON, FormatJSONPretty} {
		list, err := r.Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		var l struct {
			Kind  string
			Items []json.RawMessage
		}
		if err := json.Unmarshal(list, &l); err != nil || l.Kind != "List" || len(l.Items) != 4 {
			t.Errorf("format %d: %v, kind %q, %d items", f, err, l.Kind, len(l.Items))
		}
	}
	if _, err := r.Encode(Format(9)); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unknown format: %v", err)
	}
}

func TestRenderErrors(t *testing.T) {
	_, err := Render(goldenInput(t, "32-invalid-torch-reserved-env"), nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalid || len(e.Fields) != 1 || e.Fields[0].Path != "spec.trainer.env" {
		t.Fatalf("reserved env: %#v", err)
	}
	job, err := os.ReadFile(filepath.Join("..", "..", "tests", "golden", "cases", "09-torch-numnodes-and-numprocpernode-explicit", "trainjob.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(job, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing runtime: %v", err)
	}
	input := goldenInput(t, "18-mpi-openmpi-separate-launcher")
	if _, err := Render(input, &RenderOptions{FeatureGates: "Nope=true"}); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), `unrecognized feature gate "Nope"`) {
		t.Errorf("bad gate: %v", err)
	}
	if _, err := Render(input, &RenderOptions{UID: "a\x00b"}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("NUL in an option: %v", err)
	}
	if _, err := Render(input, &RenderOptions{Parse: &ParseOptions{MaxDocumentBytes: 16}}); !errors.Is(err, ErrLimit) {
		t.Errorf("limit: %v", err)
	}
}

func TestRenderSkippedAndGates(t *testing.T) {
	r, err := Render(goldenInput(t, "55-managed-by-multikueue"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Objects) != 0 || !strings.Contains(r.SkippedReason, `managed by "kueue.x-k8s.io/multikueue"`) {
		t.Errorf("managedBy: %d objects, reason %q", len(r.Objects), r.SkippedReason)
	}
	on, err := Render(goldenInput(t, "79-trainjobstatus-gate-on"), &RenderOptions{FeatureGates: "TrainJobStatus=true"})
	if err != nil {
		t.Fatal(err)
	}
	if len(on.Objects) != 3 || on.Objects[2].Name != "test-job-tls-config" ||
		!bytes.Contains(on.Objects[1].JSON, []byte("KUBEFLOW_TRAINER_SERVER_URL")) {
		t.Errorf("TrainJobStatus gate: %+v", on.Objects)
	}
}

func TestRenderReaderAndGateMap(t *testing.T) {
	input := goldenInput(t, "79-trainjobstatus-gate-on")
	on, err := RenderReader(bytes.NewReader(input), &RenderOptions{Gates: map[string]bool{"TrainJobStatus": true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(on.Objects) != 3 || on.Objects[2].Name != "test-job-tls-config" {
		t.Fatalf("TrainJobStatus gate from the map: %+v", on.Objects)
	}
	off, err := Render(input, &RenderOptions{Gates: map[string]bool{"TrainJobStatus": false}})
	if err != nil || len(off.Objects) != 2 {
		t.Fatalf("gate off: %v, %v", off, err)
	}
	if _, err := Render(input, &RenderOptions{Gates: map[string]bool{"Nope": true}}); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), `unrecognized feature gate "Nope"`) {
		t.Fatalf("unknown gate in the map: %v", err)
	}
	if _, err := Render(input, &RenderOptions{Gates: map[string]bool{"A=B": true}}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("malformed gate name: %v", err)
	}
	if _, err := Render(input, &RenderOptions{FeatureGates: "TrainJobStatus=true", Gates: map[string]bool{}}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("both gate forms: %v", err)
	}
	// An endless reader is read up to the limit and refused by it.
	if _, err := RenderReader(endless{}, &RenderOptions{Parse: &ParseOptions{MaxDocumentBytes: 1024}}); !errors.Is(err, ErrLimit) {
		t.Fatalf("endless input: %v", err)
	}
	list, err := ParseDocumentsReader(strings.NewReader(string(input)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer list.Close()
	if list.Len() < 2 {
		t.Fatalf("ParseDocumentsReader: %d documents", list.Len())
	}
	if _, err := ParseDocumentsReader(failingReader{}, nil); !errors.Is(err, ErrIO) || !errors.Is(err, errRead) {
		t.Fatalf("a failing reader: %v", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '#'
	}
	return len(p), nil
}

var errRead = errors.New("disk on fire")

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errRead }
