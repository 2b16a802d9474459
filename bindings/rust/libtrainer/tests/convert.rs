// SPDX-License-Identifier: Apache-2.0
//! The converter against the real library: a Training Operator v1 PyTorchJob becomes a TrainJob,
//! with a warning naming the v1 field Trainer v2 cannot express; `strict` makes it an error.

use libtrainer::{convert, Code, ConvertOptions, Format};

const PYTORCHJOB: &str = "apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pt
spec:
  runPolicy:
    cleanPodPolicy: All
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/library/busybox:1.36
              command: [sh, -c, echo $RANK]
    Worker:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: docker.io/library/busybox:1.36
              command: [sh, -c, echo $RANK]
";

#[test]
fn converts_a_pytorchjob_with_a_warning() {
    let options = ConvertOptions { namespace: Some("team-rust".into()), ..Default::default() };
    let conversion = convert(PYTORCHJOB, &options).expect("convert");
    let train_job = conversion
        .objects
        .iter()
        .find(|o| o.contains("\"kind\":\"TrainJob\""))
        .unwrap_or_else(|| panic!("no TrainJob in {:?}", conversion.objects));
    assert!(train_job.contains("\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\""), "{train_job}");
    assert!(train_job.contains("\"name\":\"pt\""), "{train_job}");
    assert!(train_job.contains("\"namespace\":\"team-rust\""), "{train_job}");
    assert!(!conversion.objects.iter().any(|o| o.contains("PyTorchJob")), "{:?}", conversion);
    assert!(conversion.text.contains("kind: TrainJob"), "{}", conversion.text);
    assert!(
        conversion.warnings.iter().any(|w| w.contains("spec.runPolicy.cleanPodPolicy")),
        "{:?}",
        conversion.warnings
    );

    let json = convert(PYTORCHJOB, &ConvertOptions { format: Some(Format::Json), ..options })
        .expect("convert to JSON");
    assert!(json.text.starts_with("{\"apiVersion\":\"v1\",\"kind\":\"List\""), "{}", json.text);
}

#[test]
fn strict_turns_warnings_into_field_errors() {
    let err = convert(PYTORCHJOB, &ConvertOptions { strict: true, ..Default::default() })
        .expect_err("strict conversion");
    assert_eq!(err.code, Code::INVALID, "{err}");
    assert!(err.fields.iter().any(|f| f.path.contains("spec.runPolicy.cleanPodPolicy")), "{err:?}");
}

#[test]
fn other_documents_pass_through_and_bad_input_fails() {
    let other = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n";
    let conversion = convert(other, &ConvertOptions::default()).expect("convert");
    assert_eq!(conversion.objects.len(), 1);
    assert!(conversion.objects[0].contains("\"name\":\"keep\""));
    assert!(conversion.warnings.is_empty());
    let err = convert("a: [", &ConvertOptions::default()).expect_err("malformed");
    assert_eq!(err.code, Code::PARSE, "{err}");
}
