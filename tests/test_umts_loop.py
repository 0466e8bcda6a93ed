"""The UMTS bearer's RLC round trip: 50 ms with the papers' 25 ms one-way delay (the UE's TTI
grid offset by one_way_delay mod TTI, the default), 60 ms with one grid for both sides
(`access.ue_tti_offset_ms = 0`, the model's earlier behaviour)."""

from __future__ import annotations

import numpy as np
import pytest

from radiotcp import run

# One 1448-byte segment over an error-free bearer: the RNC's buffer holds its SDU until the
# UE's STATUS acknowledges it.
ONE_SDU = [
    "flows.size_bytes=1460",
    "access.downlink.model=none",
    "simulation.duration_s=3",
]


def _loop(offset: float | None) -> tuple[float, float]:
    over = list(ONE_SDU)
    if offset is not None:
        over.append(f"access.ue_tti_offset_ms={offset}")
    res = run("scenarios/umts-384k.toml", overrides=over, traces=True)
    tr = res.traces[0]
    arrived = float(tr["seq_received"]["time_s"][0])
    bo_t, bo = tr["buffer"]["time_s"], tr["buffer"]["value"]
    emptied = float(bo_t[np.nonzero((bo == 0) & (bo_t > arrived - 1.0))[0][-1]])
    return arrived, emptied


@pytest.mark.parametrize(("offset", "status_after_ms"), [(None, 25.0), (5.0, 25.0), (0.0, 30.0)])
def test_the_status_leaves_in_the_tti_the_data_arrives_in(offset, status_after_ms):
    # The SDU's last PDU reaches the UE at `arrived` (25 ms after its TTI began). With the
    # grids offset, the UE's TTI begins at that instant and its STATUS reaches the RNC 25 ms
    # later: a 50 ms loop. With one grid the STATUS waits 5 ms for the next TTI: 55 ms, and
    # the RNC acts at its next TTI, 60 ms after the data left.
    arrived, emptied = _loop(offset)
    assert emptied - arrived == pytest.approx(status_after_ms / 1000, abs=1e-9)


def test_the_offset_must_lie_within_a_tti():
    from radiotcp.config import load
    from radiotcp.errors import ConfigError

    with pytest.raises(ConfigError) as e:
        load("scenarios/umts-384k.toml", ["access.ue_tti_offset_ms=10"])
    assert e.value.key == "access.ue_tti_offset_ms"
