// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The controller tests run against the fixture's API server (cluster_test.go), each in a
// namespace of its own that the controller alone watches.

// jobSetExists reports whether the JobSet ns/name exists, asked with the admin token.
func (s *apiServer) jobSetExists(t *testing.T, ns, name string) bool {
	t.Helper()
	req, err := http.NewRequest("GET", fmt.Sprintf("%s/apis/jobset.x-k8s.io/v1alpha2/namespaces/%s/jobsets/%s", s.url, ns, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func TestControllerOffline(t *testing.T) {
	if _, err := NewController(nil, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("NewController(nil) = %v, want ErrInvalidArgument", err)
	}
}

func TestControllerReconcileByName(t *testing.T) {
	s, ns, client := clusterFixture(t)
	applyJob(t, client, "byname")
	ctl, err := NewController(client, &ControllerOptions{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctl.Close() })

	r, err := ctl.Reconcile(context.Background(), "", "byname")
	if err != nil {
		t.Fatal(err)
	}
	if r.Key != ns+"/byname" || r.Skipped {
		t.Errorf("result = %+v, want key %s/byname, not skipped", r, ns)
	}
	found := false
	for _, ref := range r.Applied {
		found = found || ref == "jobset.jobset.x-k8s.io/byname"
	}
	if !found {
		t.Errorf("Applied = %v, want the JobSet among them", r.Applied)
	}
	if !s.jobSetExists(t, ns, "byname") {
		t.Error("the JobSet does not exist after the reconcile")
	}

	// A TrainJob that does not exist is skipped, not an error.
	r, err = ctl.Reconcile(context.Background(), ns, "absent")
	if err != nil || !r.Skipped || len(r.Applied) != 0 {
		t.Errorf("absent: %+v, %v; want skipped", r, err)
	}
	// A runtime that does not exist: ErrNotFound, and no JobSet.
	orphan := strings.Replace(clusterTrainJobYAML("orphan", 1), "name: torch-rt", "name: nowhere", 1)
	if _, err := client.Apply(context.Background(), []byte(orphan), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Reconcile(context.Background(), ns, "orphan"); !errors.Is(err, ErrNotFound) {
		t.Errorf("orphan: %v, want ErrNotFound", err)
	}
	// A context that has ended cancels the call.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ctl.Reconcile(ctx, ns, "byname"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

func TestControllerRunUntilContextEnds(t *testing.T) {
	s, ns, client := clusterFixture(t)
	var mu sync.Mutex
	seen := map[string]ReconcileResult{}
	ctl, err := NewController(client, &ControllerOptions{
		Namespace: ns, Workers: 2, ShutdownTimeout: 10 * time.Second,
		OnReconcile: func(r ReconcileResult, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				seen[r.Key] = r
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctl.Close() })

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()

	applyJob(t, client, "loop")
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		_, ok := seen[ns+"/loop"]
		mu.Unlock()
		if ok && s.jobSetExists(t, ns, "loop") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !s.jobSetExists(t, ns, "loop") {
		t.Fatal("the loop did not create the JobSet within 30 s")
	}
	metrics, err := ctl.Metrics()
	if err != nil || !strings.Contains(metrics, "# TYPE trainer_reconcile_total counter") {
		t.Errorf("Metrics() = %q, %v", metrics, err)
	}

	// The context's end stops the loop gracefully: Run returns nil.
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel = %v, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return within 15 s of the context's end")
	}
	// A controller runs once; Close is idempotent and later calls fail.
	if err := ctl.Run(context.Background()); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("second Run = %v, want ErrInvalidArgument", err)
	}
	ctl.Close()
	ctl.Close()
	if _, err := ctl.Metrics(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Metrics after Close = %v, want ErrInvalidArgument", err)
	}
}

func TestControllerOnceAndStop(t *testing.T) {
	_, ns, client := clusterFixture(t)
	applyJob(t, client, "first")
	ctl, err := NewController(client, &ControllerOptions{Namespace: ns, Once: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.Run(context.Background()); err != nil {
		t.Errorf("once: %v", err)
	}
	ctl.Close()

	// Stop before Run: Run returns at once. Close waits for a Run in flight.
	ctl, err = NewController(client, &ControllerOptions{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	ctl.Stop()
	if err := ctl.Run(context.Background()); err != nil {
		t.Errorf("Run after Stop = %v", err)
	}
	ctl.Close()

	if _, err := NewController(client, &ControllerOptions{FeatureGates: "Nope=true"}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("bad gates: %v, want ErrInvalidArgument", err)
	}
}

// The serving options reach the C ABI (struct version 3), which checks them.
func TestControllerServingOptions(t *testing.T) {
	_, _, client := clusterFixture(t)
	for _, bad := range []ServingOptions{{WebhookPort: 70000}, {WebhookPort: -1}, {StatusServerPort: -2}} {
		if _, err := NewController(client, &ControllerOptions{Serving: bad}); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("NewController(Serving: %+v) = %v, want ErrInvalidArgument", bad, err)
		}
	}
	ctl, err := NewController(client, &ControllerOptions{Serving: ServingOptions{
		OperatorNamespace: "kubeflow-system", WebhookCertHosts: []string{"127.0.0.1", "localhost"},
		WebhookBindAddress: "127.0.0.1", WebhookPort: 9443, StatusServerPort: -1,
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctl.Close()
}
