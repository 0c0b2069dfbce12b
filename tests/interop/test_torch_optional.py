"""PyTorch is optional: ``import brickwork`` and its kernels never import torch, the interop names import it only
when called, and without torch installed they say so (tests run in fresh interpreters)."""

import json
import os
import subprocess
import sys
import textwrap


def _fresh(code: str, tmp_path) -> dict:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    env = {k: v for k, v in os.environ.items() if k != "BRICKWORK_LOG"}
    out = subprocess.run([sys.executable, str(script)], env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_brickwork_and_its_interop_names_do_not_import_torch(tmp_path):
    result = _fresh("""
        import json, sys
        import numpy as np
        import brickwork as wp

        @wp.kernel
        def twice(x: wp.array(dtype=float)):
            i = wp.tid()
            x[i] = 2.0 * x[i]

        x = wp.array(np.arange(3, dtype=np.float32))
        wp.launch(twice, dim=3, inputs=[x])
        names = [wp.from_torch, wp.to_torch, wp.device_from_torch, wp.device_to_torch, wp.dtype_from_torch,
                 wp.dtype_to_torch, wp.stream_from_torch, wp.stream_to_torch]
        print(json.dumps({"torch": "torch" in sys.modules, "device": wp.device_to_torch("cpu"),
                          "x": x.numpy().tolist(), "names": [f.__name__ for f in names]}))
    """, tmp_path)
    assert result == {"torch": False, "device": "cpu", "x": [0.0, 2.0, 4.0],
                      "names": ["from_torch", "to_torch", "device_from_torch", "device_to_torch", "dtype_from_torch",
                                "dtype_to_torch", "stream_from_torch", "stream_to_torch"]}


def test_without_torch_the_functions_say_it_is_needed(tmp_path):
    result = _fresh("""
        import json, sys
        sys.modules["torch"] = None  # as if torch were not installed
        import brickwork as wp

        errors = {}
        for name, call in [("from_torch", lambda: wp.from_torch(None)), ("to_torch", lambda: wp.to_torch(wp.zeros(2))),
                           ("dtype_from_torch", lambda: wp.dtype_from_torch("float32")),
                           ("dtype_to_torch", lambda: wp.dtype_to_torch(wp.float32))]:
            try:
                call()
            except ImportError as e:
                errors[name] = str(e).split(":")[0]
        print(json.dumps(errors))
    """, tmp_path)
    assert result == {"from_torch": "wp.from_torch needs PyTorch, which is not installed (pip install torch)",
                      "to_torch": "wp.to_torch needs PyTorch, which is not installed (pip install torch)",
                      "dtype_from_torch": "the torch dtype conversion needs PyTorch, which is not installed "
                                          "(pip install torch)",
                      "dtype_to_torch": "the torch dtype conversion needs PyTorch, which is not installed "
                                        "(pip install torch)"}
