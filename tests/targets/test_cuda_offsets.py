"""The CUDA header's element offsets, run on the host: ``bw::at_split`` (an access with each index's constant
term apart, as the CUDA renderer writes stencils) finds the element ``bw::at`` finds at the summed
indices, in the unit-stride variant's 32-bit arithmetic and in the strided 64-bit one, also where the
variable part alone (a stencil's centre outside the array) would pass int32."""

import random
import re
import subprocess
from pathlib import Path

import pytest

import brickwork

HEADER = Path(brickwork.__file__).resolve().parent / "include" / "brickwork.h"


def _device_offsets() -> str:
    """The header's device-side ``at`` and ``at_split`` definitions (between ``#else`` and ``#endif``)."""
    text = HEADER.read_text()
    start = text.index("// On a GPU the unit-stride variant")
    return text[start:text.index("#endif", start)]


def _cases():
    rng = random.Random(5)
    cases = []
    for nd in (2, 3, 4):
        for _ in range(40):
            shape = [rng.randint(1, 9) for _ in range(nd - 1)] + [rng.randint(1, 40)]
            idx = [rng.randrange(n) for n in shape]
            consts = [rng.randint(-3, 3) for _ in range(nd)]
            cases.append((shape, [i - c for i, c in zip(idx, consts)], consts))
    # 2**31 - 1 elements in 2**11 planes: the centre one plane past the end passes int32, its neighbour does not
    plane = 2**20
    cases.append(([2**11, 1024, 1024], [2**11, 1000, 5], [-1, 0, 0]))
    cases.append(([2**11, 1024, 1024], [2**11 - 1, 1023, 1023], [0, 0, 0]))
    cases.append(([3, plane // 4, 4], [3, 0, 0], [-2, 7, -1]))
    return cases


def _strides(shape):
    out, s = [], 1
    for n in reversed(shape):
        out.insert(0, s)
        s *= n
    return out


@pytest.mark.parametrize("unit", [True, False])
def test_at_split_finds_the_element_at_the_summed_indices(tmp_path, unit):
    from brickwork.jit.toolchain import _find_compiler

    cases = _cases()
    lines = ["#include <cstdint>", "#include <cstdio>", "#define BW_INLINE inline", "namespace bw {",
             "template <class T, int D> struct array_t { T* data; int64_t shape[D]; int64_t strides[D]; };",
             _device_offsets(), "}", "static char base[1];", "int main() {"]
    u = "true" if unit else "false"
    for shape, var, consts in cases:
        nd = len(shape)
        strides = ", ".join(f"{s}LL" for s in _strides(shape))
        shp = ", ".join(f"{n}LL" for n in shape)
        v = ", ".join(f"{x}LL" for x in var)
        summed = ", ".join(f"{x + c}LL" for x, c in zip(var, consts))
        c = ", ".join(str(x) for x in consts)
        lines += [f"  {{ bw::array_t<char, {nd}> a{{base, {{{shp}}}, {{{strides}}}}};",
                  f"    std::printf(\"%lld %lld\\n\", (long long)(&bw::at_split<{u}>(a, {v}, {c}) - base), "
                  f"(long long)(&bw::at<{u}>(a, {summed}) - base)); }}"]
    (tmp_path / "offsets.cpp").write_text("\n".join(lines + ["}"]) + "\n")
    subprocess.run([_find_compiler(), "-O1", "-fno-strict-overflow", "-o", str(tmp_path / "offsets"),
                    str(tmp_path / "offsets.cpp")], check=True)
    got = subprocess.run([str(tmp_path / "offsets")], capture_output=True, text=True, check=True).stdout.split("\n")
    for (shape, var, consts), line in zip(cases, got):
        want = sum((x + c) * s for x, c, s in zip(var, consts, _strides(shape)))
        assert list(map(int, line.split())) == [want, want], (shape, var, consts)
    assert re.search(r"at_split\(const array_t<T, 4>", _device_offsets())
