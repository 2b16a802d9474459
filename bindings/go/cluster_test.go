// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The cluster tests run against a real kube-apiserver (apiServerDir: TRAINER_KUBE_TEST_ENV),
// each in a namespace of its own that it deletes at the end, with what it made there; they play
// the TrainJob controller by patching the status subresource with the admin token.

const clusterRuntimeYAML = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: torch-rt
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
                      image: pytorch:2.5
`

func clusterTrainJobYAML(name string, procs int) string {
	return fmt.Sprintf(`apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: %s
spec:
  runtimeRef:
    name: torch-rt
    kind: TrainingRuntime
  trainer:
    numNodes: 2
    numProcPerNode: %d
`, name, procs)
}

// apiServer is the fixture's server, reached with the admin token.
type apiServer struct {
	dir, url, token string
	http            *http.Client
}

func (s *apiServer) request(t *testing.T, method, path, contentType, body string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", contentType)
	resp, err := s.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		t.Fatalf("%s %s: %s: %s", method, path, resp.Status, b.String())
	}
}

// completeTrainJob plays the controller: the TrainJob's Complete condition becomes True.
func (s *apiServer) completeTrainJob(t *testing.T, ns, name string) {
	s.request(t, "PATCH",
		fmt.Sprintf("/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/trainjobs/%s/status", ns, name),
		"application/merge-patch+json",
		`{"status":{"conditions":[{"type":"Complete","status":"True","reason":"JobsCompleted",`+
			`"message":"done","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
}

// The namespaced kinds the tests make, deleted with their namespace at the end of each test: an
// API server without controllers (the test server) never empties a deleted namespace itself.
var testCollections = []string{
	"/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/trainjobs",
	"/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/trainingruntimes",
	"/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/optimizationjobs",
	"/apis/jobset.x-k8s.io/v1alpha2/namespaces/%s/jobsets",
	"/api/v1/namespaces/%s/configmaps",
	"/api/v1/namespaces/%s/secrets",
}

// deleteNamespace removes what a test made in `ns`, then `ns`. A kind the server does not serve
// (404) has nothing to delete; any other failure fails the test.
func (s *apiServer) deleteNamespace(t *testing.T, ns string) {
	t.Helper()
	paths := make([]string, 0, len(testCollections)+1)
	for _, c := range testCollections {
		paths = append(paths, fmt.Sprintf(c, ns))
	}
	for _, path := range append(paths, "/api/v1/namespaces/"+ns) {
		req, err := http.NewRequest("DELETE", s.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+s.token)
		resp, err := s.http.Do(req)
		if err != nil {
			t.Errorf("DELETE %s: %v", path, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusNotFound {
			t.Errorf("DELETE %s: %s", path, resp.Status)
		}
	}
}

// clusterFixture skips the test without the API server, and otherwise returns it, a fresh
// namespace (deleted, with its objects, when the test ends) and a client whose default
// namespace it is.
func clusterFixture(t *testing.T) (*apiServer, string, *Client) {
	t.Helper()
	dir := apiServerDir(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(read("ca.crt"))) {
		t.Fatal("ca.crt holds no certificate")
	}
	s := &apiServer{dir: dir, url: read("url"), token: read("token"), http: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}}
	ns := fmt.Sprintf("go-%s-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "_", "-")), time.Now().UnixNano()%1000000)
	if len(ns) > 63 {
		ns = ns[len(ns)-63:]
	}
	s.request(t, "POST", "/api/v1/namespaces", "application/json",
		fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns))
	t.Cleanup(func() { s.deleteNamespace(t, ns) })
	client, err := NewClient(&ClientOptions{Kubeconfig: filepath.Join(dir, "kubeconfig"), Namespace: ns, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	if client.Namespace() != ns {
		t.Fatalf("Namespace() = %q, want %q", client.Namespace(), ns)
	}
	return s, ns, client
}

func applyJob(t *testing.T, client *Client, name string) {
	t.Helper()
	docs := clusterRuntimeYAML + "---\n" + clusterTrainJobYAML(name, 1)
	applied, err := client.Apply(context.Background(), []byte(docs), &ApplyOptions{FieldManager: "go-test"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"trainingruntime.trainer.kubeflow.org/torch-rt", "trainjob.trainer.kubeflow.org/" + name}
	if len(applied) != len(want) {
		t.Fatalf("applied %d objects, want %d", len(applied), len(want))
	}
	for i, w := range want {
		if applied[i].Ref != w {
			t.Errorf("applied[%d].Ref = %q, want %q", i, applied[i].Ref, w)
		}
	}
}

func resourceVersion(t *testing.T, object []byte) string {
	t.Helper()
	var o struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(object, &o); err != nil || o.Metadata.ResourceVersion == "" {
		t.Fatalf("no resourceVersion in %s (%v)", object, err)
	}
	return o.Metadata.ResourceVersion
}

func TestClusterOffline(t *testing.T) {
	_, err := NewClient(&ClientOptions{Kubeconfig: "/nonexistent/kubeconfig"})
	var te *Error
	if !errors.As(err, &te) || !strings.Contains(te.Message, "/nonexistent/kubeconfig") || te.HTTPStatus != 0 {
		t.Fatalf("NewClient(missing kubeconfig) = %v", err)
	}
	wrapped := fmt.Errorf("op: %w", &Error{Code: CodeCanceled, cause: context.Canceled})
	if !errors.Is(wrapped, ErrCanceled) || !errors.Is(wrapped, context.Canceled) || errors.Is(wrapped, ErrTimeout) {
		t.Fatal("a cancelled call must match ErrCanceled and context.Canceled only")
	}
}

func TestClusterApplyGetList(t *testing.T) {
	_, ns, client := clusterFixture(t)
	ctx := context.Background()
	applyJob(t, client, "job-a")
	applyJob(t, client, "job-a") // server-side apply is idempotent

	obj, err := client.Get(ctx, "trainjob", "", "job-a", FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(obj, []byte(`"name":"job-a"`)) || !bytes.Contains(obj, []byte(`"namespace":"`+ns+`"`)) {
		t.Fatalf("Get: %s", obj)
	}
	yaml, err := client.Get(ctx, "TrainingRuntime", ns, "torch-rt", FormatYAML)
	if err != nil || !bytes.Contains(yaml, []byte("kind: TrainingRuntime\n")) {
		t.Fatalf("Get runtime as YAML: %s, %v", yaml, err)
	}
	list, err := client.List(ctx, "trainjobs", "", nil, FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Kind  string `json:"kind"`
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal(list, &l); err != nil || l.Kind != "TrainJobList" || len(l.Items) != 1 || l.Items[0].Metadata.Name != "job-a" {
		t.Fatalf("List: %s (%v)", list, err)
	}
	none, err := client.List(ctx, "trainjobs", "", &ListOptions{LabelSelector: "app=none"}, FormatJSON)
	if err != nil || bytes.Contains(none, []byte("job-a")) {
		t.Fatalf("List with a selector that matches nothing: %s, %v", none, err)
	}
}

func TestClusterMaxResponseBytes(t *testing.T) {
	server, ns, client := clusterFixture(t)
	ctx := context.Background()
	applyJob(t, client, "job-a")
	small, err := NewClient(&ClientOptions{Kubeconfig: filepath.Join(server.dir, "kubeconfig"), Namespace: ns, QPS: -1, MaxResponseBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	_, err = small.Get(ctx, "trainjob", "", "job-a", FormatJSON)
	var te *Error
	if !errors.Is(err, ErrLimit) || !errors.As(err, &te) || !strings.Contains(te.Message, "1 KiB limit (ClientOptions::max_response_bytes)") {
		t.Fatalf("Get with MaxResponseBytes 1024 = %v", err)
	}
	// 0 keeps the default.
	if _, err := client.Get(ctx, "trainjob", "", "job-a", FormatJSON); err != nil {
		t.Fatal(err)
	}

	// OnLog sees a watch's retry. The client's rate limiter (one request per 1000 s after a
	// burst of 10) is drained by Gets (the first caches discovery) until one times out at the
	// limiter after the 200 ms request bound; then the watch's list times out the same way, the
	// watch logs its retry, and the handler ends the watch through its context.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var lines []string
	logging, err := NewClient(&ClientOptions{Kubeconfig: filepath.Join(server.dir, "kubeconfig"), Namespace: ns,
		QPS: 0.001, Burst: 10, RequestTimeout: 200 * time.Millisecond,
		OnLog: func(line string) {
			mu.Lock()
			lines = append(lines, line)
			mu.Unlock()
			cancel()
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer logging.Close()
	if _, err := logging.Get(ctx, "trainjob", "", "job-a", FormatJSON); err != nil {
		t.Fatal(err)
	}
	drained := false
	for i := 0; i < 20 && !drained; i++ {
		_, err := logging.Get(ctx, "trainjob", "", "job-a", FormatJSON)
		drained = errors.Is(err, ErrTimeout)
	}
	if !drained {
		t.Fatal("the rate limiter was not drained")
	}
	err = logging.Watch(wctx, "", nil, func(WatchEvent) bool { return false })
	mu.Lock()
	defer mu.Unlock()
	if !errors.Is(err, ErrCanceled) || len(lines) != 1 || !strings.HasPrefix(lines[0], "watch of trainjobs") ||
		!strings.Contains(lines[0], "failed, retrying in ") {
		t.Fatalf("Watch = %v, log lines %q", err, lines)
	}
}

func TestClusterErrors(t *testing.T) {
	_, _, client := clusterFixture(t)
	ctx := context.Background()

	_, err := client.Get(ctx, "trainjob", "", "missing", FormatJSON)
	var te *Error
	if !errors.Is(err, ErrNotFound) || !errors.As(err, &te) || te.HTTPStatus != 404 || te.Reason != "NotFound" {
		t.Fatalf("Get(missing) = %#v", err)
	}
	if !strings.Contains(te.Message, `"missing" not found`) {
		t.Fatalf("message %q", te.Message)
	}
	if err := client.Delete(ctx, "trainjob", "", "missing", nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete(missing) = %v", err)
	}
	if _, err := client.Get(ctx, "widgets", "", "x", FormatJSON); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Get(unknown kind) = %v", err)
	}

	// Local admission refuses the bad TrainJob; the good one before it is not applied either.
	docs := clusterRuntimeYAML + "---\n" + clusterTrainJobYAML("job-ok", 1) + "---\n" + clusterTrainJobYAML("job-bad", 0)
	_, err = client.Apply(ctx, []byte(docs), nil)
	if !errors.Is(err, ErrInvalid) || !errors.As(err, &te) || te.HTTPStatus != 0 {
		t.Fatalf("Apply(invalid) = %v", err)
	}
	found := false
	for _, f := range te.Fields {
		found = found || f.Path == "spec.trainer.numProcPerNode"
	}
	if !found {
		t.Fatalf("no field error for spec.trainer.numProcPerNode: %+v", te.Fields)
	}
	if _, err := client.Get(ctx, "trainjob", "", "job-ok", FormatJSON); !errors.Is(err, ErrNotFound) {
		t.Fatalf("job-ok was applied although job-bad was rejected: %v", err)
	}
}

func TestClusterWaitWatchDelete(t *testing.T) {
	server, ns, client := clusterFixture(t)
	ctx := context.Background()
	applyJob(t, client, "job-w")

	if _, err := client.Wait(ctx, "", "job-w", "Complete", &WaitOptions{Timeout: -1}); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Wait before completion (check once) = %v", err)
	}

	before, err := client.Get(ctx, "trainjob", "", "job-w", FormatJSON)
	if err != nil {
		t.Fatal(err)
	}

	// A watch sees the current TrainJob as ADDED, then the controller's change as MODIFIED.
	wctx, stop := context.WithTimeout(ctx, 60*time.Second)
	defer stop()
	events, result := client.WatchChan(wctx, "", &WatchOptions{Name: "job-w"})
	first := <-events
	if first.Type != "ADDED" || !bytes.Contains(first.Object, []byte(`"name":"job-w"`)) {
		t.Fatalf("first event %s %s", first.Type, first.Object)
	}
	server.completeTrainJob(t, ns, "job-w")
	for ev := range events {
		if ev.Type == "MODIFIED" && bytes.Contains(ev.Object, []byte(`"type":"Complete"`)) {
			stop()
			break
		}
		if ev.Type != "BOOKMARK" {
			t.Fatalf("unexpected event %s %s", ev.Type, ev.Object)
		}
	}
	for range events { // drained until the watch ends
	}
	if err := <-result; err != nil {
		t.Fatalf("watch ended with %v", err)
	}

	done, err := client.Wait(ctx, "", "job-w", "complete", &WaitOptions{Timeout: 30 * time.Second})
	if err != nil || !bytes.Contains(done, []byte(`"reason":"JobsCompleted"`)) {
		t.Fatalf("Wait(Complete) = %s, %v", done, err)
	}

	// A callback watch from the version before the change receives the change first, and
	// stops when asked to.
	var got []WatchEvent
	err = client.Watch(ctx, "", &WatchOptions{Name: "job-w", ResourceVersion: resourceVersion(t, before)},
		func(ev WatchEvent) bool {
			got = append(got, ev)
			return false
		})
	if err != nil || len(got) != 1 || got[0].Type != "MODIFIED" || !bytes.Contains(got[0].Object, []byte(`"type":"Complete"`)) {
		t.Fatalf("Watch from the earlier version: %v, events %q", err, got)
	}

	if err := client.Logs(ctx, "", "job-w", nil, func(string, []byte) bool { return true }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Logs without pods = %v", err)
	}

	if err := client.Delete(ctx, "trainjob", "", "job-w", &DeleteOptions{Propagation: PropagationBackground}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Get(ctx, "trainjob", "", "job-w", FormatJSON); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete = %v", err)
	}
}

func TestClusterCancellation(t *testing.T) {
	_, _, client := clusterFixture(t)
	applyJob(t, client, "job-c")

	// Cancelled while waiting for a condition that never comes.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := client.Wait(ctx, "", "job-c", "Suspended", &WaitOptions{Timeout: time.Minute})
	if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait cancelled through ctx = %v", err)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Fatalf("cancellation took %v", elapsed)
	}

	// A ctx deadline ends the wait with DeadlineExceeded.
	dctx, stop := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer stop()
	if _, err := client.Wait(dctx, "", "job-c", "Suspended", nil); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrCanceled) {
		t.Fatalf("Wait past ctx's deadline = %v", err)
	}

	// An open watch ends when ctx is cancelled.
	wctx, wcancel := context.WithCancel(context.Background())
	err = client.Watch(wctx, "", nil, func(WatchEvent) bool { wcancel(); return true })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Watch cancelled through ctx = %v", err)
	}

	// A ctx that has ended already: no request.
	if _, err := client.Get(ctx, "trainjob", "", "job-c", FormatJSON); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with a cancelled ctx = %v", err)
	}

	// A panic in a callback comes back on the caller's goroutine.
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the callback's panic", r)
			}
		}()
		_ = client.Watch(context.Background(), "", nil, func(WatchEvent) bool { panic("boom") })
		t.Fatal("Watch returned although its callback panicked")
	}()
}

func TestClusterWarnings(t *testing.T) {
	server, ns, _ := clusterFixture(t)
	var mu sync.Mutex
	var warnings []string
	client, err := NewClient(&ClientOptions{
		Kubeconfig: filepath.Join(server.dir, "kubeconfig"),
		Namespace:  ns,
		OnWarning: func(text string) {
			mu.Lock()
			defer mu.Unlock()
			warnings = append(warnings, text)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	// A runtime that neither the input nor the cluster holds: admitted with a warning.
	job := strings.Replace(clusterTrainJobYAML("job-nort", 1), "name: torch-rt", "name: no-such-runtime", 1)
	if _, err := client.Apply(context.Background(), []byte(job), &ApplyOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) == 0 || !strings.Contains(strings.Join(warnings, "\n"), "no-such-runtime") {
		t.Fatalf("warnings %q, want one naming the runtime", warnings)
	}
}

func TestClusterConcurrentCallsAndClose(t *testing.T) {
	server, ns, _ := clusterFixture(t)
	client, err := NewClient(&ClientOptions{Kubeconfig: filepath.Join(server.dir, "kubeconfig"), Namespace: ns, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	applyJob(t, client, "job-p")

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				if _, err := client.Get(context.Background(), "trainjob", "", "job-p", FormatJSON); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// Close waits for a call in flight: here a watch that ends when its ctx does.
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	watchDone := make(chan error, 1)
	go func() {
		var once sync.Once
		watchDone <- client.Watch(ctx, "", nil, func(WatchEvent) bool {
			once.Do(func() { close(started) })
			return true
		})
	}()
	<-started
	closed := make(chan struct{})
	go func() { client.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a watch was running")
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	if err := <-watchDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("watch ended with %v", err)
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return after the watch ended")
	}
	if _, err := client.Get(context.Background(), "trainjob", "", "job-p", FormatJSON); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Get after Close = %v", err)
	}
}

func TestClusterScopedRuntime(t *testing.T) {
	_, ns, client := clusterFixture(t)
	ctx := context.Background()
	name := "ctr-" + ns // cluster-scoped: unique per test run
	if len(name) > 63 {
		name = name[:63]
	}
	doc := strings.Replace(strings.Replace(clusterRuntimeYAML, "kind: TrainingRuntime", "kind: ClusterTrainingRuntime", 1),
		"name: torch-rt", "name: "+name, 1)
	applied, err := client.Apply(ctx, []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 1 || applied[0].Ref != "clustertrainingruntime.trainer.kubeflow.org/"+name {
		t.Fatalf("applied %+v", applied)
	}
	obj, err := client.Get(ctx, "clustertrainingruntime", "", name, FormatJSON)
	if err != nil || bytes.Contains(obj, []byte(`"namespace"`)) {
		t.Fatalf("Get: %s, %v", obj, err)
	}
	list, err := client.List(ctx, "clustertrainingruntimes", "", nil, FormatJSON)
	if err != nil || !bytes.Contains(list, []byte(`"name":"`+name+`"`)) {
		t.Fatalf("List: %s, %v", list, err)
	}
	if err := client.Delete(ctx, "ClusterTrainingRuntime", "", name, &DeleteOptions{Propagation: PropagationBackground}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Get(ctx, "clustertrainingruntime", "", name, FormatJSON); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete = %v", err)
	}
}

func TestClusterConflictUnauthorizedForbidden(t *testing.T) {
	server, ns, client := clusterFixture(t)
	ctx := context.Background()
	labelled := func(team string) []byte {
		return []byte(strings.Replace(clusterTrainJobYAML("job-x", 1), "  name: job-x\n",
			"  name: job-x\n  labels:\n    team: "+team+"\n", 1))
	}
	if _, err := client.Apply(ctx, []byte(clusterRuntimeYAML+"---\n"+string(labelled("a"))), nil); err != nil {
		t.Fatal(err)
	}

	// Another field manager changing a field the first one owns: 409 without force.
	changed := labelled("b")
	_, err := client.Apply(ctx, changed, &ApplyOptions{FieldManager: "someone-else"})
	var te *Error
	if !errors.Is(err, ErrConflict) || !errors.As(err, &te) || te.HTTPStatus != 409 || te.Reason != "Conflict" {
		t.Fatalf("Apply by another manager = %#v", err)
	}
	if _, err := client.Apply(ctx, changed, &ApplyOptions{FieldManager: "someone-else", Force: true}); err != nil {
		t.Fatalf("Apply with Force = %v", err)
	}

	tmp := t.TempDir()
	clientFor := func(user string) *Client {
		t.Helper()
		kubeconfig := filepath.Join(tmp, "kubeconfig")
		text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: u
  user:
%s
contexts:
- name: test
  context: {cluster: test, user: u, namespace: %s}
current-context: test
`, server.url, filepath.Join(server.dir, "ca.crt"), user, ns)
		if err := os.WriteFile(kubeconfig, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := NewClient(&ClientOptions{Kubeconfig: kubeconfig})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}

	// A token the server does not know: 401.
	stranger := clientFor("    token: not-a-valid-token")
	if _, err := stranger.Get(ctx, "trainjob", "", "job-x", FormatJSON); !errors.Is(err, ErrUnauthorized) || !errors.As(err, &te) || te.HTTPStatus != 401 {
		t.Fatalf("Get with an unknown token = %#v", err)
	}

	// A user the server knows (a client certificate of its CA) but RBAC grants nothing: 403.
	crt, key := filepath.Join(tmp, "nobody.crt"), filepath.Join(tmp, "nobody.key")
	csr, srl := filepath.Join(tmp, "nobody.csr"), filepath.Join(tmp, "nobody.srl")
	for _, args := range [][]string{
		{"req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=nobody"},
		{"x509", "-req", "-in", csr, "-CA", filepath.Join(server.dir, "ca.crt"), "-CAkey", filepath.Join(server.dir, "ca.key"),
			"-CAcreateserial", "-CAserial", srl, "-out", crt, "-days", "1"},
	} {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
	}
	nobody := clientFor(fmt.Sprintf("    client-certificate: %s\n    client-key: %s", crt, key))
	if _, err := nobody.Get(ctx, "trainjob", "", "job-x", FormatJSON); !errors.Is(err, ErrForbidden) || !errors.As(err, &te) || te.HTTPStatus != 403 || te.Reason != "Forbidden" {
		t.Fatalf("Get without RBAC rights = %#v", err)
	}
}
