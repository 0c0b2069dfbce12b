"""Write compat/example_references.json: the digests of Warp's examples, run under Warp itself.

Run with an interpreter that has warp-lang 1.19 installed (a scratch venv, never brickwork's), after
compat/fetch_tests.py fetched the examples into SCRATCH:
    /tmp/warpenv/bin/python compat/make_example_references.py SCRATCH [--only core.example_wave ...]
Each example of compat/example_cases.py runs as compat/run_examples.py runs it (same arguments, same
digest), without the alias. An example that fails under Warp on the CPU is recorded with its error.
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from example_cases import DEFAULT_TIMEOUT_S, RUN  # noqa: E402
from run_examples import REFERENCES, missing_module, run_case  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scratch", type=Path)
    parser.add_argument("--only", nargs="*", help="examples to run again (the others keep their references)")
    args = parser.parse_args(argv)
    references = json.loads(REFERENCES.read_text()) if REFERENCES.exists() else {}
    for name in args.only or sorted(RUN):
        if (why := missing_module(name)) is not None:
            print(f"references: {name}: not run, {why}", flush=True)
            continue
        result = run_case(name, args.scratch, sys.executable, alias=False, timeout=DEFAULT_TIMEOUT_S)
        result.pop("seconds", None)  # times are not references
        result.pop("traceback", None)
        references[name] = result
        print(f"references: {name}: {result.get('error') or str(len(result['arrays'])) + ' arrays'}", flush=True)
    REFERENCES.write_text(json.dumps(dict(sorted(references.items())), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
