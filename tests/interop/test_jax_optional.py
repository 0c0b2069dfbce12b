"""JAX is optional: ``import brickwork`` never imports jax, the JAX names import it only when called, and
without jax installed they say so (fresh interpreters; these run where jax is missing too, as on CI)."""

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=True, capture_output=True,
                          text=True).stdout


def test_brickwork_and_its_jax_names_do_not_import_jax():
    out = _run("""
        import sys
        import brickwork as wp
        names = [wp.from_jax, wp.to_jax, wp.device_from_jax, wp.device_to_jax, wp.dtype_from_jax, wp.dtype_to_jax,
                 wp.jax_kernel, wp.jax_callable, wp.JaxCallableGraphMode, wp.JaxModulePreloadMode,
                 wp.clear_jax_callable_graph_cache]
        print("jax" in sys.modules, [n.__name__ for n in names])
    """)
    assert out.strip() == ("False ['from_jax', 'to_jax', 'device_from_jax', 'device_to_jax', 'dtype_from_jax', "
                           "'dtype_to_jax', 'jax_kernel', 'jax_callable', 'JaxCallableGraphMode', "
                           "'JaxModulePreloadMode', 'clear_jax_callable_graph_cache']")


def test_without_jax_the_functions_say_it_is_needed():
    out = _run("""
        import sys
        sys.modules["jax"] = None  # as if jax were not installed
        import brickwork as wp

        for name, call in [("to_jax", lambda: wp.to_jax(wp.zeros(2))), ("dtype_to_jax", lambda: wp.dtype_to_jax(float)),
                           ("device_to_jax", lambda: wp.device_to_jax("cpu")), ("jax_kernel", lambda: wp.jax_kernel(None)),
                           ("jax_callable", lambda: wp.jax_callable(print))]:
            try:
                call()
            except ImportError as e:
                print(str(e).split(",")[0])
    """)
    assert out.splitlines() == [f"{name} needs JAX" for name in
                                ("wp.to_jax", "the JAX dtype conversion", "wp.device_to_jax", "wp.jax_kernel",
                                 "wp.jax_callable")]
