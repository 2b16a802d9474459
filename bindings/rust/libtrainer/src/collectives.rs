// SPDX-License-Identifier: Apache-2.0
//! Collectives (`trainer/collectives.h`): a [`Communicator`] over MPI (host memory) or NCCL
//! (CUDA device memory) and the collective operations on it (docs/collectives.md).
//!
//! The safe operations take typed slices of host memory ([`Element`]: `i8`, `u8`, `i32`, `i64`,
//! `f32`, `f64`, [`F16`], [`Bf16`]) and check their lengths against the group size. Device
//! memory (a communicator made with [`Memory::Cuda`]) goes through the `unsafe` `*_raw`
//! operations with device pointers.

use crate::cluster::millis;
use crate::{sys, Code, Error, Result};
use core::ffi::{c_int, c_void, CStr};
use std::ptr::{self, NonNull};
use std::time::Duration;

mod private {
    pub trait Sealed {}
}

/// An element type of the collectives: its `TRAINER_DTYPE_*`. Sealed: the library knows only
/// these types.
pub trait Element: Copy + private::Sealed {
    const DTYPE: c_int;
}

/// IEEE binary16, as its bits.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct F16(pub u16);

/// bfloat16, as its bits (the upper half of an `f32`).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bf16(pub u16);

impl Bf16 {
    /// Truncates `f` to bfloat16.
    pub fn from_f32(f: f32) -> Bf16 {
        Bf16((f.to_bits() >> 16) as u16)
    }

    pub fn to_f32(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl private::Sealed for $t {}
        impl Element for $t {
            const DTYPE: c_int = sys::$d;
        }
    )*};
}

element! {
    i8 => TRAINER_DTYPE_INT8,
    u8 => TRAINER_DTYPE_UINT8,
    i32 => TRAINER_DTYPE_INT32,
    i64 => TRAINER_DTYPE_INT64,
    F16 => TRAINER_DTYPE_FLOAT16,
    Bf16 => TRAINER_DTYPE_BFLOAT16,
    f32 => TRAINER_DTYPE_FLOAT32,
    f64 => TRAINER_DTYPE_FLOAT64,
}

/// A reduction. `Avg` is sum / size; integer `Avg` truncates toward zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReduceOp {
    Sum,
    Prod,
    Min,
    Max,
    Avg,
}

impl ReduceOp {
    fn raw(self) -> c_int {
        match self {
            ReduceOp::Sum => sys::TRAINER_REDUCE_SUM,
            ReduceOp::Prod => sys::TRAINER_REDUCE_PROD,
            ReduceOp::Min => sys::TRAINER_REDUCE_MIN,
            ReduceOp::Max => sys::TRAINER_REDUCE_MAX,
            ReduceOp::Avg => sys::TRAINER_REDUCE_AVG,
        }
    }
}

/// The backend of a communicator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backend {
    /// MPI for host memory, NCCL for CUDA memory; also consults `TRAINER_COLLECTIVES_BACKEND`.
    #[default]
    Auto,
    Mpi,
    Nccl,
}

/// The memory a communicator's buffers are in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Memory {
    #[default]
    Host,
    Cuda,
}

/// Options of the creating calls; `None` means the library default.
#[derive(Clone, Debug, Default)]
pub struct CommOptions {
    pub memory: Memory,
    pub backend: Backend,
    /// Bootstrap and NCCL wait limit [10 minutes].
    pub timeout: Option<Duration>,
    /// CUDA device [local rank modulo the visible devices].
    pub device: Option<i32>,
    /// A borrowed `cudaStream_t` for NCCL work [the communicator's own].
    pub cuda_stream: Option<NonNull<c_void>>,
}

impl CommOptions {
    fn raw(&self) -> sys::trainer_comm_options {
        sys::trainer_comm_options {
            memory: match self.memory {
                Memory::Host => sys::TRAINER_MEMORY_HOST,
                Memory::Cuda => sys::TRAINER_MEMORY_CUDA,
            },
            backend: match self.backend {
                Backend::Auto => sys::TRAINER_BACKEND_AUTO,
                Backend::Mpi => sys::TRAINER_BACKEND_MPI,
                Backend::Nccl => sys::TRAINER_BACKEND_NCCL,
            },
            timeout_ms: self.timeout.map_or(0, millis),
            device: self.device.unwrap_or(-1),
            cuda_stream: self.cuda_stream.map_or(ptr::null_mut(), NonNull::as_ptr),
            ..sys::trainer_comm_options::INIT
        }
    }
}

/// A group of processes running collectives together (`trainer_comm`). Movable: `Send`, not
/// `Sync`; operations take `&mut self`. Every operation but send/recv is collective: every rank
/// calls it, in the same order.
pub struct Communicator {
    ptr: NonNull<sys::trainer_comm>,
    memory: Memory,
}

// SAFETY: collectives.h classes trainer_comm as movable (any thread, one at a time).
unsafe impl Send for Communicator {}

impl Drop for Communicator {
    fn drop(&mut self) {
        // SAFETY: owned, freed once.
        unsafe { sys::trainer_comm_free(self.ptr.as_ptr()) }
    }
}

type Create = unsafe extern "C" fn(
    *const sys::trainer_comm_options,
    *mut *mut sys::trainer_comm,
    *mut *mut sys::trainer_error,
) -> sys::trainer_status;

fn status(st: sys::trainer_status, err: *mut sys::trainer_error) -> Result<()> {
    // SAFETY: `err` came from the call that returned `st`.
    unsafe { Error::check(st, err) }
}

fn check_len(what: &str, have: usize, want: usize) -> Result<()> {
    if have == want {
        Ok(())
    } else {
        Err(Error::new(
            Code::INVALID_ARGUMENT,
            format!("{what} holds {have} elements; the operation needs {want}"),
        ))
    }
}

impl Communicator {
    fn create(f: Create, options: &CommOptions) -> Result<Communicator> {
        let opts = options.raw();
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: the options live for the call; out-parameters are valid.
        status(unsafe { f(&opts, &mut out, &mut err) }, err)?;
        Self::wrap(out, options)
    }

    fn wrap(out: *mut sys::trainer_comm, options: &CommOptions) -> Result<Communicator> {
        NonNull::new(out)
            .map(|ptr| Communicator { ptr, memory: options.memory })
            .ok_or_else(|| Error::new(Code::INTERNAL, "the communicator is NULL"))
    }

    /// From the environment: mpirun's `OMPI_COMM_WORLD_*` (MPI), torchrun's `RANK`/`WORLD_SIZE`/
    /// `MASTER_ADDR`/`MASTER_PORT` or Kubeflow's `PET_*` (NCCL through the TCP store).
    pub fn from_env(options: &CommOptions) -> Result<Communicator> {
        Self::create(sys::trainer_comm_init_from_env, options)
    }

    /// Over every process of `MPI_COMM_WORLD`. [`Code::UNSUPPORTED`] when MPI is compiled out.
    pub fn mpi(options: &CommOptions) -> Result<Communicator> {
        Self::create(sys::trainer_comm_create_mpi, options)
    }

    /// An NCCL communicator; the ranks meet at the TCP store at `host:port` (rank 0 listens),
    /// authenticated with `TRAINER_RENDEZVOUS_SECRET`.
    #[allow(clippy::too_many_arguments)]
    pub fn nccl(
        host: &str,
        port: u16,
        rank: i32,
        size: i32,
        local_rank: i32,
        local_size: i32,
        options: &CommOptions,
    ) -> Result<Communicator> {
        let opts = options.raw();
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        // SAFETY: `host` is borrowed for the call as (ptr, len); out-parameters are valid.
        let st = unsafe {
            sys::trainer_comm_create_nccl(
                host.as_ptr().cast(),
                host.len(),
                port,
                rank,
                size,
                local_rank,
                local_size,
                &opts,
                &mut out,
                &mut err,
            )
        };
        status(st, err)?;
        Self::wrap(out, options)
    }

    fn raw(&self) -> *mut sys::trainer_comm {
        self.ptr.as_ptr()
    }

    pub fn rank(&self) -> i32 {
        // SAFETY: live communicator.
        unsafe { sys::trainer_comm_rank(self.raw()) }
    }

    pub fn size(&self) -> i32 {
        // SAFETY: live communicator.
        unsafe { sys::trainer_comm_size(self.raw()) }
    }

    pub fn local_rank(&self) -> i32 {
        // SAFETY: live communicator.
        unsafe { sys::trainer_comm_local_rank(self.raw()) }
    }

    pub fn local_size(&self) -> i32 {
        // SAFETY: live communicator.
        unsafe { sys::trainer_comm_local_size(self.raw()) }
    }

    /// "mpi" or "nccl".
    pub fn backend_name(&self) -> &'static str {
        // SAFETY: static storage.
        unsafe { CStr::from_ptr(sys::trainer_comm_backend_name(self.raw())) }.to_str().unwrap_or("")
    }

    fn host(&self) -> Result<usize> {
        if self.memory != Memory::Host {
            return Err(Error::new(
                Code::INVALID_ARGUMENT,
                "slices are host memory; a CUDA communicator takes the *_raw operations",
            ));
        }
        usize::try_from(self.size())
            .map_err(|_| Error::new(Code::INTERNAL, "negative communicator size"))
    }

    /// `recv[i]` = `op` over every rank's `send[i]`.
    pub fn all_reduce<T: Element>(
        &mut self,
        send: &[T],
        recv: &mut [T],
        op: ReduceOp,
    ) -> Result<()> {
        self.host()?;
        check_len("recv", recv.len(), send.len())?;
        // SAFETY: both slices hold `send.len()` elements of host memory.
        unsafe {
            self.all_reduce_raw(
                send.as_ptr().cast(),
                recv.as_mut_ptr().cast(),
                send.len(),
                T::DTYPE,
                op,
            )
        }
    }

    /// [`Communicator::all_reduce`] in place.
    pub fn all_reduce_in_place<T: Element>(&mut self, buf: &mut [T], op: ReduceOp) -> Result<()> {
        self.host()?;
        let p = buf.as_mut_ptr().cast::<c_void>();
        // SAFETY: send == recv is the library's in-place form; `buf.len()` elements.
        unsafe { self.all_reduce_raw(p, p, buf.len(), T::DTYPE, op) }
    }

    /// `buf` of rank `root` to every rank's `buf` (same length everywhere).
    pub fn broadcast<T: Element>(&mut self, buf: &mut [T], root: i32) -> Result<()> {
        self.host()?;
        let p = buf.as_mut_ptr().cast::<c_void>();
        // SAFETY: in place, `buf.len()` elements.
        unsafe { self.broadcast_raw(p, p, buf.len(), T::DTYPE, root) }
    }

    /// `recv` = every rank's `send`, by rank; `recv.len()` is `size * send.len()`.
    pub fn all_gather<T: Element>(&mut self, send: &[T], recv: &mut [T]) -> Result<()> {
        let size = self.host()?;
        check_len("recv", recv.len(), size * send.len())?;
        // SAFETY: lengths checked; host memory.
        unsafe {
            self.all_gather_raw(
                send.as_ptr().cast(),
                recv.as_mut_ptr().cast(),
                send.len(),
                T::DTYPE,
            )
        }
    }

    /// `op` over every rank's `send`, then rank r keeps block r in `recv`; `send.len()` is
    /// `size * recv.len()`.
    pub fn reduce_scatter<T: Element>(
        &mut self,
        send: &[T],
        recv: &mut [T],
        op: ReduceOp,
    ) -> Result<()> {
        let size = self.host()?;
        check_len("send", send.len(), size * recv.len())?;
        // SAFETY: lengths checked; host memory.
        unsafe {
            self.reduce_scatter_raw(
                send.as_ptr().cast(),
                recv.as_mut_ptr().cast(),
                recv.len(),
                T::DTYPE,
                op,
            )
        }
    }

    /// Waits until every rank arrived.
    pub fn barrier(&mut self) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY: live communicator.
        status(unsafe { sys::trainer_comm_barrier(self.raw(), &mut err) }, err)
    }

    /// Blocking send of `buf` to `peer`.
    pub fn send<T: Element>(&mut self, buf: &[T], peer: i32) -> Result<()> {
        self.host()?;
        // SAFETY: `buf.len()` elements of host memory.
        unsafe { self.send_raw(buf.as_ptr().cast(), buf.len(), T::DTYPE, peer) }
    }

    /// Blocking receive of `buf.len()` elements from `peer`.
    pub fn recv<T: Element>(&mut self, buf: &mut [T], peer: i32) -> Result<()> {
        self.host()?;
        // SAFETY: `buf.len()` elements of host memory.
        unsafe { self.recv_raw(buf.as_mut_ptr().cast(), buf.len(), T::DTYPE, peer) }
    }

    /// Waits for enqueued NCCL work (bounded by the timeout); a no-op on MPI.
    pub fn synchronize(&mut self) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY: live communicator.
        status(unsafe { sys::trainer_comm_synchronize(self.raw(), &mut err) }, err)
    }

    /// `trainer_comm_all_reduce` on raw buffers (in place when `send == recv`).
    ///
    /// # Safety
    /// `send` and `recv` hold `count` elements of `dtype` in the communicator's memory.
    pub unsafe fn all_reduce_raw(
        &mut self,
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        dtype: c_int,
        op: ReduceOp,
    ) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY (caller): valid buffers.
        let st = unsafe {
            sys::trainer_comm_all_reduce(self.raw(), send, recv, count, dtype, op.raw(), &mut err)
        };
        status(st, err)
    }

    /// `trainer_comm_broadcast` on raw buffers (`send` is read on `root` only).
    ///
    /// # Safety
    /// As [`Communicator::all_reduce_raw`].
    pub unsafe fn broadcast_raw(
        &mut self,
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        dtype: c_int,
        root: i32,
    ) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY (caller): valid buffers.
        let st = unsafe {
            sys::trainer_comm_broadcast(self.raw(), send, recv, count, dtype, root, &mut err)
        };
        status(st, err)
    }

    /// `trainer_comm_all_gather` on raw buffers (`recv` holds `size * send_count` elements).
    ///
    /// # Safety
    /// As [`Communicator::all_reduce_raw`], with those lengths.
    pub unsafe fn all_gather_raw(
        &mut self,
        send: *const c_void,
        recv: *mut c_void,
        send_count: usize,
        dtype: c_int,
    ) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY (caller): valid buffers.
        let st = unsafe {
            sys::trainer_comm_all_gather(self.raw(), send, recv, send_count, dtype, &mut err)
        };
        status(st, err)
    }

    /// `trainer_comm_reduce_scatter` on raw buffers (`send` holds `size * recv_count`).
    ///
    /// # Safety
    /// As [`Communicator::all_reduce_raw`], with those lengths.
    pub unsafe fn reduce_scatter_raw(
        &mut self,
        send: *const c_void,
        recv: *mut c_void,
        recv_count: usize,
        dtype: c_int,
        op: ReduceOp,
    ) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY (caller): valid buffers.
        let st = unsafe {
            sys::trainer_comm_reduce_scatter(
                self.raw(),
                send,
                recv,
                recv_count,
                dtype,
                op.raw(),
                &mut err,
            )
        };
        status(st, err)
    }

    /// `trainer_comm_send` on a raw buffer.
    ///
    /// # Safety
    /// `buf` holds `count` elements of `dtype` in the communicator's memory.
    pub unsafe fn send_raw(
        &mut self,
        buf: *const c_void,
        count: usize,
        dtype: c_int,
        peer: i32,
    ) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY (caller): valid buffer.
        let st = unsafe { sys::trainer_comm_send(self.raw(), buf, count, dtype, peer, &mut err) };
        status(st, err)
    }

    /// `trainer_comm_recv` on a raw buffer.
    ///
    /// # Safety
    /// As [`Communicator::send_raw`], writable.
    pub unsafe fn recv_raw(
        &mut self,
        buf: *mut c_void,
        count: usize,
        dtype: c_int,
        peer: i32,
    ) -> Result<()> {
        let mut err = ptr::null_mut();
        // SAFETY (caller): valid buffer.
        let st = unsafe { sys::trainer_comm_recv(self.raw(), buf, count, dtype, peer, &mut err) };
        status(st, err)
    }
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Communicator")
            .field("backend", &self.backend_name())
            .field("rank", &self.rank())
            .field("size", &self.size())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfloat16_round_trips_representable_values() {
        for f in [0.0f32, 1.0, -2.5, 256.0] {
            assert_eq!(Bf16::from_f32(f).to_f32(), f);
        }
    }
}
