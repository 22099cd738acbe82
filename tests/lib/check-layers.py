#!/usr/bin/python3
"""check-layers.py down|loops SRC: how src/ is layered (src/README.md).

down:  every file lies in a folder of SRC that the order in
       SRC/README.md (its line "layers: base < ledger < ...") names, and
       includes only headers of its own folder or of folders below it,
       each by its folder ("base/util.h").
loops: no module (X.c with X.h) uses itself again through the headers
       it includes: no two files include each other, directly or around
       a circle.  A header with no .c of its own (mime.h, cmd.h,
       rules-private.h) belongs to whoever includes it.

Prints one line a problem, "FILE:LINE: what is wrong", and exits 1 when
there is any; tests/t-layers.sh runs it on the tree."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_order(src):
    path = os.path.join(src, "README.md")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\s*layers:\s*(.+?)\s*$", line)
            if m:
                return [w.strip() for w in m.group(1).split("<")]
    sys.exit(f"{path}: no line \"layers: LOWEST < ... < HIGHEST\"")


def sources(src):
    """(path relative to SRC, folder) of every .c and .h below SRC."""
    found = []
    for top, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(top, name), src)
                found.append(rel)
    return found


def includes(src, rel):
    with open(os.path.join(src, rel), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m and m.group(1) != "config.h":
                yield n, m.group(1)


def check_down(src):
    order = folder_order(src)
    rank = {d: i for i, d in enumerate(order)}
    problems = []
    present = sorted(d for d in os.listdir(src)
                     if os.path.isdir(os.path.join(src, d))
                     and not d.startswith("."))
    for d in present:
        if d not in rank:
            problems.append(f"src/{d}/: a folder the order in src/README.md "
                            "does not name")
    for d in order:
        if d not in present:
            problems.append(f"src/README.md: names {d}, which is no folder "
                            "of src/")
    for rel in sources(src):
        own = rel.split(os.sep)[0]
        if os.sep not in rel:
            problems.append(f"src/{rel}: outside every folder")
            continue
        for n, inc in includes(src, rel):
            parts = inc.split("/")
            if len(parts) != 2 or parts[0] not in rank:
                problems.append(f"src/{rel}:{n}: #include \"{inc}\" names no "
                                "folder of src/ (write \"FOLDER/NAME.h\")")
            elif not os.path.isfile(os.path.join(src, inc)):
                problems.append(f"src/{rel}:{n}: #include \"{inc}\": no such "
                                "header")
            elif own in rank and rank[parts[0]] > rank[own]:
                problems.append(f"src/{rel}:{n}: #include \"{inc}\" points "
                                f"up: {parts[0]}/ is above {own}/ "
                                "(src/README.md)")
    return problems


def check_loops(src):
    files = sources(src)
    module = {rel: os.path.splitext(rel)[0] for rel in files}
    has_c = {os.path.splitext(rel)[0] for rel in files if rel.endswith(".c")}
    direct = {rel: [inc for _, inc in includes(src, rel)
                    if os.path.isfile(os.path.join(src, inc))]
              for rel in files}

    def used(header, seen):
        """The modules HEADER brings in; header-only ones are looked
        through."""
        if header in seen:
            return set()
        seen.add(header)
        mod = os.path.splitext(header)[0]
        if mod in has_c:
            return {mod}
        out = set()
        for inc in direct.get(header, []):
            out |= used(inc, seen)
        return out

    edges = {}
    for rel in files:
        mod = module[rel]
        if mod not in has_c:
            continue
        for inc in direct[rel]:
            for target in used(inc, set()):
                if target != mod:
                    edges.setdefault(mod, set()).add(target)
    # Tarjan's strongly connected components: each of more than one
    # module is a circle.
    index, low, stack, on, circles = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(has_c):
        if v not in index:
            visit(v)
    return [f"src/{c[0]}.c: a circle of includes: " +
            ", ".join(f"src/{m}" for m in c) for c in circles]


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("down", "loops"):
        sys.exit("usage: check-layers.py down|loops SRC")
    src = sys.argv[2]
    problems = check_down(src) if sys.argv[1] == "down" else check_loops(src)
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
