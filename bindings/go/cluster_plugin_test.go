// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"libtrainer.dev/trainer/examples/plugin/gotest"
)

// getJobSet returns the JobSet ns/name as the server has it.
func (s *apiServer) getJobSet(t *testing.T, ns, name string) []byte {
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
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET jobset %s/%s: %s %v", ns, name, resp.Status, err)
	}
	return body
}

// The framework reaches the cluster paths: Apply admits with the Go plugin's rules, and the
// controller's reconciles render with its env.
func TestClusterApplyAndControllerWithGoPlugin(t *testing.T) {
	s, ns, client := clusterFixture(t)
	fw, err := NewFramework(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Add(gotest.Plugin{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	_, err = client.Apply(ctx, gotestJob("GOTEST_JOB"), &ApplyOptions{Framework: fw})
	checkGotestRejection(t, "Apply", err)
	if _, err := client.Get(ctx, "trainjob", "", "gojob", FormatJSON); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the rejected TrainJob was applied: %v", err)
	}
	if _, err := client.Apply(ctx, gotestJob(""), &ApplyOptions{Framework: fw}); err != nil {
		t.Fatal(err)
	}

	ctl, err := NewController(client, &ControllerOptions{Namespace: ns, Once: true, Framework: fw})
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	// One reconcile renders with the controller's plugins while the Framework is open.
	if res, err := ctl.Reconcile(ctx, ns, "gojob"); err != nil || res.Skipped {
		t.Fatalf("Reconcile with the controller's plugins: %+v %v", res, err)
	}
	// The loop keeps its own reference: the caller's may go before it runs.
	fw.Close()
	if err := ctl.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Reconcile(ctx, ns, "gojob"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Reconcile after the Framework was closed: %v", err)
	}
	js := s.getJobSet(t, ns, "gojob")
	if !bytes.Contains(js, []byte(`{"name":"GOTEST_PLUGIN","value":"go"}`)) {
		t.Fatalf("the JobSet lacks the plugin's env: %s", js)
	}

	if _, err := NewController(client, &ControllerOptions{Framework: fw}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a closed framework: %v", err)
	}
	if _, err := NewController(client, &ControllerOptions{FeatureGates: "TrainJobStatus=true", Gates: map[string]bool{}}); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "not both") {
		t.Fatalf("FeatureGates and Gates: %v", err)
	}
}
