#!/usr/bin/env python3
# docs/architecture.md describes the code as built: every repository path it names in
# backquotes (`lib/api/`, `lib/local/run_folder`, `include/trainer/base64.hpp`,
# `lib/runtimes/builtin/*.yaml`) must exist, a stem standing for its .hpp/.cpp pair. A path the
# code no longer has fails the test with the line it is on.
# Usage: architecture_paths.py <source-dir>
import glob
import os
import re
import sys

ROOTS = ("lib/", "include/", "plugins/", "tools/", "tests/", "bench/", "bindings/", "examples/",
         "cmake/", "docs/", "scripts/", "conan/", "ports/")
SUFFIXES = ("", ".hpp", ".cpp", ".h", ".c", ".sh", ".py")


def exists(source, path):
    if any(c in path for c in "*<{"):
        pattern = re.sub(r"\{[^}]*\}", "*", re.sub(r"<[^>]*>", "*", path))
        return bool(glob.glob(os.path.join(source, pattern)))
    return any(os.path.exists(os.path.join(source, path + s)) for s in SUFFIXES)


def main():
    source = sys.argv[1]
    missing = []
    with open(os.path.join(source, "docs", "architecture.md"), encoding="utf-8") as doc:
        for number, line in enumerate(doc, 1):
            for token in re.findall(r"`([^`\s]+)`", line):
                path = token.rstrip(".,;:)")
                if path.startswith(ROOTS) and not exists(source, path):
                    missing.append(f"docs/architecture.md:{number}: {path} does not exist")
    for m in missing:
        print(m)
    if missing:
        return 1
    print("docs/architecture.md: every named path exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
