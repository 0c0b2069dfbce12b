"""`import brickwork` loads the kernel language only: the compiler, the mesh and the apps load on use.

A test on sys.modules in a fresh interpreter (not a timed test): each module named here costs
start-up time that a script which never compiles, or never builds a mesh, should not pay.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

#: Loaded on first use: the mesh and its layers, the compiler (typing, IR, passes, target, JIT), the adjoint
#: rules, the graph coloring kernels, the PyTorch interop,
#: and standard modules only the compiler or logging need.
HEAVY = (
    "brickwork.mesh", "brickwork.la", "brickwork.io", "brickwork.apps", "brickwork.cli",
    "brickwork.pipeline", "brickwork.frontend.typer", "brickwork.frontend.expressions", "brickwork.ir",
    "brickwork.passes", "brickwork.targets", "brickwork.jit", "brickwork.builtins.table",
    "brickwork.builtins.adjoints", "brickwork.runtime.graph_coloring", "brickwork.interop",
    "logging", "subprocess", "tempfile", "concurrent.futures",
)


def _fresh(code: str, tmp_path) -> dict:
    """Run ``code`` as a script in a new interpreter; its last line of output is JSON."""
    script = tmp_path / "script.py"  # a file, so that kernels defined in it have source lines
    script.write_text(textwrap.dedent(code))
    env = {k: v for k, v in os.environ.items() if k != "BRICKWORK_LOG"}
    out = subprocess.run([sys.executable, str(script)], env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_brickwork_loads_none_of_the_heavy_modules(tmp_path):
    loaded = _fresh("""
        import json, sys
        import brickwork
        print(json.dumps(sorted(sys.modules)))
    """, tmp_path)
    heavy = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == []


def test_lazy_subpackages_load_on_first_access_and_kernels_still_run(tmp_path):
    result = _fresh("""
        import json, sys
        import numpy as np
        import brickwork as wp
        before = "brickwork.la" in sys.modules

        @wp.kernel
        def twice(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = 2.0 * x[i]

        x = wp.array(np.arange(5, dtype=np.float32))
        wp.launch(twice, dim=5, inputs=[x])
        from brickwork import mesh
        print(json.dumps({"before": before, "la": wp.la.__name__, "mesh": mesh is wp.mesh,
                          "apps": wp.apps.__name__, "io": wp.io.__name__, "x": x.numpy().tolist(),
                          "outer": wp.la.outer is sys.modules["brickwork.la"].outer}))
    """, tmp_path)
    assert result == {"before": False, "la": "brickwork.la", "mesh": True, "apps": "brickwork.apps",
                      "io": "brickwork.io", "x": [0.0, 2.0, 4.0, 6.0, 8.0], "outer": True}


def test_an_unknown_attribute_is_still_an_attribute_error():
    import brickwork

    with pytest.raises(AttributeError, match="has no attribute 'not_a_name'"):
        brickwork.not_a_name  # noqa: B018
    assert {"la", "mesh", "io", "apps"} <= set(dir(brickwork))


#: Not loaded by a launch that finds its instance in the cache (the warm path): the compiler's
#: front end, passes and target renderers, and the standard modules only a build needs.
NOT_ON_THE_WARM_PATH = (
    "brickwork.frontend.typer", "brickwork.ir", "brickwork.passes", "brickwork.targets.cpu.unit",
    "brickwork.jit.pch", "brickwork.jit.compiler_probe", "brickwork.pipeline", "brickwork.jit.cache", "brickwork.jit.compile", "logging", "subprocess", "tempfile", "shutil", "socket", "concurrent.futures", "fcntl",
)


def test_a_cached_launch_loads_no_compiler_and_no_build_modules(tmp_path, monkeypatch):
    code = """
        import json, sys
        import numpy as np
        import brickwork as wp

        @wp.kernel
        def add_one(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = x[i] + 1.0

        x = wp.array(np.zeros(3, dtype=np.float32))
        wp.launch(add_one, dim=3, inputs=[x])
        print(json.dumps({"x": x.numpy().tolist(), "modules": sorted(sys.modules)}))
    """
    monkeypatch.setenv("BRICKWORK_CACHE_DIR", str(tmp_path / "cache"))
    cold = _fresh(code, tmp_path)  # builds and fills the cache
    warm = _fresh(code, tmp_path)
    assert cold["x"] == warm["x"] == [1.0, 1.0, 1.0]
    assert "brickwork.passes" in cold["modules"]
    loaded = [m for m in warm["modules"] if any(m == h or m.startswith(h + ".") for h in NOT_ON_THE_WARM_PATH)]
    assert loaded == []


def test_a_cached_launch_reads_its_json_without_the_json_package(tmp_path, monkeypatch):
    """An entry's meta.json and the toolchain note are read with the C scanner (jit/json_text.py):
    importing ``json`` cost 1.2 ms of a 3 ms warm load."""
    code = """
        import sys
        import numpy as np
        import brickwork as wp

        @wp.kernel
        def add_two(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = x[i] + 2.0

        x = wp.array(np.zeros(2, dtype=np.float32))
        wp.launch(add_two, dim=2, inputs=[x])
        names = sorted(m for m in sys.modules if m == "json" or m.startswith("json."))
        print("[" + ", ".join([f'"{m}"' for m in names] + [str(x.numpy()[0])]) + "]")  # JSON without json
    """
    monkeypatch.setenv("BRICKWORK_CACHE_DIR", str(tmp_path / "cache"))
    cold = _fresh(code, tmp_path)  # a build writes JSON: it loads the package
    warm = _fresh(code, tmp_path)
    assert "json" in cold and warm == [2.0]


def test_init_does_the_process_set_up_that_a_cached_launch_then_skips(tmp_path, monkeypatch):
    """``wp.init()`` computes what every cache key shares (compiler identity, generator digest) once; the
    first launch of a cached kernel after it computes neither again, and still imports no compiler."""
    code = """
        import json, sys
        import numpy as np
        import brickwork as wp
        wp.init()
        from brickwork.jit import toolchain
        after_init = [toolchain._identity.cache_info().misses, toolchain.generator_digest.cache_info().misses]

        @wp.kernel
        def add_three(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = x[i] + 3.0

        x = wp.array(np.zeros(2, dtype=np.float32))
        wp.launch(add_three, dim=2, inputs=[x])
        after_launch = [toolchain._identity.cache_info().misses, toolchain.generator_digest.cache_info().misses]
        print(json.dumps({"x": x.numpy().tolist(), "init": after_init, "launch": after_launch,
                          "modules": sorted(sys.modules)}))
    """
    monkeypatch.setenv("BRICKWORK_CACHE_DIR", str(tmp_path / "cache"))
    _fresh(code, tmp_path)  # builds and fills the cache
    warm = _fresh(code, tmp_path)
    assert warm["x"] == [3.0, 3.0]
    assert warm["init"] == warm["launch"] == [1, 1]
    loaded = [m for m in warm["modules"] if any(m == h or m.startswith(h + ".") for h in NOT_ON_THE_WARM_PATH)]
    assert loaded == []


def test_init_leaves_a_missing_compiler_to_the_first_launch(tmp_path, monkeypatch):
    code = """
        import json
        import numpy as np
        import brickwork as wp
        wp.init()  # no compiler: nothing to report yet

        @wp.kernel
        def add_four(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = x[i] + 4.0

        x = wp.array(np.zeros(2, dtype=np.float32))
        try:
            wp.launch(add_four, dim=2, inputs=[x])
            error = None
        except Exception as e:
            error = [type(e).__name__, str(e)]
        print(json.dumps({"x": x.numpy().tolist(), "error": error}))
    """
    monkeypatch.setenv("BRICKWORK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BRICKWORK_CXX", str(tmp_path / "no-such-compiler"))
    out = _fresh(code, tmp_path)
    assert out["x"] == [0.0, 0.0]
    assert out["error"][0] == "CompilerUnavailableError" and "no-such-compiler" in out["error"][1]
