// SPDX-License-Identifier: Apache-2.0
//! The `rusttest` plugin: it owns TrainJobs whose runtime carries the label
//! `trainer.kubeflow.org/framework: rusttest`. Validation refuses more than 4 nodes (a field
//! error on `spec.trainer.numNodes`); the ML policy phase gives the trainer container
//! `RUSTTEST_NODES=<node count>`. Every other TrainJob is left alone (no reply).

use libtrainer::{Phases, Plugin, PluginResult, Request};

/// The most nodes a `rusttest` TrainJob may ask for.
pub const MAX_NODES: i64 = 4;

pub struct RustTest;

impl Plugin for RustTest {
    fn name(&self) -> &str {
        "rusttest"
    }

    fn phases(&self) -> Phases {
        Phases::VALIDATE | Phases::ENFORCE_ML_POLICY
    }

    fn validate(&self, request: &Request<'_>) -> PluginResult {
        if request.framework_label() != Some("rusttest") {
            return Ok(None);
        }
        match request.get_i64("/trainJob/spec/trainer/numNodes") {
            Some(n) if n > MAX_NODES => Ok(Some(format!(
                r#"{{"errors":[{{"type":"FieldValueInvalid","field":"spec.trainer.numNodes","value":{n},"detail":"rusttest runs at most {MAX_NODES} nodes"}}]}}"#
            ))),
            _ => Ok(None),
        }
    }

    fn enforce_ml_policy(&self, request: &Request<'_>) -> PluginResult {
        if request.framework_label() != Some("rusttest") {
            return Ok(None);
        }
        // The pod set and container names come back as JSON strings, quotes included.
        let (Some(pod_set), Some(container)) =
            (request.get("/info/podSets/0/name"), request.get("/info/podSets/0/containers/0/name"))
        else {
            return Ok(None);
        };
        let nodes = request.get_i64("/info/podSets/0/count").unwrap_or(0);
        Ok(Some(format!(
            r#"{{"info":{{"podSets":[{{"name":{pod_set},"containers":[{{"name":{container},"env":[{{"name":"RUSTTEST_NODES","value":"{nodes}"}}]}}]}}]}}}}"#
        )))
    }
}
