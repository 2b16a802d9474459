// SPDX-License-Identifier: Apache-2.0
//! The kube-apiserver that CTest's fixture `kube_apiserver` starts (TRAINER_TEST_APISERVER_DIR),
//! shared by the cluster and controller tests. Without TRAINER_KUBE_TEST_ENV the tests print
//! SKIPPED and return.

use libtrainer::{Client, ClientOptions};
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct Server {
    dir: PathBuf,
    url: String,
    token: String,
}

impl Server {
    /// The fixture's server, or None (after printing why) when the tests must skip.
    pub fn get(test: &str) -> Option<Server> {
        if std::env::var_os("TRAINER_KUBE_TEST_ENV").is_none_or(|v| v.is_empty()) {
            println!("SKIPPED: {test}: TRAINER_KUBE_TEST_ENV is not set (no API server)");
            return None;
        }
        let Some(dir) = std::env::var_os("TRAINER_TEST_APISERVER_DIR").filter(|d| !d.is_empty())
        else {
            println!(
                "SKIPPED: {test}: TRAINER_TEST_APISERVER_DIR is not set (run under ctest, whose \
                 fixture kube_apiserver starts the server)"
            );
            return None;
        };
        let dir = PathBuf::from(dir);
        let read = |name: &str| {
            std::fs::read_to_string(dir.join(name))
                .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()))
                .trim()
                .to_string()
        };
        Some(Server { url: read("url"), token: read("token"), dir })
    }

    /// An admin request with curl; panics when it fails.
    pub fn request(&self, method: &str, path: &str, content_type: &str, body: &str) {
        let status = Command::new("curl")
            .args(["-sSf", "-o", "/dev/null", "--max-time", "30", "--cacert"])
            .arg(self.dir.join("ca.crt"))
            .args(["-H", &format!("Authorization: Bearer {}", self.token)])
            .args(["-H", &format!("Content-Type: {content_type}"), "-X", method])
            .args(["--data", body, &format!("{}{path}", self.url)])
            .status()
            .expect("run curl");
        assert!(status.success(), "{method} {path} failed: {status}");
    }

    /// An admin GET with curl: the body; panics when it fails.
    #[allow(dead_code)]
    pub fn get_body(&self, path: &str) -> String {
        let out = Command::new("curl")
            .args(["-sSf", "--max-time", "30", "--cacert"])
            .arg(self.dir.join("ca.crt"))
            .args(["-H", &format!("Authorization: Bearer {}", self.token)])
            .arg(format!("{}{path}", self.url))
            .output()
            .expect("run curl");
        assert!(out.status.success(), "GET {path} failed: {}", out.status);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The kubeconfig of the fixture's server.
    #[allow(dead_code)]
    pub fn kubeconfig(&self) -> String {
        self.dir.join("kubeconfig").display().to_string()
    }

    /// A fresh namespace and a client whose default namespace it is.
    pub fn namespace_and_client(&self, prefix: &str) -> (String, Client) {
        static N: AtomicUsize = AtomicUsize::new(0);
        let ns =
            format!("rust-{prefix}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
        self.request(
            "POST",
            "/api/v1/namespaces",
            "application/json",
            &format!(r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{ns}"}}}}"#),
        );
        let client = Client::new(ClientOptions {
            kubeconfig: Some(self.dir.join("kubeconfig").display().to_string()),
            namespace: Some(ns.clone()),
            qps: Some(-1.0),
            ..Default::default()
        })
        .expect("client");
        assert_eq!(client.namespace(), ns);
        assert!(client.server().starts_with("https://127.0.0.1:"), "{}", client.server());
        (ns, client)
    }

    /// Plays the controller: the TrainJob's Complete condition becomes True.
    #[allow(dead_code)]
    pub fn complete(&self, ns: &str, name: &str) {
        self.request(
            "PATCH",
            &format!("/apis/trainer.kubeflow.org/v1alpha1/namespaces/{ns}/trainjobs/{name}/status"),
            "application/merge-patch+json",
            r#"{"status":{"conditions":[{"type":"Complete","status":"True","reason":"JobsCompleted","message":"done","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}"#,
        );
    }
}
