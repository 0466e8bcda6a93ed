"""Scenario configuration: pydantic models mirroring ``crates/radiotcp-core/src/config/mod.rs``.

The keys, nesting and defaults are exactly those of the Rust ``ScenarioConfig`` (a test checks
the defaults against ``radiotcp._core.default_config_json()``). Units are part of the key names.
Every key may be left out of a scenario file; it then takes the documented default.

Entry points:

- :func:`load` - read a TOML file (or take a dict / model), apply ``--set`` overrides, validate.
- :func:`parse_override` / :func:`apply_overrides` - the ``key.path=value`` mechanism.
- :func:`to_core_json` - the fully resolved configuration as the JSON the core reads.
- :func:`to_toml` - the resolved configuration as TOML (``radiotcp run --show-config``).

Every user mistake raises :class:`radiotcp.ConfigError` carrying one line per problem.
"""

from __future__ import annotations

import difflib
import itertools
import json
import math
import os
import re
import stat
import textwrap
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import tomli_w
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .errors import ConfigError

__all__ = [
    "AccessConfig",
    "ConfigError",
    "FlowsConfig",
    "LinkConfig",
    "QueueConfig",
    "RlpConfig",
    "ScenarioConfig",
    "SimulationConfig",
    "TcpConfig",
    "UmtsConfig",
    "WiredAccess",
    "apply_overrides",
    "load",
    "load_toml",
    "parse_override",
    "to_core_json",
    "to_dict",
    "to_toml",
    "validate_dict",
    "variants",
]

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

# Reusable field types. strict=True: a string is never silently turned into a number, a float
# never into an integer (an integer is still accepted where a float is expected).
PosFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Probability = Annotated[float, Field(ge=0, lt=1, allow_inf_nan=False)]


# Physical bounds of times and rates (the core's config::bounds, same values and messages):
# wide enough for every network radiotcp models, narrow enough that a typo is an error up front
# instead of a run that never ends.
TIMER_MIN_MS = 1e-3  # 1 us
TIME_MAX_MS = 86_400_000.0  # 1 day
PERIOD_MIN_MS, PERIOD_MAX_MS = 0.1, 1000.0  # a TTI, an RLP slot
RATE_MIN_KBPS, RATE_MAX_KBPS = 1e-3, 1e9  # 1 bit/s to 1 Tbit/s
DURATION_MAX_S = 1e7  # about 116 days


def _within(lo: float, hi: float, allowed: str, *, off: bool = False, open_lo: bool = False):
    """A number in [lo, hi] ((lo, hi] with ``open_lo``; 0 also allowed with ``off``)."""

    def check(v: float) -> float:
        inside = (lo < v if open_lo else lo <= v) and v <= hi
        if not (inside or (off and v == 0)):
            raise PydanticCustomError("radiotcp_value", "{allowed}", {"allowed": allowed})
        return v

    return AfterValidator(check)


_Finite = Annotated[float, Field(allow_inf_nan=False)]
# A timer (an RTO, Timer_Poll, a CoDel interval).
TimerMs = Annotated[
    _Finite, _within(TIMER_MIN_MS, TIME_MAX_MS, "a timer in [0.001, 86400000] ms (1 us to 1 day)")
]
# A timer that 0 turns off.
TimerOrOffMs = Annotated[
    _Finite,
    _within(
        TIMER_MIN_MS,
        TIME_MAX_MS,
        "0 (off) or a timer in [0.001, 86400000] ms (1 us to 1 day)",
        off=True,
    ),
]
# A delay or time offset.
DELAY_ALLOWED = "a delay in [0, 86400000] ms (at most 1 day)"
DelayMs = Annotated[_Finite, _within(0.0, TIME_MAX_MS, DELAY_ALLOWED)]
# A radio period (a TTI, an RLP frame slot).
PeriodMs = Annotated[_Finite, _within(PERIOD_MIN_MS, PERIOD_MAX_MS, "a period in [0.1, 1000] ms")]
RateKbps = Annotated[
    _Finite,
    _within(RATE_MIN_KBPS, RATE_MAX_KBPS, "a rate in [0.001, 1e9] kb/s (1 bit/s to 1 Tbit/s)"),
]
RunDurationS = Annotated[
    _Finite,
    _within(0.0, DURATION_MAX_S, "a duration in (0, 1e7] s (at most about 116 days)", open_lo=True),
]
SpikeDurationS = Annotated[
    _Finite, _within(1e-6, 86_400.0, "a duration in [1e-06, 86400] s (1 us to 1 day)")
]


# A [from_s, delay_ms] point of a delay trace (a TOML array of two numbers).
def _trace_delay_in_bounds(point: list[float]) -> list[float]:
    if point[1] > TIME_MAX_MS:
        raise PydanticCustomError(
            "radiotcp_value",
            "{allowed}",
            {"allowed": DELAY_ALLOWED},
        )
    return point


TracePoint = Annotated[
    list[NonNegFloat], Field(min_length=2, max_length=2), AfterValidator(_trace_delay_in_bounds)
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, validate_default=True)


def _constraint(field: str, value: Any, allowed: str) -> PydanticCustomError:
    """A cross-field problem attributed to ``field`` of the model being validated."""
    return PydanticCustomError(
        "radiotcp_constraint",
        "{allowed}",
        {"allowed": allowed, "field": field, "value": value},
    )


class SimulationConfig(_Model):
    """Simulation control."""

    duration_s: RunDurationS = Field(60.0, description="Simulated time of one run, in seconds.")
    warmup_s: NonNegFloat = Field(
        0.0,
        description="Metrics (goodput, delay) count only what happens after this instant; "
        "must be less than duration_s.",
    )

    @model_validator(mode="after")
    def _warmup_before_end(self) -> SimulationConfig:
        if not self.warmup_s < self.duration_s:
            raise _constraint("warmup_s", self.warmup_s, "less than simulation.duration_s")
        return self


# Every tcp key a profile sets differently from the "rfc" defaults below; keys given in the
# scenario override them. Mirrors TcpConfig::profile_defaults in the Rust core (a test checks
# that they agree); docs/models/tcp.md gives the sources.
_NS2_COMMON: dict[str, Any] = {
    "packet_size_bytes": 1040,
    "header_bytes": 40,
    "ack_size_bytes": 40,
    "awnd_segments": 20,
    "max_rto_ms": 86_400_000.0,
    "delack_count": 1,
    "rtt_sampling": "timed_segment",
    "rto_estimator": "ns2",
    "restart_timer_on_fast_retransmit": True,
    "reno_recover_after_rto": True,
    "rto_ssthresh_every_expiry": True,
    "ssthresh_basis": "window",
    "suppressed_dupack_inflation": True,
}
TCP_PROFILES: dict[str, dict[str, Any]] = {
    "rfc": {},
    "ns2-2.26": {
        **_NS2_COMMON,
        "initial_window_segments": 2,
        "initial_rto_ms": 6000.0,
        "min_rto_ms": 1000.0,
        "clock_granularity_ms": 10.0,
        "limited_transmit": True,
        "syn": True,
    },
    "ns2-1999": {
        **_NS2_COMMON,
        "packet_size_bytes": 1000,
        "initial_window_segments": 1,
        "initial_rto_ms": 6000.0,
        "min_rto_ms": 0.001,
        "clock_granularity_ms": 100.0,
    },
    "linux": {
        "variant": "sack",
        "packet_size_bytes": 1500,
        "header_bytes": 52,
        "ack_size_bytes": 52,
        "initial_window_segments": 10,
        "rwnd_bytes": 6_291_456,
        "window_scaling": True,
        "initial_rto_ms": 1000.0,
        "min_rto_ms": 200.0,
        "max_rto_ms": 120_000.0,
        "delack_count": 2,
        "delack_timeout_ms": 40.0,
        "rto_estimator": "linux",
        "limited_transmit": True,
        "restart_timer_on_fast_retransmit": True,
        "congestion_control": "cubic",
        "hystart": True,
        "timestamps": True,
        "prr": True,
        "abc_limit_segments": 0,
        "quickack_segments": 16,
        "ssthresh_basis": "cwnd",
        "syn": True,
    },
}


class TcpConfig(_Model):
    """TCP sender and receiver parameters (shared by all flows)."""

    profile: Literal["rfc", "ns2-2.26", "ns2-1999", "linux"] = Field(
        "rfc",
        description="The TCP stack whose defaults every other tcp key takes: 'rfc' (RFC "
        "5681/6582/6298), 'ns2-2.26' (Zeng's simulator), 'ns2-1999' (the ns-2 Reno Bai et al. "
        "ported), 'linux' (CUBIC, SACK with PRR, timestamps, IW10, as a Linux host). Keys set "
        "explicitly override the profile (docs/models/tcp.md).",
    )
    variant: Literal["reno", "newreno", "sack"] = Field(
        "newreno",
        description="Loss recovery: 'reno' (RFC 5681: recovery ends on the first new ACK), "
        "'newreno' (RFC 6582: partial ACKs retransmit, recovery ends when `recover` is "
        "acknowledged) or 'sack' (RFC 2018 SACK blocks and RFC 6675 recovery).",
    )
    packet_size_bytes: int = Field(
        1500,
        ge=1,
        le=U32_MAX,
        description="IP packet size of a full data segment, bytes; MSS = packet - header.",
    )
    header_bytes: int = Field(
        40, ge=20, le=U32_MAX, description="TCP/IP header bytes on every segment (40: no options)."
    )
    ack_size_bytes: int = Field(
        40, ge=20, le=U32_MAX, description="Size of a pure ACK on the wire, in bytes."
    )
    initial_window_segments: int = Field(
        1, ge=1, le=U32_MAX, description="Initial congestion window, in segments."
    )
    initial_ssthresh_bytes: int | None = Field(
        None,
        ge=0,
        le=U64_MAX,
        description="Initial ssthresh in bytes; unset means arbitrarily high (RFC 5681 3.1). "
        "At least 2 MSS when set.",
    )
    rwnd_bytes: int = Field(
        65535,
        ge=1,
        le=U32_MAX,
        description="Receiver buffer = maximum advertised window, in bytes (at least one MSS).",
    )
    awnd_segments: int | None = Field(
        None,
        ge=1,
        le=U32_MAX,
        description="Receiver buffer in segments (ns-2's window_, Bai et al.'s awnd); when set "
        "it replaces rwnd_bytes by awnd_segments x MSS.",
    )
    window_scaling: bool = Field(
        False,
        description="RFC 7323 window scaling; without it the advertised window is capped at "
        "65535 bytes whatever rwnd_bytes says.",
    )
    initial_rto_ms: TimerMs = Field(1000.0, description="Initial retransmission timeout, ms.")
    min_rto_ms: TimerMs = Field(1000.0, description="Lower bound of the RTO, ms.")
    max_rto_ms: TimerMs = Field(
        60000.0, description="Upper bound of the RTO (at least min_rto_ms), ms."
    )
    clock_granularity_ms: DelayMs = Field(
        1.0, description="Clock granularity G of RFC 6298 section 2, ms."
    )
    delack_count: int = Field(
        2,
        ge=1,
        le=U32_MAX,
        description="Acknowledge every delack_count-th in-order segment; 1 disables delayed ACKs.",
    )
    delack_timeout_ms: TimerMs = Field(200.0, description="Delayed-ACK timer, ms.")
    rtt_sampling: Literal["every_ack", "timed_segment", "timestamps"] = Field(
        "every_ack",
        description="RTT samples from every ACK of new data ('every_ack'), from one timed "
        "segment at a time, one per RTT ('timed_segment', ns-2 and BSD without timestamps), or "
        "from the echoed timestamp of every ACK of new data ('timestamps', RFC 7323 RTTM; needs "
        "timestamps = true).",
    )
    rto_estimator: Literal["rfc6298", "ns2", "linux"] = Field(
        "rfc6298",
        description="'rfc6298' (SRTT/RTTVAR in ns, G = clock_granularity_ms), 'ns2' (samples "
        "floored to ticks of clock_granularity_ms, ns-2's fixed-point SRTT/RTTVAR and RTO) or "
        "'linux' (RTO = SRTT + max(largest 4 x mdev of the last window, min_rto_ms)).",
    )
    limited_transmit: bool = Field(
        False,
        description="RFC 3042 Limited Transmit: a new segment on each of the first two "
        "duplicate ACKs.",
    )
    restart_timer_on_fast_retransmit: bool = Field(
        False, description="Restart the retransmission timer at fast retransmit (ns-2)."
    )
    reno_recover_after_rto: bool = Field(
        False,
        description="Reno: duplicate ACKs at or below the highest sequence sent at an RTO start "
        "no fast retransmit (ns-2 bugFix_; NewReno always does this, RFC 6582).",
    )
    reno_one_recovery_per_window: bool = Field(
        False,
        description="Reno: no second fast retransmit until an ACK passes the highest sequence "
        "sent at the first (ns-2 bugFix_).",
    )
    rto_ssthresh_every_expiry: bool = Field(
        False,
        description="Recompute ssthresh on every RTO expiry (ns-2 slowdown()), not only on the "
        "first one for a segment (RFC 5681).",
    )
    ssthresh_basis: Literal["flight_size", "window", "cwnd"] = Field(
        "flight_size",
        description="What a loss reduces: 'flight_size' (RFC 5681 eq. 4), 'window' (ns-2: "
        "min(cwnd, receiver window) in whole segments) or 'cwnd' (Linux: min(cwnd, receiver "
        "window)).",
    )
    suppressed_dupack_inflation: bool = Field(
        False,
        description="Duplicate ACKs whose fast retransmit the recover guard suppresses (after an "
        "RTO) still inflate the window by 3 segments, then 1 per duplicate (ns-2 Reno up to "
        "2.26).",
    )
    congestion_control: Literal["reno", "cubic"] = Field(
        "reno",
        description="Window growth: 'reno' (RFC 5681) or 'cubic' (RFC 9438).",
    )
    cubic_beta: float = Field(
        0.7, gt=0.0, lt=1.0, description="CUBIC's multiplicative decrease factor (RFC 9438: 0.7)."
    )
    cubic_c: float = Field(0.4, gt=0.0, le=100.0, description="CUBIC's C (RFC 9438: 0.4).")
    hystart: bool = Field(False, description="HyStart++ (RFC 9406) in slow start.")
    timestamps: bool = Field(
        False,
        description="The timestamps option on every segment (RFC 7323); header_bytes and "
        "ack_size_bytes must then include its 12 bytes (at least 52).",
    )
    prr: bool = Field(
        False,
        description="Proportional Rate Reduction (RFC 6937) in SACK recovery; needs variant = "
        "'sack'.",
    )
    abc_limit_segments: int = Field(
        1,
        ge=0,
        le=1_000_000,
        description="RFC 3465 L: at most this many segments added to cwnd per ACK in slow start; "
        "0 = no limit (Linux).",
    )
    ca_byte_counting: bool = Field(
        False,
        description="RFC 3465 byte counting in congestion avoidance (one MSS per cwnd of "
        "acknowledged bytes) instead of MSS^2/cwnd per ACK (Reno).",
    )
    quickack_segments: int = Field(
        0,
        ge=0,
        le=1_000_000,
        description="ACK each of the first this many in-order segments at once (Linux's "
        "quick-ACK mode at the start: 16); 0 = off.",
    )
    syn: bool = Field(
        False,
        description="Open each connection with a SYN (header_bytes on the wire, timed, resent "
        "with backoff); data flows once the SYN-ACK is back. Off: the connection exists from "
        "the flow's start (ns-2's one-way TCP without syn_).",
    )

    @model_validator(mode="before")
    @classmethod
    def _apply_profile(cls, data: Any) -> Any:
        # The profile's values for the keys the scenario leaves out; an unknown profile is
        # left for the field's own check to report.
        if isinstance(data, Mapping):
            profile = TCP_PROFILES.get(str(data.get("profile", "rfc")))
            if profile:
                return {**profile, **data}
        return data

    @model_validator(mode="after")
    def _cross_checks(self) -> TcpConfig:
        if self.packet_size_bytes <= self.header_bytes:
            raise _constraint(
                "packet_size_bytes",
                self.packet_size_bytes,
                "an integer greater than tcp.header_bytes",
            )
        mss = self.packet_size_bytes - self.header_bytes
        if self.initial_ssthresh_bytes is not None and self.initial_ssthresh_bytes < 2 * mss:
            raise _constraint(
                "initial_ssthresh_bytes",
                self.initial_ssthresh_bytes,
                f"at least 2 MSS = {2 * mss} bytes (RFC 5681 lower bound)",
            )
        if self.rwnd_bytes < mss:
            raise _constraint("rwnd_bytes", self.rwnd_bytes, f"at least one MSS = {mss} bytes")
        if self.awnd_segments is not None and self.awnd_segments * mss > U32_MAX:
            raise _constraint(
                "awnd_segments", self.awnd_segments, f"at most {U32_MAX // mss} (x MSS in 32 bits)"
            )
        if self.max_rto_ms < self.min_rto_ms:
            raise _constraint("max_rto_ms", self.max_rto_ms, "at least tcp.min_rto_ms")
        if self.timestamps:
            for key in ("header_bytes", "ack_size_bytes"):
                if getattr(self, key) < 52:
                    raise _constraint(
                        key,
                        getattr(self, key),
                        "at least 52 with tcp.timestamps = true (40 B TCP/IP + 12 B option)",
                    )
        if self.rtt_sampling == "timestamps" and not self.timestamps:
            raise _constraint(
                "rtt_sampling",
                self.rtt_sampling,
                "'every_ack' or 'timed_segment' unless tcp.timestamps = true",
            )
        if self.prr and self.variant != "sack":
            raise _constraint(
                "prr",
                self.prr,
                "false unless tcp.variant = 'sack' (PRR runs on the SACK pipe estimate)",
            )
        return self


class FlowsConfig(_Model):
    """Bulk (FTP-like) flows from the server to the client (to each UE of an LTE cell)."""

    count: int = Field(
        1, ge=1, le=10_000, description="Number of flows (per UE with access.kind = 'lte')."
    )
    start_s: NonNegFloat = Field(0.0, description="Start of the first flow, seconds.")
    stagger_s: NonNegFloat = Field(
        0.0, description="Flow i starts at start_s + i * stagger_s (unless start_times_s is set)."
    )
    start_times_s: list[NonNegFloat] | None = Field(
        None, description="Explicit start time of every flow, seconds; exactly `count` values."
    )
    start_jitter_s: NonNegFloat = Field(
        0.0,
        description=(
            "Each flow starts a random U(0, start_jitter_s) seconds later (drawn per run from the"
            " flow's own stream), so replications of a loss-free scenario differ."
        ),
    )
    size_bytes: int | None = Field(
        None,
        ge=1,
        le=2**50,
        description="Bytes each flow's application sends (a file transfer; its completion "
        "time is the metric flows.<i>.completion_s); unset = unlimited bulk.",
    )

    @model_validator(mode="after")
    def _times_match_count(self) -> FlowsConfig:
        if self.start_times_s is not None and len(self.start_times_s) != self.count:
            raise _constraint(
                "start_times_s",
                self.start_times_s,
                f"exactly flows.count = {self.count} values (got {len(self.start_times_s)})",
            )
        return self


class QueueConfig(_Model):
    """The queue at the input of a link (one per direction)."""

    discipline: Literal["droptail"] = Field("droptail", description="Only 'droptail' for now.")
    limit_packets: int = Field(
        100,
        ge=1,
        le=U32_MAX,
        description="Packets that may wait (not counting the one being transmitted).",
    )
    limit_bytes: int | None = Field(
        None,
        ge=1,
        le=U64_MAX,
        description="Optional byte limit on the waiting packets (at least tcp.packet_size_bytes); "
        "both limits apply when both are set.",
    )


LINK_NAME_RE = r"^[A-Za-z0-9_-]+$"


class DelayLevelConfig(_Model):
    """One level of a Markov-modulated delay."""

    delay_ms: DelayMs = Field(190.0, description="One-way delay at this level, ms.")
    mean_sojourn_ms: TimerMs = Field(
        1000.0, description="Mean time the chain stays at this level, ms (exponential)."
    )


class SpikeConfig(_Model):
    """A scheduled disturbance on a link: a stall or added delay (a handoff, a short
    disconnection)."""

    start_s: NonNegFloat = Field(5.0, description="Start of the spike, s.")
    duration_s: SpikeDurationS = Field(6.0, description="Length of the spike, s.")
    extra_ms: DelayMs = Field(0.0, description="Delay added to packets sent during the spike, ms.")
    stall: bool = Field(
        False,
        description="Nothing leaves the link during the spike: arrivals in it wait for its end.",
    )


class VariableDelayConfig(_Model):
    """Per-packet one-way delay of a link (docs/models/variable-delay-link.md); replaces
    delay_ms in the directions it applies to."""

    process: Literal["constant", "uniform", "normal", "markov", "trace"] = Field(
        "uniform",
        description="'constant' (mean_ms), 'uniform' (mean_ms +- half_width_ms), 'normal' "
        "(mean_ms, std_ms, at least floor_ms), 'markov' (levels) or 'trace' (trace).",
    )
    mean_ms: DelayMs = Field(190.0, description="Delay (constant) or mean delay, ms.")
    half_width_ms: DelayMs = Field(
        100.0, description="uniform: half the width of the range, at most mean_ms, ms."
    )
    std_ms: DelayMs = Field(50.0, description="normal: standard deviation, ms.")
    floor_ms: DelayMs = Field(0.0, description="normal: smaller draws are raised to this, ms.")
    levels: list[DelayLevelConfig] = Field(
        default_factory=list,
        description="markov: delay levels; the chain jumps to another level, uniformly, after "
        "an exponential sojourn.",
    )
    trace: list[TracePoint] = Field(
        default_factory=list,
        description="trace: [from_s, delay_ms] points, times increasing; a step function.",
    )
    fifo: bool = Field(
        False, description="Forbid reordering: no packet arrives before one sent earlier."
    )
    start_s: NonNegFloat = Field(
        0.0, description="The process starts here; before, packets take its nominal delay, s."
    )
    directions: Literal["both", "data", "ack"] = Field(
        "both", description="Directions the process applies to; the other keeps delay_ms."
    )
    spikes: list[SpikeConfig] = Field(default_factory=list, description="Scheduled spikes.")

    @model_validator(mode="after")
    def _consistent(self) -> VariableDelayConfig:
        if self.process == "uniform" and self.half_width_ms > self.mean_ms:
            raise _constraint(
                "half_width_ms", self.half_width_ms, "at most mean_ms, so no delay is negative"
            )
        if self.process == "markov" and not self.levels:
            raise _constraint("levels", [], "at least one level for process = markov")
        if self.process == "trace":
            if not self.trace:
                raise _constraint("trace", [], "at least one [from_s, delay_ms] point")
            times = [t for t, _ in self.trace]
            if any(b <= a for a, b in itertools.pairwise(times)):
                raise _constraint("trace", self.trace, "points with strictly increasing times")
        return self


class BsAckConfig(_Model):
    """The ACK controller at the base station (Zeng; docs/models/bs-ack-controller.md)."""

    enabled: bool = Field(False, description="Run the controller at the BS.")
    link: str = Field(
        "",
        description="Name of the BS -> mobile host link (the BS is the node before it); "
        "'' = the last link.",
    )
    g: float = Field(0.125, gt=0.0, le=1.0, description="EWMA gain of the BS-MH sRTT.")
    dup_ack_thresh: int = Field(
        5,
        ge=1,
        le=U32_MAX,
        description="Duplicate ACKs from the mobile host that signal a loss on this link; the "
        "threshold-th gives the fixed host its third.",
    )
    pacing: bool = Field(True, description="Pace the ACKs to the fixed host with the txTimer.")
    pacing_rule: Literal["srtt_per_window", "srtt_fraction"] = Field(
        "srtt_per_window",
        description="txTimer interval: pace_factor x sRTT / (packets downstream of the BS) or "
        "pace_factor x sRTT.",
    )
    pace_factor: PosFloat = Field(0.5, le=1000.0, description="Multiplies the pacing interval.")
    initial_srtt_ms: TimerMs | None = Field(
        None, description="sRTT before the first sample; unset: from the first sample."
    )
    max_ack_wait_ms: TimerMs | None = Field(
        None, description="Longest an ACK may wait in the BS queue; unset: no bound."
    )
    reply_reset_after_ms: TimerMs = Field(
        1000.0,
        description="A BS reply that would be the third consecutive duplicate is withheld "
        "unless no ACK went to the flow for this long.",
    )


class LinkConfig(_Model):
    """One wired hop; links are chained from the server (first) to the client (last)."""

    name: str = Field(
        "link",
        pattern=LINK_NAME_RE,
        description="Name used in metric keys (letters, digits, '_' and '-'); unique per scenario.",
    )
    rate_kbps: RateKbps = Field(
        1000.0, description="Transmission rate, kbit/s (1 kbit = 1000 bit)."
    )
    delay_ms: DelayMs = Field(10.0, description="One-way propagation delay, ms.")
    loss_rate: Probability = Field(
        0.0, description="Probability that a data packet (server -> client) is lost here."
    )
    ack_loss_rate: Probability = Field(
        0.0, description="Probability that an ACK (client -> server) is lost here."
    )
    queue: QueueConfig = Field(default_factory=QueueConfig, description="Queue of this link.")
    variable_delay: VariableDelayConfig | None = Field(
        None,
        description="A per-packet delay process (reordering, spikes) instead of delay_ms; "
        "unset = the constant delay_ms.",
    )


class ChannelConfig(_Model):
    """Block-error channel of one radio direction: one state per TTI (docs/models/channel.md)."""

    model: Literal["none", "iid", "markov"] = Field(
        "markov",
        description="'none' (error-free), 'iid' (each TTI lost with probability fer) or "
        "'markov' (first-order Markov model of Rayleigh fading, Zorzi et al.).",
    )
    fer: Probability = Field(0.1, description="Average TTI (block) error rate.")
    fd_t: PosFloat = Field(
        0.01, description="Normalised Doppler frequency f_d x TTI (markov only)."
    )

    @model_validator(mode="after")
    def _markov_needs_errors(self) -> ChannelConfig:
        if self.model == "markov" and self.fer <= 0:
            raise _constraint("fer", self.fer, "a block error rate in (0, 1) for the markov model")
        return self


class RlcConfig(_Model):
    """UMTS RLC acknowledged mode (TS 25.322 subset; docs/models/rlc-am.md). Defaults: the
    papers' Table 1."""

    window_pdus: int = Field(
        1024, ge=1, le=2047, description="Transmission (= receiving) window, PDUs."
    )
    max_dat: int = Field(
        10,
        ge=2,
        le=U32_MAX,
        description="A PDU is sent at most max_dat - 1 times; then its SDUs are discarded "
        "(Move Receiving Window).",
    )
    poll_timer_ms: TimerMs = Field(60.0, description="Timer_Poll, ms.")
    poll_prohibit_ms: TimerOrOffMs = Field(0.0, description="Timer_Poll_Prohibit, ms (0 = off).")
    status_prohibit_ms: TimerOrOffMs = Field(
        60.0, description="Timer_Status_Prohibit, ms (0 = off)."
    )
    poll_window_pct: PosFloat = Field(
        50.0,
        description="Poll when this share of the window is outstanding, % (above 100 = off).",
    )
    poll_last_pdu: bool = Field(True, description="Poll on the last PDU in the buffer.")
    poll_last_retransmitted: bool = Field(True, description="Poll on the last retransmitted PDU.")
    missing_pdu_indicator: bool = Field(
        True, description="The receiver sends a STATUS as soon as it detects a missing PDU."
    )
    mrw_timer_ms: TimerMs = Field(500.0, description="Timer_MRW, ms.")


class RedConfig(_Model):
    """RED on the instantaneous buffer occupancy with the count correction (model-specs 6.1)."""

    min_th_sdus: NonNegFloat = Field(20.0, description="Lower threshold, SDUs.")
    max_th_sdus: PosFloat = Field(
        40.0, description="Upper threshold, SDUs; at or above it every arrival is dropped."
    )
    max_p: PosFloat = Field(0.05, le=1.0, description="Drop probability reached at max_th.")

    @model_validator(mode="after")
    def _ordered(self) -> RedConfig:
        if self.max_th_sdus <= self.min_th_sdus:
            raise _constraint("max_th_sdus", self.max_th_sdus, "a number greater than min_th_sdus")
        return self


class SbdConfig(_Model):
    """Slope Based Discard (Alcaraz & Cerdan 2006, section 4); maxth is limit_sdus."""

    min_th_sdus: NonNegFloat = Field(25.0, description="minth, SDUs (below limit_sdus).")
    t_r_ms: TimerMs = Field(350.0, description="Estimated reaction time T_r, ms.")
    alpha_bits: PosFloat = Field(
        60000.0, description="Occupancy interval alpha, bits (5 maximum-size SDUs)."
    )
    sync_to_tti: bool = Field(
        False, description="Round the C_n and T_r timer expiries up to TTI boundaries."
    )


class CodelConfig(_Model):
    """CoDel (RFC 8289) at the start of each SDU's transmission. At 384 kbit/s one 1500-byte
    SDU takes 31 ms, so the RFC's 5 ms target is raised (model-specs 6.2, cellular notes)."""

    target_ms: TimerMs = Field(40.0, description="TARGET sojourn time, ms.")
    interval_ms: TimerMs = Field(300.0, description="INTERVAL, about the worst-case RTT, ms.")


class PieConfig(_Model):
    """PIE (RFC 8033) on arrival, its delay taken from timestamps at transmission start.
    QDELAY_REF is raised above one SDU's transmission time at 384 kbit/s (31 ms)."""

    qdelay_ref_ms: TimerMs = Field(40.0, description="QDELAY_REF, ms.")
    t_update_ms: TimerMs = Field(15.0, description="T_UPDATE, ms.")
    alpha: PosFloat = Field(0.125, description="Integral gain, 1/s.")
    beta: PosFloat = Field(1.25, description="Proportional gain, 1/s.")
    max_burst_ms: DelayMs = Field(150.0, description="MAX_BURST allowance, ms.")


class BufferConfig(_Model):
    """The per-user downlink buffer at the network side, counted in SDUs."""

    discipline: Literal["droptail", "red", "sbd", "codel", "pie"] = Field(
        "droptail",
        description="'droptail', 'red' (instantaneous RED), 'sbd' (Slope Based Discard), "
        "'codel' (CoDel at transmission start) or 'pie'; the hard limit applies to all.",
    )
    limit_sdus: int = Field(
        50,
        ge=1,
        le=U32_MAX,
        description="SDUs the RLC transmitter may hold (queued, in flight or awaiting "
        "acknowledgement); SBD's maxth.",
    )
    red: RedConfig = Field(default_factory=RedConfig, description="RED parameters.")
    sbd: SbdConfig = Field(default_factory=SbdConfig, description="SBD parameters.")
    codel: CodelConfig = Field(default_factory=CodelConfig, description="CoDel parameters.")
    pie: PieConfig = Field(default_factory=PieConfig, description="PIE parameters.")

    @model_validator(mode="after")
    def _sbd_below_limit(self) -> BufferConfig:
        if self.discipline == "sbd" and self.sbd.min_th_sdus >= self.limit_sdus:
            raise _constraint(
                "sbd.min_th_sdus", self.sbd.min_th_sdus, "a number below limit_sdus (maxth)"
            )
        return self


class AckControlConfig(_Model):
    """Policy on the uplink TCP ACKs leaving the network-side RLC (docs/models/ack-control.md)."""

    mode: Literal["none", "rate", "delay"] = Field(
        "none",
        description="'none', 'rate' (ACK rate control: inter-departure time t_id = f(BO), "
        "Alcaraz & Cerdan 2006) or 'delay' (ACK delay control: the alpha -> 0 case, a fixed "
        "spacing maxd_ms once BO >= minth_sdus).",
    )
    minth_sdus: NonNegFloat = Field(20.0, description="BO at which ACKs start to be spaced.")
    maxth_sdus: PosFloat = Field(50.0, description="BO at which t_id reaches maxd_ms.")
    mind_ms: DelayMs = Field(0.0, description="t_id at minth, ms.")
    maxd_ms: DelayMs = Field(500.0, description="t_id at maxth and above, ms.")
    alpha: NonNegFloat = Field(1.0, description="Shape of f (rate mode).")
    sync_to_tti: bool = Field(False, description="Round id_timer expiries up to TTI boundaries.")
    release: Literal["per_tti", "one_per_event", "while_due"] = Field(
        "per_tti",
        description="Fig. 4 releases at most one ACK per event: 'per_tti' (every TTI of the "
        "RLC is an event too, so a backlog drains one ACK per TTI), 'one_per_event' (only ACK "
        "arrivals and timer expiries: a backlog can be stranded until a TCP timeout) or "
        "'while_due' (ACKs keep leaving while the spacing allows: a backlog leaves at once "
        "when BO < minth).",
    )

    @model_validator(mode="after")
    def _ordered(self) -> AckControlConfig:
        if self.maxth_sdus <= self.minth_sdus:
            raise _constraint("maxth_sdus", self.maxth_sdus, "a number greater than minth_sdus")
        if self.maxd_ms < self.mind_ms:
            raise _constraint("maxd_ms", self.maxd_ms, "a number >= mind_ms")
        return self


class WiredAccess(_Model):
    """``access.kind = "wired"``: the last link reaches the client directly."""

    kind: Literal["wired"] = Field("wired", description="The access network: 'wired'.")


class UmtsConfig(_Model):
    """``access.kind = "umts"``: a UMTS dedicated channel with RLC AM between the end of the
    wired chain (the RNC) and the client (the UE). Defaults: the papers' Table 1 (384 kbit/s,
    FER 10%, f_dT 0.01)."""

    kind: Literal["umts"] = Field("umts", description="The access network: 'umts'.")
    tti_ms: PeriodMs = Field(10.0, description="Transmission time interval, ms.")
    pdus_per_tti: int = Field(
        12, ge=1, le=U32_MAX, description="PDUs per TTI and direction (12 at 384 kbit/s)."
    )
    pdu_payload_bytes: int = Field(
        40, ge=2, le=U32_MAX, description="Payload octets per AMD PDU (40 = 320 bits)."
    )
    li_bytes: int = Field(1, ge=1, le=U32_MAX, description="Octets per length indicator.")
    one_way_delay_ms: DelayMs = Field(
        25.0,
        description="From the start of a PDU's TTI to its arrival at the peer RLC, ms; the "
        "radio round trip is twice this.",
    )
    ue_tti_offset_ms: float | None = Field(
        None,
        ge=0.0,
        description="How far the UE's TTI grid lies behind the RNC's, ms, in [0, tti_ms). "
        "Unset: one_way_delay_ms mod tti_ms, so each side sends in the TTI in which the "
        "other's PDUs arrive and the RLC loop is twice the one-way delay (50 ms); 0: one grid, "
        "a 60 ms loop with the default delay (the model before this key).",
    )
    downlink: ChannelConfig = Field(
        default_factory=ChannelConfig, description="Downlink block-error channel."
    )
    uplink: ChannelConfig | None = Field(
        None,
        description="Uplink channel; unset = the downlink's parameters, independent chain.",
    )
    rlc: RlcConfig = Field(default_factory=RlcConfig, description="RLC AM parameters.")
    buffer: BufferConfig = Field(
        default_factory=BufferConfig, description="Per-user downlink buffer."
    )
    ack_control: AckControlConfig = Field(
        default_factory=AckControlConfig, description="Uplink ACK policy at the RNC."
    )

    @model_validator(mode="after")
    def _li_fits(self) -> UmtsConfig:
        if self.pdu_payload_bytes <= self.li_bytes:
            raise _constraint(
                "pdu_payload_bytes", self.pdu_payload_bytes, "more octets than li_bytes"
            )
        if self.ue_tti_offset_ms is not None and not self.ue_tti_offset_ms < self.tti_ms:
            raise _constraint(
                "ue_tti_offset_ms",
                self.ue_tti_offset_ms,
                "a time in [0, access.tti_ms) ms, or unset (one_way_delay_ms mod tti_ms)",
            )
        return self


class RlpConfig(_Model):
    """``access.kind = "rlp"``: an IS-707 RLP link (NAK-based ARQ over 20 ms frames;
    docs/models/rlp.md) between the end of the wired chain (the Internet access point, IAP)
    and the client (the mobile host). Defaults: Rate Set 1 at 9600 bit/s, IS-707's two
    retransmission cycles, and 3 idle frames after the data runs out (plain IS-707 as in the
    paper's reference [5] sends none; its reference [6] shows why a few help)."""

    kind: Literal["rlp"] = Field("rlp", description="The access network: 'rlp'.")
    slot_ms: PeriodMs = Field(20.0, description="Radio frame period, ms (20 in IS-707).")
    frame_payload_bytes: int = Field(
        19,
        ge=1,
        le=1_000_000,
        description="Octets of the octet stream per RLP data frame (19 at 9600 bit/s).",
    )
    frames_per_slot: int = Field(
        1,
        ge=1,
        le=1024,
        description="RLP frames per slot and direction (16 for the 16 x 9600 bit/s case); "
        "all frames of a slot share the channel state.",
    )
    one_way_delay_ms: DelayMs = Field(
        40.0,
        description="From the start of a frame's slot to its arrival at the peer RLP, ms "
        "(2 frames: interleaving, processing, backhaul; model-specs 3.3).",
    )
    nak_rounds: int = Field(
        2,
        ge=1,
        le=1000,
        description="Retransmission cycles: round i sends i NAKs; rounds 1..n-1 end with the "
        "NAK retransmission timer, round n with the abort timer (IS-707: 2).",
    )
    t_ret_ms: TimerMs = Field(200.0, description="NAK retransmission timer, ms.")
    t_abort_ms: TimerMs = Field(200.0, description="NAK abort timer, ms.")
    idle_frames: int = Field(
        3,
        ge=0,
        le=U32_MAX,
        description="Idle frames (carrying the next sequence number) sent after the data runs "
        "out, so that a lost last frame is detected; 0 = none.",
    )
    iap_buffer_packets: int = Field(
        1024,
        ge=1,
        le=U32_MAX,
        description="IP packets the IAP buffer (before the RLP sender) holds; drop-tail.",
    )
    forward: ChannelConfig = Field(
        default_factory=lambda: ChannelConfig(fer=0.1, fd_t=0.1),
        description="Forward (IAP to mobile) frame-error channel, one state per slot.",
    )
    reverse: ChannelConfig | None = Field(
        None,
        description="Reverse channel (ACKs and NAKs); unset = the forward parameters with an "
        "independent chain.",
    )


class LteCellConfig(_Model):
    """The Case-1 drop of the LTE cell (lte-cell.md section 1; TR 36.814 A.2.1): 7 sites x 3
    sectors, UEs uniform in the centre site's hexagon and attached to its best sector."""

    isd_m: PosFloat = Field(500.0, description="Inter-site distance, m.")
    enb_power_dbm: float | None = Field(
        None,
        ge=-30.0,
        le=80.0,
        allow_inf_nan=False,
        description="eNB power over the band, dBm; unset = 43 / 46 / 49 dBm at 5 / 10 / 20 MHz.",
    )
    shadowing_sigma_db: NonNegFloat = Field(8.0, description="Log-normal shadowing, dB.")
    penetration_loss_db: NonNegFloat = Field(20.0, description="Building penetration loss, dB.")
    min_distance_m: NonNegFloat = Field(35.0, description="Closest a UE is dropped to a site, m.")
    ue_noise_figure_db: NonNegFloat = Field(9.0, description="UE noise figure, dB.")
    ue_sinr_db: list[Annotated[float, Field(ge=-100.0, le=100.0, allow_inf_nan=False)]] | None = (
        Field(
            None,
            description="Per-UE mean downlink SINR, dB, instead of a drop (one value per UE; "
            "sectors then go round robin and positions are undefined).",
        )
    )
    ue_coupling_loss_db: (
        list[Annotated[float, Field(ge=0.0, le=250.0, allow_inf_nan=False)]] | None
    ) = Field(
        None,
        description="With ue_sinr_db: each UE's coupling loss to its sector, dB, for uplink "
        "power control (one value per UE); unset = such UEs are received at P0 and never "
        "power-limited.",
    )
    sectors: int = Field(
        3,
        ge=1,
        le=3,
        description="With ue_sinr_db: the UEs go round robin over this many sectors (1 = all "
        "in one cell, for a single-cell comparison).",
    )
    ues_per_sector: list[Annotated[int, Field(ge=0, le=1000)]] | None = Field(
        None,
        description="UEs per sector of the centre site (e.g. Table I's [2, 4, 4]): the drop "
        "keeps drawing until each sector has its count; with ue_sinr_db the UEs fill the "
        "sectors in order. Must sum to `ues`; unset = a uniform drop.",
    )
    drop_seed: int | None = Field(
        None,
        ge=0,
        le=2**64 - 1,
        description="Draw the drop from this seed instead of each run's own, so that all "
        "replications share one placement of UEs (per-UE figures); unset = a drop per run.",
    )


class LteFadingConfig(_Model):
    """Fast fading of each UE's links (lte-cell.md section 2.2)."""

    model: Literal["none", "rayleigh", "jakes"] = Field(
        "jakes",
        description="'none', 'rayleigh' (i.i.d. block Rayleigh per TTI) or 'jakes' (sum of "
        "sinusoids at speed_kmh).",
    )
    speed_kmh: float = Field(
        3.0, gt=0.0, le=500.0, allow_inf_nan=False, description="UE speed, km/h."
    )
    carrier_ghz: float = Field(
        2.0, ge=0.4, le=100.0, allow_inf_nan=False, description="Carrier frequency, GHz."
    )
    sinusoids: int = Field(16, ge=1, le=256, description="Sinusoids of the Jakes model.")


class LteHarqConfig(_Model):
    """HARQ of both links (model-specs 4.1): feedback at n + 4, retransmission at n + 8."""

    max_tx: int = Field(
        4, ge=1, le=28, description="Transmissions of a block before HARQ gives up (ns-3: 4)."
    )
    processes: int = Field(8, ge=1, le=16, description="HARQ processes per UE and link.")


class LteUplinkConfig(_Model):
    """The uplink request path and scheduler (model-specs 4.1, 4.2, 4.4; lte-cell.md 2.5)."""

    bandwidth_mhz: Literal[5, 10, 20] | None = Field(
        None, description="The uplink carrier, MHz; unset = the downlink's (access.bandwidth_mhz)."
    )

    scheduler: Literal["pf", "round_robin"] = Field(
        "pf",
        description="'pf' (PF order, chunks sized to the reported buffer) or 'round_robin' "
        "(ns-3 PfFfMacScheduler's uplink: equal shares).",
    )
    min_prb: int = Field(
        1, ge=1, le=U32_MAX, description="Fewest PRBs in a grant (a PUSCH size 2^a 3^b 5^c)."
    )
    bsr: Literal["standard", "ideal"] = Field(
        "standard",
        description="'standard' (SR on PUCCH, regular/periodic/padding BSR in the block) or "
        "'ideal' (ns-3: the eNB learns the buffer every TTI with new data; no SR).",
    )
    sr_period_ms: Literal[1, 2, 5, 10, 20, 40, 80] = Field(
        10, description="SR periodicity T_SR, ms (TS 36.213 Table 10.1.5-1)."
    )
    sr_offset_ms: int | None = Field(
        None,
        ge=0,
        le=79,
        description="Every UE's SR subframe offset (below sr_period_ms); unset = UE u at "
        "u mod T_SR, spreading the opportunities over the period.",
    )
    sr_grant_delay_tti: int = Field(
        4, ge=0, le=100, description="An SR at n is answered by a grant at n + this."
    )
    sr_grant_bytes: int = Field(
        125, ge=8, le=100_000, description="What the eNB grants for an SR, octets."
    )
    periodic_bsr_tti: int | None = Field(
        10, ge=1, le=U32_MAX, description="periodicBSR-Timer, subframes; unset = infinity."
    )
    retx_bsr_tti: int = Field(2560, ge=1, le=U32_MAX, description="retxBSR-Timer, subframes.")
    dsr_trans_max: Literal[4, 8, 16, 32, 64] = Field(
        64, description="dsr-TransMax: SRs before the UE would fall back to random access."
    )
    fixed_mcs: int | None = Field(
        None,
        ge=0,
        le=28,
        description="One UL MCS for every UE (ns-3 uses 0); unset = link adaptation.",
    )
    power_control: Literal["per_grant", "reference_prb"] = Field(
        "per_grant",
        description="'per_grant' (TS 36.213 5.1.1.1: P = min(P_CMAX, 10 log10 M + P0 + "
        "alpha PL) per grant, so a power-limited UE's SINR per PRB falls with its PRBs; grants "
        "sized to the PHR) or 'reference_prb' (one SINR for reference_prb PRBs whatever the "
        "grant; the ns-3 comparison mode).",
    )
    p0_dbm: float = Field(
        -106.0, ge=-200.0, le=80.0, allow_inf_nan=False, description="P0 per PRB, dBm."
    )
    alpha: Literal[0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0] = Field(
        1.0, description="Fractional power control alpha (TS 36.331)."
    )
    ue_power_dbm: float = Field(
        23.0, ge=-200.0, le=80.0, allow_inf_nan=False, description="UE maximum power P_CMAX, dBm."
    )
    phr_periodic_tti: Literal[10, 20, 50, 100, 200, 500, 1000] | None = Field(
        50, description="periodicPHR-Timer, subframes (TS 36.321 5.4.6); unset = infinity."
    )
    phr_prohibit_tti: Literal[0, 10, 20, 50, 100, 200, 500, 1000] = Field(
        0, description="prohibitPHR-Timer, subframes."
    )
    phr_pathloss_change_db: Literal[1.0, 3.0, 6.0] | None = Field(
        3.0, description="dl-PathlossChange, dB; unset = infinity."
    )
    enb_noise_figure_db: NonNegFloat = Field(5.0, description="eNB noise figure, dB.")
    interference: Literal["load", "constant"] = Field(
        "load",
        description="'load' (the IoT per PRB follows the neighbour sectors' uplink load) or "
        "'constant' (iot_db).",
    )
    iot_db: NonNegFloat = Field(
        2.0, description="Interference over thermal at the eNB with interference = 'constant', dB."
    )
    neighbour_load: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description="With interference = 'load': the fraction of PUSCH PRBs the neighbour "
        "sectors use; unset = the serving site's own utilisation mirrored (EWMA, 100 TTIs).",
    )
    sc_fdma_loss_db: NonNegFloat = Field(1.0, description="SC-FDMA loss, dB.")
    reference_prb: int = Field(
        4,
        ge=1,
        le=100,
        description="PRBs the UL SINR is computed for with power_control = 'reference_prb'.",
    )
    pucch_prb: int | None = Field(
        None,
        ge=0,
        le=94,
        description="PRBs at the band edges taken by PUCCH (not available to PUSCH; even); "
        "unset = 2 / 4 / 8 at 5 / 10 / 20 MHz.",
    )


class LtePdcchConfig(_Model):
    """The PDCCH of each sector as a budget of CCEs per TTI shared by DL assignments and UL
    grants (TS 36.211 6.7-6.9, TS 36.213 9.1.1; docs/models/lte-cell.md)."""

    enabled: bool = Field(
        True, description="DCIs draw from a CCE budget (false: any number per TTI, as ns-3)."
    )
    cfi: Literal[1, 2, 3] = Field(3, description="OFDM symbols of the control region.")
    phich_ng: float = Field(
        1.0,
        allow_inf_nan=False,
        description="PHICH N_g: 1/6 (0.1667), 0.5, 1 or 2 (TS 36.211 6.9); its REGs leave the "
        "budget.",
    )
    aggregation_sinr_db: list[float] = Field(
        default_factory=lambda: [3.0, 0.0, -3.0],
        description="Wideband DL SINR (dB, before sinr_offset_db) at or above which a UE's "
        "DCIs use aggregation level 1, 2, 4; below the last, 8.",
    )
    priority: Literal["dl_first", "ul_first"] = Field(
        "dl_first",
        description="When CCEs run short: 'dl_first' (DL retransmissions, new DL "
        "assignments, then UL grants) or 'ul_first' (DL retransmissions, UL grants, then new "
        "DL assignments).",
    )
    max_dl_ues_per_tti: int | None = Field(
        None, ge=1, le=1000, description="UEs with a DL assignment per sector and TTI; unset = any."
    )
    max_ul_ues_per_tti: int | None = Field(
        None, ge=1, le=1000, description="UEs with an UL grant per sector and TTI; unset = any."
    )

    @field_validator("phich_ng", mode="before")
    @classmethod
    def _ng(cls, v: Any) -> Any:
        # 1/6 written as 0.1667 (or any rounding of it) is 1/6.
        if isinstance(v, float) and abs(v - 1.0 / 6.0) < 1e-3:
            return 1.0 / 6.0
        return v

    @model_validator(mode="after")
    def _levels(self) -> LtePdcchConfig:
        if self.phich_ng not in (1.0 / 6.0, 0.5, 1.0, 2.0):
            raise _constraint("phich_ng", self.phich_ng, "one of 1/6 (0.1667), 0.5, 1, 2")
        a = self.aggregation_sinr_db
        ok = len(a) == 3 and all(math.isfinite(x) and abs(x) <= 50.0 for x in a)
        if not (ok and a[0] >= a[1] >= a[2]):
            raise _constraint(
                "aggregation_sinr_db",
                list(a),
                "three non-increasing SINRs in [-50, 50] dB (levels 1, 2, 4; below: 8)",
            )
        return self


class LteRlcConfig(_Model):
    """RLC per UE and direction (TS 36.322; docs/models/lte-rlc.md)."""

    mode: Literal["am", "um"] = Field("am", description="'am' or 'um'.")
    t_poll_retransmit_ms: TimerMs = Field(45.0, description="t-PollRetransmit, ms.")
    t_reordering_ms: TimerMs = Field(35.0, description="t-Reordering, ms.")
    t_status_prohibit_ms: TimerOrOffMs = Field(10.0, description="t-StatusProhibit, ms; 0 = none.")
    poll_pdu: int = Field(4, ge=1, le=U32_MAX, description="pollPDU.")
    poll_byte: int = Field(25_000, ge=1, le=2**63 - 1, description="pollByte, octets.")
    max_retx: int = Field(
        32, ge=1, le=32, description="maxRetxThreshold (then the SDU is discarded)."
    )
    pdcp_header_bytes: int = Field(2, ge=0, le=64, description="PDCP header per SDU, octets.")
    rlc_header_bytes: int = Field(2, ge=0, le=64, description="RLC header per PDU, octets.")
    mac_header_bytes: int = Field(2, ge=0, le=64, description="MAC subheader per block, octets.")


class AckFilterConfig(_Model):
    """TCP ACK filtering in each UE's uplink buffer (Ohta et al. section II.A;
    docs/models/ack-filter.md)."""

    scheme: Literal["basic", "passive", "active", "hybrid", "hybrid_opt", "cake"] = Field(
        "basic",
        description="'basic' (none), 'passive' (at a grant, ratio; 1 = Granted ACK), 'active' "
        "(on arrival, threshold; 1 = Highest ACK), 'hybrid' (both), 'hybrid_opt' (Hybrid with "
        "the per-UE T_opt of eq. (2)) or 'cake' (CAKE's ACK filter).",
    )
    ratio: float = Field(
        1.0, ge=0.0, le=1.0, allow_inf_nan=False, description="Passive Discard ratio."
    )
    threshold: int = Field(
        6, ge=1, le=U32_MAX, description="Active Discard threshold T (ratio 0.94 is T = 6)."
    )
    rounding: Literal["ceil", "nearest"] = Field(
        "ceil",
        description="How eq. (2) rounds N_ack: 'ceil' as printed, 'nearest' (what reproduces "
        "the printed T_opt column).",
    )
    segment_bytes: int | None = Field(
        None, ge=1, le=65_535, description="S_TCP_segment of eq. (1); unset = the MSS."
    )
    aggressive: bool = Field(False, description="CAKE's aggressive mode.")


class LteConfig(_Model):
    """``access.kind = "lte"``: an LTE-A Pro site of three sectors with `ues` UEs, each with
    `flows.count` TCP downloads (Ohta et al., CSCN 2018; docs/models/lte-cell.md)."""

    kind: Literal["lte"] = Field("lte", description="The access network: 'lte'.")
    ues: int = Field(10, ge=1, le=1000, description="UEs dropped in the centre site.")
    bandwidth_mhz: Literal[5, 10, 20] = Field(
        20, description="Carrier bandwidth, MHz (25, 50, 100 PRB)."
    )
    sinr_offset_db: float = Field(
        0.0,
        ge=-50.0,
        le=50.0,
        allow_inf_nan=False,
        description="Added to every dropped UE's downlink SINR, dB: a calibration of the "
        "Case-1 geometry; SINRs listed in cell.ue_sinr_db are used as written.",
    )
    cqi_delay_tti: int = Field(
        6, ge=0, le=1000, description="Age of the CQI an MCS is chosen from, TTIs."
    )
    cqi_period_tti: Literal[1, 2, 5, 10, 20, 40, 80, 160] = Field(
        5,
        description="Periodic CQI reports every this many TTIs (TS 36.213 7.2.2; offsets "
        "spread UE by UE); the MCS follows the latest report at least cqi_delay_tti old. "
        "1 = every TTI.",
    )
    olla_step_db: float = Field(
        0.1,
        ge=0.0,
        le=10.0,
        allow_inf_nan=False,
        description="Outer-loop link adaptation: the SINR offset rises by this step on a "
        "decoded first transmission and falls by 9 steps on a failed one (10 % BLER); 0 = off.",
    )
    cell: LteCellConfig = Field(default_factory=LteCellConfig, description="The drop.")
    fading: LteFadingConfig = Field(default_factory=LteFadingConfig, description="Fast fading.")
    harq: LteHarqConfig = Field(default_factory=LteHarqConfig, description="HARQ.")
    pf_time_constant_tti: float = Field(
        100.0, ge=1.0, le=1e6, allow_inf_nan=False, description="PF EWMA time constant, TTIs."
    )
    uplink: LteUplinkConfig = Field(default_factory=LteUplinkConfig, description="Uplink.")
    pdcch: LtePdcchConfig = Field(
        default_factory=LtePdcchConfig, description="The PDCCH budget per sector and TTI."
    )
    rlc: LteRlcConfig = Field(default_factory=LteRlcConfig, description="RLC and headers.")
    buffer: BufferConfig = Field(
        default_factory=lambda: BufferConfig(limit_sdus=1000),
        description="Each UE's downlink buffer at the eNB.",
    )
    ack_filter: AckFilterConfig = Field(
        default_factory=AckFilterConfig, description="ACK filter in each UE's uplink buffer."
    )

    @model_validator(mode="after")
    def _consistent(self) -> LteConfig:
        n_prb = {5: 25, 10: 50, 20: 100}[self.uplink.bandwidth_mhz or self.bandwidth_mhz]
        v = self.uplink.reference_prb
        if v > n_prb:
            raise _constraint(
                "uplink.reference_prb",
                v,
                f"an integer in 1..={n_prb} (the uplink carrier's PRBs)",
            )
        pucch = self.uplink.pucch_prb
        if pucch is not None and (pucch > n_prb - 6 or pucch % 2):
            raise _constraint(
                "uplink.pucch_prb",
                pucch,
                f"an even number of PRBs in 0..={n_prb - 6} (both band edges; at least 6 left "
                "to PUSCH)",
            )
        pusch = n_prb - (pucch if pucch is not None else {25: 2, 50: 4, 100: 8}[n_prb])
        m = self.uplink.min_prb
        if not (m <= pusch and _allowed_ul_prb(m)):
            below = [k for k in range(1, min(m, pusch) + 1) if _allowed_ul_prb(k)]
            above = [k for k in range(m, pusch + 1) if _allowed_ul_prb(k)]
            near = sorted({*below[-1:], *above[:1]})
            raise _constraint(
                "uplink.min_prb",
                m,
                f"a PUSCH size 2^a 3^b 5^c in 1..={pusch} (the PRBs left by PUCCH); nearest: "
                + " or ".join(str(k) for k in near),
            )
        per = self.cell.ues_per_sector
        if per is not None:
            sectors = self.cell.sectors if self.cell.ue_sinr_db is not None else 3
            if len(per) != sectors:
                raise _constraint(
                    "cell.ues_per_sector",
                    f"{len(per)} values",
                    f"one count per sector ({sectors})",
                )
            if sum(per) != self.ues:
                raise _constraint(
                    "cell.ues_per_sector", per, f"counts that sum to access.ues = {self.ues}"
                )
        off = self.uplink.sr_offset_ms
        if off is not None and off >= self.uplink.sr_period_ms:
            raise _constraint("uplink.sr_offset_ms", off, "an offset below uplink.sr_period_ms")
        sinr = self.cell.ue_sinr_db
        if sinr is not None and len(sinr) != self.ues:
            raise _constraint("cell.ue_sinr_db", f"{len(sinr)} values", "exactly `ues` values")
        loss = self.cell.ue_coupling_loss_db
        if loss is not None and sinr is None:
            raise _constraint(
                "cell.ue_coupling_loss_db",
                f"{len(loss)} values",
                "only with cell.ue_sinr_db (a drop has its own path losses)",
            )
        if loss is not None and len(loss) != self.ues:
            raise _constraint(
                "cell.ue_coupling_loss_db", f"{len(loss)} values", "exactly `ues` values"
            )
        if self.cell.isd_m <= 2 * self.cell.min_distance_m:
            raise _constraint(
                "cell.isd_m", self.cell.isd_m, "a distance greater than twice cell.min_distance_m"
            )
        return self


def _allowed_ul_prb(n: int) -> bool:
    """A PUSCH allocation of n PRBs is 2^a 3^b 5^c (TS 36.211 5.3.3)."""
    if n < 1:
        return False
    for p in (2, 3, 5):
        while n % p == 0:
            n //= p
    return n == 1


# The name the models of radiotcp 0.2 used for the UMTS table (`[radio]`).
RadioConfig = UmtsConfig

AccessConfig = Annotated[
    WiredAccess | UmtsConfig | RlpConfig | LteConfig, Field(discriminator="kind")
]

# Tables of radiotcp 0.2 files that are now `access` with a kind (read as such).
LEGACY_ACCESS = {"radio": "umts", "rlp": "rlp"}


def _default_links() -> list[LinkConfig]:
    return [
        LinkConfig(
            name="wan", rate_kbps=1000.0, delay_ms=100.0, queue=QueueConfig(limit_packets=1000)
        ),
        LinkConfig(
            name="access", rate_kbps=384.0, delay_ms=25.0, queue=QueueConfig(limit_packets=50)
        ),
    ]


class ScenarioConfig(_Model):
    """A whole scenario. The defaults are the ``wired-384k`` preset with one flow."""

    simulation: SimulationConfig = Field(
        default_factory=SimulationConfig, description="Simulation control."
    )
    tcp: TcpConfig = Field(default_factory=TcpConfig, description="TCP parameters.")
    flows: FlowsConfig = Field(default_factory=FlowsConfig, description="The flows.")
    links: list[LinkConfig] = Field(
        default_factory=_default_links,
        min_length=1,
        description="The wired chain from the server (index 0) to the client (last index), "
        "or to the access node (RNC, IAP) when `access` is a radio link.",
    )
    access: AccessConfig = Field(
        default_factory=WiredAccess,
        description="What joins the end of the wired chain to the client: kind = 'wired' (the "
        "last link reaches it), 'umts' (a UMTS bearer with RLC AM), 'rlp' (an IS-707 RLP "
        "link) or 'lte' (an LTE site with many UEs). The other keys of the table are those "
        "of its kind.",
    )
    bs_ack: BsAckConfig = Field(
        default_factory=BsAckConfig, description="The base-station ACK controller."
    )

    @model_validator(mode="after")
    def _links_consistent(self) -> ScenarioConfig:
        if self.bs_ack.enabled:
            names = [link.name for link in self.links]
            idx = len(names) - 1 if self.bs_ack.link == "" else None
            if self.bs_ack.link in names:
                idx = names.index(self.bs_ack.link)
            if idx is None or idx < 1:
                raise _constraint(
                    "bs_ack.link",
                    self.bs_ack.link,
                    f"the name of a link other than the first ({', '.join(names[1:]) or 'none'})"
                    ", or '' for the last link",
                )
        seen: dict[str, int] = {}
        for i, link in enumerate(self.links):
            if link.name in seen:
                raise _constraint(
                    f"links.{i}.name",
                    link.name,
                    f"a name not used by another link (links.{seen[link.name]} has it)",
                )
            seen[link.name] = i
            lb = link.queue.limit_bytes
            if lb is not None and lb < self.tcp.packet_size_bytes:
                raise _constraint(
                    f"links.{i}.queue.limit_bytes", lb, "at least tcp.packet_size_bytes"
                )
        ues = self.access.ues if isinstance(self.access, LteConfig) else 1
        if self.flows.count * ues > 100_000:
            raise _constraint(
                "flows.count",
                self.flows.count,
                "at most 100000 flows in all (flows.count per UE x access.ues)",
            )
        return self


# --------------------------------------------------------------------------------------------
# Error messages
# --------------------------------------------------------------------------------------------


# An error message shows at most this much of a value, and tables / lists this deep.
VALUE_SHOWN_CHARS = 120
VALUE_SHOWN_DEPTH = 4


def format_value(v: Any) -> str:
    """Render a value the way it would be written in TOML (strings quoted), shortened to
    VALUE_SHOWN_CHARS with ``...`` (a pasted table or a deeply nested list stays one line)."""
    text = _format_value(v, VALUE_SHOWN_DEPTH)
    if len(text) > VALUE_SHOWN_CHARS:
        text = text[: VALUE_SHOWN_CHARS - 3] + "..."
    return text


def _format_value(v: Any, depth: int) -> str:
    if isinstance(v, (Mapping, list, tuple)) and depth <= 0:
        return "{...}" if isinstance(v, Mapping) else "[...]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if v is None:
        return "null"
    if isinstance(v, Mapping):
        inner = ", ".join(f"{k} = {_format_value(x, depth - 1)}" for k, x in v.items())
        return "{" + inner + "}" if inner else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_format_value(x, depth - 1) for x in v) + "]"
    return str(v)


def _num(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def _allowed_keys(cls: type[BaseModel], prefix: str) -> str:
    return ", ".join(f"{prefix}{k}" if prefix else k for k in cls.model_fields)


def variants(ann: Any) -> dict[str, type[BaseModel]]:
    """The models of a tagged choice by their ``kind`` (empty if ``ann`` is not one)."""
    out: dict[str, type[BaseModel]] = {}
    for a in get_args(ann):
        if isinstance(a, type) and issubclass(a, BaseModel) and "kind" in a.model_fields:
            out[str(a.model_fields["kind"].default)] = a
    return out


def _field_ann(cls: type[BaseModel], name: str) -> Any:
    ann = cls.model_fields[name].annotation
    # Annotated[Union[...], Field(discriminator=...)] keeps the union as the annotation.
    return ann


def _model_at(loc: Sequence[Any], kinds: Mapping[str, str] | None = None) -> type[BaseModel] | None:
    """The model class reached by following ``loc`` from ScenarioConfig (None if not a model).

    A tagged choice (``access``) resolves by the tag that follows it in ``loc`` (pydantic's
    error locations) or, failing that, by ``kinds[path]``.
    """
    cls: Any = ScenarioConfig
    parts = list(loc)
    i = 0
    path: list[str] = []
    while i < len(parts):
        part = parts[i]
        i += 1
        if isinstance(part, int):
            path.append(str(part))
            continue  # list element: keep the element model found below
        if (
            not (isinstance(cls, type) and issubclass(cls, BaseModel))
            or part not in cls.model_fields
        ):
            return None
        path.append(str(part))
        ann = _field_ann(cls, part)
        choices = variants(ann)
        if choices:
            if i < len(parts) and parts[i] in choices:
                cls = choices[str(parts[i])]
                i += 1
            else:
                kind = (kinds or {}).get(".".join(path))
                cls = choices.get(kind) if kind is not None else None
                if cls is None:
                    return None
            continue
        _kind, sub = _sub_model(ann)
        cls = sub if sub is not None else ann
    return cls if isinstance(cls, type) and issubclass(cls, BaseModel) else None


def _strip_tags(loc: Sequence[Any]) -> list[Any]:
    """pydantic's error location without the tags of tagged choices (``access.umts.x`` is
    the key ``access.x``)."""
    out: list[Any] = []
    cls: Any = ScenarioConfig
    parts = list(loc)
    i = 0
    while i < len(parts):
        part = parts[i]
        out.append(part)
        i += 1
        if isinstance(part, int) or not (
            isinstance(cls, type) and issubclass(cls, BaseModel) and part in cls.model_fields
        ):
            continue
        ann = _field_ann(cls, part)
        choices = variants(ann)
        if choices and i < len(parts) and parts[i] in choices:
            cls = choices[str(parts[i])]
            i += 1
            continue
        _kind, sub = _sub_model(ann)
        cls = sub if sub is not None else ann
    return out


def _unknown_key(
    path: str,
    value: Any,
    parent: Sequence[Any],
    name: str,
    kinds: Mapping[str, str] | None = None,
) -> ConfigError:
    """An unknown key ``name`` under ``parent``: list the known keys, suggest the closest."""
    cls = _model_at(parent, kinds)
    where = ".".join(str(p) for p in _strip_tags(parent))
    prefix = where + "." if where else ""
    if cls is None:
        return ConfigError(path, format_value(value), "expected a known key", unknown_key=True)
    keys = list(cls.model_fields)
    close = difflib.get_close_matches(name, keys, n=1)
    hint = f"did you mean {prefix}{close[0]}? " if close else ""
    # A key of another kind of a tagged choice (`access.tti_ms` with kind = "wired"): say
    # which kind has it.
    plain = _strip_tags(parent)
    owner = _model_at(plain[:-1], kinds) if plain and isinstance(plain[-1], str) else None
    if owner is not None and plain[-1] in owner.model_fields and "kind" in cls.model_fields:
        others = [
            k
            for k, m in variants(_field_ann(owner, str(plain[-1]))).items()
            if name in m.model_fields and m is not cls
        ]
        if others:
            kinds_text = " or ".join(format_value(k) for k in others)
            hint = f"a key of {where}.kind = {kinds_text} (set that kind first); "
    scope = f"under {where}" if where else "at the top level"
    if "kind" in cls.model_fields:
        scope += f" (kind = {format_value(cls.model_fields['kind'].default)})"
    return ConfigError(
        path,
        format_value(value),
        f"{hint}keys {scope}: {', '.join(keys)}",
        unknown_key=True,
    )


def _problem_from_pydantic(err: Mapping[str, Any]) -> ConfigError:
    raw_loc = list(err["loc"])
    loc = _strip_tags(raw_loc)
    ctx = err.get("ctx") or {}
    etype = err["type"]
    value = err.get("input")
    if etype == "radiotcp_constraint":
        path = ".".join(str(p) for p in [*loc, ctx["field"]])
        return ConfigError(path, format_value(ctx["value"]), ctx["allowed"])
    path = ".".join(str(p) for p in loc) or "<document>"
    if etype == "extra_forbidden":
        return _unknown_key(path, value, raw_loc[:-1], str(raw_loc[-1]))
    if etype in ("union_tag_invalid", "union_tag_not_found"):
        tags = ctx.get("expected_tags") or "'wired', 'umts', 'rlp'"
        got = ctx.get("tag", value.get("kind") if isinstance(value, Mapping) else value)
        return ConfigError(f"{path}.kind", format_value(got), f"one of {tags}")
    simple = {
        "float_type": "a number",
        "float_parsing": "a number",
        "int_type": "an integer",
        "int_parsing": "an integer",
        "int_from_float": "an integer",
        "string_type": "a string",
        "bool_type": "true or false",
        "list_type": "a list",
        "model_type": "a table",
        "model_attributes_type": "a table",
        "dict_type": "a table",
        "finite_number": "a finite number",
    }
    if etype in simple:
        allowed = simple[etype]
    elif etype == "radiotcp_value":
        allowed = ctx["allowed"]
    elif etype == "greater_than":
        allowed = f"a number > {_num(ctx['gt'])}"
    elif etype == "greater_than_equal":
        allowed = f"a number >= {_num(ctx['ge'])}"
    elif etype == "less_than":
        allowed = f"a number < {_num(ctx['lt'])}"
    elif etype == "less_than_equal":
        allowed = f"a number <= {_num(ctx['le'])}"
    elif etype == "literal_error":
        allowed = f"one of {ctx['expected']}"
    elif etype == "string_pattern_mismatch":
        allowed = "a non-empty name of letters, digits, '_' and '-'"
    elif etype == "too_short":
        n = ctx.get("min_length")
        allowed = "at least one link" if path == "links" else f"at least {n} item(s)"
    elif etype == "too_long":
        allowed = f"at most {ctx.get('max_length')} item(s)"
    elif etype == "missing":
        return ConfigError(path, "", "required key is missing")
    else:
        allowed = err.get("msg", etype)
    # Probabilities read better as an interval.
    if loc and str(loc[-1]).endswith("loss_rate") and etype in ("greater_than_equal", "less_than"):
        allowed = "a probability in [0, 1)"
    return ConfigError(path, format_value(value), allowed)


def _problems_from_validation(e: ValidationError) -> list[ConfigError]:
    out: list[ConfigError] = []
    seen: set[str] = set()
    for err in e.errors(include_url=False):
        p = _problem_from_pydantic(err)
        # For `int | None` fields pydantic reports both branches; keep one line per key.
        if p.key in seen:
            continue
        seen.add(p.key)
        out.append(p)
    return out


# Top-level keys of a reproduction recipe (radiotcp.reproduce) that a sweep file never has.
_RECIPE_KEYS = ("sweep", "figures", "report", "recipe")


def file_problems(
    e: ValidationError, model: type[BaseModel], raw: Mapping[str, Any], path: str, what: str
) -> ConfigError:
    """A sweep file's (or any small flat model's) validation errors in the words scenario
    errors use: one line per problem, the key, the value as TOML writes it, what is allowed,
    the closest known key for an unknown one; a recipe given where a sweep file is expected is
    named as such."""
    if what == "sweep" and any(k in raw for k in _RECIPE_KEYS) and "grid" not in raw:
        return ConfigError(
            path or "<sweep>",
            "",
            f"this is a reproduction recipe, not a sweep file: use `radiotcp reproduce {path}`",
        )
    problems: list[ConfigError] = []
    keys = list(model.model_fields)
    for err in e.errors(include_url=False):
        loc = [str(x) for x in err["loc"]]
        etype = err["type"]
        if etype == "extra_forbidden" and len(loc) == 1:
            close = difflib.get_close_matches(loc[0], keys, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            problems.append(
                ConfigError(
                    loc[0],
                    format_value(err.get("input")),
                    f"{hint}keys of a {what} file: {', '.join(keys)}",
                    unknown_key=True,
                )
            )
            continue
        if etype == "value_error":
            # The model's own checks read "key: what is wrong"; never the whole document.
            msg = str((err.get("ctx") or {}).get("error", err["msg"]))
            key, sep, rest = msg.partition(": ")
            if sep and re.fullmatch(r"[\w.\-]+", key):
                problems.append(ConfigError(key, "", rest))
            else:
                problems.append(ConfigError(".".join(loc) or f"<{what}>", "", msg))
            continue
        p = _problem_from_pydantic(err)
        if etype == "string_pattern_mismatch" and loc == ["name"]:
            p = ConfigError(p.key, p.value, "a name of letters, digits, '_', '-' and '.'")
        elif etype in ("greater_than_equal", "less_than") and isinstance(err.get("input"), int):
            p = ConfigError(p.key, p.value, p.allowed.replace("a number", "an integer"))
        problems.append(p)
    return ConfigError.from_problems(problems)


# --------------------------------------------------------------------------------------------
# Defaults, overrides, loading
# --------------------------------------------------------------------------------------------


def _sub_model(ann: Any) -> tuple[str, type[BaseModel] | None]:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return "model", ann
    # An optional table (`RadioConfig | None`): a model when given.
    models = [a for a in get_args(ann) if isinstance(a, type) and issubclass(a, BaseModel)]
    if len(models) == 1 and type(None) in get_args(ann):
        return "model", models[0]
    if get_origin(ann) is list:
        (inner,) = get_args(ann)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return "list", inner
    return "plain", None


def _plain(v: Any) -> Any:
    if isinstance(v, BaseModel):
        return v.model_dump(mode="python")
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def fill_defaults(raw: Mapping[str, Any], cls: type[BaseModel] = ScenarioConfig) -> dict[str, Any]:
    """``raw`` with every missing key set to its default, without validating anything.

    Unknown keys are kept (validation reports them); list elements that are tables get the
    defaults of their model (every link gets the LinkConfig defaults).
    """
    out = dict(raw)
    # A TCP profile supplies the defaults of the keys the table leaves out.
    profile = TCP_PROFILES.get(str(raw.get("profile", "rfc"))) if cls is TcpConfig else None
    for name, f in cls.model_fields.items():
        if profile and name not in raw and name in profile:
            out[name] = profile[name]
            continue
        kind, sub = _sub_model(f.annotation)
        choices = variants(f.annotation)
        if name in raw:
            v = raw[name]
            if choices and isinstance(v, Mapping):
                # A tagged choice: the defaults of the chosen kind (an unknown kind is left
                # for validation to report).
                default_kind = f.get_default(call_default_factory=True).kind
                chosen = choices.get(str(v.get("kind", default_kind)))
                if chosen is not None:
                    tag = chosen.model_fields["kind"].default
                    out[name] = fill_defaults({"kind": tag, **v}, chosen)
            elif kind == "model" and isinstance(v, Mapping):
                out[name] = fill_defaults(v, sub)  # type: ignore[arg-type]
            elif kind == "list" and isinstance(v, list):
                out[name] = [
                    fill_defaults(x, sub) if isinstance(x, Mapping) else x  # type: ignore[arg-type]
                    for x in v
                ]
        else:
            out[name] = _plain(f.get_default(call_default_factory=True))
    return out


def parse_value(text: str) -> Any:
    """Parse the right-hand side of ``--set``: a TOML value, else the plain string.

    ``null`` (or ``none``) resets an optional key to unset.
    """
    stripped = text.strip()
    if stripped.lower() in ("null", "none"):
        return None
    try:
        doc = tomllib.loads(f"v = {stripped}")
    except tomllib.TOMLDecodeError:
        return text
    if list(doc) != ["v"]:
        return text
    return doc["v"]


def parse_override(item: str) -> tuple[str, Any]:
    """Split ``key.path=value`` into the path and the parsed value."""
    if "=" not in item:
        raise ConfigError("--set", format_value(item), "KEY.PATH=VALUE, e.g. flows.count=4")
    key, _, text = item.partition("=")
    key = key.strip()
    if not key or not re.fullmatch(r"[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*", key):
        raise ConfigError("--set", format_value(item), "KEY.PATH=VALUE with a dotted key path")
    return key, parse_value(text)


def _set_path(doc: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node: Any = doc
    # The kind of every tagged choice passed on the way down (`access.rlc.x` needs the kind
    # of `access` to know which keys `rlc` has).
    kinds: dict[str, str] = {}
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        here = ".".join(parts[:depth])
        if isinstance(node, dict):
            if "kind" in node:
                kinds[here] = str(node["kind"])
            if part not in node:
                parent = [int(p) if p.isdigit() else p for p in parts[:depth]]
                raise _unknown_key(key, value, parent, part, kinds)
            if last and part == "kind" and "kind" in node and node["kind"] != value:
                # A new kind of a tagged choice starts from that kind's defaults (the keys of
                # the old kind mean nothing to it).
                node.clear()
                node["kind"] = value
            elif last:
                node[part] = value
            else:
                node = node[part]
        elif isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ConfigError(
                    key,
                    format_value(value),
                    f"expected an index into {here} in 0..{len(node) - 1} "
                    f"(set the whole list to add entries)",
                    unknown_key=True,
                )
            if last:
                node[int(part)] = value
            else:
                node = node[int(part)]
        else:
            raise ConfigError(key, format_value(value), f"{here} is not a table", unknown_key=True)


def _legacy_access(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[ConfigError]]:
    """Read the ``[radio]`` and ``[rlp]`` tables of radiotcp 0.2 files as ``access`` with
    ``kind = "umts"`` / ``"rlp"``; both, or either beside ``access``, is an error."""
    doc = dict(raw)
    found = [k for k in LEGACY_ACCESS if k in doc]
    if not found:
        return doc, []
    if len(found) > 1 or "access" in doc:
        clash = [*found, *(["access"] if "access" in doc else [])]
        for name in found:  # reported here; not again as unknown keys
            doc.pop(name)
        return doc, [
            ConfigError(
                clash[-1],
                "set",
                f"one access table: {' and '.join(clash)} are all set "
                "(the [radio] and [rlp] tables of 0.2 files are now access.kind = umts / rlp)",
            )
        ]
    name = found[0]
    table = doc.pop(name)
    if table is None:
        return doc, []
    if not isinstance(table, Mapping):
        return doc, [ConfigError(name, format_value(table), "a table")]
    doc["access"] = {"kind": LEGACY_ACCESS[name], **table}
    return doc, []


def _legacy_key(key: str, value: Any) -> tuple[str, Any]:
    """``radio.x`` / ``rlp.x`` (0.2 key paths) are ``access.x``; a whole ``radio`` / ``rlp``
    table is an ``access`` table of that kind."""
    head, _, rest = key.partition(".")
    if head not in LEGACY_ACCESS:
        return key, value
    if rest:
        return f"access.{rest}", value
    if value is None:
        return "access", {"kind": "wired"}
    if isinstance(value, Mapping):
        return "access", {"kind": LEGACY_ACCESS[head], **value}
    return key, value


def _annotation_at(doc: Mapping[str, Any], key: str) -> Any:
    """The type annotation of the model field that `key` names in `doc` (the access kind
    chosen there), or None when the key names no field."""
    parts = key.split(".")
    access = doc.get("access")
    kinds = {"access": access.get("kind")} if isinstance(access, Mapping) else {}
    cls = _model_at([int(p) if p.isdigit() else p for p in parts[:-1]], kinds)
    if cls is None or parts[-1] not in cls.model_fields:
        return None
    return cls.model_fields[parts[-1]].annotation


def _takes_literal_none(doc: Mapping[str, Any], key: str) -> bool:
    """Whether `key` is a required choice that has "none" among its values (a channel model,
    an ACK control mode, a fading model), so that `none` on the command line means that value."""
    ann = _annotation_at(doc, key)
    return get_origin(ann) is Literal and "none" in get_args(ann)


def _unsettable(doc: Mapping[str, Any], key: str) -> bool:
    """Whether `key` is an optional key whose type has no string value, so that "none" in a
    sweep file (TOML has no null) can only mean "unset", as `--set KEY=none` does."""
    args = get_args(_annotation_at(doc, key))
    if type(None) not in args:
        return False
    return not any(
        a is str or (get_origin(a) is Literal and any(isinstance(v, str) for v in get_args(a)))
        for a in args
    )


def _apply(
    raw: Mapping[str, Any], overrides: Sequence[str] | Mapping[str, Any] | None
) -> tuple[dict[str, Any], list[ConfigError]]:
    raw, problems = _legacy_access(raw)
    doc = fill_defaults(raw)
    if not overrides:
        return doc, problems
    items: list[tuple[str, Any]] = []
    if isinstance(overrides, Mapping):
        items = [(str(k), v) for k, v in overrides.items()]
    else:
        for item in overrides:
            try:
                items.append(parse_override(item))
            except ConfigError as e:
                problems.extend(e.problems)
    from_text = not isinstance(overrides, Mapping)
    for key, value in items:
        key, value = _legacy_key(key, value)
        if value is None and from_text and _takes_literal_none(doc, key):
            # `--set access.downlink.model=none`: the key's own value "none", not "unset".
            value = "none"
        elif (
            not from_text
            and isinstance(value, str)
            and value.lower() in ("none", "null")
            and _unsettable(doc, key)
        ):
            # A sweep axis written in TOML: "none" unsets an optional number.
            value = None
        try:
            _set_path(doc, key, value)
        except ConfigError as e:
            problems.extend(e.problems)
            continue
        # A newly set table (e.g. a whole `links` list or `radio = {}`) gets its defaults
        # before a later override reaches into it; scalars need no refill (a sweep resolves
        # thousands of points, each with several scalar overrides).
        if isinstance(value, Mapping | list) or key.endswith(".kind"):
            doc = fill_defaults(doc)
    if any(k == "tcp.profile" for k, _ in items) and isinstance(doc.get("tcp"), Mapping):
        # A profile chosen by --set (or a sweep axis) swaps the whole TCP stack: every tcp
        # key takes the profile's value, the scenario file's own tcp keys included (they
        # describe the stack the scenario was written for); other tcp keys given with --set
        # in the same call still apply (docs/usage.md, "TCP profiles").
        explicit: dict[str, Any] = {}
        for k, v in items:
            parts = k.split(".")
            if k == "tcp" and isinstance(v, Mapping):
                explicit.update(v)
            elif len(parts) == 2 and parts[0] == "tcp":
                explicit[parts[1]] = v
        doc["tcp"] = fill_defaults(explicit, TcpConfig)
    return doc, problems


def apply_overrides(
    raw: Mapping[str, Any], overrides: Sequence[str] | Mapping[str, Any] | None
) -> dict[str, Any]:
    """Apply ``--set`` style overrides to a scenario dict, after filling in the defaults.

    ``overrides`` is a list of ``"key.path=value"`` strings or a mapping of key path to
    (already parsed) value. Paths mirror the TOML structure; integer segments index lists
    (``links.1.queue.limit_packets``). A path that does not exist is an error naming the key.
    All problems are collected and raised together. The result is not validated.
    """
    doc, problems = _apply(raw, overrides)
    if problems:
        raise ConfigError.from_problems(problems)
    return doc


def validate_dict(doc: Mapping[str, Any]) -> ScenarioConfig:
    """Validate a (TOML-like) scenario dict; raises ConfigError listing every problem."""
    if not isinstance(doc, Mapping):
        raise ConfigError("<document>", format_value(doc), "a table of scenario settings")
    try:
        return ScenarioConfig.model_validate(dict(doc))
    except ValidationError as e:
        raise ConfigError.from_problems(_problems_from_validation(e)) from None


def decode_toml_bytes(data: bytes, name: str) -> str:
    """The text of a TOML file: UTF-8, with or without a byte-order mark (editors on Windows
    write one). UTF-16 and other encodings are an error that says how to fix the file."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ConfigError(
            name, "", "a UTF-8 text file (this one is UTF-16): save the file as UTF-8"
        )
    elif b"\x00" in data:
        raise ConfigError(
            name, "", "a UTF-8 text file (this one has NUL bytes: binary, or UTF-16/32 text)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(
            name,
            "",
            f"a UTF-8 text file (byte 0x{data[e.start]:02x} at offset {e.start} is not UTF-8): "
            "save the file as UTF-8",
        ) from None


def read_toml_text(path: str | Path, what: str = "scenario") -> str:
    """Read a TOML file's text; a missing file, a directory or a non-UTF-8 file raise
    ConfigError naming the file."""
    p = Path(path)
    # stat before opening: a FIFO or a device (/dev/zero, a named pipe) would block or never
    # end; anything but a regular file is refused at once.
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise ConfigError(str(p), "", f"{what} file not found") from None
    except OSError as e:
        raise ConfigError(str(p), "", f"cannot read {what} file ({e.strerror or e})") from None
    if stat.S_ISDIR(st.st_mode):
        raise ConfigError(str(p), "", f"is a directory, expected a {what} .toml file") from None
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a FIFO (named pipe)"
            if stat.S_ISFIFO(st.st_mode)
            else "a device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "not a regular file"
        )
        raise ConfigError(str(p), "", f"is {kind}, expected a regular {what} .toml file")
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError(str(p), "", f"{what} file not found") from None
    except IsADirectoryError:
        raise ConfigError(str(p), "", f"is a directory, expected a {what} .toml file") from None
    except OSError as e:
        raise ConfigError(str(p), "", f"cannot read {what} file ({e})") from None
    return decode_toml_bytes(data, str(p))


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a scenario TOML file into a dict; missing file or bad TOML raise ConfigError."""
    p = Path(path)
    text = read_toml_text(p)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(str(p), "", f"invalid TOML: {e}") from None


def load(
    source: str | Path | Mapping[str, Any] | ScenarioConfig | None = None,
    overrides: Sequence[str] | Mapping[str, Any] | None = None,
) -> ScenarioConfig:
    """Resolve a scenario from a TOML path, a dict or a model (None = defaults) plus overrides."""
    if source is None:
        raw: Mapping[str, Any] = {}
    elif isinstance(source, ScenarioConfig):
        raw = source.model_dump(mode="python")
    elif isinstance(source, (str, Path)):
        raw = load_toml(source)
    elif isinstance(source, Mapping):
        raw = source
    else:
        raise TypeError(
            f"config must be a path, a dict or a ScenarioConfig, not {type(source).__name__}"
        )
    if not isinstance(raw, Mapping):
        raise ConfigError("<document>", format_value(raw), "a table of scenario settings")
    doc, problems = _apply(raw, overrides)
    try:
        cfg = validate_dict(doc)
    except ConfigError as e:
        problems.extend(p for p in e.problems if p.key not in {q.key for q in problems})
    if problems:
        raise ConfigError.from_problems(problems)
    return cfg


def to_dict(cfg: ScenarioConfig) -> dict[str, Any]:
    """The fully resolved configuration as plain JSON-compatible data."""
    return cfg.model_dump(mode="json")


def to_core_json(cfg: ScenarioConfig) -> str:
    """The fully resolved configuration as the JSON document the Rust core reads."""
    return json.dumps(to_dict(cfg), allow_nan=False)


# --------------------------------------------------------------------------------------------
# TOML output (for --show-config)
# --------------------------------------------------------------------------------------------


def _without_unset(v: Any, path: str, unset: list[str]) -> Any:
    """``v`` with every None (an unset optional key, which TOML cannot write) left out; the
    dotted paths of the left-out keys are appended to ``unset``."""
    if isinstance(v, Mapping):
        out: dict[str, Any] = {}
        for k, x in v.items():
            here = f"{path}.{k}" if path else str(k)
            if x is None:
                unset.append(here)
            else:
                out[str(k)] = _without_unset(x, here, unset)
        return out
    if isinstance(v, list | tuple):
        return [_without_unset(x, f"{path}.{i}", unset) for i, x in enumerate(v)]
    return v


def to_toml(cfg: ScenarioConfig) -> str:
    """The resolved configuration as a TOML document (every section, whatever the model has).

    Unset optional keys cannot be written in TOML; they are left out (loading the document
    gives them their default, unset, again) and listed in a comment at the top.
    """
    unset: list[str] = []
    doc = _without_unset(to_dict(cfg), "", unset)
    head = ""
    if unset:
        wrapped = textwrap.wrap(
            "unset: " + ", ".join(unset), width=98, break_long_words=False, break_on_hyphens=False
        )
        head = "".join(f"# {line}\n" for line in wrapped) + "\n"
    return head + tomli_w.dumps(doc)
