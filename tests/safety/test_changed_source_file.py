"""A kernel or function whose file no longer holds its definition is named as such (attacker round 19, lead 6):
code compiled from a file that was changed before its kernel was declared (exec(compile(text, path)) of text
that is not the file's, a file edited between a tool's read and its run) failed with a bare
'IndexError: list index out of range' when the file had become shorter than the code's first line or held
nothing there; a file holding another definition at that line was typed as that definition under the other
name. Each is now a KernelSyntaxError naming the file, the line and what stands there; nothing is compiled."""

import pytest

import brickwork as wp
from brickwork.errors import KernelSyntaxError

CODE = """import brickwork as wp


@wp.{decorator}
def declared(a: wp.array(dtype=float){returns}:
    {body}
"""


@pytest.mark.parametrize("file_text, found", [
    ("x = 1\n", "the end of its 1 lines"),
    ("x = 1\n\n\n\n\n\n\n", "nothing"),
    ("import brickwork as wp\n\n\n@wp.kernel\ndef other(a: wp.array(dtype=float)):\n    a[0] = 7.0\n", "'def other'"),
])
@pytest.mark.parametrize("decorator", ["kernel", "func"])
def test_a_definition_its_file_no_longer_holds_is_named(tmp_path, file_text, found, decorator):
    path = tmp_path / "changed.py"
    path.write_text(file_text)
    text = CODE.format(decorator=decorator, returns=")" if decorator == "kernel" else ") -> float",
                       body="a[0] = 5.0" if decorator == "kernel" else "return a[0]")
    namespace = {}
    with pytest.raises(KernelSyntaxError) as e:
        exec(compile(text, str(path), "exec"), namespace)
        declared = namespace["declared"]
        if decorator == "kernel":
            wp.launch(declared, 1, inputs=[wp.zeros(1, dtype=float)])
        else:
            declared(wp.zeros(1, dtype=float))
    assert str(e.value) == (f"cannot find the source of declared: its code starts at {path}:4, where the file now has "
                            f"{found}; the file changed after this code was compiled from it: run or reload it again")
    assert path.read_text() == file_text
