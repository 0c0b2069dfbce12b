"""The host's evaluation of a scratch arena's recorded size (``targets/cuda/geometry.arena_function``, generated
Python): the same integers as C's operations on int64 give, for random expressions and deep ones."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from brickwork.targets.cuda.geometry import arena_function

NAMES = ["_a", "_b", "_c"]


def c_div(a, b):
    return 0 if b == 0 else int(math.copysign(abs(a) // abs(b), 1 if (a < 0) == (b < 0) else -1))


OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": c_div,
       "mod": lambda a, b: a - b * c_div(a, b) if b else 0, "max": max, "min": min}


def expressions():
    leaves = st.one_of(st.integers(-50, 50).map(lambda v: (str(v), lambda args, v=v: v)),
                       st.sampled_from(range(3)).map(lambda i: (NAMES[i], lambda args, i=i: args[i])))

    def combine(children):
        def make(op, cast, left, right):
            text = f"{op}[nw]({left[0]}, {right[0]})"
            return (f"{cast}({text})" if cast else text,
                    lambda args: OPS[op](left[1](args), right[1](args)))
        return st.builds(make, st.sampled_from(sorted(OPS)), st.sampled_from(["", "int64", "int32"]), children,
                         children)

    return st.recursive(leaves, combine, max_leaves=40)


@settings(max_examples=200, deadline=None)
@given(expressions(), st.tuples(*[st.integers(-1000, 1000)] * 3))
def test_an_arena_size_evaluates_as_its_operations_do(expression, args):
    text, reference = expression
    assert arena_function(text, NAMES)(args) == reference(args)


def test_a_size_nested_as_deep_as_it_can_be_read_is_evaluated():
    text = "_a"
    for k in range(190):  # Python's parser reads the recorded text up to 200 nested parentheses
        text = f"add[nw]({text}, {k})"
    assert arena_function(text, ["_a"])((5,)) == 5 + sum(range(190))
