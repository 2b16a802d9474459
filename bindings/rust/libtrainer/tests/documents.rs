// SPDX-License-Identifier: Apache-2.0
//! The document API against the real library: parse, default, validate (valid and invalid, with
//! field errors and warnings), encode.

use libtrainer::{Code, DocumentList, Format, ParseOptions};

// The same objects as examples/torch-distributed, inlined so the binding tests stand alone.
const RUNTIME: &str = r#"apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
  labels:
    trainer.kubeflow.org/framework: torch
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
                      image: pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime
"#;

const TRAINJOB: &str = r#"apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mnist-ddp
  namespace: default
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    numProcPerNode: 2
    command: ["torchrun", "train.py"]
"#;

const INVALID_TRAINJOB: &str = r#"apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: Bad_Name
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numProcPerNode: 0
"#;

fn stream(docs: &[&str]) -> String {
    docs.join("---\n")
}

#[test]
fn parse_stream_and_accessors() {
    let list = DocumentList::parse(stream(&[RUNTIME, TRAINJOB, ""]), None).unwrap();
    assert_eq!(list.len(), 2, "the empty trailing document is skipped");
    let rt = list.get(0).unwrap();
    assert_eq!(
        (rt.kind(), rt.name(), rt.namespace()),
        ("ClusterTrainingRuntime", "torch-distributed", "")
    );
    let job = list.get(1).unwrap();
    assert_eq!(job.api_version(), "trainer.kubeflow.org/v1alpha1");
    assert_eq!((job.kind(), job.name(), job.namespace()), ("TrainJob", "mnist-ddp", "default"));
    assert!(list.get(2).is_none());
    let names: Vec<_> = list.iter().map(|d| d.name()).collect();
    assert_eq!(names, ["torch-distributed", "mnist-ddp"]);
}

#[test]
fn parse_empty_input() {
    for input in ["", "---\n", "# comment only\n"] {
        let list = DocumentList::parse(input, None).unwrap();
        assert!(list.is_empty(), "{input:?}");
    }
}

#[test]
fn parse_errors() {
    let e = DocumentList::parse("kind: TrainJob\nmetadata: {name: x\n", None).unwrap_err();
    assert_eq!(e.code, Code::PARSE);
    assert!(!e.message.is_empty());

    let e = DocumentList::parse(TRAINJOB.replace("numNodes: 2", "numNodes: \"two\""), None)
        .unwrap_err();
    assert_eq!(e.code, Code::PARSE, "{e}");
    assert_eq!(e.fields.len(), 1, "{e:?}");
    assert_eq!(e.fields[0].path, "spec.trainer.numNodes");
    assert_eq!(e.fields[0].value.as_deref(), Some("\"two\""));
}

#[test]
fn parse_limits() {
    let two = stream(&[RUNTIME, TRAINJOB]);
    let opts = ParseOptions { max_documents: 1, ..Default::default() };
    let e = DocumentList::parse(&two, Some(&opts)).unwrap_err();
    assert_eq!(e.code, Code::LIMIT, "{e}");
    assert_eq!(DocumentList::parse(TRAINJOB, Some(&opts)).unwrap().len(), 1);
    assert_eq!(DocumentList::parse(&two, Some(&ParseOptions::default())).unwrap().len(), 2);
}

#[test]
fn parse_alias_bytes_limit() {
    // An 8-byte anchored scalar and three aliases of it: 32 bytes of copies.
    let text = "a: &x abcdefgh\nb: [*x, *x, *x]\n";
    // 0: the default, 4 MiB.
    assert_eq!(DocumentList::parse(text, Some(&ParseOptions::default())).unwrap().len(), 1);
    let opts = ParseOptions { max_alias_bytes: 16, ..Default::default() };
    let e = DocumentList::parse(text, Some(&opts)).unwrap_err();
    assert_eq!(e.code, Code::LIMIT, "{e}");
    assert_eq!(
        e.message,
        "yaml: line 2, column 9: b[1]: anchors and aliases copy more than max_alias_bytes (16) \
         bytes of scalar text"
    );
    let opts = ParseOptions { max_alias_bytes: 32, ..Default::default() };
    assert_eq!(DocumentList::parse(text, Some(&opts)).unwrap().len(), 1);
}

#[test]
fn validate_valid_documents() {
    let mut list = DocumentList::parse(stream(&[RUNTIME, TRAINJOB]), None).unwrap();
    list.apply_defaults().unwrap();
    for doc in list.iter() {
        let warnings = doc.validate(Some(&list)).unwrap_or_else(|e| panic!("{}: {e}", doc.kind()));
        assert!(warnings.is_empty(), "{}: {warnings:?}", doc.kind());
    }
}

#[test]
fn validate_invalid_reports_field_errors() {
    let mut list = DocumentList::parse(INVALID_TRAINJOB, None).unwrap();
    list.get_mut(0).unwrap().apply_defaults().unwrap();
    let e = list.get(0).unwrap().validate(None).unwrap_err();
    assert_eq!(e.code, Code::INVALID, "{e}");
    let np = e
        .fields
        .iter()
        .find(|f| f.path == "spec.trainer.numProcPerNode")
        .unwrap_or_else(|| panic!("no numProcPerNode error in {:?}", e.fields));
    assert_eq!(np.field_type, "FieldValueInvalid");
    assert_eq!(np.value.as_deref(), Some("0"));
    assert!(np.detail.contains("greater than or equal to 1"), "{np:?}");
    assert!(np.text.starts_with("spec.trainer.numProcPerNode: Invalid value: 0: "), "{}", np.text);
    // The API server's object-meta rule (a DNS subdomain, at metadata.name), then the CRD's name
    // rule, a CEL rule on the object root (Kubernetes renders its path as "<nil>").
    assert_eq!(e.fields.len(), 3, "{:?}", e.fields);
    assert!(
        e.fields
            .iter()
            .any(|f| f.path == "metadata.name" && f.detail.contains("RFC 1123 subdomain")),
        "{:?}",
        e.fields
    );
    assert!(
        e.fields
            .iter()
            .any(|f| f.detail.contains("metadata.name must match RFC 1035 DNS label format")),
        "{:?}",
        e.fields
    );
    assert!(e.message.contains("spec.trainer.numProcPerNode"), "{}", e.message);
    // Display and std::error::Error.
    let boxed: Box<dyn std::error::Error> = Box::new(e.clone());
    assert!(boxed.to_string().starts_with("libtrainer: TRAINER_E_INVALID: "), "{boxed}");
}

#[test]
fn validate_unsupported_runtime_kind() {
    let job = TRAINJOB.replace(
        "    name: torch-distributed\n",
        "    name: x\n    apiGroup: example.com\n    kind: MyRuntime\n",
    );
    let mut list = DocumentList::parse(job, None).unwrap();
    list.apply_defaults().unwrap();
    let e = list.get(0).unwrap().validate(Some(&list)).unwrap_err();
    assert_eq!(e.code, Code::INVALID);
    assert!(e.message.contains("unsupported runtime: MyRuntime.example.com"), "{e}");
}

#[test]
fn validation_and_decoding_warnings() {
    let deprecated = RUNTIME.replace(
        "trainer.kubeflow.org/framework: torch",
        "trainer.kubeflow.org/support: deprecated",
    );
    let mut list = DocumentList::parse(stream(&[&deprecated, TRAINJOB]), None).unwrap();
    list.apply_defaults().unwrap();
    let warnings = list.get(0).unwrap().validate(Some(&list)).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(r#"ClusterTrainingRuntime "torch-distributed" is deprecated"#),
        "{warnings:?}"
    );

    let typo = DocumentList::parse(TRAINJOB.replace("numNodes: 2", "numNode: 2"), None).unwrap();
    assert_eq!(typo.get(0).unwrap().warnings(), [r#"unknown field "spec.trainer.numNode""#]);
    let clean = DocumentList::parse(TRAINJOB, None).unwrap();
    assert!(clean.get(0).unwrap().warnings().is_empty());
}

#[test]
fn untyped_documents() {
    let mut list = DocumentList::parse(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {b: x, a: z}\n",
        None,
    )
    .unwrap();
    list.apply_defaults().unwrap();
    let doc = list.get(0).unwrap();
    assert_eq!((doc.kind(), doc.name()), ("ConfigMap", "cm"));
    assert_eq!(doc.validate(None).unwrap_err().code, Code::UNSUPPORTED);
    // Untyped documents keep their key order.
    assert_eq!(
        doc.encode(Format::Json).unwrap(),
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"b":"x","a":"z"}}"#
    );
}

#[test]
fn encode_formats_and_yaml_round_trip() {
    let mut list = DocumentList::parse(TRAINJOB, None).unwrap();
    list.apply_defaults().unwrap();
    let doc = list.get(0).unwrap();
    let json = doc.encode(Format::Json).unwrap();
    assert!(json.starts_with('{') && !json.contains('\n'), "{json}");
    assert!(json.contains(r#""kind":"TrainJob""#), "{json}");
    assert!(json.contains(r#""numNodes":2"#), "{json}");
    // Defaults were applied before encoding.
    assert!(json.contains(r#""suspend":false"#), "{json}");
    assert!(json.contains(r#""managedBy":"trainer.kubeflow.org/trainjob-controller""#), "{json}");

    let pretty = doc.encode(Format::JsonPretty).unwrap();
    assert!(pretty.contains("\n  \"kind\": \"TrainJob\""), "{pretty}");
    let squeezed: String =
        pretty.lines().map(str::trim).collect::<Vec<_>>().join("").replace("\": ", "\":");
    assert_eq!(squeezed, json);

    let yaml = doc.encode(Format::Yaml).unwrap();
    assert!(yaml.contains("kind: TrainJob\n") && yaml.ends_with('\n'), "{yaml}");
    let again = DocumentList::parse(&yaml, None).unwrap();
    assert_eq!(again.get(0).unwrap().encode(Format::Json).unwrap(), json);
}

#[test]
fn list_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let list = DocumentList::parse(TRAINJOB, None).unwrap();
    assert_send(&list);
    let name = std::thread::spawn(move || list.get(0).unwrap().name().to_string()).join().unwrap();
    assert_eq!(name, "mnist-ddp");
}
