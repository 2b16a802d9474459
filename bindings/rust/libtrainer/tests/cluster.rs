// SPDX-License-Identifier: Apache-2.0
//! The cluster operations against the kube-apiserver that CTest's fixture `kube_apiserver`
//! starts (TRAINER_TEST_APISERVER_DIR). The tests play the TrainJob controller by patching the
//! status subresource with curl and the admin token. Without TRAINER_KUBE_TEST_ENV they print
//! SKIPPED and return.

mod support;
use support::Server;

use libtrainer::{
    ApplyOptions, CancelToken, Client, ClientOptions, Code, DeleteOptions, Format, GetOptions,
    LogsOptions, Propagation, WaitOptions, WatchOptions,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const RUNTIME_YAML: &str = "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: torch-rt
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
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
                      image: pytorch:2.5
";

fn trainjob_yaml(name: &str, procs: u32) -> String {
    format!(
        "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: torch-rt
    kind: TrainingRuntime
  trainer:
    numNodes: 2
    numProcPerNode: {procs}
"
    )
}

fn apply_job(client: &Client, name: &str) {
    let docs = format!("{RUNTIME_YAML}---\n{}", trainjob_yaml(name, 1));
    let applied = client
        .apply(
            &docs,
            &ApplyOptions { field_manager: Some("rust-test".into()), ..Default::default() },
        )
        .expect("apply");
    let refs: Vec<_> = applied.iter().map(|a| a.reference.as_str()).collect();
    let want = format!("trainjob.trainer.kubeflow.org/{name}");
    assert_eq!(refs, ["trainingruntime.trainer.kubeflow.org/torch-rt", want.as_str()]);
    assert!(applied[1].json.contains("\"uid\":"), "{}", applied[1].json);
}

/// The value of the first `"key":"value"` in `json`.
fn json_string<'a>(json: &'a str, key: &str) -> &'a str {
    let pattern = format!("\"{key}\":\"");
    let start = json.find(&pattern).unwrap_or_else(|| panic!("no {key} in {json}")) + pattern.len();
    &json[start..start + json[start..].find('"').unwrap()]
}

#[test]
fn client_without_kubeconfig_fails_and_frees_its_warning_handler() {
    let calls = Arc::new(AtomicUsize::new(0));
    let held = calls.clone();
    let err = Client::new(ClientOptions {
        kubeconfig: Some("/nonexistent/kubeconfig".into()),
        on_warning: Some(Box::new(move |_| {
            held.fetch_add(1, Ordering::Relaxed);
        })),
        ..Default::default()
    })
    .err()
    .expect("a missing kubeconfig is an error");
    assert!(err.message.contains("/nonexistent/kubeconfig"), "{err}");
    assert_eq!(err.http_status, 0);
    // The library released the handler (the only other holder of `calls`).
    assert_eq!(Arc::strong_count(&calls), 1);
}

#[test]
fn max_response_bytes_reaches_the_client() {
    let Some(server) = Server::get("max_response_bytes_reaches_the_client") else { return };
    let (ns, client) = server.namespace_and_client("limit");
    apply_job(&client, "job-a");
    let small = Client::new(ClientOptions {
        kubeconfig: Some(server.kubeconfig()),
        namespace: Some(ns.clone()),
        qps: Some(-1.0),
        max_response_bytes: Some(1024),
        ..Default::default()
    })
    .expect("client");
    let err = small.get("trainjob", "", "job-a", Format::Json, &Default::default()).unwrap_err();
    assert_eq!(err.code, Code::LIMIT, "{err}");
    assert!(err.message.contains("1 KiB limit (ClientOptions::max_response_bytes)"), "{err}");
    // None keeps the default.
    client.get("trainjob", &ns, "job-a", Format::Json, &Default::default()).unwrap();

    // on_log sees a watch's retry. The client's rate limiter (one request per 1000 s after a
    // burst of 10) is drained by gets (the first caches discovery) until one times out at the
    // limiter after the 200 ms request bound; then the watch's list times out the same way, the
    // watch logs its retry, and the handler cancels the watch.
    let token = CancelToken::new().unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let (held, cancel) = (lines.clone(), token.clone());
    let logging = Client::new(ClientOptions {
        kubeconfig: Some(server.kubeconfig()),
        namespace: Some(ns.clone()),
        qps: Some(0.001),
        burst: Some(10),
        request_timeout: Some(Duration::from_millis(200)),
        on_log: Some(Box::new(move |line| {
            held.lock().unwrap().push(line.to_string());
            cancel.cancel();
        })),
        ..Default::default()
    })
    .expect("client");
    logging.get("trainjob", "", "job-a", Format::Json, &Default::default()).unwrap();
    let drained = (0..20).any(|_| {
        logging
            .get("trainjob", "", "job-a", Format::Json, &Default::default())
            .is_err_and(|e| e.code == Code::TIMEOUT)
    });
    assert!(drained, "the rate limiter was not drained");
    assert!(lines.lock().unwrap().is_empty());
    let watch = WatchOptions { cancel: Some(token), ..Default::default() };
    let err = logging.watch("", &watch, |_, _| false).unwrap_err();
    assert_eq!(err.code, Code::CANCELLED, "{err}");
    {
        let lines = lines.lock().unwrap();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].starts_with("watch of trainjobs"), "{lines:?}");
        assert!(lines[0].contains("failed, retrying in "), "{lines:?}");
    }
    drop(logging);
    // The library released the handler (the only other holder of `lines`).
    assert_eq!(Arc::strong_count(&lines), 1);
}

#[test]
fn apply_get_list_delete() {
    let Some(server) = Server::get("apply_get_list_delete") else { return };
    let (ns, client) = server.namespace_and_client("crud");
    apply_job(&client, "job-a");
    apply_job(&client, "job-a"); // server-side apply is idempotent

    let job = client.get("trainjob", "", "job-a", Format::Json, &GetOptions::default()).unwrap();
    assert_eq!(json_string(&job, "namespace"), ns);
    let runtime =
        client.get("TrainingRuntime", &ns, "torch-rt", Format::Yaml, &Default::default()).unwrap();
    assert!(runtime.contains("kind: TrainingRuntime\n"), "{runtime}");
    let list = client.list("trainjobs", "", Format::Json, &Default::default()).unwrap();
    assert!(list.contains("\"kind\":\"TrainJobList\"") && list.contains("\"name\":\"job-a\""));

    client
        .delete(
            "trainjob",
            "",
            "job-a",
            &DeleteOptions { propagation: Propagation::Background, ..Default::default() },
        )
        .unwrap();
    let err = client.get("trainjob", "", "job-a", Format::Json, &Default::default()).unwrap_err();
    assert_eq!(
        (err.code, err.http_status, err.reason.as_str()),
        (Code::NOT_FOUND, 404, "NotFound")
    );
    assert!(err.message.contains("\"job-a\" not found"), "{err}");
    let err = client.delete("trainjob", "", "job-a", &Default::default()).unwrap_err();
    assert_eq!(err.code, Code::NOT_FOUND);

    // No controller runs here, so a TrainJob has no pods to read logs from.
    apply_job(&client, "job-l");
    let err = client.logs("", "job-l", &LogsOptions::default(), |_, _| true).unwrap_err();
    assert_eq!(err.code, Code::NOT_FOUND, "{err}");
}

#[test]
fn invalid_trainjob_is_refused_locally() {
    let Some(server) = Server::get("invalid_trainjob_is_refused_locally") else { return };
    let (_, client) = server.namespace_and_client("invalid");
    let docs = format!(
        "{RUNTIME_YAML}---\n{}---\n{}",
        trainjob_yaml("job-ok", 1),
        trainjob_yaml("job-bad", 0)
    );
    let err = client.apply(&docs, &Default::default()).unwrap_err();
    assert_eq!((err.code, err.http_status), (Code::INVALID, 0), "{err}");
    assert!(err.fields.iter().any(|f| f.path == "spec.trainer.numProcPerNode"), "{:?}", err.fields);
    let err = client.get("trainjob", "", "job-ok", Format::Json, &Default::default()).unwrap_err();
    assert_eq!(err.code, Code::NOT_FOUND, "nothing is applied when a document is rejected");
}

#[test]
fn wait_and_watch_see_the_controller() {
    let Some(server) = Server::get("wait_and_watch_see_the_controller") else { return };
    let (ns, client) = server.namespace_and_client("wait");
    apply_job(&client, "job-w");

    let err = client
        .wait("", "job-w", "Complete", Some(Duration::ZERO), &Default::default())
        .unwrap_err();
    assert_eq!(err.code, Code::TIMEOUT, "{err}");
    let before = client.get("trainjob", "", "job-w", Format::Json, &Default::default()).unwrap();
    let version = json_string(&before, "resourceVersion").to_string();

    // A waiter on another thread sees the change the test makes as the controller.
    let done = std::thread::scope(|s| {
        let waiter = s.spawn(|| {
            client.wait("", "job-w", "complete", Some(Duration::from_secs(30)), &Default::default())
        });
        std::thread::sleep(Duration::from_millis(200));
        server.complete(&ns, "job-w");
        waiter.join().unwrap()
    })
    .expect("wait for Complete");
    assert!(done.contains("\"reason\":\"JobsCompleted\""), "{done}");

    // Watching from the version before the change delivers the change.
    let mut events = Vec::new();
    client
        .watch(
            "",
            &WatchOptions {
                name: Some("job-w".into()),
                resource_version: Some(version),
                ..Default::default()
            },
            |event_type, object| {
                events.push((event_type.to_string(), object.contains("\"type\":\"Complete\"")));
                false
            },
        )
        .unwrap();
    assert_eq!(events, [("MODIFIED".to_string(), true)]);
}

#[test]
fn cancellation_from_another_thread() {
    let Some(server) = Server::get("cancellation_from_another_thread") else { return };
    let (_, client) = server.namespace_and_client("cancel");
    apply_job(&client, "job-c");

    let token = CancelToken::new().unwrap();
    let canceller = token.clone();
    let thread = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        canceller.cancel();
    });
    let start = Instant::now();
    let err = client
        .wait(
            "",
            "job-c",
            "Suspended",
            Some(Duration::from_secs(60)),
            &WaitOptions { cancel: Some(token.clone()), ..Default::default() },
        )
        .unwrap_err();
    thread.join().unwrap();
    assert_eq!(err.code, Code::CANCELLED, "{err}");
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());

    // A cancelled token fails the next call at once.
    let err = client
        .get(
            "trainjob",
            "",
            "job-c",
            Format::Json,
            &GetOptions { cancel: Some(token), ..Default::default() },
        )
        .unwrap_err();
    assert_eq!(err.code, Code::CANCELLED);

    // A panic in a watch callback comes back here.
    let seen = Mutex::new(0);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = client.watch("", &Default::default(), |_, _| {
            *seen.lock().unwrap() += 1;
            panic!("boom")
        });
    }))
    .unwrap_err();
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"boom"));
    assert_eq!(*seen.lock().unwrap(), 1);
}
