// SPDX-License-Identifier: Apache-2.0

package trainer

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// commProgram runs every collective on every element type class under mpirun and prints one
// line per result, prefixed by its rank.
const commProgram = `package main

import (
	"fmt"

	trainer "libtrainer.dev/trainer"
)

func must(err error) {
	if err != nil {
		fmt.Println("error:", err)
		trainer.Exit(1)
	}
}

func main() {
	c, err := trainer.NewCommFromEnv(nil)
	must(err)
	r, n := c.Rank(), c.Size()
	p := func(format string, a ...interface{}) { fmt.Printf("rank %d: "+format+"\n", append([]interface{}{r}, a...)...) }
	p("size %d backend %s local %d/%d", n, c.Backend(), c.LocalRank(), c.LocalSize())

	f32 := []float32{float32(r + 1), 0.5}
	must(trainer.AllReduce(c, f32, f32, trainer.Sum))
	p("allreduce float32 sum %v", f32)
	f64 := []float64{float64(r + 1)}
	out := make([]float64, 1)
	must(trainer.AllReduce(c, f64, out, trainer.Max))
	p("allreduce float64 max %v", out)
	i64 := []int64{int64(10 * (r + 1))}
	must(trainer.AllReduce(c, i64, i64, trainer.Avg))
	p("allreduce int64 avg %v", i64)

	h := []trainer.Float16{0x3C00}   // 1.0
	bh := []trainer.BFloat16{0x3F80} // 1.0
	must(trainer.AllReduce(c, h, h, trainer.Sum))
	must(trainer.AllReduce(c, bh, bh, trainer.Sum))
	p("allreduce halves %#x %#x", uint16(h[0]), uint16(bh[0]))

	b := make([]int32, 3)
	if r == 0 {
		b = []int32{7, 8, 9}
	}
	must(trainer.Broadcast(c, b, b, 0))
	p("broadcast %v", b)

	g := make([]uint8, 2*n)
	must(trainer.AllGather(c, []uint8{uint8(r), uint8(r + 100)}, g))
	p("allgather %v", g)

	rs := make([]float64, 1)
	send := make([]float64, n)
	for i := range send {
		send[i] = float64(i + 1)
	}
	must(trainer.ReduceScatter(c, send, rs, trainer.Sum))
	p("reducescatter %v", rs)

	if r == 0 {
		must(trainer.Send(c, []int8{-3, 4}, 1))
	} else if r == 1 {
		got := make([]int8, 2)
		must(trainer.Recv(c, got, 0))
		p("recv %v", got)
	}
	must(c.Barrier())
	must(c.Synchronize())
	if err := trainer.AllReduce(c, f32, make([]float32, 1), trainer.Sum); err != nil {
		p("mismatch %v", err)
	}
	p("done")
	c.Close()
	// MPI is finalized by exit()'s handlers, which a return from main would skip.
	trainer.Exit(0)
}
`

func TestCollectivesUnderMpirun(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not installed: the MPI collectives cannot be run")
	}
	if !Features().Has(FeatureMPI) {
		t.Skip("this libtrainer was built without the MPI backend")
	}
	module, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module commtest\n\ngo 1.19\n\nrequire libtrainer.dev/trainer v0.0.0\n\nreplace libtrainer.dev/trainer => " + module + "\n"
	for name, text := range map[string]string{"go.mod": gomod, "main.go": commProgram} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	build := exec.CommandContext(ctx, goTool(), "build", "-o", "comm", ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := exec.CommandContext(ctx, mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2", filepath.Join(dir, "comm"))
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{
		"backend mpi",
		"allreduce float32 sum [3 1]",
		"allreduce float64 max [2]",
		"allreduce int64 avg [15]",
		"allreduce halves 0x4000 0x4000", // 2.0 in both formats
		"broadcast [7 8 9]",
		"allgather [0 100 1 101]",
		"done",
	} {
		for r := 0; r < 2; r++ {
			if !strings.Contains(text, "rank "+string(rune('0'+r))+": ") || !strings.Contains(text, want) {
				t.Fatalf("missing %q:\n%s", want, text)
			}
		}
		if strings.Count(text, want) != 2 {
			t.Fatalf("%q is not printed by both ranks:\n%s", want, text)
		}
	}
	for _, want := range []string{"rank 0: size 2", "rank 1: size 2", "rank 0: reducescatter [2]",
		"rank 1: reducescatter [4]", "rank 1: recv [-3 4]", "rank 0: mismatch libtrainer: invalid argument: AllReduce: recv has 1 elements, want 2"} {
		if !strings.Contains(text, want) {
			t.Fatalf("missing %q:\n%s", want, text)
		}
	}
}

func TestCommErrors(t *testing.T) {
	// Outside a launcher there is nothing to rendezvous with: a typed error, in words.
	for _, k := range []string{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "RANK", "WORLD_SIZE", "PET_NNODES"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Skipf("%s=%s is set: this test runs outside a launcher", k, v)
		}
	}
	_, err := NewCommFromEnv(&CommOptions{Backend: BackendAuto, Timeout: time.Second})
	var te *Error
	if !errors.As(err, &te) || te.Code == CodeOK || strings.Contains(err.Error(), "TRAINER_") {
		t.Fatalf("NewCommFromEnv outside a launcher: %v", err)
	}
	var closed Comm
	if closed.Rank() != -1 || closed.Size() != 0 || closed.Backend() != "" {
		t.Fatal("a closed Comm reports a rank")
	}
	if err := AllReduce(&closed, []float32{1}, []float32{1}, Sum); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("AllReduce on a closed Comm: %v", err)
	}
}

// goTool is the go command of the toolchain running this test (PATH's when GOROOT has none).
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
