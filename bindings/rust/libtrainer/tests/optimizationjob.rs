// SPDX-License-Identifier: Apache-2.0
//! An OptimizationJob document against the real library: typed (decoding warnings), defaulted,
//! validated (its own rules, then its template against the runtime of the list).

use libtrainer::{Code, DocumentList, Format};

const RUNTIME: &str = r#"apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
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
                      image: pytorch/pytorch:2
"#;

fn optimization_job(parallel: u32) -> String {
    format!(
        r#"apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata: {{name: tune, namespace: default}}
spec:
  objectives: [{{metric: loss}}]
  parameters:
    - name: lr
      searchSpace: {{uniform: {{min: "0.01", max: "0.1"}}}}
  numTrials: 4
  parallelTrials: {parallel}
  extra: true
  trainJobTemplate:
    spec:
      runtimeRef: {{name: torch-distributed}}
      trainer: {{command: [torchrun, train.py]}}
"#
    )
}

#[test]
fn optimization_job_is_typed_defaulted_and_valid() {
    let text = format!("{RUNTIME}---\n{}", optimization_job(2));
    let mut list = DocumentList::parse(text, None).unwrap();
    list.apply_defaults().unwrap();
    let doc = list.get(1).unwrap();
    assert_eq!(doc.kind(), "OptimizationJob");
    assert_eq!(doc.warnings(), vec!["unknown field \"spec.extra\"".to_string()]);
    let json = doc.encode(Format::Json).unwrap();
    for want in [
        r#""direction":"Minimize""#,
        r#""searchAlgorithm":{"random":{}}"#,
        r#""type":"Float""#,
        r#""kind":"ClusterTrainingRuntime""#,
    ] {
        assert!(json.contains(want), "{want} not in {json}");
    }
    let warnings = doc.validate(Some(&list)).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn optimization_job_rule_errors() {
    let text = format!("{RUNTIME}---\n{}", optimization_job(5));
    let mut list = DocumentList::parse(text, None).unwrap();
    list.apply_defaults().unwrap();
    let e = list.get(1).unwrap().validate(Some(&list)).unwrap_err();
    assert_eq!(e.code, Code::INVALID, "{e}");
    assert_eq!(e.fields.len(), 1, "{:?}", e.fields);
    assert_eq!(e.fields[0].text, "spec: Invalid value: parallelTrials cannot exceed numTrials");
}
