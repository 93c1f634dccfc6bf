"""The layer picture of ``docs/architecture.md`` holds: each layer imports only the layers below
it (a module may import its own package). Checked on the source with ``ast``, no import run.

``KNOWN`` lists the arrows that still run against the picture (issue "One of each"): a new one
fails this test, and so does an entry that no longer exists (take it off the list when fixed),
so the list only shrinks."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "jiyi"

#: Top-level modules and packages of ``jiyi``, lowest layer first, and whether the members of a
#: layer may import each other (primitives and entry points may; the paths may not).
LAYERS: list[tuple[set[str], bool]] = [
    ({"errors", "clock", "timing", "__version__", "units", "validation", "text", "auth",
      "turn_items", "config", "llm", "embed", "keyfacts"}, True),  # primitives
    ({"store"}, False),
    ({"memory_view"}, False),
    ({"write", "recall", "context", "health"}, False),  # the paths
    ({"tasks", "bulk", "backup", "instrument"}, False),  # the facade's helpers
    ({"memory"}, False),  # the facade
    ({"__init__"}, False),  # the package's public names
    ({"cli", "service", "proxy", "mcp_server", "agent", "agent_feedback", "agent_tools",
      "metrics", "__main__"}, True),  # entry points
]
LEVEL = {name: i for i, (names, _) in enumerate(LAYERS) for name in names}
SIBLINGS_OK = {i for i, (_, ok) in enumerate(LAYERS) if ok}
#: Entry points go through the facade: below it they may use only the primitives and the pure
#: prompt types of ``context`` (Prompt, ExecutionContext, the Modelfile: public API, re-exported
#: by ``jiyi``), never the store or a read/write path.
ENTRY = LEVEL["cli"]
PRIMITIVES = LEVEL["units"]

#: (importing file relative to src/jiyi, imported top-level name): arrows against the picture
#: that are still there, each to be fixed.
KNOWN: set[tuple[str, str]] = set()


def _top(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _from_targets(path: Path) -> Iterator[tuple[list[str], list[str]]]:
    """Each ``from ... import`` of a file inside ``jiyi``: the module's path under ``jiyi``
    (relative imports resolved) and the imported names."""
    package = list(path.relative_to(SRC).parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package[: len(package) - (node.level - 1)]
            yield base + (node.module.split(".") if node.module else []), [
                a.name for a in node.names]
        elif node.module and node.module.split(".")[0] == "jiyi":
            yield node.module.split(".")[1:], [a.name for a in node.names]


def _imports(path: Path) -> set[str]:
    """Top-level ``jiyi`` names imported by the file (relative or absolute)."""
    found: set[str] = set()
    for target, names in _from_targets(path):
        found.update(target[:1] or names)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names
                         if a.name.startswith("jiyi.") and a.name.count(".") >= 1)
    return found


def _allowed(me: str, other: str) -> bool:
    if other == me:
        return True
    mine, theirs = LEVEL[me], LEVEL[other]
    if mine == ENTRY and theirs < ENTRY:
        return theirs == PRIMITIVES or other in {"context", "memory", "__init__"}
    return theirs < mine or (theirs == mine and mine in SIBLINGS_OK)


def violations() -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for path in SRC.rglob("*.py"):
        me = _top(path)
        for other in _imports(path):
            if other not in LEVEL:
                continue  # a name imported from jiyi/__init__ (Memory ...) in a submodule
            if not _allowed(me, other):
                out.add((path.relative_to(SRC).as_posix(), other))
    return out


def test_every_module_has_a_layer() -> None:
    tops = {_top(p) for p in SRC.rglob("*.py")}
    assert tops <= set(LEVEL), sorted(tops - set(LEVEL))


def test_no_new_arrow_against_the_layers() -> None:
    new = violations() - KNOWN
    assert not new, "imports against the layer picture:\n" + "\n".join(
        f"  {f} imports {o}" for f, o in sorted(new))


def test_known_arrows_are_still_there() -> None:
    fixed = KNOWN - violations()
    assert not fixed, f"fixed, take them off KNOWN: {sorted(fixed)}"


#: Inside ``store/``: the shared SQL and the resident caches import no backend, and no backend
#: imports the other (the picture of ``docs/architecture.md``). Room -> rooms it may not import.
STORE_ROOMS: dict[str, set[str]] = {
    "sql": {"sqlite", "postgres", "cache"},
    "cache": {"sqlite", "postgres", "sql"},
    "sqlite": {"postgres"},
    "postgres": {"sqlite", "cache"},
}


def _store_imports(path: Path) -> set[str]:
    """The ``store`` subpackages a module of ``store/`` imports (relative or absolute)."""
    found: set[str] = set()
    for target, names in _from_targets(path):
        if target[:1] == ["store"] and len(target) > 1:
            found.add(target[1])
        elif target == ["store"]:
            found.update(names)
    return found


def test_store_rooms_hold_their_picture() -> None:
    wrong = sorted(
        (path.relative_to(SRC).as_posix(), other)
        for path in (SRC / "store").rglob("*.py")
        if len(path.relative_to(SRC / "store").parts) > 1
        for other in _store_imports(path)
        if other in STORE_ROOMS.get(path.relative_to(SRC / "store").parts[0], set()))
    assert not wrong, wrong
    assert set(STORE_ROOMS) == {p.name for p in (SRC / "store").iterdir()
                                if p.is_dir() and p.name != "__pycache__"}


def _module_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same tree it imports (any depth of the file, relative or
    absolute; ``from pkg import name`` counts ``pkg.name`` when that is a module)."""
    top = root.name
    mods: dict[str, Path] = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        package = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.split(".")[0] == top:
                target = node.module
            else:
                continue
            out.update(t for t in [target, *(f"{target}.{a.name}" for a in node.names)]
                       if t in mods and t != mod)
        graph[mod] = out
    return graph


def test_no_two_modules_import_each_other() -> None:
    """No import cycle of two modules, in the package or the harnesses (a package's
    ``__init__`` re-exporting its own members is not one)."""
    cycles = set()
    for root in (SRC, SRC.parents[1] / "benchmarks" / "jiyi_bench"):
        graph = _module_graph(root)
        cycles |= {tuple(sorted((a, b))) for a, targets in graph.items() for b in targets
                   if a in graph.get(b, set())
                   and not (a.startswith(b + ".") or b.startswith(a + "."))}
    assert not cycles, sorted(cycles)
