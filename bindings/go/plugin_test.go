// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"libtrainer.dev/trainer/examples/plugin/gotest"
	"libtrainer.dev/trainer/plugin"
)

// gotestJob is a runtime labelled framework=gotest and a TrainJob on it; extraEnv goes to
// spec.trainer.env.
func gotestJob(extraEnv string) []byte {
	text := `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: gotest
  labels:
    trainer.kubeflow.org/framework: gotest
spec:
  mlPolicy:
    numNodes: 1
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
                      image: unused
                      command: ["sh", "-c", "echo plugin=$GOTEST_PLUGIN job=$GOTEST_JOB"]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: gojob
spec:
  runtimeRef:
    name: gotest
    kind: TrainingRuntime
`
	if extraEnv != "" {
		text += "  trainer:\n    env:\n      - name: OK\n        value: \"1\"\n      - name: " + extraEnv + "\n        value: x\n"
	}
	return []byte(text)
}

var renderFixed = RenderOptions{Namespace: "default", UID: "0b7a1d2e-0000-4000-8000-000000000002", Now: "2026-01-01T00:00:00Z"}

// nodeEnv returns the env of the node container of the rendered JobSet.
func nodeEnv(t *testing.T, r *RenderResult) map[string]string {
	t.Helper()
	for _, o := range r.Objects {
		if o.Kind != "JobSet" {
			continue
		}
		var js struct {
			Spec struct {
				ReplicatedJobs []struct {
					Name     string `json:"name"`
					Template struct {
						Spec struct {
							Template struct {
								Spec struct {
									Containers []struct {
										Name string `json:"name"`
										Env  []struct {
											Name  string `json:"name"`
											Value string `json:"value"`
										} `json:"env"`
									} `json:"containers"`
								} `json:"spec"`
							} `json:"template"`
						} `json:"spec"`
					} `json:"template"`
				} `json:"replicatedJobs"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(o.JSON, &js); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for _, rj := range js.Spec.ReplicatedJobs {
			for _, c := range rj.Template.Spec.Template.Spec.Containers {
				if rj.Name == "node" && c.Name == "node" {
					for _, e := range c.Env {
						env[e.Name] = e.Value
					}
				}
			}
		}
		return env
	}
	t.Fatal("no JobSet rendered")
	return nil
}

// checkGolden compares the render with a golden file: the whole output, so that a plugin change
// anywhere shows (UPDATE_GOLDEN=1 rewrites the file from this build).
func checkGolden(t *testing.T, r *RenderResult, path string) {
	t.Helper()
	got, err := r.Encode(FormatYAML)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the render differs from %s (UPDATE_GOLDEN=1 rewrites it):\n%s", path, got)
	}
}

// checkPluginFramework renders, validates and runs with fw, which holds the GoTest plugin.
func checkPluginFramework(t *testing.T, fw *Framework) {
	t.Helper()
	opts := renderFixed
	opts.Framework = fw
	r, err := Render(gotestJob(""), &opts)
	if err != nil {
		t.Fatal(err)
	}
	if env := nodeEnv(t, r); env["GOTEST_PLUGIN"] != "go" || env["GOTEST_JOB"] != "gojob" {
		t.Fatalf("node env %v", env)
	}
	checkGolden(t, r, "testdata/gotest-render.yaml")
	// Without the framework the render is the built-in one.
	plain, err := Render(gotestJob(""), &renderFixed)
	if err != nil {
		t.Fatal(err)
	}
	if env := nodeEnv(t, plain); env["GOTEST_PLUGIN"] != "" {
		t.Fatalf("GOTEST_PLUGIN without the plugin: %v", env)
	}

	// The plugin's admission error reaches Render and ValidateWith with its field path.
	_, err = Render(gotestJob("GOTEST_PLUGIN"), &opts)
	checkGotestRejection(t, "Render", err)
	list, err := ParseDocuments(gotestJob("GOTEST_JOB"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer list.Close()
	for _, d := range list.Documents() {
		if err := d.Default(); err != nil {
			t.Fatal(err)
		}
	}
	job := list.Document(1)
	_, err = job.ValidateWith(list, fw)
	checkGotestRejection(t, "ValidateWith", err)
	if _, err := job.Validate(list); err != nil {
		t.Fatalf("Validate without the plugin: %v", err)
	}

	// A local run of the rendered objects: the pod sees the plugin's env.
	objects, err := r.Encode(FormatYAML)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	run, err := StartRun(objects, RunOptions{Dir: filepath.Join(t.TempDir(), "run"), Isolation: IsolationHost,
		OnLog: func(l LogLine) bool { mu.Lock(); lines = append(lines, l.Text); mu.Unlock(); return true }})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if phase, err := run.Wait(ctx); err != nil || phase != RunComplete {
		t.Fatalf("run: %v %v", phase, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 1 || lines[0] != "plugin=go job=gojob" {
		t.Fatalf("pod output %q", lines)
	}
}

func checkGotestRejection(t *testing.T, what string, err error) {
	t.Helper()
	var te *Error
	if !errors.As(err, &te) || !errors.Is(err, ErrInvalid) || len(te.Fields) != 1 {
		t.Fatalf("%s: %v", what, err)
	}
	f := te.Fields[0]
	if f.Path != "spec.trainer.env[1].name" || f.Type != "FieldValueForbidden" ||
		!strings.Contains(f.Detail, "set by the GoTest plugin") || !strings.Contains(err.Error(), "spec.trainer.env[1].name") {
		t.Fatalf("%s: field error %+v (%v)", what, f, err)
	}
}

func TestGoPluginInProcess(t *testing.T) {
	fw, err := NewFramework(map[string]bool{"TrainJobStatus": false})
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if err := fw.Add(gotest.Plugin{}); err != nil {
		t.Fatal(err)
	}
	names := fw.Plugins()
	if len(names) < 2 || names[len(names)-1] != "GoTest" {
		t.Fatalf("Plugins() = %v", names)
	}
	checkPluginFramework(t, fw)

	// Names are unique: another GoTest, or a built-in plugin's name, is refused.
	if err := fw.Add(gotest.Plugin{}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"GoTest" is already registered`) {
		t.Fatalf("a second GoTest: %v", err)
	}
	if err := fw.Add(named("Torch")); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "built-in") {
		t.Fatalf("a plugin named Torch: %v", err)
	}
	if err := fw.Add(named("not a name")); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a malformed name: %v", err)
	}
	if _, err := NewFramework(map[string]bool{"Nope": true}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("an unknown gate: %v", err)
	}
	// Render refuses gates next to a framework (the framework's gates apply).
	if _, err := Render(gotestJob(""), &RenderOptions{Framework: fw, Gates: map[string]bool{"TrainJobStatus": true}}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Render with a framework and gates: %v", err)
	}
}

// named is a plugin of no phase.
type named string

func (n named) Name() string { return string(n) }

// failing fails its phase, or panics in it.
type failing struct{ panics bool }

func (failing) Name() string { return "Failing" }
func (f failing) EnforceMLPolicy(req *plugin.Request) (*plugin.Reply, error) {
	if req.Phase() != "enforceMLPolicy" {
		return nil, errors.New("wrong phase " + req.Phase())
	}
	if f.panics {
		panic("boom")
	}
	if n, ok := req.Int("/info/podSets/0/count"); !ok || n != 1 {
		return nil, errors.New("no pod count")
	}
	return nil, &plugin.Error{Code: int(CodeInvalid), Message: "the job is not welcome"}
}

func TestGoPluginErrors(t *testing.T) {
	for _, panics := range []bool{false, true} {
		fw, err := NewFramework(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Add(failing{panics: panics}); err != nil {
			t.Fatal(err)
		}
		opts := renderFixed
		opts.Framework = fw
		_, err = Render(gotestJob(""), &opts)
		want, code := "the job is not welcome", ErrInvalid
		if panics {
			want, code = "panic: boom", ErrUser
		}
		if !errors.Is(err, code) || !strings.Contains(err.Error(), `plugin "Failing"`) || !strings.Contains(err.Error(), want) {
			t.Fatalf("panics=%v: %v", panics, err)
		}
		fw.Close()
		if _, err := Render(gotestJob(""), &opts); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("Render with a closed framework: %v", err)
		}
	}
}

// escaping replies what a plugin must not: a TrainJob patch outside the spec, a cluster-scoped
// object, an object in another namespace, or a reply over the 4 MiB limit.
type escaping struct{ reply *plugin.Reply }

func (escaping) Name() string { return "Escaping" }
func (e escaping) EnforceMLPolicy(*plugin.Request) (*plugin.Reply, error) {
	if e.reply.TrainJob == nil && e.reply.Raw == nil {
		return nil, nil
	}
	return e.reply, nil
}
func (e escaping) Build(*plugin.Request) (*plugin.Reply, error) {
	if e.reply.Objects == nil {
		return nil, nil
	}
	return e.reply, nil
}

func TestGoPluginConfinedToItsTrainJob(t *testing.T) {
	crb := map[string]interface{}{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]interface{}{"name": "evil"},
		"roleRef":  map[string]interface{}{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
	}
	elsewhere := map[string]interface{}{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"name": "c", "namespace": "kube-system"},
	}
	huge := append(append([]byte("{}"), bytes.Repeat([]byte(" "), 4<<20)...), '\n')
	for _, c := range []struct {
		reply *plugin.Reply
		code  error
		want  string
	}{
		{&plugin.Reply{TrainJob: map[string]interface{}{"metadata": map[string]interface{}{"namespace": "kube-system"}}}, ErrInvalid,
			`plugin "Escaping": enforceMLPolicy: trainJob.metadata.namespace: Forbidden: a plugin may change only the TrainJob's spec`},
		{&plugin.Reply{Objects: []interface{}{crb}}, ErrInvalid,
			`plugin "Escaping": build: objects[0].kind: Forbidden: ClusterRoleBinding "evil" (rbac.authorization.k8s.io/v1) is not known to be namespaced`},
		{&plugin.Reply{Objects: []interface{}{elsewhere}}, ErrInvalid,
			`plugin "Escaping": build: objects[0].metadata.namespace: Forbidden: ConfigMap "c" (v1) must be in the TrainJob's namespace "default"`},
		{&plugin.Reply{Raw: huge}, ErrLimit,
			`plugin "Escaping": enforceMLPolicy: reply: 4194307 bytes exceeds the limit of a plugin reply (4194304 bytes)`},
	} {
		fw, err := NewFramework(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Add(escaping{c.reply}); err != nil {
			t.Fatal(err)
		}
		opts := renderFixed
		opts.Framework = fw
		_, err = Render(gotestJob(""), &opts)
		if !errors.Is(err, c.code) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %v: %s", err, c.code, c.want)
		}
		fw.Close()
	}
}

// checkTrainerctlLoads runs the installed-style trainerctl (TRAINERCTL, set by ctest) with
// `--plugin so`: a C++ program with no Go runtime of its own starts the library's; render shows
// the plugin's env and validate its field error with the path.
func checkTrainerctlLoads(t *testing.T, ctx context.Context, so string) {
	t.Helper()
	ctl := os.Getenv("TRAINERCTL")
	if ctl == "" {
		t.Log("TRAINERCTL is not set (run through ctest): trainerctl --plugin not checked")
		return
	}
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, gotestJob(""), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, gotestJob("GOTEST_JOB"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, ctl, "render", "--plugin", so, "-f", good, "-o", "json").CombinedOutput()
	// The List is indented: compare without white space.
	if err != nil || !bytes.Contains(bytes.Join(bytes.Fields(out), nil), []byte(`{"name":"GOTEST_PLUGIN","value":"go"}`)) {
		t.Fatalf("trainerctl render --plugin: %v\n%s", err, out)
	}
	out, err = exec.CommandContext(ctx, ctl, "validate", "--plugin", so, "-f", bad).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !bytes.Contains(out, []byte("spec.trainer.env")) {
		t.Fatalf("trainerctl validate --plugin of a refused TrainJob: %v\n%s", err, out)
	}
}

func TestGoPluginSharedLibrary(t *testing.T) {
	so := filepath.Join(t.TempDir(), "libgotest.so")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	build := exec.CommandContext(ctx, goTool(), "build", "-buildmode=c-shared",
		"-o", so, "./examples/plugin")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildmode=c-shared: %v\n%s", err, out)
	}
	// The plugin reaches libtrainer only through the host table: it does not link it.
	f, err := elf.Open(so)
	if err != nil {
		t.Fatal(err)
	}
	libs, err := f.ImportedLibraries()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range libs {
		if strings.Contains(l, "trainer") {
			t.Fatalf("the plugin links %s (%v)", l, libs)
		}
	}

	lp, err := LoadPlugin(so)
	if err != nil {
		t.Fatal(err)
	}
	if lp.Name() != "GoTest" {
		t.Fatalf("Name() = %q", lp.Name())
	}
	fw, err := NewFramework(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if err := fw.Add(lp); err != nil {
		t.Fatal(err)
	}
	if err := fw.Add(lp); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("adding a loaded plugin twice: %v", err)
	}
	checkPluginFramework(t, fw)
	checkTrainerctlLoads(t, ctx, so)

	// The same plugin in process next to the loaded one: the name is taken.
	if err := fw.Add(gotest.Plugin{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("GoTest twice: %v", err)
	}
	if _, err := LoadPlugin(filepath.Join(t.TempDir(), "missing.so")); !errors.Is(err, ErrIO) || strings.Contains(err.Error(), "TRAINER_") {
		t.Fatalf("LoadPlugin of a missing file: %v", err)
	}
}
