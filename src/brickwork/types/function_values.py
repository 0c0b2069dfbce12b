"""Functions as arguments: the type of a function passed to a ``@func`` parameter annotated ``Function``.

The function is known at compile time, so it is its own type: a ``@func`` taking one is instantiated once
per function passed (as for any other argument type), and the parameter names the function in its body.
A string passed to a parameter annotated ``str`` (as Warp takes a format for ``wp.printf``) is bound the
same way: ``StringValueType``, one per string.
"""

from __future__ import annotations

_TYPES: dict = {}  # id(target) -> FunctionValueType (the type keeps its target alive, so ids stay unique)


class FunctionValueType:
    """The type of the compile-time value ``target`` (a ``@func`` or a builtin) bound to a function parameter.
    One object per target, so that types compare by identity as the other kernel types do."""

    __slots__ = ("target",)

    def __new__(cls, target):
        found = _TYPES.get(id(target))
        if found is None:
            found = _TYPES[id(target)] = super().__new__(cls)
            found.target = target
        return found

    def __reduce__(self):  # copies and pickles are the one object
        return FunctionValueType, (self.target,)

    @property
    def __name__(self):
        target = self.target
        return f"Function[{getattr(target, '__qualname__', None) or getattr(target, 'name', repr(target))}]"

    def __repr__(self):
        return self.__name__


class StringValueType(FunctionValueType):
    """The type of a string literal bound to a ``@func`` parameter annotated ``str``: like a function value, a
    compile-time name of the instance's body (``target`` is the string), with no runtime argument."""

    __slots__ = ()
    _strings: dict = {}  # the string -> its type (equal strings: one type, so one instance of the function)

    def __new__(cls, target: str):
        found = cls._strings.get(target)
        if found is None:
            found = cls._strings[target] = object.__new__(cls)
            found.target = target
        return found

    def __reduce__(self):
        return StringValueType, (self.target,)

    @property
    def __name__(self):
        return f"str[{self.target!r}]"


def accepts_function_values(annotation) -> bool:
    """Whether a parameter annotated ``annotation`` takes functions (``Function``, whose class says so)."""
    return isinstance(annotation, type) and getattr(annotation, "accepts_function_values", False) is True
