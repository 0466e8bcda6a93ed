"""Write a fading trace for ns-3's TraceFadingLossModel (bench/ns3/lte.cc --fadingTrace).

The `ns3` wheel ships no `fading_trace_*.fad` files, so this makes one: by default an EPA
(Extended Pedestrian A, 3GPP TS 36.104 Annex B.2, Table B.2-1) channel at 3 km/h on the
2120 MHz downlink carrier of lte.cc, 10 s at 1 ms, 100 resource blocks.

The channel: each of the 7 taps is an independent Rayleigh process, a sum of `sinusoids`
complex sinusoids h(t) = M^-1/2 sum_m exp(j(2 pi f_D cos(a_m) t + p_m)) with angles a_m and
phases p_m drawn once (the recipe of radiotcp's Jakes model, crates/radiotcp-core/src/radio/
lte/fading.rs), f_D = v f_c / c. Resource block k (centre f_k = (k - (n - 1) / 2) * 180 kHz
from the carrier) sees H_k(t) = sum_l sqrt(P_l) h_l(t) exp(-j 2 pi f_k tau_l), with the tap
powers P_l normalised to sum 1; the trace holds 10 log10 |H_k(t)|^2 after dividing by its
mean over the whole trace, so its mean power gain is exactly 1 (0 dB).

File format, as TraceFadingLossModel::LoadTrace (ns-3.44 src/spectrum/model/trace-fading-
loss-model.cc) reads it: whitespace-separated decimal numbers in dB, RB by RB (RbNum rows),
each row SamplesNum samples in time; the model reads them with `ifTraceFile >> sample`. (ns-3's
own generator, src/lte/model/fading-traces/fading_trace_generator.m, writes the same layout
with fprintf '%g ' from MATLAB's comm.RayleighChannel; it puts EPA's fifth tap at 120 ns where
36.104 has 110 ns.)

`--profile flat` makes one tap instead (flat Rayleigh: every RB the same gain, as radiotcp's
wideband Jakes), to separate LENA's frequency-selective scheduling from the fading itself.

Usage: python bench/ns3/fading_trace.py OUT.fad [--seconds 10] [--speed-kmh 3] ...
Prints one JSON line of statistics of the trace on stdout.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

# 3GPP TS 36.104 Table B.2-1, Extended Pedestrian A.
EPA_DELAYS_NS = (0.0, 30.0, 70.0, 90.0, 110.0, 190.0, 410.0)
EPA_POWERS_DB = (0.0, -1.0, -2.0, -3.0, -8.0, -17.2, -20.8)
# One tap: flat (frequency-nonselective) Rayleigh fading, every RB the same gain, as
# radiotcp's wideband Jakes model.
PROFILES = {
    "epa": (EPA_DELAYS_NS, EPA_POWERS_DB),
    "flat": ((0.0,), (0.0,)),
}
RB_HZ = 180e3
C = 299_792_458.0


def doppler_hz(speed_kmh: float, carrier_hz: float) -> float:
    return speed_kmh / 3.6 * carrier_hz / C


def epa_gains(
    seconds: float = 10.0,
    rbs: int = 100,
    speed_kmh: float = 3.0,
    carrier_hz: float = 2120e6,
    sinusoids: int = 32,
    seed: int = 1,
    step_s: float = 1e-3,
    profile: str = "epa",
) -> np.ndarray:
    """Power gains |H_k(t)|^2, shape (rbs, samples), normalised to mean 1."""
    tap_delays_ns, tap_powers_db = PROFILES[profile]
    rng = np.random.default_rng(seed)
    samples = round(seconds / step_s)
    t = np.arange(samples) * step_s
    fd = doppler_hz(speed_kmh, carrier_hz)
    powers = 10.0 ** (np.asarray(tap_powers_db) / 10.0)
    powers /= powers.sum()
    delays = np.asarray(tap_delays_ns) * 1e-9
    f_rb = (np.arange(rbs) - (rbs - 1) / 2.0) * RB_HZ
    h = np.zeros((rbs, samples), dtype=complex)
    for p, tau in zip(powers, delays, strict=True):
        alpha = rng.uniform(0.0, 2.0 * math.pi, sinusoids)
        phi = rng.uniform(0.0, 2.0 * math.pi, sinusoids)
        # One tap's Rayleigh process over time, shape (samples,).
        tap = np.exp(1j * (2.0 * math.pi * fd * np.outer(t, np.cos(alpha)) + phi)).sum(axis=1)
        tap /= math.sqrt(sinusoids)
        h += math.sqrt(p) * np.outer(np.exp(-2j * math.pi * f_rb * tau), tap)
    g = np.abs(h) ** 2
    return g / g.mean()


def stats(g: np.ndarray) -> dict:
    db = 10.0 * np.log10(g)
    rbs = g.shape[0]

    def corr_rb(lag: int) -> float:
        a, b = g[: rbs - lag].ravel(), g[lag:].ravel()
        return float(np.corrcoef(a, b)[0, 1])

    def corr_t(lag: int) -> float:
        a, b = g[:, :-lag].ravel(), g[:, lag:].ravel()
        return float(np.corrcoef(a, b)[0, 1])

    return {
        "rbs": int(rbs),
        "samples": int(g.shape[1]),
        "mean_gain": float(g.mean()),
        "mean_db": float(db.mean()),
        "std_db": float(db.std()),
        "p01_db": float(np.percentile(db, 1)),
        "p99_db": float(np.percentile(db, 99)),
        # mean over time of the wideband (RB-averaged) gain's spread: how flat each TTI is
        "within_tti_std_db": float(db.std(axis=0).mean()),
        "corr_rb_4": corr_rb(4),
        "corr_rb_25": corr_rb(25),
        "corr_t_10ms": corr_t(10),
        "corr_t_50ms": corr_t(50),
    }


def write_trace(path: Path, g: np.ndarray) -> None:
    db = 10.0 * np.log10(g)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    np.savetxt(tmp, db, fmt="%.4f", delimiter=" ")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rbs", type=int, default=100)
    ap.add_argument("--speed-kmh", type=float, default=3.0)
    ap.add_argument("--carrier-ghz", type=float, default=2.12)
    ap.add_argument("--sinusoids", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="epa",
        help="epa: the 7 EPA taps; flat: one tap (the same gain on every RB)",
    )
    a = ap.parse_args(argv)
    g = epa_gains(
        a.seconds,
        a.rbs,
        a.speed_kmh,
        a.carrier_ghz * 1e9,
        a.sinusoids,
        a.seed,
        profile=a.profile,
    )
    write_trace(a.out, g)
    out = {
        "path": str(a.out),
        "doppler_hz": doppler_hz(a.speed_kmh, a.carrier_ghz * 1e9),
        **stats(g),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
