# What a trainer pod does with the Kubeflow SDK's update_trainjob_status(), without the SDK: posts
# {"trainerStatus": {"progressPercentage": ARGV1[, "estimatedRemainingSeconds": ARGV2]}} to the
# TrainJobStatus endpoint with the URL, CA and token of the env the TrainJobStatus plugin injects,
# and fails unless the answer is 200. The local progress tests of the C ABI, trainer.hpp, Go and
# Rust run it in a pod: python3 progress_post.py PERCENT [SECONDS]
import json
import os
import ssl
import sys
import urllib.request

env = os.environ
status = {"progressPercentage": int(sys.argv[1]), "lastUpdatedTime": "2026-01-01T00:00:00Z"}
if len(sys.argv) > 2:
    status["estimatedRemainingSeconds"] = int(sys.argv[2])
token = open(env["KUBEFLOW_TRAINER_SERVER_TOKEN"]).read()
request = urllib.request.Request(
    env["KUBEFLOW_TRAINER_SERVER_URL"],
    method="POST",
    data=json.dumps({"trainerStatus": status}).encode(),
    headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"},
)
context = ssl.create_default_context(cafile=env["KUBEFLOW_TRAINER_SERVER_CA_CERT"])
with urllib.request.urlopen(request, context=context, timeout=10) as answer:
    sys.exit(0 if answer.status == 200 else 1)
