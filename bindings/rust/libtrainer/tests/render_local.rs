// SPDX-License-Identifier: Apache-2.0
//! Render and local runs against the real library: a TrainJob and its runtime rendered, the
//! rendered objects run on this machine (pods in the host fallback, so no privilege is needed)
//! with their lines delivered to a Rust closure, and the bounds: a wait that times out, a
//! cancel, a callback that stops the run.

use libtrainer::{
    read_run_status, render, Code, Format, Isolation, LogLine, Phase, ProgressServer,
    RenderOptions, Run, RunOptions,
};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const UID: &str = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

fn input(script: &str) -> String {
    format!(
        "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: echo
spec:
  mlPolicy:
    numNodes: 2
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: unused
                      command: [\"sh\", \"-c\", {script:?}]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: echo
spec:
  runtimeRef:
    name: echo
    kind: TrainingRuntime
"
    )
}

/// A fresh, empty folder under the temporary directory (the run creates `run` in it).
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("libtrainer-rust-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rendered(script: &str) -> String {
    let result = render(
        input(script),
        &RenderOptions {
            uid: Some(UID.into()),
            namespace: Some("team-rust".into()),
            now: Some("2026-01-01T00:00:00Z".into()),
            ..Default::default()
        },
    )
    .expect("render");
    result.encode(Format::Yaml).expect("encode")
}

#[test]
fn render_returns_objects_warnings_and_both_encodings() {
    let result =
        render(input("echo hi"), &RenderOptions { uid: Some(UID.into()), ..Default::default() })
            .expect("render");
    let objects = result.objects();
    assert_eq!(objects.len(), result.len());
    let jobset = objects.iter().find(|o| o.kind == "JobSet").expect("a JobSet");
    assert_eq!(jobset.name, "echo");
    assert_eq!(jobset.namespace, "default");
    assert!(jobset.json.contains(UID), "owner reference carries the UID: {}", jobset.json);
    assert_eq!(result.skipped_reason(), None);
    let yaml = result.encode(Format::Yaml).unwrap();
    assert!(yaml.contains("kind: JobSet"), "{yaml}");
    let json = result.encode(Format::Json).unwrap();
    assert!(
        json.starts_with("{\"apiVersion\":\"v1\",\"items\":[")
            || json.contains("\"kind\":\"List\"")
    );
    let _ = result.warnings();
}

#[test]
fn render_reports_field_errors_and_options_errors() {
    let bad = input("echo hi") + "  trainer:\n    numNodes: -1\n";
    let e = render(bad, &RenderOptions::default()).expect_err("numNodes -1");
    assert_eq!(e.code, Code::INVALID, "{e}");
    assert!(e.fields.iter().any(|f| f.path.contains("numNodes")), "{:?}", e.fields);

    let e = render(
        input("echo hi"),
        &RenderOptions { feature_gates: Some("NoSuchGate=true".into()), ..Default::default() },
    )
    .expect_err("unknown gate");
    assert_eq!(e.code, Code::INVALID_ARGUMENT, "{e}");

    let e = render(
        input("echo hi").replace("name: echo\n    kind", "name: missing\n    kind"),
        &RenderOptions::default(),
    )
    .expect_err("missing runtime");
    assert_eq!(e.code, Code::NOT_FOUND, "{e}");
}

#[test]
fn managed_by_another_controller_is_skipped_with_a_reason() {
    let text = input("echo hi").replace(
        "spec:\n  runtimeRef:",
        "spec:\n  managedBy: kueue.x-k8s.io/multikueue\n  runtimeRef:",
    );
    let result = render(text, &RenderOptions::default()).expect("render");
    assert!(result.is_empty());
    assert!(result.skipped_reason().is_some_and(|r| !r.is_empty()));
}

#[test]
fn local_run_completes_and_the_closure_receives_every_line() {
    let dir = scratch("complete");
    let lines = Arc::new(Mutex::new(Vec::<(String, String, bool)>::new()));
    let sink = Arc::clone(&lines);
    let run = Run::start(
        rendered("echo rank $JOB_COMPLETION_INDEX; echo to-stderr >&2"),
        RunOptions {
            run_dir: dir.join("run"),
            isolation: Isolation::Host,
            on_log: Some(Box::new(move |line: &LogLine<'_>| {
                sink.lock().unwrap().push((
                    line.prefix.to_string(),
                    String::from_utf8_lossy(line.text).into_owned(),
                    line.is_stderr,
                ));
                true
            })),
            ..Default::default()
        },
    )
    .expect("start");
    let phase = run.wait(Some(Duration::from_secs(60))).expect("finished within a minute");
    assert_eq!(phase, Phase::COMPLETE, "{}", run.status().unwrap());
    assert_eq!(run.phase(), Phase::COMPLETE);
    assert!(phase.is_finished());
    let lines = lines.lock().unwrap().clone();
    for rank in ["rank 0", "rank 1"] {
        assert!(lines.iter().any(|(_, t, e)| t == rank && !e), "{rank} not in {lines:?}");
    }
    assert!(lines.iter().any(|(p, t, e)| t == "to-stderr" && *e && p.starts_with("node-0-")));
    let status = run.status().expect("status");
    assert!(status.contains("Complete"), "{status}");
    drop(run);
    // The folder keeps the status for any process to read.
    let from_disk = read_run_status(dir.join("run")).expect("read_run_status");
    assert!(from_disk.contains("Complete"), "{from_disk}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wait_times_out_and_cancel_ends_the_run_failed() {
    let dir = scratch("cancel");
    let run = Run::start(
        rendered("sleep 30"),
        RunOptions { run_dir: dir.join("run"), isolation: Isolation::Host, ..Default::default() },
    )
    .expect("start");
    let e = run.wait(Some(Duration::from_millis(200))).expect_err("still running");
    assert_eq!(e.code, Code::TIMEOUT);
    assert!(!run.phase().is_finished());
    let started = Instant::now();
    run.cancel();
    assert_eq!(run.wait(Some(Duration::from_secs(30))).expect("cancelled"), Phase::FAILED);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(run.status().unwrap().contains("Cancelled"));
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_closure_that_returns_false_or_panics_cancels_the_run() {
    for panics in [false, true] {
        let dir = scratch(if panics { "panic" } else { "stop" });
        let run = Run::start(
            rendered("echo first; sleep 30"),
            RunOptions {
                run_dir: dir.join("run"),
                isolation: Isolation::Host,
                on_log: Some(Box::new(move |_: &LogLine<'_>| {
                    if panics {
                        panic!("the log closure panics");
                    }
                    false
                })),
                ..Default::default()
            },
        )
        .expect("start");
        assert_eq!(run.wait(Some(Duration::from_secs(30))).expect("ends"), Phase::FAILED);
        drop(run);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn start_errors_are_typed_and_the_closure_is_dropped() {
    struct Flag(Arc<Mutex<bool>>);
    impl Drop for Flag {
        fn drop(&mut self) {
            *self.0.lock().unwrap() = true;
        }
    }
    let dropped = Arc::new(Mutex::new(false));
    let flag = Flag(Arc::clone(&dropped));
    let dir = scratch("errors");
    let e = Run::start(
        "kind: [",
        RunOptions {
            run_dir: dir.join("run"),
            isolation: Isolation::Host,
            on_log: Some(Box::new(move |_: &LogLine<'_>| {
                let _ = &flag;
                true
            })),
            ..Default::default()
        },
    )
    .expect_err("not YAML");
    assert_eq!(e.code, Code::PARSE, "{e}");
    assert!(*dropped.lock().unwrap(), "the library dropped the closure when the start failed");
    let e = Run::start("", RunOptions::default()).expect_err("no run folder");
    assert_eq!(e.code, Code::INVALID_ARGUMENT);
    let e = read_run_status(dir.join("nothing-here")).expect_err("no run");
    assert_eq!(e.code, Code::NOT_FOUND, "{e}");
    assert_eq!(Phase(99).name(), "Unknown");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_local_run_reports_progress_to_its_progress_server() {
    let dir = scratch("progress");
    // What a trainer pod does with the Kubeflow SDK's update_trainjob_status(), without the SDK.
    let post = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/data/local/progress_post.py");
    let server = ProgressServer::start(None, 0).expect("progress server");
    assert!(server.port() > 0);
    assert!(server.ca_cert().starts_with("-----BEGIN CERTIFICATE-----"));
    let objects = render(
        input(&format!("python3 {} 65", post.display())),
        &RenderOptions {
            feature_gates: Some("TrainJobStatus=true".into()),
            progress_server: Some(server.clone()),
            ..Default::default()
        },
    )
    .expect("render")
    .encode(Format::Yaml)
    .expect("encode");
    assert!(objects.contains(&format!(":{}/apis/trainer.kubeflow.org/", server.port())));
    // Without the server nothing issues the pods' tokens.
    let refused = Run::start(
        &objects,
        RunOptions { run_dir: dir.join("none"), isolation: Isolation::Host, ..Default::default() },
    );
    assert_eq!(refused.err().map(|e| e.code), Some(Code::UNSUPPORTED));
    let run = Run::start(
        &objects,
        RunOptions {
            run_dir: dir.join("run"),
            isolation: Isolation::Host,
            progress_server: Some(server.clone()),
            ..Default::default()
        },
    )
    .expect("start");
    // The run holds the server: every handle here may go.
    drop(server);
    assert_eq!(run.wait(Some(Duration::from_secs(60))).expect("wait"), Phase::COMPLETE);
    let status = run.status().expect("status");
    assert!(status.contains(r#""trainerStatus":{"progressPercentage":65"#), "{status}");
}
