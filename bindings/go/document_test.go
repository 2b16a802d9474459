// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The same objects as examples/torch-distributed, inlined so the binding tests stand alone.
const runtimeYAML = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
  labels:
    trainer.kubeflow.org/framework: torch
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime
`

const trainJobYAML = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mnist-ddp
  namespace: default
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    numProcPerNode: 2
    command: ["torchrun", "train.py"]
`

const invalidTrainJobYAML = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: Bad_Name
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numProcPerNode: 0
`

func parse(t *testing.T, text string) *DocumentList {
	t.Helper()
	l, err := ParseDocuments([]byte(text), nil)
	if err != nil {
		t.Fatalf("ParseDocuments: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestParseStream(t *testing.T) {
	l := parse(t, runtimeYAML+"---\n"+trainJobYAML+"---\n")
	if l.Len() != 2 {
		t.Fatalf("Len() = %d, want 2 (the empty trailing document is skipped)", l.Len())
	}
	rt, job := l.Document(0), l.Document(1)
	if rt.Kind() != "ClusterTrainingRuntime" || rt.Name() != "torch-distributed" || rt.Namespace() != "" {
		t.Fatalf("document 0: kind %q name %q namespace %q", rt.Kind(), rt.Name(), rt.Namespace())
	}
	if job.Kind() != "TrainJob" || job.Name() != "mnist-ddp" || job.Namespace() != "default" ||
		job.APIVersion() != "trainer.kubeflow.org/v1alpha1" {
		t.Fatalf("document 1: %q %q %q %q", job.APIVersion(), job.Kind(), job.Name(), job.Namespace())
	}
	if l.Document(2) != nil || l.Document(-1) != nil {
		t.Fatal("Document out of range is not nil")
	}
	if docs := l.Documents(); len(docs) != 2 || docs[1].Name() != "mnist-ddp" {
		t.Fatalf("Documents() = %v", docs)
	}
}

func TestParseEmptyInput(t *testing.T) {
	for _, in := range []string{"", "---\n", "# only a comment\n"} {
		l := parse(t, in)
		if l.Len() != 0 {
			t.Errorf("ParseDocuments(%q).Len() = %d, want 0", in, l.Len())
		}
	}
}

func TestParseMalformedYAML(t *testing.T) {
	_, err := ParseDocuments([]byte("kind: TrainJob\nmetadata: {name: x\n"), nil)
	if !errors.Is(err, ErrParse) {
		t.Fatalf("err = %v, want ErrParse", err)
	}
	var te *Error
	if !errors.As(err, &te) || te.Message == "" {
		t.Fatalf("no message in %#v", err)
	}
}

func TestParseTypeErrorHasFieldPath(t *testing.T) {
	bad := strings.Replace(trainJobYAML, "numNodes: 2", `numNodes: "two"`, 1)
	_, err := ParseDocuments([]byte(bad), nil)
	var te *Error
	if !errors.As(err, &te) || te.Code != CodeParse {
		t.Fatalf("err = %v, want a CodeParse *Error", err)
	}
	if len(te.Fields) != 1 || te.Fields[0].Path != "spec.trainer.numNodes" {
		t.Fatalf("fields = %+v, want one at spec.trainer.numNodes", te.Fields)
	}
	if te.Fields[0].Value != `"two"` {
		t.Errorf("value = %q, want the JSON text \"two\"", te.Fields[0].Value)
	}
}

func TestParseLimits(t *testing.T) {
	_, err := ParseDocuments([]byte(runtimeYAML+"---\n"+trainJobYAML), &ParseOptions{MaxDocuments: 1})
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("MaxDocuments 1 with 2 documents: err = %v, want ErrLimit", err)
	}
	l, err := ParseDocuments([]byte(trainJobYAML), &ParseOptions{MaxDocuments: 1})
	if err != nil {
		t.Fatalf("MaxDocuments 1 with 1 document: %v", err)
	}
	l.Close()
	if _, err := ParseDocuments(nil, &ParseOptions{MaxDepth: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("negative limit: err = %v", err)
	}
}

func TestParseAliasBytesLimit(t *testing.T) {
	// An 8-byte anchored scalar and three aliases of it: 32 bytes of copies.
	text := []byte("a: &x abcdefgh\nb: [*x, *x, *x]\n")
	l, err := ParseDocuments(text, &ParseOptions{}) // 0: the default, 4 MiB
	if err != nil {
		t.Fatalf("default MaxAliasBytes: %v", err)
	}
	l.Close()
	_, err = ParseDocuments(text, &ParseOptions{MaxAliasBytes: 16})
	var te *Error
	if !errors.Is(err, ErrLimit) || !errors.As(err, &te) {
		t.Fatalf("MaxAliasBytes 16: err = %v, want ErrLimit", err)
	}
	const want = "yaml: line 2, column 9: b[1]: anchors and aliases copy more than max_alias_bytes (16) bytes of scalar text"
	if te.Message != want {
		t.Errorf("message = %q, want %q", te.Message, want)
	}
	if l, err = ParseDocuments(text, &ParseOptions{MaxAliasBytes: 32}); err != nil {
		t.Fatalf("MaxAliasBytes 32: %v", err)
	}
	l.Close()
	if _, err := ParseDocuments(text, &ParseOptions{MaxAliasBytes: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("negative MaxAliasBytes: err = %v", err)
	}
	// Render reads the same options.
	if _, err := Render(text, &RenderOptions{Parse: &ParseOptions{MaxAliasBytes: 16}}); !errors.Is(err, ErrLimit) ||
		!strings.Contains(err.Error(), "max_alias_bytes (16)") {
		t.Errorf("Render with MaxAliasBytes 16: err = %v, want ErrLimit naming max_alias_bytes", err)
	}
}

func TestValidateValid(t *testing.T) {
	l := parse(t, runtimeYAML+"---\n"+trainJobYAML)
	for _, d := range l.Documents() {
		if err := d.Default(); err != nil {
			t.Fatalf("Default(%s): %v", d.Kind(), err)
		}
		warnings, err := d.Validate(l)
		if err != nil {
			t.Fatalf("Validate(%s): %v", d.Kind(), err)
		}
		if len(warnings) != 0 {
			t.Errorf("Validate(%s) warnings = %q", d.Kind(), warnings)
		}
	}
}

func TestValidateInvalidReportsFieldErrors(t *testing.T) {
	l := parse(t, invalidTrainJobYAML)
	d := l.Document(0)
	if err := d.Default(); err != nil {
		t.Fatal(err)
	}
	_, err := d.Validate(nil)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	var te *Error
	errors.As(err, &te)
	byPath := map[string]FieldError{}
	for _, f := range te.Fields {
		byPath[f.Path] = f
	}
	np, ok := byPath["spec.trainer.numProcPerNode"]
	if !ok {
		t.Fatalf("no spec.trainer.numProcPerNode error in %+v", te.Fields)
	}
	if np.Type != "FieldValueInvalid" || np.Value != "0" ||
		!strings.Contains(np.Detail, "greater than or equal to 1") {
		t.Errorf("numProcPerNode error = %+v", np)
	}
	if !strings.HasPrefix(np.String(), "spec.trainer.numProcPerNode: Invalid value: 0: ") {
		t.Errorf("String() = %q", np.String())
	}
	// The API server's object-meta rule (a DNS subdomain, at metadata.name), then the CRD's name
	// rule, a CEL rule on the object root (Kubernetes renders its path as "<nil>").
	meta, nameRule := false, false
	for _, f := range te.Fields {
		meta = meta || (f.Path == "metadata.name" && strings.Contains(f.Detail, "RFC 1123 subdomain"))
		nameRule = nameRule || strings.Contains(f.Detail, "metadata.name must match RFC 1035 DNS label format")
	}
	if !meta || !nameRule || len(te.Fields) != 3 {
		t.Errorf("want the object-meta and CEL name rules and numProcPerNode, got %+v", te.Fields)
	}
	if !strings.Contains(te.Message, "spec.trainer.numProcPerNode") {
		t.Errorf("message %q does not aggregate the field errors", te.Message)
	}
}

func TestValidateUnsupportedRuntimeKind(t *testing.T) {
	job := strings.Replace(trainJobYAML, "    name: torch-distributed\n",
		"    name: x\n    apiGroup: example.com\n    kind: MyRuntime\n", 1)
	l := parse(t, job)
	d := l.Document(0)
	if err := d.Default(); err != nil {
		t.Fatal(err)
	}
	_, err := d.Validate(l)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "unsupported runtime: MyRuntime.example.com") {
		t.Fatalf("err = %v", err)
	}
}

func TestValidateWarnings(t *testing.T) {
	deprecated := strings.Replace(runtimeYAML, "trainer.kubeflow.org/framework: torch",
		"trainer.kubeflow.org/support: deprecated", 1)
	l := parse(t, deprecated+"---\n"+trainJobYAML)
	rt := l.Document(0)
	rt.Default()
	warnings, err := rt.Validate(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `ClusterTrainingRuntime "torch-distributed" is deprecated`) {
		t.Fatalf("warnings = %q", warnings)
	}
}

func TestUnknownFieldWarning(t *testing.T) {
	l := parse(t, strings.Replace(trainJobYAML, "numNodes: 2", "numNode: 2", 1))
	w := l.Document(0).Warnings()
	if len(w) != 1 || w[0] != `unknown field "spec.trainer.numNode"` {
		t.Fatalf("Warnings() = %q", w)
	}
	if w := parse(t, trainJobYAML).Document(0).Warnings(); w != nil {
		t.Fatalf("Warnings() of a clean document = %q", w)
	}
}

func TestValidateUntypedIsUnsupported(t *testing.T) {
	l := parse(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: b}\n")
	d := l.Document(0)
	if d.Kind() != "ConfigMap" || d.Name() != "cm" {
		t.Fatalf("kind %q name %q", d.Kind(), d.Name())
	}
	if err := d.Default(); err != nil {
		t.Fatalf("Default of an untyped document: %v", err)
	}
	if _, err := d.Validate(nil); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported", err)
	}
}

func TestEncode(t *testing.T) {
	l := parse(t, trainJobYAML)
	d := l.Document(0)
	if err := d.Default(); err != nil {
		t.Fatal(err)
	}
	compact, err := d.Encode(FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Suspend   *bool
			ManagedBy string
			Trainer   struct{ NumNodes int }
		}
	}
	if err := json.Unmarshal(compact, &obj); err != nil {
		t.Fatalf("FormatJSON output is not JSON: %v\n%s", err, compact)
	}
	if obj.Kind != "TrainJob" || obj.Metadata.Name != "mnist-ddp" || obj.Spec.Trainer.NumNodes != 2 {
		t.Fatalf("decoded %+v", obj)
	}
	if obj.Spec.Suspend == nil || *obj.Spec.Suspend || obj.Spec.ManagedBy != "trainer.kubeflow.org/trainjob-controller" {
		t.Fatalf("defaults missing from %s", compact)
	}
	if bytes.HasSuffix(compact, []byte("\n")) || bytes.Contains(compact, []byte("\n")) {
		t.Errorf("compact JSON has newlines: %q", compact)
	}

	pretty, err := d.Encode(FormatJSONPretty)
	if err != nil {
		t.Fatal(err)
	}
	var a, b interface{}
	json.Unmarshal(compact, &a)
	if err := json.Unmarshal(pretty, &b); err != nil || !bytes.Contains(pretty, []byte("\n  \"")) {
		t.Fatalf("pretty JSON: %v\n%s", err, pretty)
	}
	if ja, _ := json.Marshal(a); !bytes.Equal(ja, mustMarshal(t, b)) {
		t.Errorf("pretty and compact JSON differ")
	}

	y, err := d.Encode(FormatYAML)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(y, []byte("kind: TrainJob\n")) || !bytes.HasSuffix(y, []byte("\n")) {
		t.Fatalf("YAML output:\n%s", y)
	}
	// The YAML output reads back as the same document.
	again := parse(t, string(y))
	c2, err := again.Document(0).Encode(FormatJSON)
	if err != nil || !bytes.Equal(c2, compact) {
		t.Fatalf("YAML round trip changed the document:\n%s\n%s", compact, c2)
	}

	if _, err := d.Encode(Format(99)); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("unknown format: err = %v", err)
	}
}

func mustMarshal(t *testing.T, v interface{}) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCloseIsIdempotentAndDisarmsDocuments(t *testing.T) {
	l, err := ParseDocuments([]byte(trainJobYAML), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := l.Document(0)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.Len() != 0 || d.Kind() != "" || d.Warnings() != nil {
		t.Fatal("closed list still answers")
	}
	if _, err := d.Encode(FormatJSON); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Encode after Close: %v", err)
	}
	if err := d.Default(); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Default after Close: %v", err)
	}
	if _, err := d.Validate(nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Validate after Close: %v", err)
	}
}

// Lists dropped without Close are freed by the finalizer; documents keep their list alive.
func TestFinalizerAndDocumentKeepsListAlive(t *testing.T) {
	before := atomic.LoadInt64(&listsFinalized)
	var doc *Document
	for i := 0; i < 100; i++ {
		l, err := ParseDocuments([]byte(trainJobYAML), nil)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			doc = l.Document(0)
		}
	}
	// Finalizers run on their own goroutine after a GC cycle.
	deadline := time.Now().Add(5 * time.Second)
	for atomic.LoadInt64(&listsFinalized)-before < 99 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := atomic.LoadInt64(&listsFinalized) - before; n < 99 {
		t.Errorf("%d of 99 unreachable lists were finalized", n)
	}
	if doc.Name() != "mnist-ddp" {
		t.Fatalf("document of a list only it references: name %q", doc.Name())
	}
	// A list closed explicitly is not finalized again.
	l, _ := ParseDocuments([]byte(trainJobYAML), nil)
	l.Close()
	mid := atomic.LoadInt64(&listsFinalized)
	l = nil
	runtime.GC()
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if atomic.LoadInt64(&listsFinalized) != mid {
		t.Error("a closed list was finalized")
	}
	runtime.KeepAlive(doc) // so the first list is not finalized during the check above
}

func TestConcurrentValidateAcrossLists(t *testing.T) {
	a := parse(t, runtimeYAML+"---\n"+trainJobYAML)
	b := parse(t, runtimeYAML+"---\n"+trainJobYAML)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			x, y := a, b
			if i%2 == 1 {
				x, y = b, a
			}
			for j := 0; j < 20; j++ {
				d := x.Document(1)
				if j%5 == 0 {
					if err := d.Default(); err != nil {
						errs <- err
						return
					}
				}
				if _, err := d.Validate(y); err != nil {
					errs <- err
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
