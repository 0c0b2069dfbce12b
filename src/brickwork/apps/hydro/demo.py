"""``brickwork demo``: a 2-D Kelvin-Helmholtz run of about a minute on two cores, ending with a PNG
of the density (``OUT/kelvin_helmholtz.00001.png``)."""

from __future__ import annotations

import time

from brickwork import comm

from . import config, driver, rank_errors

DEMO_TOML = """
[problem]
name = "kelvin_helmholtz"

[mesh]
nx = [256, 256]
block_nx = [64, 64]

[hydro]
reconstruction = "plm"
limiter = "mc"
riemann = "hllc"
integrator = "rk2"

[time]
tlim = 2.0

[output]
dir = "demo_output"
hdf5_dt = -1.0
png_dt = 0.0
"""


def main(overrides=(), log=print) -> driver.RunResult:
    """Run the demo (``overrides`` as on the command line, e.g. ``mesh.nx=[64,64]``)."""
    cfg = rank_errors.on_every_rank(lambda: config.build(config.tomllib.loads(DEMO_TOML), list(overrides),
                                                    source="the demo"))
    if comm.world().Get_rank() != 0:  # under mpiexec rank 0 speaks for the run, as in `brickwork run`
        log = _silent
    log(f"brickwork demo: Kelvin-Helmholtz instability, {'x'.join(map(str, cfg['mesh']['nx']))} cells in "
        f"{'x'.join(map(str, cfg['mesh']['block_nx']))} blocks, PLM + HLLC + SSP-RK2, to t = {cfg['time']['tlim']}")
    start = time.perf_counter()
    result = driver.run(cfg, log=log)
    # output.png_dt = -1 (as for `brickwork run`) is a run without a snapshot: say so, not "None"
    snapshot = result.last_png or "none (output.png_dt = -1)"
    log(f"{cfg['output']['png_variable']} snapshot: {snapshot}  ({time.perf_counter() - start:.1f} s in all)")
    return result


def _silent(*args) -> None:
    """The log of the ranks other than 0."""
