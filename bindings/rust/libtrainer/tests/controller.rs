// SPDX-License-Identifier: Apache-2.0
//! The TrainJob controller against the kube-apiserver of CTest's fixture `kube_apiserver`: one
//! reconcile by name, the loop run on one thread and stopped from another with its outcomes
//! delivered to a Rust closure, metrics, and a framework with a Rust plugin whose rules the
//! controller applies. Without TRAINER_KUBE_TEST_ENV the tests print SKIPPED and return.

mod support;
use support::Server;

#[path = "../../libtrainer-plugin-example/src/rusttest.rs"]
mod rusttest;

use libtrainer::{
    reconcile, ApplyOptions, Client, Code, Controller, ControllerOptions, Framework,
    ReconcileOptions, ServingOptions,
};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn apply(client: &Client, name: &str, label: &str, nodes: u32) {
    let docs = format!(
        "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: rt-{name}
  labels:
    trainer.kubeflow.org/framework: {label}
spec:
  mlPolicy:
    numNodes: 1
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
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: rt-{name}
    kind: TrainingRuntime
  trainer:
    numNodes: {nodes}
"
    );
    client.apply(&docs, &ApplyOptions::default()).expect("apply");
}

#[test]
fn reconcile_once_by_name() {
    let Some(server) = Server::get("reconcile_once_by_name") else { return };
    let (ns, client) = server.namespace_and_client("reconcile");
    apply(&client, "once", "plain", 1);
    let out = reconcile(&client, "", "once", &ReconcileOptions::default()).expect("reconcile");
    assert!(out.contains(&format!("\"key\":\"{ns}/once\"")), "{out}");
    assert!(out.contains("jobset.jobset.x-k8s.io/once"), "{out}");
    let out = reconcile(&client, &ns, "absent", &ReconcileOptions::default()).unwrap();
    assert!(out.contains("\"skipped\":true"), "{out}");
    let e = reconcile(&client, &ns, "", &ReconcileOptions::default()).expect_err("no name");
    assert_eq!(e.code, Code::INVALID_ARGUMENT);
}

#[test]
fn the_loop_runs_until_stopped_from_another_thread() {
    let Some(server) = Server::get("the_loop_runs_until_stopped_from_another_thread") else {
        return;
    };
    let (ns, client) = server.namespace_and_client("loop");
    apply(&client, "loop", "plain", 1);
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&seen);
    let controller = Controller::new(
        &client,
        ControllerOptions {
            namespace: Some(ns.clone()),
            workers: Some(2),
            no_events: true,
            on_reconcile: Some(Box::new(move |result, error| {
                sink.lock().unwrap().push(match error {
                    None => result.to_string(),
                    Some(e) => format!("error: {e}"),
                });
            })),
            ..Default::default()
        },
    )
    .expect("controller");
    let key = format!("\"key\":\"{ns}/loop\"");
    std::thread::scope(|s| {
        let runner = s.spawn(|| controller.run());
        let deadline = Instant::now() + Duration::from_secs(60);
        while !seen.lock().unwrap().iter().any(|r| r.contains(&key) && r.contains("jobset")) {
            assert!(Instant::now() < deadline, "no reconcile of loop: {:?}", seen.lock().unwrap());
            std::thread::sleep(Duration::from_millis(50));
        }
        let metrics = controller.metrics().expect("metrics");
        assert!(metrics.contains("# TYPE trainer_reconcile_total counter"), "{metrics}");
        controller.stop();
        runner.join().unwrap().expect("run returns Ok after stop");
    });
    let e = controller.run().expect_err("a controller runs once");
    assert_eq!(e.code, Code::INVALID_ARGUMENT);
    drop(controller);
    // The library dropped the closure with the controller.
    assert_eq!(Arc::strong_count(&seen), 1);
}

#[test]
fn a_framework_with_a_rust_plugin_reaches_the_controller() {
    let Some(server) = Server::get("a_framework_with_a_rust_plugin_reaches_the_controller") else {
        return;
    };
    let (ns, client) = server.namespace_and_client("plugin");
    apply(&client, "ours", "rusttest", 3);
    let mut fw = Framework::new("").unwrap();
    fw.add(rusttest::RustTest).unwrap();
    let controller = Controller::new(
        &client,
        ControllerOptions {
            namespace: Some(ns.clone()),
            once: true,
            no_events: true,
            framework: Some(fw.clone()),
            ..Default::default()
        },
    )
    .expect("controller");
    // One reconcile renders with the framework too.
    apply(&client, "once", "rusttest", 2);
    let options =
        ReconcileOptions { framework: Some(fw.clone()), no_events: true, ..Default::default() };
    let result = reconcile(&client, &ns, "once", &options).expect("one reconcile");
    assert!(!result.contains(r#""skipped":true"#), "{result}");
    let jobset =
        server.get_body(&format!("/apis/jobset.x-k8s.io/v1alpha2/namespaces/{ns}/jobsets/once"));
    assert!(jobset.replace(' ', "").contains(r#""value":"2""#), "{jobset}");
    drop(fw); // the controller keeps its own reference
    controller.run().expect("one pass over the namespace");
    // The JobSet the controller applied carries the plugin's env.
    let jobset =
        server.get_body(&format!("/apis/jobset.x-k8s.io/v1alpha2/namespaces/{ns}/jobsets/ours"));
    assert!(jobset.contains("RUSTTEST_NODES"), "{jobset}");
    assert!(jobset.replace(' ', "").contains(r#""value":"3""#), "{jobset}");

    // Apply admits with the framework's rules too: the plugin refuses 5 nodes before anything
    // is sent.
    let mut fw = Framework::new("").unwrap();
    fw.add(rusttest::RustTest).unwrap();
    let docs = client
        .get("trainingruntime", "", "rt-ours", libtrainer::Format::Yaml, &Default::default())
        .unwrap();
    let job = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: big}\n\
               spec:\n  runtimeRef: {name: rt-ours, kind: TrainingRuntime}\n  trainer: {numNodes: 5}\n";
    let e = client
        .apply(
            &format!("{docs}---\n{job}"),
            &ApplyOptions { framework: Some(fw), ..Default::default() },
        )
        .expect_err("the plugin refuses 5 nodes");
    assert_eq!(e.code, Code::INVALID, "{e}");
    assert!(e.fields.iter().any(|f| f.path == "spec.trainer.numNodes"), "{e}: {:?}", e.fields);
    assert_eq!(e.http_status, 0, "refused locally");

    let e = Controller::new(
        &client,
        ControllerOptions {
            feature_gates: Some("TrainJobStatus=true".into()),
            framework: Some(Framework::new("").unwrap()),
            ..Default::default()
        },
    )
    .err()
    .expect("gates and a framework");
    assert_eq!(e.code, Code::INVALID_ARGUMENT, "{e}");
}

#[test]
fn serving_options_reach_the_library() {
    let Some(server) = Server::get("serving_options_reach_the_library") else { return };
    let (_ns, client) = server.namespace_and_client("serving");
    let serving = ServingOptions {
        operator_namespace: Some("kubeflow-system".into()),
        webhook_cert_hosts: vec!["127.0.0.1".into(), "localhost".into()],
        webhook_bind_address: Some("127.0.0.1".into()),
        webhook_port: 9443,
        status_server_port: Some(0),
        ..ServingOptions::default()
    };
    let options = ControllerOptions { serving, ..ControllerOptions::default() };
    assert!(Controller::new(&client, options).is_ok());
}
