"""Python's arithmetic operators on array classes (``a + b``, ``2 * a``, ``a += b``, ``-a``): each a kernel
launch over the elements, as Warp's ``wp.map``."""

from __future__ import annotations

#: ``apply(op, operands, out)``: run the kernel operator ``op`` ("add", "neg", ...) over arrays element by
#: element (``wp.map``); installed by ``runtime.map``, which the facade imports (the types layer cannot
#: import the runtime). The arithmetic operators of arrays call it, as Warp's do.
elementwise_operator = None


def _arithmetic(op: str, reflected: bool = False, inplace: bool = False):
    def method(self, other):
        if elementwise_operator is None:
            return NotImplemented
        operands = (other, self) if reflected else (self, other)
        return elementwise_operator(op, operands, self if inplace else None)

    method.__name__ = f"__{'r' if reflected else 'i' if inplace else ''}{op}__"
    method.__doc__ = f"Element by element ``{op}`` (a kernel launch, as Warp's ``wp.map``)."
    return method


def _unary_arithmetic(op: str):
    def method(self):
        if elementwise_operator is None:
            raise TypeError(f"bad operand type for {op}: 'array'")
        return elementwise_operator(op, (self,), None)

    method.__name__ = f"__{op}__"
    method.__doc__ = f"Element by element ``{op}`` (a kernel launch, as Warp's ``wp.map``)."
    return method


def install_arithmetic(cls) -> None:
    """Give an array class Python's arithmetic operators (plain, reflected, in place, unary), each a
    ``wp.map`` launch."""
    for python, op in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"), ("floordiv", "floordiv"),
                       ("mod", "mod"), ("pow", "pow")):
        setattr(cls, f"__{python}__", _arithmetic(op))
        setattr(cls, f"__r{python}__", _arithmetic(op, reflected=True))
        setattr(cls, f"__i{python}__", _arithmetic(op, inplace=True))
    cls.__neg__ = _unary_arithmetic("neg")
    cls.__pos__ = _unary_arithmetic("pos")
