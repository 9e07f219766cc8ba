"""The import graph of ``dealer/``, read from the code's own imports (``ast``, nothing is imported).

    python scripts/import_graph.py [--layers] [--edges] [--root DIR]

Every ``import`` and ``from ... import`` counts, at the top of a module, inside a function or a
class, or under ``if TYPE_CHECKING:`` (shown as its own kind). Edges:

* ``import dealer.a.b`` and ``from dealer.a.b import name``: an edge to ``dealer.a.b``;
* ``from dealer.a import b`` where ``dealer.a.b`` is a module: an edge to ``dealer.a.b`` (and,
  as the import runs ``dealer/a/__init__``, to ``dealer.a`` as below);
* importing ``dealer.a.b`` runs ``dealer/a/__init__.py`` first: an edge to the package
  ``dealer.a`` too, unless the importer is inside ``dealer.a`` (its package is already running).
  ``dealer`` itself is every module's package and gets no such edge.

Prints the number of modules and edges, every strongly connected component of more than one
module (an import cycle, over the imports that run: not those under ``TYPE_CHECKING``) with one
cycle through it, every call that runs SQL outside ``dealer/store/`` (none is allowed), and with ``--layers`` the edges per pair of
layers of the import contract (the ``LAYERS`` table at the top of
``tests/test_import_contract.py``). Exit 1 if there is any cycle or SQL outside the store, 0 if none, 2 on a usage error.

Dev tooling, not shipped: ``tests/test_import_contract.py`` loads this file by its path.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT / "tests" / "test_import_contract.py"


@dataclass(frozen=True, order=True)
class Edge:
    source: str
    target: str
    line: int
    kind: str  # "top" (module level), "function" (inside a def), "type-checking" (if TYPE_CHECKING:)
    why: str  # "import", "submodule" (from-import of a module), "package" (its __init__ runs first)

    def where(self, root: Path = ROOT) -> str:
        return f"{module_path(self.source, root)}:{self.line}"


def module_names(root: Path = ROOT, package: str = "dealer") -> dict[str, Path]:
    """Every module of the package, by its dotted name (a package by its ``__init__``)."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def module_path(name: str, root: Path = ROOT) -> str:
    modules = module_names(root, name.split(".")[0])
    return modules[name].relative_to(root).as_posix() if name in modules else name


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module) -> Iterable[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement with its kind, found anywhere in the module."""
    def visit(node: ast.AST, kind: str) -> Iterable[tuple[ast.Import | ast.ImportFrom, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, kind
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from visit(child, "function" if kind == "top" else kind)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for statement in child.body:
                    yield from visit(ast.Module(body=[statement], type_ignores=[]), "type-checking")
                for statement in child.orelse:
                    yield from visit(ast.Module(body=[statement], type_ignores=[]), kind)
            else:
                yield from visit(child, kind)
    return visit(tree, "top")


def _package_of(module: str, is_package: bool) -> str:
    return module if is_package else module.rpartition(".")[0]


def build_graph(root: Path = ROOT, package: str = "dealer") -> tuple[list[str], list[Edge]]:
    """The modules of ``package`` and its import edges (one per importing statement and target)."""
    modules = module_names(root, package)
    edges: set[Edge] = set()
    for source, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, kind in _imports(tree):
            targets: list[tuple[str, str]] = []
            if isinstance(node, ast.Import):
                targets = [(alias.name, "import") for alias in node.names]
            else:
                base = node.module or ""
                if node.level:  # relative: from the importer's package upwards
                    anchor = _package_of(source, is_package).split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                # ``from dealer.a import b, c``: names of dealer.a (an edge to it) or, when every name
                # is a submodule, only the submodules (dealer.a then runs as their package).
                targets = [(name, "submodule") for name in submodules]
                if len(submodules) < len(node.names):
                    targets.insert(0, (base, "import"))
            for target, why in targets:
                if target != package and not target.startswith(package + "."):
                    continue
                # The modules this import runs: the target, and each package above it.
                chain = target.split(".")
                for depth in range(len(chain), 1, -1):
                    name = ".".join(chain[:depth])
                    if name not in modules or name == source:
                        continue
                    if depth < len(chain):  # an enclosing package: runs unless the importer is in it
                        if source == name or source.startswith(name + "."):
                            continue
                        edges.add(Edge(source, name, node.lineno, kind, "package"))
                    else:
                        edges.add(Edge(source, name, node.lineno, kind, why))
    return sorted(modules), sorted(edges)


def adjacency(modules: Sequence[str], edges: Iterable[Edge]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for edge in edges:
        graph[edge.source].add(edge.target)
    return graph


def cycles(modules: Sequence[str], edges: Iterable[Edge]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative), sorted."""
    graph = adjacency(modules, edges)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def cycle_path(component: Sequence[str], edges: Iterable[Edge]) -> list[Edge]:
    """One cycle through the component's first module: the shortest path back to it."""
    members = set(component)
    by_source: dict[str, list[Edge]] = {}
    for edge in sorted(edges):
        if edge.source in members and edge.target in members:
            by_source.setdefault(edge.source, []).append(edge)
    start = component[0]
    came: dict[str, Edge] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for edge in by_source.get(node, []):
            if edge.target == start:
                path = [edge]
                while path[0].source != start:
                    path.insert(0, came[path[0].source])
                return path
            if edge.target not in came:
                came[edge.target] = edge
                queue.append(edge.target)
    raise AssertionError(f"no cycle through {start}")  # a component of two or more always has one


def layer_of(module: str, layers: Mapping[str, Sequence[str]]) -> str | None:
    """The layer whose most specific pattern names the module: ``dealer.x`` (exactly that module)
    or ``dealer.x.*`` (that package and everything in it)."""
    best: tuple[tuple[int, bool], str] | None = None
    for layer, patterns in layers.items():
        for pattern in patterns:
            wild = pattern.endswith(".*")
            stem = pattern[:-2] if wild else pattern
            hit = module == stem or (wild and module.startswith(stem + "."))
            rank = (len(stem), not wild)  # the longer name wins; an exact name beats its package's star
            if hit and (best is None or rank > best[0]):
                best = (rank, layer)
    return best[1] if best else None


def contract_layers(path: Path = CONTRACT) -> dict[str, list[str]]:
    """The ``LAYERS`` table of the import contract, read as literal data (the test is not run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in tree.body:
        target: ast.expr
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "LAYERS":
            table = ast.literal_eval(value)
            return {str(k): list(v) for k, v in table.items()}
    raise LookupError(f"{path}: no LAYERS table")


#: Calls that run SQL: on a connection or a cursor, and the opening of a database.
SQL_CALLS = frozenset({"execute", "executemany", "executescript", "connect"})
#: The only package that runs SQL (contract d: storage behind the application, the SQL included).
SQL_PACKAGE = "dealer.store"


@dataclass(frozen=True, order=True)
class SqlCall:
    module: str
    line: int
    call: str  # e.g. "conn.execute", "sqlite3.connect"


def sql_calls(root: Path = ROOT, package: str = "dealer") -> list[SqlCall]:
    """Every call of ``.execute``, ``.executemany``, ``.executescript`` or ``sqlite3.connect`` in
    the package outside :data:`SQL_PACKAGE` (read from the code, nothing imported)."""
    found = []
    for name, path in module_names(root, package).items():
        if name == SQL_PACKAGE or name.startswith(SQL_PACKAGE + "."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            attr = node.func.attr
            owner = node.func.value
            if attr in SQL_CALLS - {"connect"} or (attr == "connect" and isinstance(owner, ast.Name)
                                                    and owner.id == "sqlite3"):
                found.append(SqlCall(name, node.lineno, f"{ast.unparse(owner)}.{attr}"))
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The import graph of dealer/ and its cycles.")
    parser.add_argument("--layers", action="store_true", help="Also count the edges per pair of layers.")
    parser.add_argument("--edges", action="store_true", help="Also list every edge.")
    parser.add_argument("--root", type=Path, default=ROOT, help="The source tree (default: this one).")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return 2 if stop.code else 0
    root = args.root.resolve()
    if not (root / "dealer" / "__init__.py").is_file():
        print(f"error: {root} holds no dealer/ package", file=sys.stderr)
        return 2
    modules, edges = build_graph(root)
    pairs = {(e.source, e.target) for e in edges}
    print(f"modules: {len(modules)}")
    print(f"edges: {len(pairs)} (module pairs; {len(edges)} importing statements and targets, "
          f"{sum(e.kind == 'function' for e in edges)} inside functions, "
          f"{sum(e.kind == 'type-checking' for e in edges)} under TYPE_CHECKING)")
    running = [e for e in edges if e.kind != "type-checking"]  # those never run: no cycle through them
    found = cycles(modules, running)
    print(f"cycles: {len(found)}")
    for component in found:
        print(f"  {len(component)} modules: {', '.join(component)}")
        for edge in cycle_path(component, running):
            print(f"    {edge.source} -> {edge.target}  ({edge.where(root)}, {edge.kind}, {edge.why})")
    outside = sql_calls(root)
    print(f"SQL outside {SQL_PACKAGE}: {len(outside)}")
    for call in outside:
        print(f"  {module_path(call.module, root)}:{call.line} {call.call}")
    if args.layers:
        layers = contract_layers(root / "tests" / "test_import_contract.py")
        counts = Counter((layer_of(s, layers) or "?", layer_of(t, layers) or "?") for s, t in pairs)
        print("edges per layer pair (importer -> imported):")
        for (a, b), n in sorted(counts.items()):
            print(f"  {a:>12} -> {b:<12} {n}")
        unmapped = [m for m in modules if layer_of(m, layers) is None]
        if unmapped:
            print(f"modules in no layer: {', '.join(unmapped)}")
    if args.edges:
        for edge in edges:
            print(f"  {edge.source} -> {edge.target}  ({edge.where(root)}, {edge.kind}, {edge.why})")
    return 1 if found or outside else 0


if __name__ == "__main__":
    sys.exit(main())
