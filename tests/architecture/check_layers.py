#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layers of the core are what docs/architecture.md says and the build declares.

Reads build/layers.json (written by cmake/TrainerLayers.cmake: each layer's folders, the layers
it may use and its object files) and checks, for every layer:
  - includes: every private header it includes ("<folder>/<file>.hpp") belongs to the layer
    itself or to a layer below it (the build refuses others; this lists them);
  - symbols: every symbol its object files use that another layer defines is defined by a layer
    below it (`nm`), so no layer calls upward even through a public header;
  - plugins: the built-in plugins (plugins/) include no private header outside plugins/, so
    that everything they use is public to an outside plugin's author as well;
  - docs: the table of docs/architecture.md's "Layers" section names exactly these layers with
    exactly these dependencies.
Prints each layer's includes and uses by layer; exits 1 on any violation.
"""
import json
import os
import re
import subprocess
import sys


def closure(graph, name):
    seen, todo = set(), list(graph[name]["depends"])
    while todo:
        dep = todo.pop()
        if dep not in seen:
            seen.add(dep)
            todo.extend(graph[dep]["depends"])
    return seen


def owner_of_header(graph, include):
    """The layer whose folder holds the private header `include`, or None."""
    best, best_len = None, -1
    for name, layer in graph.items():
        for d in layer["dirs"]:
            top, _, rest = d.partition("/")
            prefix = rest + "/" if rest else ""
            excluded = [e.partition("/")[2] + "/" for e in layer["exclude"]]
            if include.startswith(prefix) and not any(include.startswith(e) for e in excluded):
                if len(prefix) > best_len:
                    best, best_len = name, len(prefix)
    return best


def sources_of(root, layer):
    for d in layer["dirs"]:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            rel = os.path.relpath(dirpath, root)
            if any(rel == e or rel.startswith(e + "/") for e in layer["exclude"]):
                continue
            for f in files:
                if f.endswith((".cpp", ".hpp")):
                    yield os.path.join(dirpath, f)


def symbols(path):
    out = subprocess.run(["nm", "-C", "--defined-only", "-g", path], capture_output=True,
                         text=True, check=True).stdout
    defined = {l.split(" ", 2)[2] for l in out.splitlines() if re.match(r"^\S+ [TDBR] ", l)}
    out = subprocess.run(["nm", "-C", "-u", path], capture_output=True, text=True,
                         check=True).stdout
    undefined = {l.strip().split(" ", 1)[1] for l in out.splitlines() if l.strip()}
    return defined, undefined


def documented(root):
    """{layer: set(depends)} from the table under '## Layers' in docs/architecture.md."""
    text = open(os.path.join(root, "docs/architecture.md"), encoding="utf-8").read()
    section = text.split("\n## Layers\n", 1)
    if len(section) != 2:
        return None
    table = {}
    for line in section[1].split("\n## ", 1)[0].splitlines():
        m = re.match(r"^\| `([a-z_]+)` \|[^|]*\|([^|]*)\|", line)
        if m:
            table[m.group(1)] = set(re.findall(r"`([a-z_]+)`", m.group(2)))
    return table


def main():
    root, graph_file = sys.argv[1], sys.argv[2]
    graph = json.load(open(graph_file, encoding="utf-8"))
    failures = []

    include_re = re.compile(r'^#include "([a-z_]+/[^"]+\.hpp)"')
    for name, layer in graph.items():
        allowed = closure(graph, name) | {name}
        used = {}
        for src in sources_of(root, layer):
            for line in open(src, encoding="utf-8"):
                m = include_re.match(line)
                if not m or m.group(1).startswith("trainer/"):
                    continue
                owner = owner_of_header(graph, m.group(1))
                if owner is None:
                    continue
                used.setdefault(owner, set()).add(m.group(1))
                in_plugins = os.path.relpath(src, root).startswith("plugins/")
                if in_plugins and not os.path.exists(os.path.join(root, "plugins", m.group(1))) \
                        and not os.path.exists(os.path.join(os.path.dirname(src), m.group(1))):
                    failures.append(f"{os.path.relpath(src, root)}: a built-in plugin includes "
                                    f"the private header {m.group(1)}")
                if owner not in allowed:
                    failures.append(f"{os.path.relpath(src, root)}: includes {m.group(1)} of "
                                    f"layer {owner}, which {name} may not use")
        print(f"{name}: includes from " +
              (", ".join(f"{o} ({len(h)})" for o, h in sorted(used.items())) or "none"))

    defined_by = {}
    undefined_in = {}
    for name, layer in graph.items():
        undefined_in[name] = {}
        for obj in layer["objects"]:
            defined, undefined = symbols(obj)
            for sym in defined:
                defined_by.setdefault(sym, name)
            for sym in undefined:
                undefined_in[name].setdefault(sym, obj)
    for name in graph:
        allowed = closure(graph, name) | {name}
        uses = {}
        for sym, obj in undefined_in[name].items():
            owner = defined_by.get(sym)
            if owner is None or owner == name:
                continue
            uses[owner] = uses.get(owner, 0) + 1
            if owner not in allowed:
                failures.append(f"{os.path.relpath(obj, root)} (layer {name}) uses {sym}, "
                                f"defined by layer {owner}")
        print(f"{name}: uses symbols of " +
              (", ".join(f"{o} ({n})" for o, n in sorted(uses.items())) or "none"))

    table = documented(root)
    if table is None:
        failures.append("docs/architecture.md has no '## Layers' section")
    else:
        declared = {name: set(layer["depends"]) for name, layer in graph.items()}
        if table != declared:
            for name in sorted(set(table) | set(declared)):
                if table.get(name) != declared.get(name):
                    failures.append(f"docs/architecture.md Layers: {name} depends on "
                                    f"{sorted(table.get(name, []))}, the build says "
                                    f"{sorted(declared.get(name, []))}")

    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
