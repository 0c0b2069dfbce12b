"""Index limits the compiler relies on, importable without the typer (the runtime checks them)."""

#: Indices of launches, loop bodies and index spaces stay within +-INDEX_LIMIT, so index arithmetic
#: with small offsets cannot overflow int32 (the compiler keeps that arithmetic plain and vectorizable).
INDEX_LIMIT = 2**30

#: Why a kernel cannot return a value, in Warp's words (its tests match them).
KERNEL_RETURN = ("Warp kernels cannot return values. Write results to output arguments, and omit the return "
                 "annotation or use `-> None`.")
