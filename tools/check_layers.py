#!/usr/bin/env python3
"""tools/check_layers.py - fails on an #include that goes against fluidc's layers or closes a cycle between folders.

  check_layers.py [ROOT]     check the tree at ROOT (default: the repository)
  check_layers.py --self-test  check that a planted upward include and a planted cycle are both caught

Each folder below is one layer and one CMake library; a file may include its own folder and the layers its
folder lists. Independently of that list, the folder-level include graph must have no cycle.
"""
import os
import re
import sys
import tempfile

# folder -> the folders its files may include (besides itself). Keep in step with the CMake targets.
ALLOWED = {
    "runtime": set(),
    "runtime/dist": {"runtime", "proto"},  # the parameter-server runtime: gRPC stubs of proto/send_recv.proto
    "kernels": {"runtime"},
    "proto": set(),
    "compiler/support": set(),
    "compiler/ir": {"compiler/support", "proto"},
    "compiler/ops": {"compiler/ir", "compiler/support", "kernels", "runtime", "proto"},
    "compiler/analysis": {"compiler/ops", "compiler/ir", "compiler/support", "kernels", "runtime", "proto"},
    "transpilers": {"compiler/analysis", "compiler/ops", "compiler/ir", "compiler/support", "runtime", "proto"},
    "compiler/codegen": {"compiler/analysis", "compiler/ops", "compiler/ir", "compiler/support", "kernels",
                         "runtime", "proto", "compiler/version"},
    "compiler/driver": {"compiler/codegen", "transpilers", "compiler/analysis", "compiler/ops", "compiler/ir",
                        "compiler/support", "kernels", "runtime", "proto", "compiler/version"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(path):
    """The layer a repository path belongs to, or None for files outside the layered folders."""
    if path == "compiler/version.h":
        return "compiler/version"
    if path.endswith(".pb.h") or path == "framework.pb.h":
        return "proto"
    for f in sorted(ALLOWED, key=len, reverse=True):
        if path.startswith(f + "/"):
            return f
    return None


def edges(root):
    """(from_folder, to_folder, file, line, included) for every include between layered folders."""
    out = []
    for top in ("runtime", "kernels", "proto", "compiler", "transpilers"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cc")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                src = folder_of(rel)
                if src is None:
                    continue
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        dst = folder_of(m.group(1))
                        if dst is not None and dst != src:
                            out.append((src, dst, rel, n, m.group(1)))
    return out


def find_cycle(graph):
    """One cycle of folders as a list, or None (iterative DFS, colours)."""
    colour = {}
    for start in sorted(graph):
        if start in colour:
            continue
        stack = [(start, iter(sorted(graph.get(start, ()))))]
        path = [start]
        colour[start] = "grey"
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = "black"
                stack.pop()
                path.pop()
            elif colour.get(nxt) == "grey":
                return path[path.index(nxt):] + [nxt]
            elif nxt not in colour:
                colour[nxt] = "grey"
                path.append(nxt)
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
    return None


def check(root):
    problems = []
    graph = {}
    for src, dst, rel, n, inc in edges(root):
        graph.setdefault(src, set()).add(dst)
        if dst not in ALLOWED.get(src, set()):
            problems.append(f"{rel}:{n}: {src} may not include {inc} ({dst} is not below it)")
    cycle = find_cycle(graph)
    if cycle:
        problems.append("include cycle between folders: " + " -> ".join(cycle))
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        write("compiler/ir/program.h", '#include "compiler/support/diagnostics.h"\n')
        write("compiler/support/diagnostics.h", "// nothing\n")
        assert check(root) == [], check(root)
        write("compiler/ir/bad.h", '#include "compiler/codegen/target.h"\n')
        write("compiler/codegen/target.h", '#include "compiler/ir/program.h"\n')
        found = check(root)
        assert any("compiler/ir may not include compiler/codegen/target.h" in p for p in found), found
        assert any(p.startswith("include cycle") and "compiler/codegen" in p for p in found), found
    print("check_layers self-test: an upward include and a cycle are both reported")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("layers ok: no upward include, no cycle between folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
