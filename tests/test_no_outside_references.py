"""Nothing in the repository points outside it.

The project carries, in its own words, the semantics it implements (docs/reference/), so no file may
send the reader to material outside the checkout: a sibling ``shared`` folder, the machine's work
directory, a home directory, or a relative path that climbs above the repository root. Checked on
every file git tracks or would track (``git ls-files --cached --others --exclude-standard``, so new
files count before they are committed):

- a regex for the known outside locations (built from pieces, so that this file does not match it);
- every ``../`` path, resolved from the file's own folder, must stay inside the repository;
- every relative link of a Markdown file must resolve to an existing file inside the repository.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UP = r"\.\./"
SLASH = "[/]"

OUTSIDE = re.compile("|".join([
    UP + "shared",                                                    # the sibling shared folder
    SLASH + "work" + SLASH,                                           # the machine's work directory
    "shared" + SLASH + "(?:spec|seeds|tools|hooks|DESIGN|STYLE)",     # its contents, however reached
    "seeds" + SLASH + "(?:generics|loop_abstraction)",
    "spec" + SLASH + "loop_abstraction",
    r"(?<![\w.~])" + SLASH + r"(?:home|Users)" + SLASH + r"[\w.-]+" + SLASH,  # a home directory
    r"(?<![\w.~])" + SLASH + "root" + SLASH,
]))

#: (file, matched text) pairs that are not references to project material.
ALLOWED = {
    ("docs/env.md", "/" + "home/me/"),  # an example error message naming a user's cache directory
}

CLIMB = re.compile(r"(?:" + UP + r")+[\w.\-/]*")
MD_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def _files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:  # not a git checkout (an sdist, say)
        pytest.skip(f"git ls-files is not available here: {e}")
    return [f for f in out.splitlines() if (ROOT / f).is_file()]


def _text(rel: str) -> str | None:
    data = (ROOT / rel).read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _texts():
    for rel in _files():
        text = _text(rel)
        if text is not None:
            yield rel, text


def _inside(path: str) -> bool:
    resolved = os.path.normpath(path)
    return resolved == str(ROOT) or resolved.startswith(str(ROOT) + os.sep)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def test_no_references_to_outside_locations():
    bad = []
    for rel, text in _texts():
        for m in OUTSIDE.finditer(text):
            if (rel, m.group(0)) not in ALLOWED:
                bad.append(f"{rel}:{_line(text, m.start())}: {m.group(0)!r}")
    assert not bad, "files refer to material outside the repository:\n" + "\n".join(bad)


def test_relative_paths_stay_inside_the_repository():
    bad = []
    for rel, text in _texts():
        folder = (ROOT / rel).parent
        for m in CLIMB.finditer(text):
            if not _inside(os.path.join(folder, m.group(0))):
                bad.append(f"{rel}:{_line(text, m.start())}: {m.group(0)!r}")
    assert not bad, "relative paths climb above the repository root:\n" + "\n".join(bad)


def test_markdown_links_resolve_inside_the_repository():
    bad = []
    checked = 0
    for rel, text in _texts():
        if not rel.endswith(".md"):
            continue
        folder = (ROOT / rel).parent
        for m in MD_LINK.finditer(text):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                continue  # a URL (http:, mailto:, ...) or an anchor in the same page
            path = target.split("#", 1)[0]
            resolved = os.path.normpath(os.path.join(folder, path))
            checked += 1
            if not _inside(resolved) or not os.path.exists(resolved):
                bad.append(f"{rel}:{_line(text, m.start())}: {target!r}")
    assert checked > 0, "no relative Markdown link found: the link pattern is broken"
    assert not bad, "Markdown links that do not resolve to a file in the repository:\n" + "\n".join(bad)


def test_the_checks_catch_outside_references(tmp_path):
    """The patterns themselves: each known outside reference is caught, ordinary text is not."""
    caught = ["see " + ".." + "/shared" + "/spec/x.md", "/" + "work/main/docs", "shared/" + "spec/x.md",
              "seeds/" + "generics.rst", "spec/" + "loop_abstraction.md", "/" + "home/alice/notes.md",
              "/" + "Users/bob/x", "/" + "root/x"]
    for text in caught:
        assert OUTSIDE.search(text), text
    for text in ["docs/reference/loop_abstraction_semantics.md", "~/.cache/brickwork", "shared memory",
                 "/tmp/bench", "a spec/ of the mesh"]:
        assert not OUTSIDE.search(text), text
    assert not _inside(os.path.join(ROOT / "docs", ".." + "/../" + ROOT.name + "-not-this-repository"))
    assert _inside(os.path.join(ROOT / "docs" / "reference", ".." + "/mesh.md"))
