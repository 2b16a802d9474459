// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLocalRunReportsProgress(t *testing.T) {
	dir := t.TempDir()
	// What a trainer pod does with the Kubeflow SDK's update_trainjob_status(), without the SDK.
	post, err := filepath.Abs(filepath.Join("..", "..", "tests", "data", "local", "progress_post.py"))
	if err != nil {
		t.Fatal(err)
	}
	server, err := StartProgressServer("", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if server.Port() == 0 || !strings.HasPrefix(server.CACert(), "-----BEGIN CERTIFICATE-----") {
		t.Fatalf("Port() = %d, CACert() = %q", server.Port(), server.CACert())
	}
	input, err := os.ReadFile(filepath.Join("..", "..", "tests", "cli", "data", "echo-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	input = []byte(strings.Replace(string(input), `["sh", "-c", "echo hello-from-echo"]`, `["python3", "`+post+`", "30"]`, 1))
	rendered, err := Render(input, &RenderOptions{Namespace: "default", Gates: map[string]bool{"TrainJobStatus": true}, ProgressServer: server})
	if err != nil {
		t.Fatal(err)
	}
	objects, err := rendered.Encode(FormatYAML)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(objects), ":"+strconv.Itoa(int(server.Port()))+"/apis/trainer.kubeflow.org/") {
		t.Fatalf("the rendered URL lacks the server's port:\n%s", objects)
	}
	// Without the server nothing issues the pod's token.
	if _, err := StartRun(objects, RunOptions{Dir: filepath.Join(dir, "none"), Isolation: IsolationHost}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("a run without the server: %v", err)
	}
	run, err := StartRun(objects, RunOptions{Dir: filepath.Join(dir, "run"), Isolation: IsolationHost, ProgressServer: server})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	// The run holds the server: the handle may go.
	server.Close()
	if server.Port() != 0 {
		t.Errorf("Port() after Close = %d", server.Port())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if phase, err := run.Wait(ctx); err != nil || phase != RunComplete {
		status, _ := run.Status()
		t.Fatalf("Wait = %v, %v; status %s", phase, err, status)
	}
	status, err := run.Status()
	if err != nil || !strings.Contains(string(status), `"trainerStatus":{"progressPercentage":30`) {
		t.Fatalf("Status() = %s, %v", status, err)
	}
	if _, err := Render(input, &RenderOptions{Namespace: "default", ProgressServer: server}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Render with a closed server: %v", err)
	}
}
