// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// renderEcho renders tests/cli/data/echo-job.yaml (a TrainingRuntime whose one pod runs
// `sh -c 'echo hello-from-echo'`, and its TrainJob), optionally with the pod's command replaced.
func renderEcho(t *testing.T, command string) []byte {
	t.Helper()
	input, err := os.ReadFile(filepath.Join("..", "..", "tests", "cli", "data", "echo-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if command != "" {
		input = []byte(strings.Replace(string(input), `["sh", "-c", "echo hello-from-echo"]`, command, 1))
	}
	r, err := Render(input, &RenderOptions{Namespace: "default", UID: "0b7a1d2e-0000-4000-8000-000000000001"})
	if err != nil {
		t.Fatal(err)
	}
	objects, err := r.Encode(FormatYAML)
	if err != nil {
		t.Fatal(err)
	}
	return objects
}

// lineSink collects the lines of a run's log callback.
type lineSink struct {
	mu    sync.Mutex
	lines []LogLine
}

func (s *lineSink) add(l LogLine) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, l)
	return true
}

func (s *lineSink) texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.lines {
		out = append(out, l.Prefix+" "+l.Text)
	}
	return out
}

func TestLocalRunOfRenderedTrainJob(t *testing.T) {
	objects := renderEcho(t, `["sh", "-c", "echo hello-from-echo; echo to-stderr >&2"]`)
	dir := filepath.Join(t.TempDir(), "run")
	var sink lineSink
	run, err := StartRun(objects, RunOptions{Dir: dir, Isolation: IsolationHost, OnLog: sink.add})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	phase, err := run.Wait(ctx)
	if err != nil || phase != RunComplete || !phase.Finished() || phase.String() != "Complete" {
		t.Fatalf("Wait = %v, %v; lines %q", phase, err, sink.texts())
	}
	if run.Phase() != RunComplete {
		t.Errorf("Phase() = %v", run.Phase())
	}
	// Every line reached the callback before Wait returned, stdout and stderr told apart.
	sink.mu.Lock()
	var out, errLine bool
	for _, l := range sink.lines {
		out = out || (l.Text == "hello-from-echo" && !l.Stderr && l.Pod != "" && strings.HasPrefix(l.Prefix, "node-0-"))
		errLine = errLine || (l.Text == "to-stderr" && l.Stderr)
	}
	sink.mu.Unlock()
	if !out || !errLine {
		t.Fatalf("log lines %q", sink.texts())
	}
	status, err := run.Status()
	if err != nil || !json.Valid(status) || !strings.Contains(string(status), `"Complete"`) {
		t.Fatalf("Status() = %s, %v", status, err)
	}
	run.Close()
	if _, err := run.Status(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Status after Close: %v", err)
	}
	// The run folder outlives the handle, and a second run cannot reuse it.
	saved, err := ReadRunStatus(dir)
	if err != nil || !strings.Contains(string(saved), `"Complete"`) {
		t.Fatalf("ReadRunStatus = %s, %v", saved, err)
	}
	if _, err := StartRun(objects, RunOptions{Dir: dir, Isolation: IsolationHost, OnLog: sink.add}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a second run in %s: %v", dir, err)
	}
	if _, err := ReadRunStatus(t.TempDir()); !errors.Is(err, ErrNotFound) || strings.Contains(err.Error(), "TRAINER_") {
		t.Fatalf("ReadRunStatus of an empty folder: %v", err)
	}
}

func TestLocalRunWaitEndsWithContext(t *testing.T) {
	objects := renderEcho(t, `["sh", "-c", "echo started; exec sleep 600"]`)
	started := make(chan struct{})
	var once sync.Once
	run, err := StartRun(objects, RunOptions{Dir: filepath.Join(t.TempDir(), "run"), Isolation: IsolationHost,
		OnLog: func(l LogLine) bool {
			if l.Text == "started" {
				once.Do(func() { close(started) })
			}
			return true
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the pod did not start in 30 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err = run.Wait(ctx)
	if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with an expiring context: %v", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Fatalf("Wait returned %v after its context ended", d)
	}
	// Wait cancelled the run: it ends Failed (reason Cancelled) once its pod is gone.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	if phase, err := run.Wait(ctx2); err != nil || phase != RunFailed {
		t.Fatalf("Wait after the cancel = %v, %v", phase, err)
	}
}

func TestLocalRunLogCallbackStopsRun(t *testing.T) {
	objects := renderEcho(t, `["sh", "-c", "echo stop-here; exec sleep 600"]`)
	run, err := StartRun(objects, RunOptions{Dir: filepath.Join(t.TempDir(), "run"), Isolation: IsolationHost,
		OnLog: func(l LogLine) bool {
			if l.Text == "stop-here" {
				panic("the callback fails")
			}
			return true
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	phase, err := run.Wait(ctx)
	if phase != RunFailed || !errors.Is(err, ErrUser) || !strings.Contains(err.Error(), "the callback fails") {
		t.Fatalf("Wait = %v, %v", phase, err)
	}
	if _, err := StartRun(objects, RunOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("StartRun without Dir: %v", err)
	}
}
