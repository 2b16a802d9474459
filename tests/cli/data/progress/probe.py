# Posts to the local progress endpoint as a pod would, without the SDK, and prints
# `check <name> <HTTP status> <message>` per request. `node`: the refusals with the pod's own
# env and token, then leaves the URL, CA and token in $HANDOFF for `late`; `late`: the ended
# pod's token.
import json, os, shutil, ssl, sys, urllib.error, urllib.request

def post(name, url, ca, token, body):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=ca),
                                    timeout=10) as answer:
            code, text = answer.status, answer.read().decode()
    except urllib.error.HTTPError as e:
        code, text = e.code, e.read().decode()
    try:
        message = json.loads(text).get("message", "")
    except ValueError:
        message = text
    print("check", name, code, message, flush=True)

handoff = os.environ["HANDOFF"]
status = lambda **s: json.dumps({"trainerStatus": dict(lastUpdatedTime="2026-01-01T00:00:00Z", **s)}).encode()
if sys.argv[1] == "node":
    url = os.environ["KUBEFLOW_TRAINER_SERVER_URL"]
    ca = os.environ["KUBEFLOW_TRAINER_SERVER_CA_CERT"]
    token = open(os.environ["KUBEFLOW_TRAINER_SERVER_TOKEN"]).read()
    post("no-token", url, ca, "", status(progressPercentage=1))
    post("bad-token", url, ca, "not-a-token", status(progressPercentage=1))
    post("other-trainjob", url.replace("/trainjobs/progress/", "/trainjobs/other/"), ca, token,
         status(progressPercentage=1))
    post("malformed", url, ca, token, b"{not json")
    post("oversized", url, ca, token, b"{" + b" " * 70000 + b"}")
    post("out-of-range", url, ca, token, status(progressPercentage=150))
    post("no-status", url, ca, token, b"{}")
    shutil.copy(ca, os.path.join(handoff, "ca.crt"))
    open(os.path.join(handoff, "token"), "w").write(token)
    open(os.path.join(handoff, "url"), "w").write(url)
else:
    read = lambda f: open(os.path.join(handoff, f)).read()
    post("ended-pod", read("url"), os.path.join(handoff, "ca.crt"), read("token"),
         status(progressPercentage=2))
