// SPDX-License-Identifier: Apache-2.0
//! Every collective once, on host memory over MPI. Run it under mpirun:
//!
//! ```sh
//! mpirun --allow-run-as-root --oversubscribe -np 2 target/debug/examples/allreduce
//! ```
//!
//! Each rank prints one line, `rank R of N: sum=S ...`, that tests/collectives.rs checks.

use libtrainer::{Bf16, CommOptions, Communicator, ReduceOp};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut comm = Communicator::from_env(&CommOptions::default())?;
    let (rank, size) = (comm.rank(), comm.size());
    let r = i64::from(rank);

    // all-reduce: element i of rank r is r + i, so the sum is size*i + size*(size-1)/2.
    let send: Vec<i64> = (0..4).map(|i| r + i).collect();
    let mut sum = vec![0i64; 4];
    comm.all_reduce(&send, &mut sum, ReduceOp::Sum)?;
    let mut max = [rank as f64 * 1.5];
    comm.all_reduce_in_place(&mut max, ReduceOp::Max)?;
    let mut half = [Bf16::from_f32(rank as f32 + 1.0)];
    comm.all_reduce_in_place(&mut half, ReduceOp::Sum)?;

    let mut root = [if rank == 0 { 42i32 } else { 0 }];
    comm.broadcast(&mut root, 0)?;

    let mut gathered = vec![0u8; size as usize];
    comm.all_gather(&[rank as u8], &mut gathered)?;

    let mut scattered = [0i32];
    let contributions: Vec<i32> = (0..size).map(|b| b * 10 + rank).collect();
    comm.reduce_scatter(&contributions, &mut scattered, ReduceOp::Sum)?;

    // A ring of send/recv: even ranks send first so that blocking calls cannot deadlock.
    let (next, prev) = ((rank + 1) % size, (rank + size - 1) % size);
    let mut from_prev = [0f32];
    if rank % 2 == 0 {
        comm.send(&[rank as f32], next)?;
        comm.recv(&mut from_prev, prev)?;
    } else {
        comm.recv(&mut from_prev, prev)?;
        comm.send(&[rank as f32], next)?;
    }
    comm.barrier()?;
    comm.synchronize()?;

    // Too short a buffer is refused before it reaches the library.
    let refused = comm.all_gather(&[1i8, 2], &mut [0i8; 1]).is_err();

    println!(
        "rank {rank} of {size}: backend={} sum={sum:?} max={} bf16={} bcast={} gather={gathered:?} \
         scatter={} ring={} refused={refused}",
        comm.backend_name(),
        max[0],
        half[0].to_f32(),
        root[0],
        scattered[0],
        from_prev[0],
    );
    Ok(())
}
