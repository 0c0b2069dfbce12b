"""README.md says what the code does: its links resolve and cover every guide in docs/, and its `brickwork run`
commands are valid and write the files it lists (its kernel runs, and prints what its comments say, in
tests/docs/test_docs_examples.py)."""

import os
import re
import shlex

import pytest

from brickwork.apps import hydro

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
README = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()


def test_links_resolve_and_cover_every_guide():
    links = re.findall(r"\]\(([^)#]+)\)", README)
    for link in links:
        assert os.path.exists(os.path.join(ROOT, link)), link
    guides = sorted(f"docs/{name}" for name in os.listdir(os.path.join(ROOT, "docs")) if name.endswith(".md"))
    assert set(guides) <= set(links), sorted(set(guides) - set(links))


def test_set_up_commands_exist():
    makefile = open(os.path.join(ROOT, "Makefile")).read()
    for target in ("demo", "test"):
        assert f"make {target}" in README
        assert re.search(rf"^{target}:", makefile, re.M)


def run_commands():
    sh = re.search(r"## A simulation\n\n```sh\n(.*?)```", README, re.S).group(1)
    return [shlex.split(line.split("#", 1)[0]) for line in sh.splitlines() if line.startswith("brickwork run")]


def test_the_run_commands_are_valid():
    commands = run_commands()
    assert len(commands) == 3
    first = None
    for words in commands:
        assert words[:2] == ["brickwork", "run"]
        args = words[2:]
        restart = args[args.index("--restart") + 1] if "--restart" in args else None
        overrides = [a for a in args[1:] if "=" in a and a != restart]
        cfg = hydro.load_config(os.path.join(ROOT, args[0]), overrides)
        first = first or cfg
        if restart is not None:  # names a restart file the first command writes
            out = first["output"]
            assert restart == f"{out['dir']}/{out['basename']}.rst.00000.npz"


def test_the_first_run_writes_the_files_listed(tmp_path):
    pytest.importorskip("h5py")
    pytest.importorskip("matplotlib")
    words = run_commands()[0]
    cfg = hydro.load_config(os.path.join(ROOT, words[2]), [f"output.dir={tmp_path}"])
    hydro.run(cfg, progress=False)
    listed = re.search(r"The first command writes into `sod_output/`: (.*?)\. Settings", README, re.S).group(1)
    names = set()
    for stem, numbers, suffix in re.findall(r"`sod\.([a-z.]*?)0000\{([\d,]+)\}(\.\w+)`", listed):
        names |= {f"sod.{stem}0000{n}{suffix}" for n in numbers.split(",")}
    names |= {n.replace(".h5", ".xdmf") for n in names if n.endswith(".h5")}  # "+ `.xdmf`"
    names.add("sod.hst")
    assert sorted(os.listdir(tmp_path)) == sorted(names)
