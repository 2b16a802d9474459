// SPDX-License-Identifier: Apache-2.0
//! The collectives for real: examples/allreduce.rs (which `cargo test` builds with the tests)
//! runs under `mpirun -np 2`, and both ranks' results are checked. Without MPI in the library
//! the creating call must say UNSUPPORTED.

use libtrainer::{features, Code, CommOptions, Communicator, Features};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// target/<profile>/examples/allreduce, next to this test's target/<profile>/deps/.
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|d| d.parent()).unwrap();
    let path = profile_dir.join("examples").join("allreduce");
    if !path.exists() {
        // Only this test was asked for (`cargo test --test collectives`): build the example.
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let st = Command::new(cargo)
            .args(["build", "--offline", "--example", "allreduce"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build --example allreduce");
        assert!(st.success(), "cargo build --example allreduce failed");
    }
    path
}

#[test]
fn all_reduce_under_mpirun_on_two_ranks() {
    if !features().contains(Features::MPI) {
        let e = Communicator::mpi(&CommOptions::default()).expect_err("MPI compiled out");
        assert_eq!(e.code, Code::UNSUPPORTED);
        println!("SKIPPED: all_reduce_under_mpirun_on_two_ranks: libtrainer was built without MPI");
        return;
    }
    let Ok(mpirun) = which("mpirun") else {
        println!("SKIPPED: all_reduce_under_mpirun_on_two_ranks: mpirun is not installed");
        return;
    };
    let mut child = Command::new(mpirun)
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
        .arg(example())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start mpirun");
    // Bounded: mpirun that hangs is killed after a minute.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("mpirun did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "mpirun: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    for rank in 0..2 {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("rank {rank} of 2:")))
            .unwrap_or_else(|| panic!("no line of rank {rank} in {stdout}"));
        // Sums over ranks 0 and 1 of r + i: 2i + 1.
        for want in [
            "backend=mpi",
            "sum=[1, 3, 5, 7]",
            "max=1.5",
            "bf16=3",
            "bcast=42",
            "gather=[0, 1]",
            "refused=true",
        ] {
            assert!(line.contains(want), "rank {rank}: {want} not in {line}");
        }
        // reduce-scatter: block r is the sum over ranks of 10r + rank = 20r + 1.
        assert!(line.contains(&format!("scatter={}", 20 * rank + 1)), "{line}");
        // The ring: each rank got its predecessor's rank.
        assert!(line.contains(&format!("ring={}", 1 - rank)), "{line}");
    }
}

#[test]
fn from_env_without_a_launcher_is_a_clear_error() {
    // No OMPI_COMM_WORLD_*, RANK or PET_* in a plain test process (unless it runs under a
    // launcher, which the check below tolerates).
    if std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some() || std::env::var_os("RANK").is_some() {
        return;
    }
    let e = Communicator::from_env(&CommOptions::default()).expect_err("no launcher");
    assert!(!e.message.is_empty(), "{e:?}");
}

#[test]
fn nccl_without_a_gpu_or_nccl_is_refused_in_bounded_time() {
    if features().contains(Features::NCCL) && std::path::Path::new("/dev/nvidia0").exists() {
        println!("SKIPPED: nccl_without_a_gpu_or_nccl_is_refused_in_bounded_time: a GPU is here");
        return;
    }
    let started = std::time::Instant::now();
    let e = Communicator::nccl(
        "127.0.0.1",
        0,
        0,
        1,
        0,
        1,
        &CommOptions {
            memory: libtrainer::Memory::Cuda,
            timeout: Some(Duration::from_secs(5)),
            ..Default::default()
        },
    )
    .expect_err("no NCCL or no GPU");
    assert_eq!(e.code, Code::UNSUPPORTED, "{e}");
    assert!(started.elapsed() < Duration::from_secs(30));
}

fn which(program: &str) -> Result<PathBuf, ()> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .ok_or(())
}
