// SPDX-License-Identifier: Apache-2.0
//! Plugins in Rust against the real library: the `rusttest` plugin (the source of the cdylib
//! crate libtrainer-plugin-example, compiled in here too) changes the render of a TrainJob whose
//! runtime is labelled `trainer.kubeflow.org/framework: rusttest`, and its field error reaches
//! render and validation; the same plugin loaded from the cdylib renders the same objects; a
//! panic, an error, a bad reply, a TrainJob patch outside the spec or a reply over 4 MiB in a
//! plugin fails the operation without unwinding into C; names are unique.

use libtrainer::{
    json_quote, render, Code, DocumentList, Framework, Phases, Plugin, PluginError, PluginHandle,
    PluginResult, RenderOptions, Request,
};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[path = "../../libtrainer-plugin-example/src/rusttest.rs"]
mod rusttest;
use rusttest::RustTest;

const UID: &str = "0b6f4c2e-3f5d-4a7e-9c1b-2d8e6f0a1b3c";

fn input(framework_label: &str, nodes: u32) -> String {
    format!(
        "apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: rt
  labels:
    trainer.kubeflow.org/framework: {framework_label}
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
                      command: [sh, -c, 'echo $RUSTTEST_NODES']
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
spec:
  runtimeRef:
    name: rt
    kind: TrainingRuntime
  trainer:
    numNodes: {nodes}
"
    )
}

fn options(framework: &Framework) -> RenderOptions {
    RenderOptions {
        uid: Some(UID.into()),
        now: Some("2026-01-01T00:00:00Z".into()),
        framework: Some(framework.clone()),
        ..Default::default()
    }
}

fn jobset_json(text: &str, framework: &Framework) -> String {
    let result = render(text, &options(framework)).expect("render");
    result.objects().into_iter().find(|o| o.kind == "JobSet").expect("a JobSet").json
}

/// The whole render against a golden file in tests/data/, so that a plugin change anywhere shows
/// (UPDATE_GOLDEN=1 rewrites the file from this build).
fn check_golden(text: &str, framework: &Framework, name: &str) {
    let got = render(text, &options(framework))
        .expect("render")
        .encode(libtrainer::Format::Yaml)
        .expect("encode");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    if std::env::var_os("UPDATE_GOLDEN").as_deref() == Some(std::ffi::OsStr::new("1")) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).expect("the golden file");
    assert!(
        got == want,
        "the render differs from {} (UPDATE_GOLDEN=1 rewrites it):\n{got}",
        path.display()
    );
}

fn with(plugin: impl Plugin) -> Framework {
    let mut fw = Framework::new("").expect("framework");
    fw.add(plugin).expect("add");
    fw
}

#[test]
fn a_rust_plugin_changes_the_render_of_its_own_trainjobs_only() {
    let fw = with(RustTest);
    assert_eq!(fw.names().last().map(String::as_str), Some("rusttest"));
    assert!(fw.names().len() > 1, "the built-in plugins come first: {:?}", fw.names());
    let json = jobset_json(&input("rusttest", 3), &fw);
    assert!(
        json.contains(r#"{"name":"RUSTTEST_NODES","value":"3"}"#),
        "env on the node container: {json}"
    );
    check_golden(&input("rusttest", 3), &fw, "rusttest-render.yaml");
    // A runtime of another framework is not the plugin's: no change.
    // (The command mentions $RUSTTEST_NODES; the env entry is what the plugin adds.)
    let env = r#""name":"RUSTTEST_NODES""#;
    let json = jobset_json(&input("torch-like", 3), &fw);
    assert!(!json.contains(env), "{json}");
    // Without the plugin there is no change either.
    let json = jobset_json(&input("rusttest", 3), &Framework::new("").unwrap());
    assert!(!json.contains(env), "{json}");
}

#[test]
fn the_plugins_field_error_reaches_render_and_validate_with_its_path() {
    let fw = with(RustTest);
    let e = render(input("rusttest", 5), &options(&fw)).expect_err("5 nodes");
    assert_eq!(e.code, Code::INVALID, "{e}");
    let field = e.fields.iter().find(|f| f.path == "spec.trainer.numNodes").expect("field error");
    assert_eq!(field.field_type, "FieldValueInvalid");
    assert_eq!(field.value.as_deref(), Some("5"));
    assert_eq!(field.detail, "rusttest runs at most 4 nodes");

    let mut list = DocumentList::parse(input("rusttest", 5), None).unwrap();
    list.apply_defaults().unwrap();
    let job = list.iter().find(|d| d.kind() == "TrainJob").unwrap();
    let e = job.validate_with(Some(&list), Some(&fw)).expect_err("5 nodes");
    assert_eq!(e.code, Code::INVALID);
    assert!(e.fields.iter().any(|f| f.text.contains("spec.trainer.numNodes: Invalid value: 5")));
    // The built-in plugins alone admit it.
    job.validate(Some(&list)).expect("no rusttest rule without the plugin");
    job.validate_with(Some(&list), None).expect("None is the built-in plugins");
}

/// A plugin whose ML policy phase does what `behaviour` says.
struct Misbehaving {
    name: &'static str,
    behaviour: fn() -> PluginResult,
}

impl Plugin for Misbehaving {
    fn name(&self) -> &str {
        self.name
    }
    fn phases(&self) -> Phases {
        Phases::ENFORCE_ML_POLICY
    }
    fn enforce_ml_policy(&self, _: &Request<'_>) -> PluginResult {
        (self.behaviour)()
    }
}

#[test]
fn a_panic_an_error_or_a_bad_reply_fails_the_render_without_aborting() {
    type Case = (&'static str, fn() -> PluginResult, Code, &'static str);
    let cases: [Case; 5] = [
        ("rustpanic", || panic!("the plugin panics"), Code::USER, "panicked: the plugin panics"),
        (
            "rustescape",
            || Ok(Some(r#"{"trainJob":{"metadata":{"namespace":"kube-system"}}}"#.into())),
            Code::INVALID,
            "enforceMLPolicy: trainJob.metadata.namespace: Forbidden: a plugin may change only \
             the TrainJob's spec",
        ),
        (
            "rusthuge",
            || Ok(Some(format!("{{}}{}", " ".repeat(4 << 20)))),
            Code::LIMIT,
            "reply: 4194306 bytes exceeds the limit of a plugin reply (4194304 bytes)",
        ),
        (
            "rusterror",
            || Err(PluginError::with_code(Code::INVALID, "refused by rusterror")),
            Code::INVALID,
            "refused by rusterror",
        ),
        ("rustbadreply", || Ok(Some("not json".into())), Code::INVALID, "rustbadreply"),
    ];
    for (name, behaviour, code, text) in cases {
        let fw = with(Misbehaving { name, behaviour });
        let e = render(input("anything", 1), &options(&fw)).expect_err(name);
        assert_eq!(e.code, code, "{name}: {e}");
        assert!(e.message.contains(text), "{name}: {:?}", e.message);
        assert!(e.message.contains(&format!("plugin \"{name}\"")), "{name}: {:?}", e.message);
    }
    // The library is still fine after the panic.
    jobset_json(&input("rusttest", 2), &with(RustTest));
}

#[test]
fn validation_warnings_of_a_plugin_reach_render_and_validate() {
    struct Warner;
    impl Plugin for Warner {
        fn name(&self) -> &str {
            "warner"
        }
        fn phases(&self) -> Phases {
            Phases::VALIDATE
        }
        fn validate(&self, _: &Request<'_>) -> PluginResult {
            Ok(Some(format!(r#"{{"warnings":[{}]}}"#, json_quote("say \"hi\"\tnow"))))
        }
    }
    let fw = with(Warner);
    let result = render(input("anything", 1), &options(&fw)).expect("render");
    assert!(result.warnings().iter().any(|w| w == "say \"hi\"\tnow"), "{:?}", result.warnings());
    let mut list = DocumentList::parse(input("anything", 1), None).unwrap();
    list.apply_defaults().unwrap();
    let job = list.iter().find(|d| d.kind() == "TrainJob").unwrap();
    let warnings = job.validate_with(Some(&list), Some(&fw)).expect("valid");
    assert!(warnings.iter().any(|w| w.contains("say")), "{warnings:?}");
}

#[test]
fn the_request_accessors_read_the_document() {
    struct Probe(Arc<Mutex<Vec<String>>>);
    impl Plugin for Probe {
        fn name(&self) -> &str {
            "probe"
        }
        fn phases(&self) -> Phases {
            Phases::ENFORCE_ML_POLICY
        }
        fn enforce_ml_policy(&self, r: &Request<'_>) -> PluginResult {
            let mut seen = self.0.lock().unwrap();
            seen.push(r.phase().to_string());
            seen.push(r.framework_label().unwrap_or("-").to_string());
            seen.push(r.get("/trainJob/metadata/name").unwrap_or("-").to_string());
            seen.push(
                r.get_i64("/trainJob/spec/trainer/numNodes").map_or("-".into(), |n| n.to_string()),
            );
            seen.push(format!("{:?}", r.get("/no/such/field")));
            seen.push(format!("{:?}", r.get_i64("/trainJob/metadata/name")));
            seen.push(r.json().starts_with('{').to_string());
            Ok(None)
        }
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    jobset_json(&input("rusttest", 2), &with(Probe(Arc::clone(&seen))));
    assert_eq!(
        *seen.lock().unwrap(),
        ["enforceMLPolicy", "rusttest", "\"job\"", "2", "None", "None", "true"]
    );
}

#[test]
fn names_are_unique_and_checked_and_plugins_are_added_before_use() {
    let mut fw = Framework::new("").unwrap();
    fw.add(RustTest).unwrap();
    let e = fw.add(RustTest).expect_err("duplicate");
    assert_eq!(e.code, Code::INVALID, "{e}");
    assert!(e.message.contains("already registered"), "{e}");
    let builtin = fw.names()[0].clone();
    struct Named(String);
    impl Plugin for Named {
        fn name(&self) -> &str {
            &self.0
        }
    }
    let e = fw.add(Named(builtin.clone())).expect_err("a built-in plugin's name");
    assert_eq!(e.code, Code::INVALID, "{e}");
    for bad in ["", "has space", "nul\0byte", &"x".repeat(64)] {
        let e = fw.add(Named(bad.to_string())).expect_err(bad);
        assert_eq!(e.code, Code::INVALID_ARGUMENT, "{bad:?}: {e}");
    }
    let handle = PluginHandle::new(Named("standalone".into())).unwrap();
    assert_eq!(handle.name(), "standalone");
    drop(handle); // freed without a framework

    let shared = fw.clone();
    let e = fw.add(Named("late".into())).expect_err("shared");
    assert_eq!(e.code, Code::INVALID_ARGUMENT);
    drop(shared);
    render(input("rusttest", 1), &options(&fw)).unwrap();
    let e = fw.add(Named("late".into())).expect_err("in use");
    assert_eq!(e.code, Code::INVALID_ARGUMENT);
    assert!(Framework::new("NoSuchGate=true").is_err());
}

#[test]
fn the_framework_drops_its_plugins_and_renders_from_many_threads() {
    struct Counted(Arc<AtomicUsize>);
    impl Plugin for Counted {
        fn name(&self) -> &str {
            "counted"
        }
        fn phases(&self) -> Phases {
            Phases::VALIDATE
        }
        fn validate(&self, _: &Request<'_>) -> PluginResult {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(None)
        }
    }
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1000, Ordering::SeqCst);
        }
    }
    let calls = Arc::new(AtomicUsize::new(0));
    let fw = with(Counted(Arc::clone(&calls)));
    std::thread::scope(|s| {
        for nodes in 1..=4 {
            let fw = fw.clone();
            s.spawn(move || {
                let json = jobset_json(&input("rusttest", nodes), &fw);
                assert!(json.contains(&format!(r#""parallelism":{nodes}"#)), "{json}");
            });
        }
    });
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    drop(fw);
    assert_eq!(calls.load(Ordering::SeqCst), 1004, "user_data_free dropped the plugin once");
}

#[test]
fn plugins_without_a_status_phase_share_a_framework() {
    // Only a plugin whose phases include STATUS counts towards the one status plugin a
    // framework may hold.
    let mut fw = Framework::new("").unwrap();
    fw.add(RustTest).unwrap();
    fw.add(Misbehaving { name: "second", behaviour: || Ok(None) }).expect("a second plugin");
    fw.add(Misbehaving { name: "third", behaviour: || Ok(None) }).expect("a third plugin");
    let json = jobset_json(&input("rusttest", 2), &fw);
    assert!(json.contains(r#"{"name":"RUSTTEST_NODES","value":"2"}"#), "{json}");
    assert_eq!(fw.names()[fw.names().len() - 3..], ["rusttest", "second", "third"]);
}

/// Builds the cdylib crate (a no-op when it is up to date) and returns its path.
fn cdylib() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let st = Command::new(cargo)
        .args(["build", "--offline", "-p", "libtrainer-plugin-example"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run cargo build -p libtrainer-plugin-example");
    assert!(st.success(), "cargo build -p libtrainer-plugin-example failed");
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|d| d.parent()).unwrap();
    profile_dir.join("librusttest_plugin.so")
}

#[test]
fn the_cdylib_plugin_loads_renders_the_same_change_and_does_not_link_libtrainer() {
    let path = cdylib();
    // The plugin library works through the host table alone: no DT_NEEDED libtrainer.so.
    let bytes = std::fs::read(&path).unwrap();
    assert!(
        !bytes.windows(b"libtrainer.so".len()).any(|w| w == b"libtrainer.so"),
        "{} links libtrainer.so",
        path.display()
    );

    let mut loaded = Framework::new("").unwrap();
    assert_eq!(loaded.load(&path).expect("load the cdylib"), "rusttest");
    assert_eq!(loaded.names().last().map(String::as_str), Some("rusttest"));
    let in_process = with(RustTest);
    for nodes in [1, 3] {
        let text = input("rusttest", nodes);
        assert_eq!(
            render(&text, &options(&loaded)).unwrap().encode(libtrainer::Format::Yaml).unwrap(),
            render(&text, &options(&in_process)).unwrap().encode(libtrainer::Format::Yaml).unwrap(),
        );
    }
    check_golden(&input("rusttest", 3), &loaded, "rusttest-render.yaml");
    let e = render(input("rusttest", 9), &options(&loaded)).expect_err("9 nodes");
    assert!(e.fields.iter().any(|f| f.path == "spec.trainer.numNodes"), "{e:?}");

    // The same name twice: the in-process plugin, then the loaded one.
    let mut fw = Framework::new("").unwrap();
    fw.add(RustTest).unwrap();
    let e = fw.load(&path).expect_err("duplicate name");
    assert_eq!(e.code, Code::INVALID, "{e}");
    assert!(e.message.contains("already registered"), "{e}");

    let e = PluginHandle::load("/nonexistent/libnothing.so").expect_err("no such file");
    assert_eq!(e.code, Code::IO, "{e}");

    trainerctl_loads(&path);
}

/// trainerctl (a C++ program; TRAINERCTL is set by ctest) loads the cdylib with `--plugin`: render
/// shows the plugin's env, validate its field error with the path (exit 1).
fn trainerctl_loads(plugin: &std::path::Path) {
    let Some(ctl) = std::env::var_os("TRAINERCTL") else {
        eprintln!("TRAINERCTL is not set (run through ctest): trainerctl --plugin not checked");
        return;
    };
    let dir = std::env::temp_dir().join(format!("rusttest-trainerctl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (good, bad) = (dir.join("good.yaml"), dir.join("bad.yaml"));
    std::fs::write(&good, input("rusttest", 2)).unwrap();
    std::fs::write(&bad, input("rusttest", 9)).unwrap();
    let out = Command::new(&ctl)
        .args(["render", "-o", "json", "--plugin"])
        .arg(plugin)
        .arg("-f")
        .arg(&good)
        .output()
        .expect("run trainerctl render");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    // The List is indented: compare without white space.
    let compact: String = stdout.split_whitespace().collect();
    assert!(compact.contains(r#"{"name":"RUSTTEST_NODES","value":"2"}"#), "{stdout}");
    let out = Command::new(&ctl)
        .args(["validate", "--plugin"])
        .arg(plugin)
        .arg("-f")
        .arg(&bad)
        .output()
        .expect("run trainerctl validate");
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("spec.trainer.numNodes"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
