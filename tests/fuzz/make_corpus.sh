#!/usr/bin/env bash
# Regenerates the seed corpora tests/fuzz/corpus/<target>/ from the project's own inputs:
#   fuzz_render  one text per golden case (preconditions, runtime and TrainJob joined by `---`,
#                as tests/golden/golden_runner.cpp joins them), the conformance examples of
#                ../shared (when present), the tests/data runtime + TrainJob pairs, the examples,
#                the CLI test inputs, plus seeds/fuzz_render/
#   fuzz_yaml    every YAML file of those (inputs and expected objects) and the built-in
#                runtimes, one file each, plus seeds/fuzz_yaml/
#   fuzz_json    the same documents as JSON (a multi-document file becomes an array), plus
#                seeds/fuzz_json/
# seeds/<target>/ holds hand-written edge cases and the reproducers of defects fuzzing found;
# they are copied under their own names. The generated files are named by the SHA-1 of their
# content (as libFuzzer names what it finds), so identical inputs are kept once.
# Needs python3 with PyYAML (Debian python3-yaml) for the JSON conversion.
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)

python3 - "$root" <<'PY'
import hashlib, json, os, pathlib, shutil, sys
import yaml

root = pathlib.Path(sys.argv[1])
fuzz = root / "tests" / "fuzz"
uid = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59"  # the UID fuzz_render and the golden runner use
shared = root.parent / "shared" / "conformance-examples"

def text(p):
    return p.read_bytes().replace(b"TRAINJOB_UID", uid.encode())

def case_input(case):
    parts = [text(case / f) for f in ("preconditions.yaml", "runtime.yaml", "trainjob.yaml")
             if (case / f).exists()]
    return b"\n---\n".join(parts)

def cases():
    for base in (root / "tests" / "golden" / "cases", shared):
        if base.is_dir():
            yield from sorted(p for p in base.iterdir() if p.is_dir())

def yaml_files():
    for case in cases():
        yield from sorted(case.rglob("*.yaml"))
    for base in ("tests/data", "tests/cli/data", "examples", "lib/runtimes/builtin"):
        yield from sorted((root / base).rglob("*.yaml"))

def to_json(data):
    try:
        docs = [d for d in yaml.safe_load_all(data) if d is not None]
    except yaml.YAMLError:
        return None  # a deliberately broken input (tests/cli/data/broken.yaml)
    if not docs:
        return None
    value = docs[0] if len(docs) == 1 else docs
    if not isinstance(value, (dict, list)):
        return None
    return json.dumps(value, default=str, ensure_ascii=False).encode()

def write(target, inputs):
    out = fuzz / "corpus" / target
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    seen = set()
    for data in inputs:
        digest = hashlib.sha1(data).hexdigest()
        if data and digest not in seen:
            seen.add(digest)
            (out / digest).write_bytes(data)
    seeds = fuzz / "seeds" / target
    for seed in sorted(seeds.iterdir()) if seeds.is_dir() else []:
        if hashlib.sha1(seed.read_bytes()).hexdigest() not in seen:
            shutil.copyfile(seed, out / seed.name)
    print(f"corpus/{target}: {len(list(out.iterdir()))} files")

def render_inputs():
    for case in cases():
        yield case_input(case)
    conf = root / "tests" / "data" / "api" / "conformance"
    for rt in sorted(conf.glob("*-runtime.yaml")):
        yield text(rt) + b"\n---\n" + text(rt.with_name(rt.name.replace("-runtime", "-trainjob")))
    api = root / "tests" / "data" / "api"
    yield text(api / "full-runtime.yaml") + b"\n---\n" + text(api / "full-trainjob.yaml")
    ex = root / "examples" / "torch-distributed"
    yield text(ex / "runtime.yaml") + b"\n---\n" + text(ex / "trainjob.yaml")
    yield text(ex / "trainjob.yaml")
    yield text(root / "examples" / "ddp" / "trainjob.yaml")
    for p in sorted((root / "tests" / "cli" / "data").glob("*.yaml")):
        yield text(p)
    yield to_json(text(ex / "trainjob.yaml"))

def convert_inputs():
    for d in ["tests/convert/data", "tests/data/katib", "tests/cli/data/v1"]:
        for p in sorted((root / d).glob("*.yaml")):
            yield text(p)

# fuzz_plugin_reply: the first byte picks the phase (validate, enforceMLPolicy,
# enforcePodGroupPolicy, enforcePodSpec, preBuildSync, build), the rest is the plugin's reply.
def plugin_reply_inputs():
    env = {"info": {"podSets": [{"name": "node", "containers": [{"name": "node",
           "env": [{"name": "X", "value": "1"}], "ports": [{"containerPort": 7000, "name": "x"}]}],
           "volumes": [{"name": "v", "emptyDir": {}}]}], "labels": {"a": "b"}}}
    yield b"\x01" + json.dumps(env).encode()
    yield b"\x01" + json.dumps({"trainJob": {"spec": {"trainer": {"numNodes": 3}}}}).encode()
    yield b"\x00" + json.dumps({"errors": [{"type": "FieldValueInvalid", "field": "spec.trainer",
                                           "value": 3, "detail": "no"}], "warnings": ["w"]}).encode()
    yield b"\x02" + json.dumps({"info": {"scheduler": {"podLabels": {"q": "1"}}}}).encode()
    yield b"\x03" + json.dumps({"info": {"annotations": {"k": None}}}).encode()
    yield b"\x04" + json.dumps({"info": {"podSets": [{"name": "node", "count": 2}]}}).encode()
    yield b"\x05" + json.dumps({"objects": [{"apiVersion": "v1", "kind": "ConfigMap",
                                            "metadata": {"name": "c"}, "data": {"k": "v"}}]}).encode()
    # What a plugin may not reach (docs/plugins.md): another namespace, a cluster-scoped kind.
    yield b"\x01" + json.dumps({"trainJob": {"metadata": {"namespace": "kube-system"}}}).encode()
    yield b"\x05" + json.dumps({"objects": [{"apiVersion": "rbac.authorization.k8s.io/v1",
                                            "kind": "ClusterRoleBinding", "metadata": {"name": "c"},
                                            "roleRef": {"kind": "ClusterRole",
                                                        "name": "cluster-admin"}}]}).encode()

write("fuzz_render", render_inputs())
write("fuzz_convert", convert_inputs())
write("fuzz_plugin_reply", plugin_reply_inputs())
write("fuzz_yaml", (text(p) for p in yaml_files()))
write("fuzz_json", (j for j in (to_json(text(p)) for p in yaml_files()) if j))
PY
