"""``wp.ModuleBuildOptions`` (Warp 1.19's ``extra_build_options`` module option): a module's preamble and include
directories reach its kernels' C++ (a ``wp.func_native`` snippet, or a ``wp.build_experimental.add_builtin``
function, calls what they declare), on the CPU, the emulation target and through NVRTC; the preamble, the
directories and the dependencies' contents are in the cache key."""

from __future__ import annotations

import numpy as np
import pytest

import brickwork as wp
from brickwork import config, pipeline
from brickwork.jit import nvrtc

HEADER = "namespace addon {\nCUDA_CALLABLE inline float triple(float x) { return 3.0f * x; }\n}\n"


@wp.func_native("return addon::triple(x) + addon_offset();")
def tripled(x: float) -> float: ...


# Warp's experimental registration: wp.addon_triple(x) in kernels calls addon::triple
addon_triple = wp.build_experimental.add_builtin("addon_triple", {"x": wp.float32}, wp.float32,
                                                 native_name="addon::triple")


def _kernel():
    @wp.kernel(module="unique")
    def apply_addon(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = tripled(a[i]) - wp.addon_triple(a[i] * 2.0)

    return apply_addon


class Addon:
    # not a module-level kernel: tests/targets/test_cuda_nvrtc.py compiles those without their module's options,
    # which this kernel's C++ needs (its NVRTC compile with them is tested here)
    kernel = _kernel()


TYPES = Addon.kernel.concrete_types()


@pytest.fixture
def addon_dir(tmp_path):
    (tmp_path / "addon.h").write_text(HEADER)
    return tmp_path


def _options(folder, offset: str, **extra):
    preamble = f"#include <addon.h>\nCUDA_CALLABLE inline float addon_offset() {{ return {offset}f; }}"
    return wp.ModuleBuildOptions(extra_cpu_include_dirs=[str(folder)], extra_cpu_preamble=preamble,
                                 extra_cuda_include_dirs=[str(folder)], extra_cuda_preamble=preamble, **extra)


def _run(kernel, target: str = "cpu") -> np.ndarray:
    a = wp.array(np.arange(5, dtype=np.float32))
    out = wp.zeros(5, dtype=float)
    with config.override(target=target):
        wp.launch(kernel, dim=5, inputs=[a, out])
    return out.numpy()


def test_the_preamble_and_include_directories_reach_the_kernel_and_its_key(addon_dir):
    wp.set_module_options({"extra_build_options": _options(addon_dir, "0.5")}, module=Addon.kernel.module)
    np.testing.assert_array_equal(_run(Addon.kernel), -3.0 * np.arange(5) + 0.5)
    first = pipeline.key_parts(Addon.kernel, TYPES)["module build options"]
    # another preamble: the kernel is built again at its next launch (as Warp's), under another key
    wp.set_module_options({"extra_build_options": _options(addon_dir, "1.5")}, module=Addon.kernel.module)
    assert pipeline.key_parts(Addon.kernel, TYPES)["module build options"] != first
    np.testing.assert_array_equal(_run(Addon.kernel, "cuda-emulation"), -3.0 * np.arange(5) + 1.5)
    np.testing.assert_array_equal(_run(Addon.kernel), -3.0 * np.arange(5) + 1.5)
    # Warp's options come back as they were set; a module without build options keeps its keys as they were
    assert wp.get_module_options(Addon.kernel.module)["extra_build_options"].extra_cpu_include_dirs == [str(addon_dir)]
    wp.set_module_options({"extra_build_options": None}, module=Addon.kernel.module)
    assert "module build options" not in pipeline.key_parts(Addon.kernel, TYPES)


def test_a_dependency_s_contents_are_read_when_the_option_is_set(addon_dir):
    dependency = addon_dir / "addon.h"
    options = _options(addon_dir, "0.5", extra_build_dependencies=[str(dependency)])
    wp.set_module_options({"extra_build_options": options}, module=Addon.kernel.module)
    first = pipeline.key_parts(Addon.kernel, TYPES)["module build options"]
    dependency.write_text(HEADER.replace("3.0f", "4.0f"))
    assert pipeline.key_parts(Addon.kernel, TYPES)["module build options"] == first  # read again when set again
    wp.set_module_options({"extra_build_options": options}, module=Addon.kernel.module)
    second = pipeline.key_parts(Addon.kernel, TYPES)["module build options"]
    assert second != first
    wp.set_module_options({"extra_build_options": None}, module=Addon.kernel.module)
    # an option put in the module's dict itself (Warp reads the dict when it builds) is read at the next key
    Addon.kernel.module.options["extra_build_options"] = options
    assert pipeline.key_parts(Addon.kernel, TYPES)["module build options"] == second
    Addon.kernel.module.options["extra_build_options"] = wp.ModuleBuildOptions(extra_cpu_include_dirs=["relative"])
    with pytest.raises(ValueError, match=f"module '{Addon.kernel.module.name}': ModuleBuildOptions.extra_cpu_include_"):
        pipeline.key_parts(Addon.kernel, TYPES)
    wp.set_module_options({"extra_build_options": None}, module=Addon.kernel.module)


def test_merged_keeps_the_first_of_each_path_and_joins_the_preambles():
    base = wp.ModuleBuildOptions(extra_cuda_include_dirs=["cuda/base", "shared"], extra_cpu_include_dirs=["cpu/base"],
                                 extra_cuda_preamble="#define BASE_CUDA 1", extra_cpu_preamble="#define BASE_CPU 1\n",
                                 extra_build_dependencies=["base.h"])
    addon = wp.ModuleBuildOptions(extra_cuda_include_dirs=["shared", "cuda/addon"], extra_cpu_preamble="#define A 1",
                                  extra_build_dependencies=["base.h", "addon.h"])
    merged = base.merged(addon, wp.ModuleBuildOptions())
    assert merged.extra_cuda_include_dirs == ["cuda/base", "shared", "cuda/addon"]
    assert merged.extra_cpu_include_dirs == ["cpu/base"]
    assert merged.extra_cuda_preamble == "#define BASE_CUDA 1"
    assert merged.extra_cpu_preamble == "#define BASE_CPU 1\n#define A 1"
    assert merged.extra_build_dependencies == ["base.h", "addon.h"]
    assert base.extra_cuda_include_dirs == ["cuda/base", "shared"]  # the inputs are unchanged
    with pytest.raises(TypeError, match="ModuleBuildOptions.merged takes ModuleBuildOptions instances, got object"):
        base.merged(object())
    with pytest.raises(TypeError, match="extra_cpu_preamble must be a str of C\\+\\+ code, got int"):
        wp.ModuleBuildOptions(extra_cpu_preamble=1)
    with pytest.raises(TypeError, match="extra_cpu_include_dirs must be a list of paths, got the single path '/usr'"):
        wp.ModuleBuildOptions(extra_cpu_include_dirs="/usr")


def test_bad_build_options_are_refused_by_name_and_change_nothing(addon_dir):
    kept = wp.ModuleBuildOptions(extra_cpu_preamble="#define KEPT 1")
    wp.set_module_options({"extra_build_options": kept}, module=Addon.kernel.module)
    key = pipeline.key_parts(Addon.kernel, TYPES)
    bad = [({"extra_build_options": "#include <x.h>"}, TypeError,
            "the module option 'extra_build_options' must be a wp.ModuleBuildOptions instance \\(or None\\), got str"),
           ({"extra_build_options": wp.ModuleBuildOptions(extra_cpu_include_dirs=["relative/dir"]), "max_unroll": 3},
            ValueError, "ModuleBuildOptions.extra_cpu_include_dirs must name absolute paths of existing directories: 'relative/dir' "
                        "\\(not absolute\\)"),
           ({"extra_build_options": wp.ModuleBuildOptions(extra_build_dependencies=[str(addon_dir / "none.h")])},
            ValueError, f"ModuleBuildOptions.extra_build_dependencies must name absolute paths of existing files: '{addon_dir / 'none.h'}' \\(not an existing file\\)")]
    for options, error, message in bad:
        with pytest.raises(error, match=f"set_module_options: {message}"):
            wp.set_module_options(options, module=Addon.kernel.module)
        assert wp.get_module_options(Addon.kernel.module)["extra_build_options"] is kept
        assert wp.get_module_options(Addon.kernel.module)["max_unroll"] == 16
        assert pipeline.key_parts(Addon.kernel, TYPES) == key
    with pytest.raises(TypeError, match="@kernel for 'refused': the module option 'extra_build_options' must be"):
        wp.kernel(module="unique", module_options={"extra_build_options": 1})(_refused)
    wp.set_module_options({"extra_build_options": None}, module=Addon.kernel.module)


def test_add_builtin_refuses_a_conflicting_signature_and_bad_input():
    again = wp.build_experimental.add_builtin("addon_triple", {"x": wp.float32}, wp.float32, native_name="addon::triple")
    assert again is addon_triple and wp.addon_triple is addon_triple and len(addon_triple.overloads) == 1
    bad = [(dict(name="addon_triple", input_types={"x": wp.float32}, value_type=wp.float64,
                 native_name="addon::triple"), RuntimeError,
            "cannot register conflicting external builtin 'addon_triple' with input types \\(x: float32\\) -> "
            "float64 as addon::triple \\(registered: \\(x: float32\\) -> float32 as addon::triple\\)"),
           (dict(name="addon_triple", input_types={"x": wp.float32}, value_type=wp.float32, native_name="other::f"),
            RuntimeError, "cannot register conflicting external builtin 'addon_triple' with input types .* as other::f"),
           (dict(name="sin", input_types={"x": float}), ValueError, "'sin' is a name of brickwork's own \\(wp.sin\\)"),
           (dict(name="not-valid"), ValueError, "name must be a valid Python identifier, got 'not-valid'"),
           (dict(name="addon_bad", native_name="addon::bad-name"), ValueError,
            "native_name must be a qualified C\\+\\+ identifier, got 'addon::bad-name'"),
           (dict(name="addon_list", input_types=[]), TypeError, "input_types must be a mapping")]
    for arguments, error, message in bad:
        with pytest.raises(error, match=f"add_builtin: {message}"):
            wp.build_experimental.add_builtin(**arguments)
    assert not any(hasattr(wp, n) for n in ("not-valid", "addon_bad", "addon_list"))
    assert wp.sin(0.0) == 0.0  # brickwork's own builtin is left as it was
    with pytest.raises(TypeError, match="can be called in kernels and functions only"):
        wp.addon_triple(1.0)
    assert len(addon_triple.overloads) == 1


# Overloads of one name (Warp's registry takes them): C++ picks scale::twice by its argument's type, brickwork
# the registration by the kernel's argument types (exactly, else the first a number literal converts to)
SCALE = ("namespace scale {\nCUDA_CALLABLE inline float twice(float x) { return 2.0f * x; }\n"
         "CUDA_CALLABLE inline double twice(double x) { return 2.0 * x + 0.25; }\n"
         "CUDA_CALLABLE inline int twice(int x) { return 2 * x + 1; }\n}\n")
for scale_type in (wp.float32, wp.float64, wp.int32):
    addon_twice = wp.build_experimental.add_builtin("addon_twice", {"x": scale_type}, scale_type,
                                                    native_name="scale::twice")
addon_twice_f64 = wp.build_experimental.add_builtin("addon_twice_f64", {"x": wp.float64}, wp.float64,
                                                    native_name="scale::twice")


def _overloads_kernel():
    options = {"extra_build_options": wp.ModuleBuildOptions(extra_cpu_preamble=SCALE, extra_cuda_preamble=SCALE)}

    @wp.kernel(module="unique", module_options=options)
    def twice_each(a: wp.array(dtype=wp.float32), b: wp.array(dtype=wp.float64), c: wp.array(dtype=wp.int32),
                   out_a: wp.array(dtype=wp.float32), out_b: wp.array(dtype=wp.float64), out_c: wp.array(dtype=wp.int32)):
        i = wp.tid()
        out_a[i] = wp.addon_twice(a[i])
        out_b[i] = wp.addon_twice(b[i]) + wp.addon_twice_f64(2)  # the literal 2 becomes the float64 parameter
        out_c[i] = wp.addon_twice(c[i])

    @wp.kernel(module="unique", module_options=options)
    def twice_vector(v: wp.array(dtype=wp.vec3)):
        v[0] = wp.addon_twice(v[0])

    return twice_each, twice_vector


def test_add_builtin_overloads_are_chosen_by_argument_types():
    twice_each, twice_vector = _overloads_kernel()
    assert wp.addon_twice is addon_twice and [c[0][0][1] for c, _ in addon_twice.overloads] == [
        wp.float32, wp.float64, wp.int32]
    a, b = wp.array(np.arange(4, dtype=np.float32)), wp.array(np.arange(4, dtype=np.float64))
    c = wp.array(np.arange(4, dtype=np.int32))
    outs = [wp.zeros(4, dtype=t) for t in (wp.float32, wp.float64, wp.int32)]
    wp.launch(twice_each, dim=4, inputs=[a, b, c, *outs])
    np.testing.assert_array_equal(outs[0].numpy(), 2.0 * np.arange(4))
    np.testing.assert_array_equal(outs[1].numpy(), 2.0 * np.arange(4) + 0.25 + 4.25)
    np.testing.assert_array_equal(outs[2].numpy(), 2 * np.arange(4) + 1)
    v = wp.array(np.ones((1, 3), dtype=np.float32), dtype=wp.vec3)
    with pytest.raises(wp.KernelTypeError, match="wp.addon_twice\\(\\): no overload takes arguments \\(vec3f\\); "
                       "registered: \\(x: float32\\) -> float32 as scale::twice; \\(x: float64\\)") as error:
        wp.launch(twice_vector, dim=1, inputs=[v])
    assert "test_module_build_options.py" in str(error.value)
    np.testing.assert_array_equal(v.numpy(), np.ones((1, 3)))


def _refused(out: wp.array(dtype=float)):
    out[0] = 1.0


_refused.__name__ = _refused.__qualname__ = "refused"


@pytest.mark.skipif(not nvrtc.is_available(), reason="NVRTC is not installed")
def test_nvrtc_compiles_the_cuda_preamble_with_its_include_directory(addon_dir):
    from tests.runtime.cuda_fake import FakeDriver, installed

    @wp.kernel(module="unique", module_options={"extra_build_options": _options(addon_dir, "2.0")})
    def on_device(a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = tripled(a[i])

    with installed(FakeDriver()) as fake:
        a = wp.array(np.arange(5, dtype=np.float32), device="cuda:0")
        out = wp.zeros(5, dtype=float, device="cuda:0")
        wp.launch(on_device, dim=5, inputs=[a, out], device="cuda:0")  # NVRTC finds addon.h: the module loads
        assert len(fake.modules) == 1 and len(fake.launches) == 1
