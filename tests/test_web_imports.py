"""web/ has no import circle (issue 30): no ES module imports one that imports it back.

Every `import ... from "..."`, `import "..."`, `export ... from "..."` and dynamic
`import("...")` of the client's modules is read, resolved to a file under web/ (the server
serves web/ at /static/ and web/offline/ at /offline/), and the graph is searched for cycles.
"""

import pathlib
import re

WEB = pathlib.Path(__file__).resolve().parent.parent / "web"

# Where the server mounts web/ (server/edge): an absolute import names one of these.
MOUNTS = {"/static/": WEB, "/offline/": WEB / "offline"}

_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"^\s*//.*$", re.M)
_STATIC = re.compile(r"^\s*(?:import|export)\b[^;\"'`]*?\bfrom\s*[\"']([^\"']+)[\"']", re.M)
_BARE = re.compile(r"^\s*import\s*[\"']([^\"']+)[\"']", re.M)
_DYNAMIC = re.compile(r"\bimport\(\s*[\"'`]([^\"'`$]+)[\"'`]\s*\)")


def specifiers(source: str) -> list[str]:
    """The module specifiers one ES module's source imports, static and dynamic."""
    code = _LINE_COMMENT.sub("", _BLOCK_COMMENT.sub("", source))
    return [m.group(1) for rx in (_STATIC, _BARE, _DYNAMIC) for m in rx.finditer(code)]


def resolve(importer: pathlib.Path, spec: str) -> pathlib.Path | None:
    """The file `spec` names from `importer`, or None for what is not ours (a URL)."""
    for prefix, folder in MOUNTS.items():
        if spec.startswith(prefix):
            return (folder / spec[len(prefix):]).resolve()
    if spec.startswith("."):
        return (importer.parent / spec).resolve()
    return None


def import_graph() -> dict[str, set[str]]:
    """Each module of web/ (path relative to web/) -> the modules it imports."""
    graph: dict[str, set[str]] = {}
    for path in sorted(WEB.rglob("*.js")):
        name = path.relative_to(WEB).as_posix()
        graph[name] = set()
        for spec in specifiers(path.read_text(encoding="utf-8")):
            target = resolve(path, spec)
            if target is None:
                continue
            assert target.is_file(), f"{name} imports {spec!r}: no such file {target}"
            graph[name].add(target.relative_to(WEB).as_posix())
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Each set of modules that import each other round (strongly connected, or self-importing)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:   # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1 or v in graph.get(v, ()):
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def closed_path(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A path inside `group` from its first module back to it (breadth first: a short one)."""
    start = min(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & group):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if w not in came_from:
                    came_from[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no closed path in {sorted(group)}")


def test_cycle_finder_sees_a_circle_and_a_self_import():
    """The checker itself: a known circle and a module importing itself are both found."""
    graph = {"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": {"a.js"}, "d.js": {"d.js", "a.js"}, "e.js": set()}
    found = sorted(circles(graph), key=min)
    assert found == [{"a.js", "b.js", "c.js"}, {"d.js"}]
    assert [closed_path(graph, g) for g in found] == [["a.js", "b.js", "c.js", "a.js"], ["d.js", "d.js"]]


def test_specifiers_read_every_kind_of_import():
    """Static (one or many lines), bare, re-export and dynamic imports; comments and strings that merely say import are not."""
    src = (
        'import { a } from "./a.js";\nimport {\n  b,\n  c,\n} from "../b.js";\nimport "./side.js";\n'
        'export { d } from "/static/js/d.js";\nconst m = await import("./lazy.js");\n'
        '// import { x } from "./commented.js";\n/* import "./blocked.js"; */\n'
        'py.runPython("import sys; sys.path");\n'
    )
    assert sorted(specifiers(src)) == sorted(["./a.js", "../b.js", "./side.js", "/static/js/d.js", "./lazy.js"])


def test_web_modules_import_no_circle():
    """Issue 30: the screens (and the one-phone page) import each other without a circle."""
    graph = import_graph()
    assert sum(len(t) for t in graph.values()) > 50, "the import lines were not read"
    found = circles(graph)
    assert not found, "import circles in web/:\n" + "\n".join(
        f"{len(g)} modules {sorted(g)}, for one: {' -> '.join(closed_path(graph, g))}" for g in found)
