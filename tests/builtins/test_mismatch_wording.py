"""A builtin or operator refusing its arguments says 'Input types must be the same' only where the values are of
one kind (scalars, vectors, ...) and the rule wants them equal, as Warp 1.19 does; elsewhere (t * p, a vector
and a scalar, a mesh id and a float face) Warp's 'Couldn't find function overload' (newuser round 10: the
product hints of round 9 ended with the misleading 'Input types must be exactly the same')."""

import importlib.util

import pytest

import brickwork as wp

# Warp 1.19's last words for each (checked with warp-lang 1.19.0)
CASES = [
    ("r = wp.transform_identity() * wp.vec3()", "wp.transform_point(t, p) moves a point",
     "(Couldn't find function overload for 'mul' that matched inputs with types: [transformf, vec3f])"),
    ("r = wp.quat_identity() * wp.vec3()", "wp.quat_rotate(q, v) rotates a vector",
     "(Couldn't find function overload for 'mul' that matched inputs with types: [quatf, vec3f])"),
    ("r = wp.vec3() - 1.0", "'-' (sub): operand types must match, got vec3f and float32",
     "(Couldn't find function overload for 'sub' that matched inputs with types: [vec3f, float32])"),
    ("r = wp.min(wp.vec3(), 1.0)", "min(): operand types must match, got vec3f and float32",
     "(Couldn't find function overload for 'min' that matched inputs with types: [vec3f, float32])"),
    ("r = wp.mesh_eval_position(wp.uint64(0), 1.0, 0.0, 0.0)", "needs a mesh id (uint64), an int32 face",
     "(Couldn't find function overload for 'mesh_eval_position' that matched inputs with types: "
     "[uint64, float32, float32, float32])"),
    ("r = wp.vec3() + wp.vec2()", "'+' (add): operand types must match, got vec3f and vec2f",
     "(Input types must be exactly the same, got ['vec3f', 'vec2f'])"),
    ("r = wp.dot(wp.vec3(), wp.vec3d())", "dot(): operand types must match, got vec3f and vec3d",
     "(Input types must be exactly the same, got ['vec3f', 'vec3d'])"),
    ("r = wp.int64(1) + wp.int32(2)", "'+' (add): operand types must match, got int64 and int32",
     "(Input types must be the same, got ['int64', 'int32'])"),
]


@pytest.mark.parametrize("body, reason, ending", CASES, ids=[c[0][4:30] for c in CASES])
def test_the_parenthesis_names_the_problem(tmp_path, body, reason, ending):
    path = tmp_path / "mismatch_wording.py"
    path.write_text("import brickwork as wp\n\n\n@wp.kernel\ndef k(out: wp.array(dtype=float)):\n"
                    f"    {body}\n    out[0] = 1.0\n")
    spec = importlib.util.spec_from_file_location("mismatch_wording", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = wp.full(1, 7.0, dtype=float)
    with pytest.raises(wp.KernelTypeError) as e:
        wp.launch(module.k, 1, inputs=[out])
    text = str(e.value)
    assert isinstance(e.value, RuntimeError)
    assert reason in text and ending in text, text
    assert ("Input types must be" in text) == ending.startswith("(Input types")
    assert f"{path}\", line 6" in text and body in text
    assert out.numpy().tolist() == [7.0]
