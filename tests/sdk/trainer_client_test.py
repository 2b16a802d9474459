# SPDX-License-Identifier: Apache-2.0
"""The Kubeflow Python SDK (`kubeflow` 0.5.0 from PyPI) against `trainerctl controller`.

Run by sdk_test.sh with KUBECONFIG, TEST_NAMESPACE, the control plane installed by
`trainerctl install` and the controller running in that namespace. The API server has no kubelet and no JobSet controller: the test creates the Pods a
Job controller would and writes the JobSet's status as the JobSet controller would. Each check
asserts what a user of TrainerClient sees; any failure raises and the process exits non-zero.
"""
import json
import logging
import os
import sys
import time

from kubernetes import client as k8s
from kubernetes import config as k8s_config

from kubeflow.trainer import (
    BuiltinTrainer,
    CustomTrainer,
    KubernetesBackendConfig,
    TorchTuneConfig,
    TrainerClient,
)

NAMESPACE = os.environ["TEST_NAMESPACE"]
KUBECONFIG = os.environ["KUBECONFIG"]
GROUP, VERSION = "trainer.kubeflow.org", "v1alpha1"


class Recorder(logging.Handler):
    """Every warning the SDK logs, so the test can say there was none."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def wait_until(what, predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def get_or_none(call, *args):
    try:
        return call(*args)
    except k8s.ApiException as e:
        if e.status == 404:
            return None
        raise


def train_fn():
    print("training")


def main():
    warnings = Recorder()
    logging.getLogger().addHandler(warnings)
    logging.getLogger().setLevel(logging.WARNING)

    k8s_config.load_kube_config(config_file=KUBECONFIG)
    core = k8s.CoreV1Api()
    custom = k8s.CustomObjectsApi()

    trainer = TrainerClient(KubernetesBackendConfig(namespace=NAMESPACE, config_file=KUBECONFIG))
    assert not warnings.records, [r.getMessage() for r in warnings.records]

    # Runtimes: the built-in ClusterTrainingRuntimes, torchtune included.
    names = {r.name for r in trainer.list_runtimes()}
    for expected in ("torch-distributed", "deepspeed-distributed", "mlx-distributed",
                     "jax-distributed", "xgboost-distributed", "torchtune-llama3.2-1b",
                     "torchtune-llama3.2-3b", "torchtune-qwen2.5-1.5b"):
        assert expected in names, (expected, names)
    torch_runtime = trainer.get_runtime("torch-distributed")
    assert torch_runtime.trainer.framework == "torch", torch_runtime

    def jobset(name):
        return get_or_none(custom.get_namespaced_custom_object, "jobset.x-k8s.io", "v1alpha2",
                           NAMESPACE, "jobsets", name)

    # A CustomTrainer (a Python function) on every built-in framework runtime: the controller
    # renders each TrainJob into a JobSet whose trainer runs the function.
    jobs = {}
    for runtime_name in ("torch-distributed", "deepspeed-distributed", "mlx-distributed",
                         "jax-distributed", "xgboost-distributed"):
        runtime = trainer.get_runtime(runtime_name)
        name = trainer.train(runtime=runtime, trainer=CustomTrainer(func=train_fn, num_nodes=2))
        js = wait_until(f"the JobSet of {name} ({runtime_name})", lambda: jobset(name))
        text = str(js["spec"])
        assert "train_fn" in text, (runtime_name, text[:2000])
        jobs[runtime_name] = name

    # A BuiltinTrainer on a torchtune runtime: `tune run` rewritten as upstream does.
    tune = trainer.train(
        runtime=trainer.get_runtime("torchtune-llama3.2-1b"),
        trainer=BuiltinTrainer(config=TorchTuneConfig(epochs=1, batch_size=2)),
    )
    js = wait_until(f"the JobSet of {tune}", lambda: jobset(tune))
    node = [r for r in js["spec"]["replicatedJobs"] if r["name"] == "node"][0]
    container = node["template"]["spec"]["template"]["spec"]["containers"][0]
    assert container["command"][:2] == ["tune", "run"], container["command"]
    assert f"--rdzv_endpoint={tune}-node-0-0.{tune}:29500" in container["command"], container
    assert "epochs=1" in container.get("args", []), container

    # list_jobs and get_job with its steps: the Pods a Job controller would create.
    torch_job = jobs["torch-distributed"]
    listed = {j.name for j in trainer.list_jobs()}
    assert set(jobs.values()) | {tune} <= listed, listed
    template = jobset(torch_job)["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    for index in range(2):
        pod = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {
                "name": f"{torch_job}-node-0-{index}-abcde",
                "labels": {
                    "jobset.sigs.k8s.io/jobset-name": torch_job,
                    "jobset.sigs.k8s.io/replicatedjob-name": "node",
                    "batch.kubernetes.io/job-completion-index": str(index),
                },
            },
            "spec": template["spec"],
        }
        core.create_namespaced_pod(NAMESPACE, pod)
    job = trainer.get_job(torch_job)
    assert job.num_nodes == 2, job
    steps = sorted(s.name for s in job.steps)
    assert steps == ["node-0", "node-1"], steps
    assert job.runtime.name == "torch-distributed", job.runtime

    # wait_for_job_status: the test plays the JobSet controller; the controller copies
    # Completed into the TrainJob's Complete condition.
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    custom.patch_namespaced_custom_object_status(
        "jobset.x-k8s.io", "v1alpha2", NAMESPACE, "jobsets", torch_job,
        {"status": {"conditions": [{"type": "Completed", "status": "True", "reason": "AllJobsCompleted",
                                    "message": "jobset completed successfully",
                                    "lastTransitionTime": now}]}})
    done = trainer.wait_for_job_status(torch_job, status={"Complete"}, timeout=60,
                                       polling_interval=1)
    assert done.status == "Complete", done

    # Through the installed webhooks, the API server refuses such a TrainJob with our message.
    refused = "sdk-refused"
    try:
        custom.create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, "trainjobs", {
            "apiVersion": f"{GROUP}/{VERSION}", "kind": "TrainJob",
            "metadata": {"name": "sdk-refused-again"},
            "spec": {"runtimeRef": {"name": "torch-distributed"},
                     "trainer": {"numNodes": 200000}},
        })
        raise AssertionError("the validating webhook admitted 200000 nodes")
    except k8s.ApiException as e:
        assert e.status == 403, e
        status = json.loads(e.body)
        assert status["message"].startswith(
            'admission webhook "validator.trainjob.trainer.kubeflow.org" denied the request: '
            "spec.trainer.numNodes: Invalid value: 200000"), status
        assert status["details"]["causes"][0]["field"] == "spec.trainer.numNodes", status

    # get_job_events: the TrainJob sdk_test.sh created before the webhooks were installed gets
    # the controller's Warning event.
    events = wait_until("the Warning event of the refused TrainJob",
                        lambda: trainer.get_job_events(refused))
    assert events[0].involved_object_kind == "TrainJob", events
    assert events[0].reason == "TrainJobValidationFailed", events
    assert "spec.trainer.numNodes" in events[0].message, events
    failed = trainer.get_job(refused)
    assert failed.status == "Failed", failed

    # delete_job.
    for name in list(jobs.values()) + [tune, refused]:
        trainer.delete_job(name)
    wait_until("the TrainJobs to be gone",
               lambda: not {j.name for j in trainer.list_jobs()} & (set(jobs.values()) | {tune}))

    assert not warnings.records, [r.getMessage() for r in warnings.records]
    print("sdk: every TrainerClient check passed")


if __name__ == "__main__":
    try:
        main()
    except Exception:  # noqa: BLE001 - any failure fails the test with its traceback
        import traceback
        traceback.print_exc()
        sys.exit(1)
