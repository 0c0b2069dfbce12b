"""The layering of the package: imports flow one way, target text stays in targets/.

Every import counts, including those inside functions, so a function-level import cannot hide a
cycle. The layers, lowest first (a module may import only from lower layers or its own
subpackage):

    _version < errors < config, comm, same_on_ranks < cuda_driver < device < device_access < types < builtins, ir, jit < frontend, passes < targets
    < pipeline < lang < runtime < utils, autograd, optim < io < mesh < la < apps < the facade (brickwork/__init__.py) < cli < __main__
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import brickwork

PACKAGE = Path(brickwork.__file__).parent
LAYERS = [
    ("_version",),
    ("errors",),  # the base of every error brickwork raises, which any module may raise
    ("config", "comm", "same_on_ranks", "log_target"),  # log_target: the logger of wp.set_logger, read by jit and runtime
    ("cuda_driver", "pending_checks", "stuck_signals"),  # pending_checks: launches whose bounds records are read at
    # the next wait; stuck_signals: a SIGTERM ends a main thread stuck in native code
    ("device",),
    ("device_access", "allocators"),  # Warp's memory-pool, peer-access and allocator API, over the devices
    ("timing_state",),  # wp.timing_begin's open ranges, read by the array types' copies and fills (runtime/timing)
    ("memory_tracking",),  # Warp's memory tracker: the array types' allocations report to it
    ("types",),
    ("builtins", "ir", "jit"),
    ("frontend", "passes"),
    ("targets",),
    ("pipeline",),
    ("lang",),
    ("runtime",),
    ("sparse",),  # block sparse matrices: kernels and device sorts of runtime, below optim (its solvers)
    ("utils", "autograd", "optim"),
    ("interop",),  # PyTorch interop: arrays and DLPack (types), devices, streams (runtime); nothing above uses it
    ("geometry",),  # isosurfaces, adjacency, swept volumes: kernels of runtime, scans of utils, Tape of autograd
    ("io",),  # files of arrays and block geometry: below the mesh, whose outputs it writes
    ("mesh",),
    ("la",),
    ("apps",),
    ("__facade__",),  # a name taken from brickwork/__init__.py: that imports every layer
    ("cli",),
    ("__main__",),  # python -m brickwork: the command line
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def _node(module: str):
    parts = module.split(".")
    return parts[1] if parts[0] == "brickwork" and len(parts) > 1 else None


def _is_module(name: str) -> bool:
    return (PACKAGE / name / "__init__.py").exists() or (PACKAGE / f"{name}.py").exists()


def import_edges() -> dict:
    """(importer, imported) subpackage pairs -> the first 'file:line' with that import."""
    edges: dict = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        src = _node(module)
        if src is None:
            continue  # brickwork/__init__.py: the public facade re-exports every layer
        is_pkg = path.name == "__init__.py"
        for n in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(n, ast.Import):
                targets = [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = module.split(".")
                    base = base[: len(base) - n.level + (1 if is_pkg else 0)]
                    targets = [".".join(base + ([n.module] if n.module else []))]
                else:
                    targets = [n.module or ""]
                if targets == ["brickwork"]:
                    targets = [f"brickwork.{a.name}" if _is_module(a.name) else "brickwork.__facade__"
                               for a in n.names]
            for t in targets:
                dst = _node(t)
                if dst and dst != src:
                    edges.setdefault((src, dst), f"{path.relative_to(PACKAGE)}:{n.lineno}")
    return edges


def test_every_subpackage_has_a_layer():
    names = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    assert names <= set(RANK), f"subpackages without a layer: {sorted(names - set(RANK))}"


def test_imports_flow_down_the_layers():
    upward = [f"{src} -> {dst} ({where})" for (src, dst), where in sorted(import_edges().items())
              if RANK[dst] >= RANK[src]]
    assert not upward, "imports against the layering:\n" + "\n".join(upward)


def test_no_import_cycle_between_subpackages():
    edges = import_edges()
    graph: dict = {}
    for src, dst in edges:
        graph.setdefault(src, set()).add(dst)
    state: dict = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycle = path[path.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


TARGET_TEXT = re.compile(r'bw::|#pragma|__global__|\bu?int(8|16|32|64)_t\b|\bdouble\b|static inline|extern "C"|\bc_type\b')


def test_no_target_text_outside_targets():
    leaks = []
    for sub in ("frontend", "ir", "passes", "builtins"):
        for path in (PACKAGE / sub).rglob("*.py"):
            for lineno, line in enumerate(path.read_text().splitlines(), 1):
                if TARGET_TEXT.search(line):
                    leaks.append(f"{sub}/{path.name}:{lineno}: {line.strip()}")
    assert not leaks, "target text outside targets/:\n" + "\n".join(leaks)


def test_the_builtin_table_holds_typing_rules_only():
    from brickwork.builtins.table import BUILTINS

    for name, entries in BUILTINS.items():
        for entry in entries:
            assert set(vars(entry)) == {"name", "rule", "doc"}, name


#: exceptions that never reach a user: the compiler raises and catches them (or, for IRVerifyError, an
#: internal assertion that the IR is well formed)
INTERNAL_EXCEPTIONS = {"brickwork.builtins.registry.Mismatch", "brickwork.builtins.registry.Unsupported",
                       "brickwork.frontend.recursion.RecursiveCall", "brickwork.frontend.static_expr._RuntimeName",
                       "brickwork.ir.verify.IRVerifyError", "brickwork.lang.grad_rules._NotDifferentiable"}


def test_every_error_a_user_can_meet_is_a_brickwork_error():
    """``except brickwork.BrickworkError`` catches whatever brickwork raises on purpose (the hydro application's,
    the outputs' and restarts' errors included), besides the Python type each also is."""
    import importlib
    import inspect
    import pkgutil

    from brickwork.errors import BrickworkError

    outside = []
    for info in pkgutil.walk_packages(brickwork.__path__, "brickwork."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, Exception) and obj.__module__ == module.__name__ \
                    and not issubclass(obj, BrickworkError) and f"{module.__name__}.{name}" not in INTERNAL_EXCEPTIONS:
                outside.append(f"{module.__name__}.{name}")
    assert not outside, outside
