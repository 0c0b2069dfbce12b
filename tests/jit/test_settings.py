"""``BRICKWORK_*`` values: only the documented ones are accepted; an invalid one is a ``SettingError``
naming the variable, the value and what is accepted, raised where the setting is used and by the first
kernel load, never a silent default and never a failed ``import brickwork``."""

import json
import os
import subprocess
import sys

import pytest

import brickwork as wp
from brickwork import config
from brickwork.jit import cache

from .test_cache import SRC

#: A script: ``import brickwork`` works; what it reports; then a kernel launch.
PROBE = """
import json
import brickwork as wp
from brickwork import config
result = {"problems": config.problems()}
@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0
try:
    wp.launch(k, dim=1, inputs=[wp.zeros(1)])
except wp.config.SettingError as e:
    result["launch"] = [type(e).__name__, isinstance(e, ValueError), str(e)]
print(json.dumps(result))
"""


@pytest.mark.parametrize(("name", "value", "message"), [
    ("BRICKWORK_LOG", "verbose", "must be one of debug, info, warning"),
    ("BRICKWORK_PCH", "maybe", "must be one of 1, true, yes, on (on) or 0, false, no, off (off)"),
    ("BRICKWORK_VERIFY_FP", "2", "must be one of 1, true, yes, on (on) or 0, false, no, off (off)"),
    ("BRICKWORK_NUM_THREADS", "0", "must be at least 1"),
    ("BRICKWORK_NUM_THREADS", "x", "is not an integer"),
    ("BRICKWORK_NUM_THREADS", "99999999999999999999", "must be at most 2147483647"),
    ("BRICKWORK_MODE", "fast", "must be one of release, debug"),
    ("BRICKWORK_CACHE_LOCK", "nfs", "must be one of auto, flock, claim"),
])
def test_an_invalid_value_is_reported_at_the_first_kernel_not_at_import(tmp_path, name, value, message):
    script = tmp_path / "probe.py"  # a file: kernels need their source
    script.write_text(PROBE)
    env = dict(os.environ, PYTHONPATH=SRC, BRICKWORK_CACHE_DIR=str(tmp_path / "cache"), **{name: value})
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    expected = f"environment variable {name}={value!r} {message}"
    assert json.loads(out.stdout) == {"problems": [expected], "launch": ["SettingError", True, expected]}
    assert not list(tmp_path.glob("cache/**/kernel.so"))  # nothing was built under a setting that was ignored


@pytest.mark.parametrize(("value", "on"), [("1", True), ("TRUE", True), (" yes ", True), ("On", True),
                                           ("0", False), ("false", False), ("No", False), ("OFF", False)])
def test_switches_take_their_documented_spellings(monkeypatch, value, on):
    monkeypatch.setenv("BRICKWORK_PCH", value)
    assert config._env_bool("BRICKWORK_PCH", not on) is on
    monkeypatch.setenv("BRICKWORK_PCH", "")
    assert config._env_bool("BRICKWORK_PCH", True) is True  # empty: the default


@pytest.mark.parametrize(("value", "level"), [("DEBUG", "debug"), ("Info", "info"), ("warning", "warning"),
                                             ("", "warning")])
def test_log_levels(monkeypatch, value, level):
    monkeypatch.setenv("BRICKWORK_LOG", value)
    assert config._env_choice("BRICKWORK_LOG", config.LOG_LEVELS, "warning") == level


@pytest.fixture
def invalid_mode(monkeypatch):
    """``config`` as an import under ``BRICKWORK_MODE=fast`` leaves it."""
    message = "environment variable BRICKWORK_MODE='fast' must be one of release, debug"
    monkeypatch.setitem(config.invalid, "mode", message)
    monkeypatch.delattr(config, "mode")
    return message


def test_an_invalid_setting_raises_where_it_is_read_until_assigned(invalid_mode, root):
    with pytest.raises(config.SettingError, match=invalid_mode):
        _ = config.mode
    with pytest.raises(config.SettingError, match=invalid_mode):
        cache.lookup("ab" + "c" * 38)  # every kernel load passes here
    assert config.problems() == [invalid_mode]
    with config.override(mode="debug"):
        assert config.mode == "debug" and config.problems() == []
        config.check()
    with pytest.raises(config.SettingError, match=invalid_mode):  # unset again after the block
        config.check()
    config.mode = "release"
    assert config.problems() == [] and cache.lookup("ab" + "c" * 38) is None


def test_override_still_refuses_a_name_that_is_no_setting():
    with pytest.raises(AttributeError, match="no setting 'modes'"), config.override(modes="debug"):
        pass


WARP_CACHE_PROBE = """
import sys
import brickwork as wp
wp.config.kernel_cache_dir = sys.argv[1]  # Warp's setting, before the first launch
@wp.kernel
def k(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.5
a = wp.zeros(2)
wp.launch(k, dim=2, inputs=[a])
print(a.numpy().tolist())
"""


def test_warps_kernel_cache_dir_is_where_kernels_are_cached(tmp_path):
    """``wp.config.kernel_cache_dir`` (Warp's name) was set and ignored: kernels went to the default cache."""
    script = tmp_path / "probe.py"
    script.write_text(WARP_CACHE_PROBE)
    env = dict(os.environ, PYTHONPATH=SRC, BRICKWORK_CACHE_DIR=str(tmp_path / "default"))
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "warp")], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[2.5, 2.5]"
    assert len(list(tmp_path.glob("warp/**/kernel.so"))) >= 1
    assert not list(tmp_path.glob("default/**/kernel.so"))


def test_kernel_cache_dir_unset_leaves_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setattr(config, "cache_dir", str(tmp_path / "mine"))
    assert config.kernel_cache_dir is None and cache.cache_root() == str(tmp_path / "mine")
    monkeypatch.setattr(config, "kernel_cache_dir", "~/warp-kernels")
    assert cache.cache_root() == os.path.expanduser("~/warp-kernels")


LOG_LEVEL_PROBE = """
import brickwork as wp
wp.config.compile_module = False  # each kernel loads at its own launch, under the level set then
@wp.kernel
def first(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0
@wp.kernel
def second(a: wp.array(dtype=float)):
    a[wp.tid()] = 2.0
@wp.kernel
def third(a: wp.array(dtype=float)):
    a[wp.tid()] = 3.0
a = wp.zeros(1)
wp.config.log_level = wp.LOG_INFO  # Warp 1.19's spelling
wp.launch(first, dim=1, inputs=[a])
with wp.config.override(log_level="warning"):
    wp.launch(second, dim=1, inputs=[a])
wp.config.log_level = "verbose"
try:
    wp.launch(third, dim=1, inputs=[a])
except wp.config.SettingError as e:
    print(e)
print(a.numpy().tolist())
wp.config.log_level = "warning"
wp.launch(third, dim=1, inputs=[a])
print(a.numpy().tolist())
"""


def test_log_level_assigned_at_run_time_takes_effect(tmp_path):
    """``wp.config.log_level = wp.LOG_INFO`` (how Warp 1.19 shows its module loads) was applied at import only:
    assigned later, it showed nothing. Now an assignment applies at the next kernel load, back and forth; a value
    that is no level makes the next load a SettingError (nothing runs) until it is corrected."""
    script = tmp_path / "probe.py"
    script.write_text(LOG_LEVEL_PROBE)
    env = dict(os.environ, PYTHONPATH=SRC, BRICKWORK_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("BRICKWORK_LOG", None)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "brickwork.config.log_level must be one of debug, info, warning, error or a logging level number "
        "(wp.LOG_INFO), got 'verbose'", "[2.0]", "[3.0]"]
    lines = [line for line in out.stderr.splitlines() if line.startswith("brickwork: ")]
    assert len(lines) == 1 and lines[0].startswith("brickwork: first compiled for cpu in "), out.stderr


def test_a_setting_name_that_is_no_settings_warns_naming_the_closest(recwarn):
    """``wp.config.mdoe = "debug"`` was kept without a word (and release kernels were built); now the next
    kernel load warns, once. Warp's own settings that brickwork has no use for (``lineinfo``) and
    brickwork's are assigned quietly."""
    try:
        config.mdoe = "debug"
        with pytest.warns(UserWarning, match=r"brickwork.config has no setting 'mdoe' \(did you mean 'mode'\?\); "
                                             r"the value is kept and changes nothing"):
            config.settle()  # what every kernel load calls first (jit/store.lookup)
        assert config.mdoe == "debug" and config.mode == "release"
        recwarn.clear()
        config.settle()  # once
        config.lineinfo = True
        with config.override(verbose=True, num_threads=1):
            config.settle()
        assert not [w for w in recwarn if "brickwork.config" in str(w.message)]
    finally:
        for name in ("mdoe", "lineinfo"):
            if name in vars(config):
                delattr(config, name)


@wp.kernel
def settle_probe(a: wp.array(dtype=float)):
    a[wp.tid()] = 4.0


def test_a_kernel_load_settles_assigned_settings(recwarn):
    """The warning comes from the load itself (jit/store.lookup calls config.settle), not from a test's call."""
    try:
        config.sizez = 3
        a = wp.zeros(2)
        with pytest.warns(UserWarning, match=r"no setting 'sizez'"):
            wp.launch(settle_probe, dim=2, inputs=[a])
        assert a.numpy().tolist() == [4.0, 4.0]
    finally:
        if "sizez" in vars(config):
            delattr(config, "sizez")
