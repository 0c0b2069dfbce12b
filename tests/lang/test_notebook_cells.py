"""A notebook's cells run again (newuser round 14). IPython is not a dependency: a cell is simulated as IPython runs
one, its text registered in linecache under a file name that is not on disk and executed in the notebook's module
namespace. A kernel defined again runs its new body; a ``@wp.func`` defined again is what the kernels that call it
run at their next launch, without running their cells again (as in Warp 1.19, which rebuilds the module: brickwork
kept the first body until the kernel's own cell ran again)."""

import linecache
import pickle
import sys
import types
import typing

import pytest

import brickwork as wp

NOTEBOOK = "bw_notebook_cells"


@pytest.fixture
def notebook():
    module = types.ModuleType(NOTEBOOK)
    module.wp, module.typing = wp, typing
    sys.modules[NOTEBOOK] = module  # as __main__ is a notebook's module
    cells = []

    def run(text: str) -> dict:
        filename = f"<ipython-input-{len(cells) + 1}-{id(cells):x}>"
        cells.append(filename)
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        exec(compile(text, filename, "exec"), vars(module))
        return vars(module)

    yield run
    sys.modules.pop(NOTEBOOK, None)
    for filename in cells:
        linecache.cache.pop(filename, None)


FUNC = '''
@wp.func
def bump(v: float):
    return v + STEP
'''

KERNEL = '''
@wp.kernel
def apply(x: wp.array(dtype=typing.Any)):
    i = wp.tid()
    x[i] = bump(x[i]) * SCALE

apply_float = wp.overload(apply, [wp.array(dtype=float)])
'''

LAUNCH = '''
x = wp.array([0.0, 1.0], dtype=float)
wp.launch(apply, dim=2, inputs=[x])
y = wp.array([0.0, 1.0], dtype=float)
wp.launch(apply_float, dim=2, inputs=[y])  # the same instance as apply's for float32 arrays
'''


def test_a_cell_run_again_with_a_new_body_runs_it(notebook):
    cell = notebook(FUNC.replace("STEP", "1.0") + KERNEL.replace("SCALE", "1.0") + LAUNCH)
    assert cell["x"].numpy().tolist() == [1.0, 2.0] == cell["y"].numpy().tolist()
    kernel = cell["apply"]

    cell = notebook(KERNEL.replace("SCALE", "10.0") + LAUNCH)  # the kernel's cell, edited
    assert cell["apply"] is not kernel and cell["x"].numpy().tolist() == [10.0, 20.0] == cell["y"].numpy().tolist()

    cell = notebook(FUNC.replace("STEP", "2.0") + LAUNCH)  # only the function's cell: the kernel calls the new body
    assert cell["x"].numpy().tolist() == [20.0, 30.0] == cell["y"].numpy().tolist()  # the overload's too
    assert cell["apply"].instances  # built for that launch

    compiled = dict(cell["apply"].instances)
    cell = notebook(FUNC.replace("STEP", "2.0") + LAUNCH)  # the same text again: nothing is rebuilt
    assert cell["apply"].instances == compiled and cell["x"].numpy().tolist() == [20.0, 30.0]


LOOP = '''
z = wp.zeros(3, dtype=float)

def body(i: int):
    z[i] = bump(z[i])

wp.par_for("cell", 3, body)
'''


def test_a_loop_body_calls_a_function_cell_run_again_with_a_new_body(notebook):
    """par_for and the loop abstraction's bodies are the program's kernels too (lang/body.py keeps them apart)."""
    cell = notebook(FUNC.replace("STEP", "1.0") + LOOP)
    assert cell["z"].numpy().tolist() == [1.0, 1.0, 1.0]
    cell = notebook(FUNC.replace("STEP", "10.0") + LOOP)  # the function's new body, the loop's cell run again
    assert cell["z"].numpy().tolist() == [10.0, 10.0, 10.0]


def test_what_a_notebook_shows_for_kernels_functions_structs_and_launches(notebook):
    cell = notebook(FUNC.replace("STEP", "1.0") + KERNEL.replace("SCALE", "1.0") + '''
@wp.struct
class Particle:
    mass: float
    position: wp.vec3

p = Particle()
p.mass = 1.5
''')
    assert repr(cell["apply"]) == str(cell["apply"]) == "<brickwork kernel apply>"
    assert repr(cell["bump"]) == "<brickwork func bump>"
    assert repr(cell["Particle"]) == f"<class '{NOTEBOOK}.Particle'>"
    assert repr(cell["p"]) == "Particle(mass=1.5, position=vec3f([0.0, 0.0, 0.0]))"
    # a kernel of the notebook's module pickles by reference, as multiprocessing sends it (fork start method)
    assert pickle.loads(pickle.dumps(cell["apply"])) is cell["apply"]
