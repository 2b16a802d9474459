// SPDX-License-Identifier: Apache-2.0
//! One admission path: every rejected golden case (tests/golden/cases/*/expected/error.txt),
//! validated through this binding document by document with the whole input as context, reports
//! exactly the field errors of `trainerctl validate` (the case's expected/field-errors.txt, which
//! tests/golden/validate_faces.cpp holds the C++ core, the C ABI, trainer.hpp and the CLI to).

use libtrainer::{Code, DocumentList};
use std::fs;
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/golden/cases")
}

/// The case's preconditions (when present), runtime and TrainJob, joined as the golden runner does.
fn golden_input(case: &Path) -> String {
    let mut parts = Vec::new();
    for file in ["preconditions.yaml", "runtime.yaml", "trainjob.yaml"] {
        match fs::read_to_string(case.join(file)) {
            Ok(text) => parts.push(text),
            Err(_) if file == "preconditions.yaml" => {}
            Err(e) => panic!("{}: {e}", case.join(file).display()),
        }
    }
    parts.join("\n---\n")
}

fn rejected_cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = fs::read_dir(cases_dir())
        .expect("tests/golden/cases")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("expected/error.txt").is_file())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no rejected golden cases found");
    cases
}

#[test]
fn golden_rejections_match_trainerctl_validate() {
    for case in rejected_cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let mut list = DocumentList::parse(golden_input(&case), None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        list.apply_defaults().unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut got = Vec::new();
        for doc in list.iter() {
            match doc.validate(Some(&list)) {
                Ok(_) => {}
                // An object that exists in the cluster (PriorityClass, ...).
                Err(e) if e.code == Code::UNSUPPORTED => {}
                Err(e) => {
                    assert!(
                        e.code == Code::INVALID && !e.fields.is_empty(),
                        "{name}: {} {}: {e}",
                        doc.kind(),
                        doc.name()
                    );
                    got.extend(e.fields.iter().map(|f| f.text.clone()));
                }
            }
        }
        let want: Vec<String> = fs::read_to_string(case.join("expected/field-errors.txt"))
            .unwrap_or_else(|e| panic!("{name}: expected/field-errors.txt: {e}"))
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        assert_eq!(got, want, "{name}: field errors");
    }
}

#[test]
fn an_unchecked_runtime_is_a_warning() {
    let text = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n\
                metadata: {name: job, namespace: team}\n\
                spec: {runtimeRef: {name: my-runtime}}\n";
    let mut list = DocumentList::parse(text, None).unwrap();
    list.apply_defaults().unwrap();
    let doc = list.get(0).unwrap();
    for context in [None, Some(&list)] {
        let warnings = doc.validate(context).unwrap();
        assert_eq!(
            warnings,
            vec!["TrainJob team/job references ClusterTrainingRuntime \"my-runtime\", which is \
                 not among the inputs: the TrainJob was not checked against it"
                .to_owned()]
        );
    }
}
