"""Conservation on periodic domains (to round-off), in 2-D and 3-D and both precisions; the flux
kernels against a direct numpy evaluation of one step."""

import numpy as np
import pytest

KH_2D = {"problem": {"name": "kelvin_helmholtz"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16]}}
BLAST_3D = {"problem": {"name": "blast", "radius": 0.25},
            "mesh": {"nx": [16, 16, 16], "block_nx": [8, 8, 8], "bc_x1": "periodic", "bc_x2": "periodic",
                     "bc_x3": "periodic"}}


def merged_hydro(raw: dict, **hydro_keys) -> dict:
    return dict(raw, hydro=dict(raw.get("hydro", {}), **hydro_keys))


def drift(result):
    from brickwork.io.history import read

    columns, rows = read(result.hydro.cfg["output"]["dir"] + f"/{result.hydro.cfg['output']['basename']}.hst")
    out = {}
    for name in ("mass", "momentum_1", "momentum_2", "momentum_3", "energy"):
        col = rows[:, columns.index(name)]
        scale = max(abs(rows[0, columns.index("mass")]), abs(rows[0, columns.index("energy")]))
        out[name] = float(np.abs(col - col[0]).max() / scale)
    return out, rows


def test_kelvin_helmholtz_conserves(run_hydro):
    result = run_hydro(dict(KH_2D, time={"nlim": 30, "tlim": 10.0}, output={"history": True}))
    assert result.cycle == 30
    change, rows = drift(result)
    assert rows.shape[0] == 31  # one line per state, the initial one included
    assert max(change.values()) < 2e-14, change


@pytest.mark.parametrize("dtype, tol", [("float64", 2e-14), ("float32", 2e-6)])
def test_linear_wave_conserves_in_both_precisions(run_hydro, dtype, tol):
    # blocks of 32 cells: the short-row kernels test_hydro_sod's float32 run compiles too (la/outer.py SHORT_ROW)
    result = run_hydro({"problem": {"name": "linear_wave", "amplitude": 0.1}, "mesh": {"nx": [64], "block_nx": [32]},
                        "hydro": {"dtype": dtype}, "time": {"tlim": 0.5}, "output": {"history": True}})
    change, _ = drift(result)
    assert max(change.values()) < tol, change
    assert result.hydro.interior("density").dtype == np.dtype(dtype)


def test_blast_3d_conserves_and_stays_symmetric(run_hydro):
    result = run_hydro(dict(BLAST_3D, time={"nlim": 12, "tlim": 1.0}, output={"history": True}))
    change, _ = drift(result)
    assert max(change.values()) < 2e-14, change
    rho = result.hydro.to_global(result.hydro.primitive("density"))
    # the blast is centred in a periodic cube: the solution keeps the cube's symmetries
    np.testing.assert_allclose(rho, np.transpose(rho, (2, 1, 0)), rtol=0, atol=1e-12)
    np.testing.assert_allclose(rho, rho[::-1, :, :], rtol=0, atol=1e-12)
    assert rho.max() > 1.2  # the shell formed


def test_reflecting_walls_conserve_mass_and_energy(run_hydro):
    result = run_hydro({"problem": {"name": "blast"}, "mesh": {"nx": [32, 32], "block_nx": [16, 16],
                                                                "bc_x1": "reflecting", "bc_x2": "reflecting"},
                        "time": {"tlim": 0.3}, "output": {"history": True}})
    change, _ = drift(result)
    assert change["mass"] < 2e-14 and change["energy"] < 2e-14, change


@pytest.mark.parametrize("stage", ["split", "fused"])
def test_one_step_matches_numpy(make_config, stage):
    """The first RK stage of a 2-D run (PLM-MC + HLLC) against a numpy transcription of the scheme,
    as separate passes (primitives, fluxes, update) and as one fused pass per block."""
    from brickwork.apps import hydro

    cfg = make_config(merged_hydro(KH_2D, stage=stage))
    sim = hydro.Hydro(cfg)
    sim.set_initial()
    dt = sim.check()
    u0 = {k: v.copy() for k, v in sim.state().items()}
    if stage == "split":
        sim.kernels.fluxes()  # check() computed the primitives
        sim.kernels.update(0.0, 1.0, dt, first=True)
    else:
        sim.kernels.stage(0.0, 1.0, dt, first=True)
    g = sim.gamma
    ng = cfg["mesh"]["nghost"]
    # the global periodic state with ghosts, from the stored blocks
    rho = sim.to_global(u0["density"][:, 0, :, ng:-ng, ng:-ng])[0]
    mom = [sim.to_global(u0["momentum"][:, c, :, ng:-ng, ng:-ng])[0] for c in range(3)]
    ene = sim.to_global(u0["energy"][:, 0, :, ng:-ng, ng:-ng])[0]
    w = np.stack([rho, mom[0] / rho, mom[1] / rho, mom[2] / rho,
                  (g - 1) * (ene - 0.5 * (mom[0] ** 2 + mom[1] ** 2 + mom[2] ** 2) / rho)])

    def mc(dl, dr):
        c = 0.5 * (dl + dr)
        m = np.minimum(np.minimum(2 * np.abs(dl), 2 * np.abs(dr)), np.abs(c))
        return np.where(dl * dr > 0, np.where(c < 0, -m, m), 0.0)

    def hllc(wl, wr, n):
        t1, t2 = [c for c in (1, 2, 3) if c != n]

        def state(q):
            e = q[4] / (g - 1) + 0.5 * q[0] * (q[1] ** 2 + q[2] ** 2 + q[3] ** 2)
            m = q[0] * q[n]
            flux = np.stack([m, m * q[n] + q[4], m * q[t1], m * q[t2], (e + q[4]) * q[n]])
            return np.stack([q[0], q[0] * q[n], q[0] * q[t1], q[0] * q[t2], e]), e, flux

        ul, el, fl = state(wl)
        ur, er, fr = state(wr)
        cl, cr = np.sqrt(g * wl[4] / wl[0]), np.sqrt(g * wr[4] / wr[0])
        sl, sr = np.sqrt(wl[0]), np.sqrt(wr[0])
        avg = [(sl * wl[c] + sr * wr[c]) / (sl + sr) for c in (1, 2, 3)]
        h = (sl * (el + wl[4]) / wl[0] + sr * (er + wr[4]) / wr[0]) / (sl + sr)
        c = np.sqrt(np.maximum((g - 1) * (h - 0.5 * sum(a * a for a in avg)), 0))
        smin = np.minimum(wl[n] - cl, avg[n - 1] - c)
        smax = np.maximum(wr[n] + cr, avg[n - 1] + c)
        ml, mr = wl[0] * (smin - wl[n]), wr[0] * (smax - wr[n])
        sm = (wr[4] - wl[4] + ml * wl[n] - mr * wr[n]) / (ml - mr)

        def star(q, u, e, f, s, m):  # Toro's HLLC star flux of one side
            rs = m / (s - sm)
            ps = q[4] + m * (sm - q[n])
            es = (e * (s - q[n]) + ps * sm - q[4] * q[n]) / (s - sm)
            return f + s * (np.stack([rs, rs * sm, rs * q[t1], rs * q[t2], es]) - u)

        f = np.where(smin >= 0, fl, np.where(smax <= 0, fr, np.where(sm >= 0, star(wl, ul, el, fl, smin, ml),
                                                                       star(wr, ur, er, fr, smax, mr))))
        out = f.copy()
        out[[n, t1, t2]] = f[1:4]  # back to (rho, m1, m2, m3, E) order
        return out

    du = np.zeros((5,) + rho.shape)
    dx = 1.0 / 32
    for axis, n in ((1, 1), (0, 2)):  # x1 is the last array axis
        wm, wp_ = np.roll(w, 1, axis + 1), np.roll(w, -1, axis + 1)
        slope = 0.5 * mc(w - wm, wp_ - w)
        lower, upper = w - slope, w + slope
        f = hllc(np.roll(upper, 1, axis + 1), lower, n)  # flux through the lower face of each cell
        du -= dt / dx * (np.roll(f, -1, axis + 1) - f)
    ref = np.stack([rho, *mom, ene]) + du
    got = [sim.to_global(sim.interior("density"))[0]] + \
          [sim.to_global(sim.interior("momentum", c))[0] for c in range(3)] + [sim.to_global(sim.interior("energy"))[0]]
    np.testing.assert_allclose(np.stack(got), ref, rtol=0, atol=1e-13)
