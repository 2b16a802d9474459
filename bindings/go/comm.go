// SPDX-License-Identifier: Apache-2.0

package trainer

/*
#include <stdint.h>
#include <stdlib.h>
#include <trainer.h>

// One entry for every buffer operation, so that Go has one call site.
static trainer_status go_trainer_comm_op(trainer_comm* c, int which, void* send, void* recv,
                                         size_t count, int dtype, int arg, trainer_error** err) {
  switch (which) {
    case 0: return trainer_comm_all_reduce(c, (const void*)send, (void*)recv, count, dtype, arg, err);
    case 1: return trainer_comm_broadcast(c, (const void*)send, (void*)recv, count, dtype, arg, err);
    case 2: return trainer_comm_all_gather(c, (const void*)send, (void*)recv, count, dtype, err);
    case 3: return trainer_comm_reduce_scatter(c, (const void*)send, (void*)recv, count, dtype, arg, err);
    case 4: return trainer_comm_send(c, (const void*)send, count, dtype, arg, err);
    case 5: return trainer_comm_recv(c, (void*)recv, count, dtype, arg, err);
  }
  return TRAINER_E_INVALID_ARGUMENT;
}

// Device memory crosses as integers (CUDA addresses are not Go pointers); C turns them back.
static trainer_status go_trainer_comm_op_device(trainer_comm* c, int which, uintptr_t send,
                                                uintptr_t recv, size_t count, int dtype, int arg,
                                                trainer_error** err) {
  return go_trainer_comm_op(c, which, (void*)send, (void*)recv, count, dtype, arg, err);
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// DataType is the element type of a collective's buffers.
type DataType int32

// Element types.
const (
	DTypeInt8     DataType = C.TRAINER_DTYPE_INT8
	DTypeUint8    DataType = C.TRAINER_DTYPE_UINT8
	DTypeInt32    DataType = C.TRAINER_DTYPE_INT32
	DTypeInt64    DataType = C.TRAINER_DTYPE_INT64
	DTypeFloat16  DataType = C.TRAINER_DTYPE_FLOAT16 // IEEE binary16
	DTypeBFloat16 DataType = C.TRAINER_DTYPE_BFLOAT16
	DTypeFloat32  DataType = C.TRAINER_DTYPE_FLOAT32
	DTypeFloat64  DataType = C.TRAINER_DTYPE_FLOAT64
)

// Float16 is an IEEE binary16 value and BFloat16 a bfloat16 value, each held as its bits: Go
// has no such types, and the library reduces them as what they are.
type (
	Float16  uint16
	BFloat16 uint16
)

// Element is the set of Go element types the collectives accept, each mapped to its DataType.
type Element interface {
	int8 | uint8 | int32 | int64 | float32 | float64 | Float16 | BFloat16
}

// dataTypeOf maps an Element type to its DataType.
func dataTypeOf[T Element]() DataType {
	var zero T
	switch any(zero).(type) {
	case int8:
		return DTypeInt8
	case uint8:
		return DTypeUint8
	case int32:
		return DTypeInt32
	case int64:
		return DTypeInt64
	case Float16:
		return DTypeFloat16
	case BFloat16:
		return DTypeBFloat16
	case float32:
		return DTypeFloat32
	}
	return DTypeFloat64
}

// ReduceOp is the reduction of AllReduce and ReduceScatter.
type ReduceOp int32

// Reductions. Avg is sum / size; integer Avg truncates toward zero.
const (
	Sum  ReduceOp = C.TRAINER_REDUCE_SUM
	Prod ReduceOp = C.TRAINER_REDUCE_PROD
	Min  ReduceOp = C.TRAINER_REDUCE_MIN
	Max  ReduceOp = C.TRAINER_REDUCE_MAX
	Avg  ReduceOp = C.TRAINER_REDUCE_AVG
)

// Backend selects the transport of a communicator.
type Backend int32

// Backends. BackendAuto is MPI for host memory and NCCL for CUDA memory, and also consults
// TRAINER_COLLECTIVES_BACKEND.
const (
	BackendAuto Backend = C.TRAINER_BACKEND_AUTO
	BackendMPI  Backend = C.TRAINER_BACKEND_MPI
	BackendNCCL Backend = C.TRAINER_BACKEND_NCCL
)

// Memory is where a communicator's buffers live.
type Memory int32

// Buffer memory kinds.
const (
	MemoryHost Memory = C.TRAINER_MEMORY_HOST
	MemoryCUDA Memory = C.TRAINER_MEMORY_CUDA
)

// CommOptions are the options of the communicator constructors; nil means all defaults.
type CommOptions struct {
	Memory     Memory         // [MemoryHost]
	Backend    Backend        // [BackendAuto]; the zero value is BackendMPI, so set it explicitly
	Timeout    time.Duration  // bootstrap and NCCL wait limit [10 minutes]
	Device     *int           // CUDA device [local rank modulo the visible devices]
	CUDAStream unsafe.Pointer // borrowed cudaStream_t for NCCL work [the communicator's own]
}

func (o *CommOptions) toC() *C.trainer_comm_options {
	if o == nil {
		return nil
	}
	// C memory: a cudaStream_t is not a Go pointer, and the struct is read during the call only.
	c := (*C.trainer_comm_options)(C.calloc(1, C.size_t(unsafe.Sizeof(C.trainer_comm_options{}))))
	c.version = C.TRAINER_COMM_OPTIONS_VERSION
	c.memory = C.int32_t(o.Memory)
	c.backend = C.int32_t(o.Backend)
	c.timeout_ms = C.int64_t(o.Timeout / time.Millisecond)
	c.device = -1
	if o.Device != nil {
		c.device = C.int32_t(*o.Device)
	}
	c.cuda_stream = o.CUDAStream
	return c
}

// Comm is a communicator: a group of processes running collectives together over MPI (host
// memory) or NCCL (CUDA memory); docs/collectives.md. Every operation except Send and Recv is
// collective: every rank calls it, in the same order. A Comm serializes its own calls (the C
// handle is usable by one thread at a time). Operations block until the group completes them,
// bounded by CommOptions.Timeout; the C ABI has no cancellation for them, so they take no
// context.Context.
type Comm struct {
	mu  sync.Mutex
	ptr *C.trainer_comm
}

func newComm(create func(opts *C.trainer_comm_options, out **C.trainer_comm, err **C.trainer_error) C.trainer_status, opts *CommOptions) (*Comm, error) {
	copts := opts.toC()
	defer C.free(unsafe.Pointer(copts))
	var out *C.trainer_comm
	var cerr *C.trainer_error
	if err := takeError(create(copts, &out, &cerr), cerr); err != nil {
		return nil, err
	}
	c := &Comm{ptr: out}
	runtime.SetFinalizer(c, func(c *Comm) { c.Close() })
	return c, nil
}

// NewCommFromEnv creates a communicator from the environment: mpirun's OMPI_COMM_WORLD_*
// (MPI), torchrun's RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT or Kubeflow's PET_* (NCCL through
// the TCP store, authenticated by TRAINER_RENDEZVOUS_SECRET). Errors: ErrInvalidArgument
// (malformed variables, named in the message), ErrInvalid (ranks disagree), ErrTimeout, ErrIO,
// ErrUnsupported (a backend compiled out, a rank without a GPU).
func NewCommFromEnv(opts *CommOptions) (*Comm, error) {
	return newComm(func(o *C.trainer_comm_options, out **C.trainer_comm, err **C.trainer_error) C.trainer_status {
		return C.trainer_comm_init_from_env(o, out, err)
	}, opts)
}

// NewCommMPI creates a communicator over every process of MPI_COMM_WORLD.
func NewCommMPI(opts *CommOptions) (*Comm, error) {
	return newComm(func(o *C.trainer_comm_options, out **C.trainer_comm, err **C.trainer_error) C.trainer_status {
		return C.trainer_comm_create_mpi(o, out, err)
	}, opts)
}

// NewCommNCCL creates an NCCL communicator; the ranks meet at the TCP store at host:port, where
// rank 0 listens. Every rank must pass the same host text.
func NewCommNCCL(host string, port uint16, rank, size, localRank, localSize int, opts *CommOptions) (*Comm, error) {
	chost := C.CString(host)
	defer C.free(unsafe.Pointer(chost))
	return newComm(func(o *C.trainer_comm_options, out **C.trainer_comm, err **C.trainer_error) C.trainer_status {
		return C.trainer_comm_create_nccl(chost, C.size_t(len(host)), C.uint16_t(port), C.int(rank),
			C.int(size), C.int(localRank), C.int(localSize), o, out, err)
	}, opts)
}

// Exit ends the process through the C library's exit(), which runs the C atexit handlers that
// os.Exit and a return from main skip: among them MPI_Finalize, which libtrainer registers when
// it initialised MPI (NewCommFromEnv under mpirun, NewCommMPI). Without it mpirun reports that
// the process exited without finalizing MPI and fails the job. Like os.Exit, deferred Go
// functions do not run; Close communicators first.
func Exit(code int) {
	C.exit(C.int(code))
}

// Close frees the communicator. Idempotent; always returns nil.
func (c *Comm) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ptr != nil {
		C.trainer_comm_free(c.ptr)
		c.ptr = nil
		runtime.SetFinalizer(c, nil)
	}
	return nil
}

// Rank returns this process's rank (-1 after Close).
func (c *Comm) Rank() int {
	return c.intOf(func(p *C.trainer_comm) C.int { return C.trainer_comm_rank(p) }, -1)
}

// Size returns the number of ranks (0 after Close).
func (c *Comm) Size() int {
	return c.intOf(func(p *C.trainer_comm) C.int { return C.trainer_comm_size(p) }, 0)
}

// LocalRank returns the rank among the processes of this host.
func (c *Comm) LocalRank() int {
	return c.intOf(func(p *C.trainer_comm) C.int { return C.trainer_comm_local_rank(p) }, -1)
}

// LocalSize returns the number of ranks on this host.
func (c *Comm) LocalSize() int {
	return c.intOf(func(p *C.trainer_comm) C.int { return C.trainer_comm_local_size(p) }, 0)
}

// Backend returns "mpi" or "nccl" ("" after Close).
func (c *Comm) Backend() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ptr == nil {
		return ""
	}
	return C.GoString(C.trainer_comm_backend_name(c.ptr))
}

func (c *Comm) intOf(get func(*C.trainer_comm) C.int, closed int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ptr == nil {
		return closed
	}
	return int(get(c.ptr))
}

// do runs one C call on the open handle.
func (c *Comm) do(fn func(p *C.trainer_comm, err **C.trainer_error) C.trainer_status) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ptr == nil {
		return &Error{Code: CodeInvalidArgument, Message: "use of a closed trainer.Comm"}
	}
	var cerr *C.trainer_error
	return takeError(fn(c.ptr, &cerr), cerr)
}

// Barrier returns once every rank has called it.
func (c *Comm) Barrier() error {
	return c.do(func(p *C.trainer_comm, err **C.trainer_error) C.trainer_status {
		return C.trainer_comm_barrier(p, err)
	})
}

// Synchronize waits for enqueued NCCL work (bounded by the timeout); a no-op on MPI.
func (c *Comm) Synchronize() error {
	return c.do(func(p *C.trainer_comm, err **C.trainer_error) C.trainer_status {
		return C.trainer_comm_synchronize(p, err)
	})
}

// Operations of go_trainer_comm_op.
const (
	opAllReduce = iota
	opBroadcast
	opAllGather
	opReduceScatter
	opSend
	opRecv
)

// op runs one operation on Go memory. send and recv are real pointers (not integers) so that
// the collector keeps them valid while C uses them.
func (c *Comm) op(which int, send, recv unsafe.Pointer, count int, dtype DataType, arg int) error {
	return c.do(func(p *C.trainer_comm, err **C.trainer_error) C.trainer_status {
		return C.go_trainer_comm_op(p, C.int(which), send, recv, C.size_t(count), C.int(dtype), C.int(arg), err)
	})
}

// opDevice runs one operation on device addresses.
func (c *Comm) opDevice(which int, send, recv uintptr, count int, dtype DataType, arg int) error {
	if count < 0 {
		return &Error{Code: CodeInvalidArgument, Message: "count must not be negative"}
	}
	return c.do(func(p *C.trainer_comm, err **C.trainer_error) C.trainer_status {
		return C.go_trainer_comm_op_device(p, C.int(which), C.uintptr_t(send), C.uintptr_t(recv),
			C.size_t(count), C.int(dtype), C.int(arg), err)
	})
}

// addr is the address of a slice's first element (nil for an empty slice).
func addr[T Element](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

func lengthError(op string, want, got int, what string) error {
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: %s has %d elements, want %d", op, what, got, want)}
}

// AllReduce reduces send over every rank with op into recv (the same length; recv may be send
// itself for an in-place reduction).
func AllReduce[T Element](c *Comm, send, recv []T, op ReduceOp) error {
	if len(recv) != len(send) {
		return lengthError("AllReduce", len(send), len(recv), "recv")
	}
	return c.op(opAllReduce, addr(send), addr(recv), len(send), dataTypeOf[T](), int(op))
}

// Broadcast copies root's send into recv on every rank (send is read on root only and may be
// nil elsewhere; it may be recv itself).
func Broadcast[T Element](c *Comm, send, recv []T, root int) error {
	if c.Rank() == root && len(send) != len(recv) {
		return lengthError("Broadcast", len(recv), len(send), "send")
	}
	s := addr(send)
	if s == nil {
		s = addr(recv)
	}
	return c.op(opBroadcast, s, addr(recv), len(recv), dataTypeOf[T](), root)
}

// AllGather gathers every rank's send into recv, which holds Size()*len(send) elements by
// rank. In place when send is recv[rank*n : (rank+1)*n].
func AllGather[T Element](c *Comm, send, recv []T) error {
	if want := c.Size() * len(send); len(recv) != want {
		return lengthError("AllGather", want, len(recv), "recv")
	}
	return c.op(opAllGather, addr(send), addr(recv), len(send), dataTypeOf[T](), 0)
}

// ReduceScatter reduces send (Size()*len(recv) elements) over every rank with op and leaves
// block `rank` of the result in recv. In place when recv is send[rank*n : (rank+1)*n].
func ReduceScatter[T Element](c *Comm, send, recv []T, op ReduceOp) error {
	if want := c.Size() * len(recv); len(send) != want {
		return lengthError("ReduceScatter", want, len(send), "send")
	}
	return c.op(opReduceScatter, addr(send), addr(recv), len(recv), dataTypeOf[T](), int(op))
}

// Send sends buf to rank peer (blocking point-to-point).
func Send[T Element](c *Comm, buf []T, peer int) error {
	return c.op(opSend, addr(buf), nil, len(buf), dataTypeOf[T](), peer)
}

// Recv receives len(buf) elements from rank peer into buf (blocking point-to-point).
func Recv[T Element](c *Comm, buf []T, peer int) error {
	return c.op(opRecv, nil, addr(buf), len(buf), dataTypeOf[T](), peer)
}

// DeviceBuffer is a buffer in CUDA device memory (an address from cudaMalloc, which Go cannot
// hold as a slice): the operations of a MemoryCUDA communicator take these.
type DeviceBuffer struct {
	Ptr   uintptr  // device address
	Count int      // elements
	Type  DataType // element type
}

// AllReduceDevice is AllReduce on device memory (send and recv of the same Count and Type).
func (c *Comm) AllReduceDevice(send, recv DeviceBuffer, op ReduceOp) error {
	return c.opDevice(opAllReduce, send.Ptr, recv.Ptr, recv.Count, recv.Type, int(op))
}

// BroadcastDevice is Broadcast on device memory.
func (c *Comm) BroadcastDevice(send, recv DeviceBuffer, root int) error {
	return c.opDevice(opBroadcast, send.Ptr, recv.Ptr, recv.Count, recv.Type, root)
}

// AllGatherDevice is AllGather on device memory (recv holds Size()*send.Count elements).
func (c *Comm) AllGatherDevice(send, recv DeviceBuffer) error {
	return c.opDevice(opAllGather, send.Ptr, recv.Ptr, send.Count, send.Type, 0)
}

// ReduceScatterDevice is ReduceScatter on device memory (send holds Size()*recv.Count).
func (c *Comm) ReduceScatterDevice(send, recv DeviceBuffer, op ReduceOp) error {
	return c.opDevice(opReduceScatter, send.Ptr, recv.Ptr, recv.Count, recv.Type, int(op))
}

// SendDevice is Send on device memory.
func (c *Comm) SendDevice(buf DeviceBuffer, peer int) error {
	return c.opDevice(opSend, buf.Ptr, 0, buf.Count, buf.Type, peer)
}

// RecvDevice is Recv on device memory.
func (c *Comm) RecvDevice(buf DeviceBuffer, peer int) error {
	return c.opDevice(opRecv, 0, buf.Ptr, buf.Count, buf.Type, peer)
}
