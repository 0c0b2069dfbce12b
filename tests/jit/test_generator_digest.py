"""The code generator's part of every cache key (``toolchain.generator_digest``): an edit of any file of the
generator, a file added or removed, gives another key, so that a developer's next run never reuses kernels
built by the old code; files that are not the generator's do not count."""

import os
import shutil

import pytest

import brickwork as wp
from brickwork.jit import toolchain
from brickwork.targets import keys

PACKAGE = os.path.dirname(toolchain.include_dir())


def _generator_files(package) -> list:
    return [os.path.join(package, sub, name) for sub in toolchain.GENERATOR_FOLDERS
            for name in os.listdir(os.path.join(package, sub)) if name.endswith((".py", ".h"))]


@pytest.fixture
def package(tmp_path):
    """A copy of the package's generator folders (their ``.py`` and ``.h`` files, times kept), to edit."""
    copy = tmp_path / "brickwork"
    for sub in toolchain.GENERATOR_FOLDERS:
        (copy / sub).mkdir(parents=True, exist_ok=True)
    for path in _generator_files(PACKAGE):
        shutil.copy2(path, copy / os.path.relpath(path, PACKAGE))
    return str(copy)


def _edit_in_place(path: str, size_change: bool) -> None:
    """Change one byte (or append a line) without replacing the file; its time is set a second past the
    old one, as a later edit would, so that a coarse file-system clock cannot hide the edit."""
    st = os.stat(path)
    ino = st.st_ino
    with open(path, "r+b") as f:
        if size_change:
            f.seek(0, os.SEEK_END)
            f.write(b"\n# edited\n" if path.endswith(".py") else b"\n// edited\n")
        else:
            first = f.read(1)
            f.seek(0)
            f.write(b"#" if first != b"#" else b"/")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert os.stat(path).st_ino == ino  # really in place: the folder's listing and times stay as they were


def test_the_key_covers_this_package_s_generator_folders():
    assert toolchain.generator_digest.__wrapped__() == toolchain.tree_digest(PACKAGE)


@pytest.mark.parametrize("where", ["passes", "targets/cpu", "frontend", "include", "mesh", ""])
@pytest.mark.parametrize("size_change", [False, True])
def test_an_edit_in_place_of_any_generator_file_changes_the_key(package, where, size_change, monkeypatch):
    @wp.kernel
    def add_one(x: wp.array(dtype=wp.float32)):
        i = wp.tid()
        x[i] = x[i] + 1.0

    class Target:  # the compiler's part of the key is another test's subject
        name = "cpu"

        def identity(self):
            return "a compiler"

    monkeypatch.setattr(keys, "generator_digest", lambda: toolchain.tree_digest(package))
    types = (wp.array(dtype=wp.float32),)
    before = keys.cache_key(keys.key_parts(add_one, types, "release", Target()))
    assert keys.cache_key(keys.key_parts(add_one, types, "release", Target())) == before  # nothing edited
    folder = os.path.join(package, where)
    # the package's own modules: pipeline.py (the compiler's driver, what an entry's metadata holds)
    name = "pipeline.py" if where == "" else sorted(n for n in os.listdir(folder) if n.endswith((".py", ".h")))[0]
    _edit_in_place(os.path.join(folder, name), size_change)
    assert keys.cache_key(keys.key_parts(add_one, types, "release", Target())) != before


def test_a_size_change_alone_changes_the_digest(package):
    path = os.path.join(package, "passes", "__init__.py")
    before = toolchain.tree_digest(package)
    mtime = os.stat(path).st_mtime_ns
    with open(path, "ab") as f:
        f.write(b"# edited\n")
    os.utime(path, ns=(mtime, mtime))  # the old time: only the size tells
    assert toolchain.tree_digest(package) != before


def test_a_file_replaced_by_another_changes_the_digest(package):
    """An editor that writes a new file and renames it over the old one, a checkout, an upgrade."""
    path = os.path.join(package, "ir", "nodes.py")
    before = toolchain.tree_digest(package)
    with open(path + ".new", "wb") as f, open(path, "rb") as old:
        f.write(old.read().replace(b"class ", b"class  ", 1))
    os.replace(path + ".new", path)
    assert toolchain.tree_digest(package) != before


def test_a_generator_file_added_or_removed_changes_the_digest(package):
    before = toolchain.tree_digest(package)
    added = os.path.join(package, "passes", "a_new_pass.py")
    with open(added, "w") as f:
        f.write("")
    with_it = toolchain.tree_digest(package)
    assert with_it != before
    os.remove(added)
    assert toolchain.tree_digest(package) == before
    os.remove(os.path.join(package, "include", "brickwork.h"))
    assert toolchain.tree_digest(package) not in (before, with_it)


def test_files_that_are_not_the_generator_s_do_not_count(package):
    before = toolchain.tree_digest(package)
    for where in ("passes/notes.txt", "include/README.md", "passes/__pycache__/x.cpython-311.pyc"):
        path = os.path.join(package, where)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("x")
    assert toolchain.tree_digest(package) == before


def test_the_digest_stats_each_file_once_and_reads_none(package, monkeypatch):
    stats = []
    real_stat, real_open = os.stat, os.open

    def stat(path, *args, dir_fd=None, **kwargs):
        stats.append(os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path) if dir_fd is not None else path)
        return real_stat(path, *args, dir_fd=dir_fd, **kwargs)

    def open_folder_only(path, flags, *args, **kwargs):
        assert flags & os.O_DIRECTORY, f"the digest opened {path}"
        return real_open(path, flags, *args, **kwargs)

    def no_read(*args, **kwargs):
        raise AssertionError("the digest read a file")

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "open", open_folder_only)
    monkeypatch.setattr("builtins.open", no_read)
    toolchain.tree_digest(package)
    assert sorted(stats) == sorted(_generator_files(package))
