// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The API server of the cluster tests comes from one variable, TRAINER_KUBE_TEST_ENV (the
// kube-test-env bundle: its tarball, the folder holding it, or the unpacked folder), as for the
// C++ tests. Under ctest the fixture kube_apiserver has started it already and names its folder
// in TRAINER_TEST_APISERVER_DIR; a plain `go test` starts one of its own, once, and stops it
// when the tests end.

const skipNoAPIServer = "SKIPPED: this test needs a real kube-apiserver; set TRAINER_KUBE_TEST_ENV " +
	"to kube-test-env.tar.xz or its unpacked folder (.ci/run sets it)"

var privateServer struct {
	once     sync.Once
	dir, bin string // the server's folder and the bundle's scripts
	tmp      string // what to remove at the end
	err      error
}

// TestMain stops the private API server, if a test started one.
func TestMain(m *testing.M) {
	code := m.Run()
	if privateServer.dir != "" {
		_ = exec.Command(filepath.Join(privateServer.bin, "stop-apiserver"), privateServer.dir, "--purge").Run()
	}
	if privateServer.tmp != "" {
		_ = os.RemoveAll(privateServer.tmp)
	}
	os.Exit(code)
}

// apiServerDir skips the test without TRAINER_KUBE_TEST_ENV and otherwise returns the folder of
// a running API server (its url, token, ca.crt and kubeconfig).
func apiServerDir(t *testing.T) string {
	t.Helper()
	bundle := os.Getenv("TRAINER_KUBE_TEST_ENV")
	if bundle == "" {
		t.Skip(skipNoAPIServer)
	}
	if dir := os.Getenv("TRAINER_TEST_APISERVER_DIR"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "env")); err == nil {
			return dir
		}
	}
	privateServer.once.Do(func() { privateServer.err = startPrivateServer(bundle) })
	if privateServer.err != nil {
		t.Fatal(privateServer.err)
	}
	return privateServer.dir
}

// startPrivateServer finds start-apiserver in the bundle (unpacking a tarball into a temporary
// folder) and starts a server in a temporary folder.
func startPrivateServer(bundle string) error {
	tmp, err := os.MkdirTemp("", "trainer-go-apiserver-")
	if err != nil {
		return err
	}
	privateServer.tmp = tmp
	tarball := ""
	switch st, err := os.Stat(bundle); {
	case err != nil:
		return fmt.Errorf("TRAINER_KUBE_TEST_ENV=%s: %v", bundle, err)
	case !st.IsDir():
		tarball = bundle
	case isExecutable(filepath.Join(bundle, "start-apiserver")):
		privateServer.bin = bundle
	case isExecutable(filepath.Join(bundle, "kube-test-env", "start-apiserver")):
		privateServer.bin = filepath.Join(bundle, "kube-test-env")
	default:
		tarball = filepath.Join(bundle, "kube-test-env.tar.xz")
	}
	if tarball != "" {
		if out, err := exec.Command("tar", "-xJf", tarball, "-C", tmp).CombinedOutput(); err != nil {
			return fmt.Errorf("TRAINER_KUBE_TEST_ENV=%s: unpacking %s: %v: %s", bundle, tarball, err, out)
		}
		privateServer.bin = filepath.Join(tmp, "kube-test-env")
	}
	dir := filepath.Join(tmp, "server")
	if out, err := exec.Command(filepath.Join(privateServer.bin, "start-apiserver"), dir).CombinedOutput(); err != nil {
		return fmt.Errorf("starting the API server of TRAINER_KUBE_TEST_ENV=%s: %v: %s", bundle, err, out)
	}
	privateServer.dir = dir
	return nil
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode()&0o111 != 0
}
