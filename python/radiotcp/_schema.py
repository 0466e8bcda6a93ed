# ruff: noqa: RUF023 (the keys are in declaration order, not sorted)
"""The scenario's typed classes, generated from the core's schema: do not edit.

Regenerate with ``python -m radiotcp.schemagen`` (``make schema``) after changing the Rust
configuration types; ``make test`` fails while this file is out of date. Defaults, bounds
and help text live in the Rust types only (``radiotcp._core.config_schema()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ._table import Table, opt


class SimulationConfig(Table):
    """SimulationConfig"""

    __slots__ = (
        "duration_s",
        "warmup_s",
    )

    # Simulated time of one run, in seconds.
    duration_s: float
    # Metrics (goodput, delay) count only what happens after this instant; must be less than
    # duration_s.
    warmup_s: float

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SimulationConfig:
        t = cls.__new__(cls)
        t.duration_s = d["duration_s"]
        t.warmup_s = d["warmup_s"]
        return t


TcpProfile = Literal["rfc", "ns2-2.26", "ns2-1999", "linux"]


TcpVariant = Literal["reno", "newreno", "sack"]


RttSamplingKind = Literal["every_ack", "timed_segment", "timestamps"]


RtoEstimatorKind = Literal["rfc6298", "ns2", "linux"]


SsthreshBasisKind = Literal["flight_size", "window", "cwnd"]


CongestionControlKind = Literal["reno", "cubic"]


class TcpConfig(Table):
    """TcpConfig"""

    __slots__ = (
        "profile",
        "variant",
        "packet_size_bytes",
        "header_bytes",
        "ack_size_bytes",
        "initial_window_segments",
        "initial_ssthresh_bytes",
        "rwnd_bytes",
        "awnd_segments",
        "window_scaling",
        "initial_rto_ms",
        "min_rto_ms",
        "max_rto_ms",
        "clock_granularity_ms",
        "delack_count",
        "delack_timeout_ms",
        "rtt_sampling",
        "rto_estimator",
        "limited_transmit",
        "restart_timer_on_fast_retransmit",
        "reno_recover_after_rto",
        "reno_one_recovery_per_window",
        "rto_ssthresh_every_expiry",
        "ssthresh_basis",
        "suppressed_dupack_inflation",
        "congestion_control",
        "cubic_beta",
        "cubic_c",
        "hystart",
        "timestamps",
        "prr",
        "abc_limit_segments",
        "ca_byte_counting",
        "quickack_segments",
        "syn",
    )

    # The TCP stack whose defaults every other tcp key takes: 'rfc' (RFC 5681/6582/6298), 'ns2-2.26'
    # (Zeng's simulator), 'ns2-1999' (the ns-2 Reno Bai et al. ported), 'linux' (CUBIC, SACK with
    # PRR, timestamps, IW10, as a Linux host). Keys set explicitly override the profile
    # (docs/models/tcp.md).
    profile: TcpProfile
    # Loss recovery: 'reno' (RFC 5681: recovery ends on the first new ACK), 'newreno' (RFC 6582:
    # partial ACKs retransmit, recovery ends when `recover` is acknowledged) or 'sack' (RFC 2018
    # SACK blocks and RFC 6675 recovery).
    variant: TcpVariant
    # IP packet size of a full data segment, bytes; MSS = packet - header.
    packet_size_bytes: int
    # TCP/IP header bytes on every segment (40: no options).
    header_bytes: int
    # Size of a pure ACK on the wire, in bytes.
    ack_size_bytes: int
    # Initial congestion window, in segments.
    initial_window_segments: int
    # Initial ssthresh in bytes; unset means arbitrarily high (RFC 5681 3.1). At least 2 MSS when
    # set.
    initial_ssthresh_bytes: int | None
    # Receiver buffer = maximum advertised window, in bytes (at least one MSS).
    rwnd_bytes: int
    # Receiver buffer in segments (ns-2's window_, Bai et al.'s awnd); when set it replaces
    # rwnd_bytes by awnd_segments x MSS.
    awnd_segments: int | None
    # RFC 7323 window scaling; without it the advertised window is capped at 65535 bytes whatever
    # rwnd_bytes says.
    window_scaling: bool
    # Initial retransmission timeout, ms.
    initial_rto_ms: float
    # Lower bound of the RTO, ms.
    min_rto_ms: float
    # Upper bound of the RTO (at least min_rto_ms), ms.
    max_rto_ms: float
    # Clock granularity G of RFC 6298 section 2, ms.
    clock_granularity_ms: float
    # Acknowledge every delack_count-th in-order segment; 1 disables delayed ACKs.
    delack_count: int
    # Delayed-ACK timer, ms.
    delack_timeout_ms: float
    # RTT samples from every ACK of new data ('every_ack'), from one timed segment at a time, one
    # per RTT ('timed_segment', ns-2 and BSD without timestamps), or from the echoed timestamp of
    # every ACK of new data ('timestamps', RFC 7323 RTTM; needs timestamps = true).
    rtt_sampling: RttSamplingKind
    # 'rfc6298' (SRTT/RTTVAR in ns, G = clock_granularity_ms), 'ns2' (samples floored to ticks of
    # clock_granularity_ms, ns-2's fixed-point SRTT/RTTVAR and RTO) or 'linux' (RTO = SRTT +
    # max(largest 4 x mdev of the last window, min_rto_ms)).
    rto_estimator: RtoEstimatorKind
    # RFC 3042 Limited Transmit: a new segment on each of the first two duplicate ACKs.
    limited_transmit: bool
    # Restart the retransmission timer at fast retransmit (ns-2).
    restart_timer_on_fast_retransmit: bool
    # Reno: duplicate ACKs at or below the highest sequence sent at an RTO start no fast retransmit
    # (ns-2 bugFix_; NewReno always does this, RFC 6582).
    reno_recover_after_rto: bool
    # Reno: no second fast retransmit until an ACK passes the highest sequence sent at the first
    # (ns-2 bugFix_).
    reno_one_recovery_per_window: bool
    # Recompute ssthresh on every RTO expiry (ns-2 slowdown()), not only on the first one for a
    # segment (RFC 5681).
    rto_ssthresh_every_expiry: bool
    # What a loss reduces: 'flight_size' (RFC 5681 eq. 4), 'window' (ns-2: min(cwnd, receiver
    # window) in whole segments) or 'cwnd' (Linux: min(cwnd, receiver window)).
    ssthresh_basis: SsthreshBasisKind
    # Duplicate ACKs whose fast retransmit the recover guard suppresses (after an RTO) still inflate
    # the window by 3 segments, then 1 per duplicate (ns-2 Reno up to 2.26).
    suppressed_dupack_inflation: bool
    # Window growth: 'reno' (RFC 5681) or 'cubic' (RFC 9438).
    congestion_control: CongestionControlKind
    # CUBIC's multiplicative decrease factor (RFC 9438: 0.7).
    cubic_beta: float
    # CUBIC's C (RFC 9438: 0.4).
    cubic_c: float
    # HyStart++ (RFC 9406) in slow start.
    hystart: bool
    # The timestamps option on every segment (RFC 7323); header_bytes and ack_size_bytes must then
    # include its 12 bytes (at least 52).
    timestamps: bool
    # Proportional Rate Reduction (RFC 6937) in SACK recovery; needs variant = 'sack'.
    prr: bool
    # RFC 3465 L: at most this many segments added to cwnd per ACK in slow start; 0 = no limit
    # (Linux).
    abc_limit_segments: int
    # RFC 3465 byte counting in congestion avoidance (one MSS per cwnd of acknowledged bytes)
    # instead of MSS^2/cwnd per ACK (Reno).
    ca_byte_counting: bool
    # ACK each of the first this many in-order segments at once (Linux's quick-ACK mode at the
    # start: 16); 0 = off.
    quickack_segments: int
    # Open each connection with a SYN (header_bytes on the wire, timed, resent with backoff); data
    # flows once the SYN-ACK is back. Off: the connection exists from the flow's start (ns-2's one-
    # way TCP without syn_).
    syn: bool

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TcpConfig:
        t = cls.__new__(cls)
        t.profile = d["profile"]
        t.variant = d["variant"]
        t.packet_size_bytes = d["packet_size_bytes"]
        t.header_bytes = d["header_bytes"]
        t.ack_size_bytes = d["ack_size_bytes"]
        t.initial_window_segments = d["initial_window_segments"]
        t.initial_ssthresh_bytes = d["initial_ssthresh_bytes"]
        t.rwnd_bytes = d["rwnd_bytes"]
        t.awnd_segments = d["awnd_segments"]
        t.window_scaling = d["window_scaling"]
        t.initial_rto_ms = d["initial_rto_ms"]
        t.min_rto_ms = d["min_rto_ms"]
        t.max_rto_ms = d["max_rto_ms"]
        t.clock_granularity_ms = d["clock_granularity_ms"]
        t.delack_count = d["delack_count"]
        t.delack_timeout_ms = d["delack_timeout_ms"]
        t.rtt_sampling = d["rtt_sampling"]
        t.rto_estimator = d["rto_estimator"]
        t.limited_transmit = d["limited_transmit"]
        t.restart_timer_on_fast_retransmit = d["restart_timer_on_fast_retransmit"]
        t.reno_recover_after_rto = d["reno_recover_after_rto"]
        t.reno_one_recovery_per_window = d["reno_one_recovery_per_window"]
        t.rto_ssthresh_every_expiry = d["rto_ssthresh_every_expiry"]
        t.ssthresh_basis = d["ssthresh_basis"]
        t.suppressed_dupack_inflation = d["suppressed_dupack_inflation"]
        t.congestion_control = d["congestion_control"]
        t.cubic_beta = d["cubic_beta"]
        t.cubic_c = d["cubic_c"]
        t.hystart = d["hystart"]
        t.timestamps = d["timestamps"]
        t.prr = d["prr"]
        t.abc_limit_segments = d["abc_limit_segments"]
        t.ca_byte_counting = d["ca_byte_counting"]
        t.quickack_segments = d["quickack_segments"]
        t.syn = d["syn"]
        return t


class FlowsConfig(Table):
    """FlowsConfig"""

    __slots__ = (
        "count",
        "start_s",
        "stagger_s",
        "start_times_s",
        "start_jitter_s",
        "size_bytes",
    )

    # Number of flows (per UE with access.kind = 'lte' or 'nr').
    count: int
    # Start of the first flow, seconds.
    start_s: float
    # Flow i starts at start_s + i * stagger_s (unless start_times_s is set).
    stagger_s: float
    # Explicit start time of every flow, seconds; exactly `count` values.
    start_times_s: list[float] | None
    # Each flow starts a random U(0, start_jitter_s) seconds later (drawn per run from the flow's
    # own stream), so replications of a loss-free scenario differ.
    start_jitter_s: float
    # Bytes each flow's application sends (a file transfer; its completion time is the metric
    # flows.<i>.completion_s); unset = unlimited bulk.
    size_bytes: int | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FlowsConfig:
        t = cls.__new__(cls)
        t.count = d["count"]
        t.start_s = d["start_s"]
        t.stagger_s = d["stagger_s"]
        t.start_times_s = d["start_times_s"]
        t.start_jitter_s = d["start_jitter_s"]
        t.size_bytes = d["size_bytes"]
        return t


QueueDiscipline = Literal["droptail"]


class QueueConfig(Table):
    """QueueConfig"""

    __slots__ = (
        "discipline",
        "limit_packets",
        "limit_bytes",
    )

    # Only 'droptail' for now.
    discipline: QueueDiscipline
    # Packets that may wait (not counting the one being transmitted).
    limit_packets: int
    # Optional byte limit on the waiting packets (at least tcp.packet_size_bytes); both limits apply
    # when both are set.
    limit_bytes: int | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> QueueConfig:
        t = cls.__new__(cls)
        t.discipline = d["discipline"]
        t.limit_packets = d["limit_packets"]
        t.limit_bytes = d["limit_bytes"]
        return t


DelayProcessKind = Literal["constant", "uniform", "normal", "markov", "trace"]


class DelayLevelConfig(Table):
    """One level of a Markov-modulated delay."""

    __slots__ = (
        "delay_ms",
        "mean_sojourn_ms",
    )

    # One-way delay at this level, ms.
    delay_ms: float
    # Mean time the chain stays at this level, ms (exponential).
    mean_sojourn_ms: float

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> DelayLevelConfig:
        t = cls.__new__(cls)
        t.delay_ms = d["delay_ms"]
        t.mean_sojourn_ms = d["mean_sojourn_ms"]
        return t


DelayDirections = Literal["both", "data", "ack"]


class SpikeConfig(Table):
    """A scheduled stall or added delay on a link."""

    __slots__ = (
        "start_s",
        "duration_s",
        "extra_ms",
        "stall",
    )

    # Start of the spike, s.
    start_s: float
    # Length of the spike, s.
    duration_s: float
    # Delay added to packets sent during the spike, ms.
    extra_ms: float
    # Nothing leaves the link during the spike: arrivals in it wait for its end.
    stall: bool

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SpikeConfig:
        t = cls.__new__(cls)
        t.start_s = d["start_s"]
        t.duration_s = d["duration_s"]
        t.extra_ms = d["extra_ms"]
        t.stall = d["stall"]
        return t


class VariableDelayConfig(Table):
    """The per-packet one-way delay of a link (docs/models/variable-delay-link.md)."""

    __slots__ = (
        "process",
        "mean_ms",
        "half_width_ms",
        "std_ms",
        "floor_ms",
        "levels",
        "trace",
        "fifo",
        "start_s",
        "directions",
        "spikes",
    )

    # 'constant' (mean_ms), 'uniform' (mean_ms +- half_width_ms), 'normal' (mean_ms, std_ms, at
    # least floor_ms), 'markov' (levels) or 'trace' (trace).
    process: DelayProcessKind
    # Delay (constant) or mean delay, ms.
    mean_ms: float
    # uniform: half the width of the range, at most mean_ms, ms.
    half_width_ms: float
    # normal: standard deviation, ms.
    std_ms: float
    # normal: smaller draws are raised to this, ms.
    floor_ms: float
    # markov: delay levels; the chain jumps to another level, uniformly, after an exponential
    # sojourn.
    levels: list[DelayLevelConfig]
    # trace: [from_s, delay_ms] points, times increasing; a step function.
    trace: list[list[float]]
    # Forbid reordering: no packet arrives before one sent earlier.
    fifo: bool
    # The process starts here; before, packets take its nominal delay, s.
    start_s: float
    # Directions the process applies to; the other keeps delay_ms.
    directions: DelayDirections
    # Scheduled spikes.
    spikes: list[SpikeConfig]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> VariableDelayConfig:
        t = cls.__new__(cls)
        t.process = d["process"]
        t.mean_ms = d["mean_ms"]
        t.half_width_ms = d["half_width_ms"]
        t.std_ms = d["std_ms"]
        t.floor_ms = d["floor_ms"]
        t.levels = [DelayLevelConfig.from_dict(x) for x in d["levels"]]
        t.trace = d["trace"]
        t.fifo = d["fifo"]
        t.start_s = d["start_s"]
        t.directions = d["directions"]
        t.spikes = [SpikeConfig.from_dict(x) for x in d["spikes"]]
        return t


class LinkConfig(Table):
    """LinkConfig"""

    __slots__ = (
        "name",
        "rate_kbps",
        "delay_ms",
        "loss_rate",
        "ack_loss_rate",
        "queue",
        "variable_delay",
    )

    # Name used in metric keys (letters, digits, '_' and '-'); unique per scenario.
    name: str
    # Transmission rate, kbit/s (1 kbit = 1000 bit).
    rate_kbps: float
    # One-way propagation delay, ms.
    delay_ms: float
    # Probability that a data packet (server -> client) is lost here.
    loss_rate: float
    # Probability that an ACK (client -> server) is lost here.
    ack_loss_rate: float
    # Queue of this link.
    queue: QueueConfig
    # A per-packet delay process (reordering, spikes) instead of delay_ms; unset = the constant
    # delay_ms.
    variable_delay: VariableDelayConfig | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LinkConfig:
        t = cls.__new__(cls)
        t.name = d["name"]
        t.rate_kbps = d["rate_kbps"]
        t.delay_ms = d["delay_ms"]
        t.loss_rate = d["loss_rate"]
        t.ack_loss_rate = d["ack_loss_rate"]
        t.queue = QueueConfig.from_dict(d["queue"])
        t.variable_delay = opt(VariableDelayConfig.from_dict, d["variable_delay"])
        return t


class WiredAccessConfig(Table):
    """The last link reaches the client directly."""

    __slots__ = ("kind",)

    kind: Literal["wired"]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> WiredAccessConfig:
        t = cls.__new__(cls)
        t.kind = d["kind"]
        return t


ChannelKind = Literal["none", "iid", "markov"]


class ChannelConfig(Table):
    """ChannelConfig"""

    __slots__ = (
        "model",
        "fer",
        "fd_t",
    )

    # 'none' (error-free), 'iid' (each TTI lost with probability fer) or 'markov' (first-order
    # Markov model of Rayleigh fading, Zorzi et al.).
    model: ChannelKind
    # Average TTI (block) error rate.
    fer: float
    # Normalised Doppler frequency f_d x TTI (markov only).
    fd_t: float

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ChannelConfig:
        t = cls.__new__(cls)
        t.model = d["model"]
        t.fer = d["fer"]
        t.fd_t = d["fd_t"]
        return t


class RlcConfig(Table):
    """RlcConfig"""

    __slots__ = (
        "window_pdus",
        "max_dat",
        "poll_timer_ms",
        "poll_prohibit_ms",
        "status_prohibit_ms",
        "poll_window_pct",
        "poll_last_pdu",
        "poll_last_retransmitted",
        "missing_pdu_indicator",
        "mrw_timer_ms",
    )

    # Transmission (= receiving) window, PDUs.
    window_pdus: int
    # A PDU is sent at most max_dat - 1 times; then its SDUs are discarded (Move Receiving Window).
    max_dat: int
    # Timer_Poll, ms.
    poll_timer_ms: float
    # Timer_Poll_Prohibit, ms (0 = off).
    poll_prohibit_ms: float
    # Timer_Status_Prohibit, ms (0 = off).
    status_prohibit_ms: float
    # Poll when this share of the window is outstanding, % (above 100 = off).
    poll_window_pct: float
    # Poll on the last PDU in the buffer.
    poll_last_pdu: bool
    # Poll on the last retransmitted PDU.
    poll_last_retransmitted: bool
    # The receiver sends a STATUS as soon as it detects a missing PDU.
    missing_pdu_indicator: bool
    # Timer_MRW, ms.
    mrw_timer_ms: float

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RlcConfig:
        t = cls.__new__(cls)
        t.window_pdus = d["window_pdus"]
        t.max_dat = d["max_dat"]
        t.poll_timer_ms = d["poll_timer_ms"]
        t.poll_prohibit_ms = d["poll_prohibit_ms"]
        t.status_prohibit_ms = d["status_prohibit_ms"]
        t.poll_window_pct = d["poll_window_pct"]
        t.poll_last_pdu = d["poll_last_pdu"]
        t.poll_last_retransmitted = d["poll_last_retransmitted"]
        t.missing_pdu_indicator = d["missing_pdu_indicator"]
        t.mrw_timer_ms = d["mrw_timer_ms"]
        return t


BufferDisciplineKind = Literal["droptail", "red", "sbd", "codel", "pie"]


class RedConfig(Table):
    """RED with the instantaneous queue (w_q = 1) and the count-based correction."""

    __slots__ = (
        "min_th_sdus",
        "max_th_sdus",
        "max_p",
    )

    # Lower threshold, SDUs.
    min_th_sdus: float
    # Upper threshold, SDUs; at or above it every arrival is dropped.
    max_th_sdus: float
    # Drop probability reached at max_th.
    max_p: float

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RedConfig:
        t = cls.__new__(cls)
        t.min_th_sdus = d["min_th_sdus"]
        t.max_th_sdus = d["max_th_sdus"]
        t.max_p = d["max_p"]
        return t


class SbdConfig(Table):
    """Slope Based Discard; maxth is the buffer limit."""

    __slots__ = (
        "min_th_sdus",
        "t_r_ms",
        "alpha_bits",
        "sync_to_tti",
    )

    # minth, SDUs (below limit_sdus).
    min_th_sdus: float
    # Estimated reaction time T_r, ms.
    t_r_ms: float
    # Occupancy interval alpha, bits (5 maximum-size SDUs).
    alpha_bits: float
    # Round the C_n and T_r timer expiries up to TTI boundaries.
    sync_to_tti: bool

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SbdConfig:
        t = cls.__new__(cls)
        t.min_th_sdus = d["min_th_sdus"]
        t.t_r_ms = d["t_r_ms"]
        t.alpha_bits = d["alpha_bits"]
        t.sync_to_tti = d["sync_to_tti"]
        return t


class CodelConfig(Table):
    """CoDel; at 384 kbit/s one 1500-byte SDU takes 31 ms, so the RFC's 5 ms target is raised
    (model-specs §6.2 cellular notes)."""

    __slots__ = (
        "target_ms",
        "interval_ms",
    )

    # TARGET sojourn time, ms.
    target_ms: float
    # INTERVAL, about the worst-case RTT, ms.
    interval_ms: float

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CodelConfig:
        t = cls.__new__(cls)
        t.target_ms = d["target_ms"]
        t.interval_ms = d["interval_ms"]
        return t


class PieConfig(Table):
    """PIE; QDELAY_REF is raised above one SDU's transmission time at 384 kbit/s (31 ms)."""

    __slots__ = (
        "qdelay_ref_ms",
        "t_update_ms",
        "alpha",
        "beta",
        "max_burst_ms",
    )

    # QDELAY_REF, ms.
    qdelay_ref_ms: float
    # T_UPDATE, ms.
    t_update_ms: float
    # Integral gain, 1/s.
    alpha: float
    # Proportional gain, 1/s.
    beta: float
    # MAX_BURST allowance, ms.
    max_burst_ms: float

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PieConfig:
        t = cls.__new__(cls)
        t.qdelay_ref_ms = d["qdelay_ref_ms"]
        t.t_update_ms = d["t_update_ms"]
        t.alpha = d["alpha"]
        t.beta = d["beta"]
        t.max_burst_ms = d["max_burst_ms"]
        return t


class BufferConfig(Table):
    """BufferConfig"""

    __slots__ = (
        "discipline",
        "limit_sdus",
        "red",
        "sbd",
        "codel",
        "pie",
    )

    # 'droptail', 'red' (instantaneous RED), 'sbd' (Slope Based Discard), 'codel' (CoDel at
    # transmission start) or 'pie'; the hard limit applies to all.
    discipline: BufferDisciplineKind
    # SDUs the RLC transmitter may hold (queued, in flight or awaiting acknowledgement); SBD's
    # maxth.
    limit_sdus: int
    # RED parameters.
    red: RedConfig
    # SBD parameters.
    sbd: SbdConfig
    # CoDel parameters.
    codel: CodelConfig
    # PIE parameters.
    pie: PieConfig

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BufferConfig:
        t = cls.__new__(cls)
        t.discipline = d["discipline"]
        t.limit_sdus = d["limit_sdus"]
        t.red = RedConfig.from_dict(d["red"])
        t.sbd = SbdConfig.from_dict(d["sbd"])
        t.codel = CodelConfig.from_dict(d["codel"])
        t.pie = PieConfig.from_dict(d["pie"])
        return t


AckControlMode = Literal["none", "rate", "delay"]


AckRelease = Literal["per_tti", "one_per_event", "while_due"]


class AckControlConfig(Table):
    """AckControlConfig"""

    __slots__ = (
        "mode",
        "minth_sdus",
        "maxth_sdus",
        "mind_ms",
        "maxd_ms",
        "alpha",
        "sync_to_tti",
        "release",
    )

    # 'none', 'rate' (ACK rate control: inter-departure time t_id = f(BO), Alcaraz & Cerdan 2006) or
    # 'delay' (ACK delay control: the alpha -> 0 case, a fixed spacing maxd_ms once BO >=
    # minth_sdus).
    mode: AckControlMode
    # BO at which ACKs start to be spaced.
    minth_sdus: float
    # BO at which t_id reaches maxd_ms.
    maxth_sdus: float
    # t_id at minth, ms.
    mind_ms: float
    # t_id at maxth and above, ms.
    maxd_ms: float
    # Shape of f (rate mode).
    alpha: float
    # Round id_timer expiries up to TTI boundaries.
    sync_to_tti: bool
    # Fig. 4 releases at most one ACK per event: 'per_tti' (every TTI of the RLC is an event too, so
    # a backlog drains one ACK per TTI), 'one_per_event' (only ACK arrivals and timer expiries: a
    # backlog can be stranded until a TCP timeout) or 'while_due' (ACKs keep leaving while the
    # spacing allows: a backlog leaves at once when BO < minth).
    release: AckRelease

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AckControlConfig:
        t = cls.__new__(cls)
        t.mode = d["mode"]
        t.minth_sdus = d["minth_sdus"]
        t.maxth_sdus = d["maxth_sdus"]
        t.mind_ms = d["mind_ms"]
        t.maxd_ms = d["maxd_ms"]
        t.alpha = d["alpha"]
        t.sync_to_tti = d["sync_to_tti"]
        t.release = d["release"]
        return t


class UmtsConfig(Table):
    """A UMTS dedicated channel with RLC AM (the RNC's buffer, the DCH, the UE's RLC)."""

    __slots__ = (
        "kind",
        "tti_ms",
        "pdus_per_tti",
        "pdu_payload_bytes",
        "li_bytes",
        "one_way_delay_ms",
        "ue_tti_offset_ms",
        "downlink",
        "uplink",
        "rlc",
        "buffer",
        "ack_control",
    )

    kind: Literal["umts"]
    # Transmission time interval, ms.
    tti_ms: float
    # PDUs per TTI and direction (12 at 384 kbit/s).
    pdus_per_tti: int
    # Payload octets per AMD PDU (40 = 320 bits).
    pdu_payload_bytes: int
    # Octets per length indicator.
    li_bytes: int
    # From the start of a PDU's TTI to its arrival at the peer RLC, ms; the radio round trip is
    # twice this.
    one_way_delay_ms: float
    # How far the UE's TTI grid lies behind the RNC's, ms, in [0, tti_ms). Unset: one_way_delay_ms
    # mod tti_ms, so each side sends in the TTI in which the other's PDUs arrive and the RLC loop is
    # twice the one-way delay (50 ms); 0: one grid, a 60 ms loop with the default delay (the model
    # before this key).
    ue_tti_offset_ms: float | None
    # Downlink block-error channel.
    downlink: ChannelConfig
    # Uplink channel; unset = the downlink's parameters, independent chain.
    uplink: ChannelConfig | None
    # RLC AM parameters.
    rlc: RlcConfig
    # Per-user downlink buffer.
    buffer: BufferConfig
    # Uplink ACK policy at the RNC.
    ack_control: AckControlConfig

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> UmtsConfig:
        t = cls.__new__(cls)
        t.kind = d["kind"]
        t.tti_ms = d["tti_ms"]
        t.pdus_per_tti = d["pdus_per_tti"]
        t.pdu_payload_bytes = d["pdu_payload_bytes"]
        t.li_bytes = d["li_bytes"]
        t.one_way_delay_ms = d["one_way_delay_ms"]
        t.ue_tti_offset_ms = d["ue_tti_offset_ms"]
        t.downlink = ChannelConfig.from_dict(d["downlink"])
        t.uplink = opt(ChannelConfig.from_dict, d["uplink"])
        t.rlc = RlcConfig.from_dict(d["rlc"])
        t.buffer = BufferConfig.from_dict(d["buffer"])
        t.ack_control = AckControlConfig.from_dict(d["ack_control"])
        return t


class RlpConfig(Table):
    """An IS-707 RLP link (the IAP's buffer, the traffic channel, the mobile's RLP)."""

    __slots__ = (
        "kind",
        "slot_ms",
        "frame_payload_bytes",
        "frames_per_slot",
        "one_way_delay_ms",
        "nak_rounds",
        "t_ret_ms",
        "t_abort_ms",
        "idle_frames",
        "iap_buffer_packets",
        "forward",
        "reverse",
    )

    kind: Literal["rlp"]
    # Radio frame period, ms (20 in IS-707).
    slot_ms: float
    # Octets of the octet stream per RLP data frame (19 at 9600 bit/s).
    frame_payload_bytes: int
    # RLP frames per slot and direction (16 for the 16 x 9600 bit/s case); all frames of a slot
    # share the channel state.
    frames_per_slot: int
    # From the start of a frame's slot to its arrival at the peer RLP, ms (2 frames: interleaving,
    # processing, backhaul; model-specs 3.3).
    one_way_delay_ms: float
    # Retransmission cycles: round i sends i NAKs; rounds 1..n-1 end with the NAK retransmission
    # timer, round n with the abort timer (IS-707: 2).
    nak_rounds: int
    # NAK retransmission timer, ms.
    t_ret_ms: float
    # NAK abort timer, ms.
    t_abort_ms: float
    # Idle frames (carrying the next sequence number) sent after the data runs out, so that a lost
    # last frame is detected; 0 = none.
    idle_frames: int
    # IP packets the IAP buffer (before the RLP sender) holds; drop-tail.
    iap_buffer_packets: int
    # Forward (IAP to mobile) frame-error channel, one state per slot.
    forward: ChannelConfig
    # Reverse channel (ACKs and NAKs); unset = the forward parameters with an independent chain.
    reverse: ChannelConfig | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RlpConfig:
        t = cls.__new__(cls)
        t.kind = d["kind"]
        t.slot_ms = d["slot_ms"]
        t.frame_payload_bytes = d["frame_payload_bytes"]
        t.frames_per_slot = d["frames_per_slot"]
        t.one_way_delay_ms = d["one_way_delay_ms"]
        t.nak_rounds = d["nak_rounds"]
        t.t_ret_ms = d["t_ret_ms"]
        t.t_abort_ms = d["t_abort_ms"]
        t.idle_frames = d["idle_frames"]
        t.iap_buffer_packets = d["iap_buffer_packets"]
        t.forward = ChannelConfig.from_dict(d["forward"])
        t.reverse = opt(ChannelConfig.from_dict, d["reverse"])
        return t


class LteCellConfig(Table):
    """The Case-1 drop (lte-cell.md §1; TR 36.814 A.2.1)."""

    __slots__ = (
        "isd_m",
        "enb_power_dbm",
        "shadowing_sigma_db",
        "penetration_loss_db",
        "min_distance_m",
        "ue_noise_figure_db",
        "ue_sinr_db",
        "ue_coupling_loss_db",
        "sectors",
        "ues_per_sector",
        "drop_seed",
    )

    # Inter-site distance, m.
    isd_m: float
    # eNB power over the band, dBm; unset = 43 / 46 / 49 dBm at 5 / 10 / 20 MHz.
    enb_power_dbm: float | None
    # Log-normal shadowing, dB.
    shadowing_sigma_db: float
    # Building penetration loss, dB.
    penetration_loss_db: float
    # Closest a UE is dropped to a site, m.
    min_distance_m: float
    # UE noise figure, dB.
    ue_noise_figure_db: float
    # Per-UE mean downlink SINR, dB, instead of a drop (one value per UE; sectors then go round
    # robin and positions are undefined).
    ue_sinr_db: list[float] | None
    # With ue_sinr_db: each UE's coupling loss to its sector, dB, for uplink power control (one
    # value per UE); unset = such UEs are received at P0 and never power-limited.
    ue_coupling_loss_db: list[float] | None
    # With ue_sinr_db: the UEs go round robin over this many sectors (1 = all in one cell, for a
    # single-cell comparison).
    sectors: int
    # UEs per sector of the centre site (e.g. Table I's [2, 4, 4]): the drop keeps drawing until
    # each sector has its count; with ue_sinr_db the UEs fill the sectors in order. Must sum to
    # `ues`; unset = a uniform drop.
    ues_per_sector: list[int] | None
    # Draw the drop from this seed instead of each run's own, so that all replications share one
    # placement of UEs (per-UE figures); unset = a drop per run.
    drop_seed: int | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LteCellConfig:
        t = cls.__new__(cls)
        t.isd_m = d["isd_m"]
        t.enb_power_dbm = d["enb_power_dbm"]
        t.shadowing_sigma_db = d["shadowing_sigma_db"]
        t.penetration_loss_db = d["penetration_loss_db"]
        t.min_distance_m = d["min_distance_m"]
        t.ue_noise_figure_db = d["ue_noise_figure_db"]
        t.ue_sinr_db = d["ue_sinr_db"]
        t.ue_coupling_loss_db = d["ue_coupling_loss_db"]
        t.sectors = d["sectors"]
        t.ues_per_sector = d["ues_per_sector"]
        t.drop_seed = d["drop_seed"]
        return t


FadingKind = Literal["none", "rayleigh", "jakes"]


class LteFadingConfig(Table):
    """LteFadingConfig"""

    __slots__ = (
        "model",
        "speed_kmh",
        "carrier_ghz",
        "sinusoids",
    )

    # 'none', 'rayleigh' (i.i.d. block Rayleigh per TTI) or 'jakes' (sum of sinusoids at speed_kmh).
    model: FadingKind
    # UE speed, km/h.
    speed_kmh: float
    # Carrier frequency, GHz.
    carrier_ghz: float
    # Sinusoids of the Jakes model.
    sinusoids: int

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LteFadingConfig:
        t = cls.__new__(cls)
        t.model = d["model"]
        t.speed_kmh = d["speed_kmh"]
        t.carrier_ghz = d["carrier_ghz"]
        t.sinusoids = d["sinusoids"]
        return t


class LteHarqConfig(Table):
    """LteHarqConfig"""

    __slots__ = (
        "max_tx",
        "processes",
    )

    # Transmissions of a block before HARQ gives up (ns-3: 4).
    max_tx: int
    # HARQ processes per UE and link.
    processes: int

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LteHarqConfig:
        t = cls.__new__(cls)
        t.max_tx = d["max_tx"]
        t.processes = d["processes"]
        return t


UlSchedulerKind = Literal["pf", "round_robin"]


BsrKind = Literal["standard", "ideal"]


UlPowerControlKind = Literal["per_grant", "reference_prb"]


UlInterferenceKind = Literal["load", "constant"]


class LteUplinkConfig(Table):
    """LteUplinkConfig"""

    __slots__ = (
        "bandwidth_mhz",
        "scheduler",
        "min_prb",
        "bsr",
        "sr_period_ms",
        "sr_offset_ms",
        "sr_grant_delay_tti",
        "sr_grant_bytes",
        "periodic_bsr_tti",
        "retx_bsr_tti",
        "dsr_trans_max",
        "fixed_mcs",
        "power_control",
        "p0_dbm",
        "alpha",
        "ue_power_dbm",
        "phr_periodic_tti",
        "phr_prohibit_tti",
        "phr_pathloss_change_db",
        "enb_noise_figure_db",
        "interference",
        "iot_db",
        "neighbour_load",
        "sc_fdma_loss_db",
        "reference_prb",
        "pucch_prb",
    )

    # The uplink carrier, MHz; unset = the downlink's (access.bandwidth_mhz).
    bandwidth_mhz: int | None
    # 'pf' (PF order, chunks sized to the reported buffer) or 'round_robin' (ns-3 PfFfMacScheduler's
    # uplink: equal shares).
    scheduler: UlSchedulerKind
    # Fewest PRBs in a grant (a PUSCH size 2^a 3^b 5^c).
    min_prb: int
    # 'standard' (SR on PUCCH, regular/periodic/padding BSR in the block) or 'ideal' (ns-3: the eNB
    # learns the buffer every TTI with new data; no SR).
    bsr: BsrKind
    # SR periodicity T_SR, ms (TS 36.213 Table 10.1.5-1).
    sr_period_ms: int
    # Every UE's SR subframe offset (below sr_period_ms); unset = UE u at u mod T_SR, spreading the
    # opportunities over the period.
    sr_offset_ms: int | None
    # An SR at n is answered by a grant at n + this.
    sr_grant_delay_tti: int
    # What the eNB grants for an SR, octets.
    sr_grant_bytes: int
    # periodicBSR-Timer, subframes; unset = infinity.
    periodic_bsr_tti: int | None
    # retxBSR-Timer, subframes.
    retx_bsr_tti: int
    # dsr-TransMax: SRs before the UE would fall back to random access.
    dsr_trans_max: int
    # One UL MCS for every UE (ns-3 uses 0); unset = link adaptation.
    fixed_mcs: int | None
    # 'per_grant' (TS 36.213 5.1.1.1: P = min(P_CMAX, 10 log10 M + P0 + alpha PL) per grant, so a
    # power-limited UE's SINR per PRB falls with its PRBs; grants sized to the PHR) or
    # 'reference_prb' (one SINR for reference_prb PRBs whatever the grant; the ns-3 comparison
    # mode).
    power_control: UlPowerControlKind
    # P0 per PRB, dBm.
    p0_dbm: float
    # Fractional power control alpha (TS 36.331).
    alpha: float
    # UE maximum power P_CMAX, dBm.
    ue_power_dbm: float
    # periodicPHR-Timer, subframes (TS 36.321 5.4.6); unset = infinity.
    phr_periodic_tti: int | None
    # prohibitPHR-Timer, subframes.
    phr_prohibit_tti: int
    # dl-PathlossChange, dB; unset = infinity.
    phr_pathloss_change_db: float | None
    # eNB noise figure, dB.
    enb_noise_figure_db: float
    # 'load' (the IoT per PRB follows the neighbour sectors' uplink load) or 'constant' (iot_db).
    interference: UlInterferenceKind
    # Interference over thermal at the eNB with interference = 'constant', dB.
    iot_db: float
    # With interference = 'load': the fraction of PUSCH PRBs the neighbour sectors use; unset = the
    # serving site's own utilisation mirrored (EWMA, 100 TTIs).
    neighbour_load: float | None
    # SC-FDMA loss, dB.
    sc_fdma_loss_db: float
    # PRBs the UL SINR is computed for with power_control = 'reference_prb'.
    reference_prb: int
    # PRBs at the band edges taken by PUCCH (not available to PUSCH; even); unset = 2 / 4 / 8 at 5 /
    # 10 / 20 MHz.
    pucch_prb: int | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LteUplinkConfig:
        t = cls.__new__(cls)
        t.bandwidth_mhz = d["bandwidth_mhz"]
        t.scheduler = d["scheduler"]
        t.min_prb = d["min_prb"]
        t.bsr = d["bsr"]
        t.sr_period_ms = d["sr_period_ms"]
        t.sr_offset_ms = d["sr_offset_ms"]
        t.sr_grant_delay_tti = d["sr_grant_delay_tti"]
        t.sr_grant_bytes = d["sr_grant_bytes"]
        t.periodic_bsr_tti = d["periodic_bsr_tti"]
        t.retx_bsr_tti = d["retx_bsr_tti"]
        t.dsr_trans_max = d["dsr_trans_max"]
        t.fixed_mcs = d["fixed_mcs"]
        t.power_control = d["power_control"]
        t.p0_dbm = d["p0_dbm"]
        t.alpha = d["alpha"]
        t.ue_power_dbm = d["ue_power_dbm"]
        t.phr_periodic_tti = d["phr_periodic_tti"]
        t.phr_prohibit_tti = d["phr_prohibit_tti"]
        t.phr_pathloss_change_db = d["phr_pathloss_change_db"]
        t.enb_noise_figure_db = d["enb_noise_figure_db"]
        t.interference = d["interference"]
        t.iot_db = d["iot_db"]
        t.neighbour_load = d["neighbour_load"]
        t.sc_fdma_loss_db = d["sc_fdma_loss_db"]
        t.reference_prb = d["reference_prb"]
        t.pucch_prb = d["pucch_prb"]
        return t


DciPriorityKind = Literal["dl_first", "ul_first"]


class LtePdcchConfig(Table):
    """The PDCCH of each sector (TS 36.211 §6.7-6.8, TS 36.213 §9.1.1): a budget of CCEs per TTI
    shared by DL assignments and UL grants."""

    __slots__ = (
        "enabled",
        "cfi",
        "phich_ng",
        "aggregation_sinr_db",
        "priority",
        "max_dl_ues_per_tti",
        "max_ul_ues_per_tti",
    )

    # DCIs draw from a CCE budget (false: any number per TTI, as ns-3).
    enabled: bool
    # OFDM symbols of the control region.
    cfi: int
    # PHICH N_g: 1/6 (0.1667), 0.5, 1 or 2 (TS 36.211 6.9); its REGs leave the budget.
    phich_ng: float
    # Wideband DL SINR (dB, before sinr_offset_db) at or above which a UE's DCIs use aggregation
    # level 1, 2, 4; below the last, 8.
    aggregation_sinr_db: list[float]
    # When CCEs run short: 'dl_first' (DL retransmissions, new DL assignments, then UL grants) or
    # 'ul_first' (DL retransmissions, UL grants, then new DL assignments).
    priority: DciPriorityKind
    # UEs with a DL assignment per sector and TTI; unset = any.
    max_dl_ues_per_tti: int | None
    # UEs with an UL grant per sector and TTI; unset = any.
    max_ul_ues_per_tti: int | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LtePdcchConfig:
        t = cls.__new__(cls)
        t.enabled = d["enabled"]
        t.cfi = d["cfi"]
        t.phich_ng = d["phich_ng"]
        t.aggregation_sinr_db = d["aggregation_sinr_db"]
        t.priority = d["priority"]
        t.max_dl_ues_per_tti = d["max_dl_ues_per_tti"]
        t.max_ul_ues_per_tti = d["max_ul_ues_per_tti"]
        return t


RlcModeKind = Literal["am", "um"]


class LteRlcConfig(Table):
    """LteRlcConfig"""

    __slots__ = (
        "mode",
        "t_poll_retransmit_ms",
        "t_reordering_ms",
        "t_status_prohibit_ms",
        "poll_pdu",
        "poll_byte",
        "max_retx",
        "pdcp_header_bytes",
        "rlc_header_bytes",
        "mac_header_bytes",
    )

    # 'am' or 'um'.
    mode: RlcModeKind
    # t-PollRetransmit, ms.
    t_poll_retransmit_ms: float
    # t-Reordering, ms.
    t_reordering_ms: float
    # t-StatusProhibit, ms; 0 = none.
    t_status_prohibit_ms: float
    # pollPDU.
    poll_pdu: int
    # pollByte, octets.
    poll_byte: int
    # maxRetxThreshold (then the SDU is discarded).
    max_retx: int
    # PDCP header per SDU, octets.
    pdcp_header_bytes: int
    # RLC header per PDU, octets.
    rlc_header_bytes: int
    # MAC subheader per block, octets.
    mac_header_bytes: int

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LteRlcConfig:
        t = cls.__new__(cls)
        t.mode = d["mode"]
        t.t_poll_retransmit_ms = d["t_poll_retransmit_ms"]
        t.t_reordering_ms = d["t_reordering_ms"]
        t.t_status_prohibit_ms = d["t_status_prohibit_ms"]
        t.poll_pdu = d["poll_pdu"]
        t.poll_byte = d["poll_byte"]
        t.max_retx = d["max_retx"]
        t.pdcp_header_bytes = d["pdcp_header_bytes"]
        t.rlc_header_bytes = d["rlc_header_bytes"]
        t.mac_header_bytes = d["mac_header_bytes"]
        return t


AckFilterKind = Literal["basic", "passive", "active", "hybrid", "hybrid_opt", "cake"]


RoundingKind = Literal["ceil", "nearest"]


class AckFilterConfig(Table):
    """AckFilterConfig"""

    __slots__ = (
        "scheme",
        "ratio",
        "threshold",
        "rounding",
        "segment_bytes",
        "aggressive",
    )

    # 'basic' (none), 'passive' (at a grant, ratio; 1 = Granted ACK), 'active' (on arrival,
    # threshold; 1 = Highest ACK), 'hybrid' (both), 'hybrid_opt' (Hybrid with the per-UE T_opt of
    # eq. (2)) or 'cake' (CAKE's ACK filter).
    scheme: AckFilterKind
    # Passive Discard ratio.
    ratio: float
    # Active Discard threshold T (ratio 0.94 is T = 6).
    threshold: int
    # How eq. (2) rounds N_ack: 'ceil' as printed, 'nearest' (what reproduces the printed T_opt
    # column).
    rounding: RoundingKind
    # S_TCP_segment of eq. (1); unset = the MSS.
    segment_bytes: int | None
    # CAKE's aggressive mode.
    aggressive: bool

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AckFilterConfig:
        t = cls.__new__(cls)
        t.scheme = d["scheme"]
        t.ratio = d["ratio"]
        t.threshold = d["threshold"]
        t.rounding = d["rounding"]
        t.segment_bytes = d["segment_bytes"]
        t.aggressive = d["aggressive"]
        return t


class LteConfig(Table):
    """A multi-UE LTE cell: per-UE DL buffers and RLC, PF schedulers, HARQ, SR/BSR/grants, and the
    ACK filter in each UE's uplink buffer."""

    __slots__ = (
        "kind",
        "ues",
        "bandwidth_mhz",
        "sinr_offset_db",
        "cqi_delay_tti",
        "cqi_period_tti",
        "olla_step_db",
        "cell",
        "fading",
        "harq",
        "pf_time_constant_tti",
        "uplink",
        "pdcch",
        "rlc",
        "buffer",
        "ack_filter",
    )

    kind: Literal["lte"]
    # UEs dropped in the centre site.
    ues: int
    # Carrier bandwidth, MHz (25, 50, 100 PRB).
    bandwidth_mhz: int
    # Added to every dropped UE's downlink SINR, dB: a calibration of the Case-1 geometry; SINRs
    # listed in cell.ue_sinr_db are used as written.
    sinr_offset_db: float
    # Age of the CQI an MCS is chosen from, TTIs.
    cqi_delay_tti: int
    # Periodic CQI reports every this many TTIs (TS 36.213 7.2.2; offsets spread UE by UE); the MCS
    # follows the latest report at least cqi_delay_tti old. 1 = every TTI.
    cqi_period_tti: int
    # Outer-loop link adaptation: the SINR offset rises by this step on a decoded first transmission
    # and falls by 9 steps on a failed one (10 % BLER); 0 = off.
    olla_step_db: float
    # The drop.
    cell: LteCellConfig
    # Fast fading.
    fading: LteFadingConfig
    # HARQ.
    harq: LteHarqConfig
    # PF EWMA time constant, TTIs.
    pf_time_constant_tti: float
    # Uplink.
    uplink: LteUplinkConfig
    # The PDCCH budget per sector and TTI.
    pdcch: LtePdcchConfig
    # RLC and headers.
    rlc: LteRlcConfig
    # Each UE's downlink buffer at the eNB.
    buffer: BufferConfig
    # ACK filter in each UE's uplink buffer.
    ack_filter: AckFilterConfig

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LteConfig:
        t = cls.__new__(cls)
        t.kind = d["kind"]
        t.ues = d["ues"]
        t.bandwidth_mhz = d["bandwidth_mhz"]
        t.sinr_offset_db = d["sinr_offset_db"]
        t.cqi_delay_tti = d["cqi_delay_tti"]
        t.cqi_period_tti = d["cqi_period_tti"]
        t.olla_step_db = d["olla_step_db"]
        t.cell = LteCellConfig.from_dict(d["cell"])
        t.fading = LteFadingConfig.from_dict(d["fading"])
        t.harq = LteHarqConfig.from_dict(d["harq"])
        t.pf_time_constant_tti = d["pf_time_constant_tti"]
        t.uplink = LteUplinkConfig.from_dict(d["uplink"])
        t.pdcch = LtePdcchConfig.from_dict(d["pdcch"])
        t.rlc = LteRlcConfig.from_dict(d["rlc"])
        t.buffer = BufferConfig.from_dict(d["buffer"])
        t.ack_filter = AckFilterConfig.from_dict(d["ack_filter"])
        return t


NrDuplexKind = Literal["fdd", "tdd"]


NrMcsTableKind = Literal["qam64", "qam256"]


class NrTimingConfig(Table):
    """NrTimingConfig"""

    __slots__ = (
        "k0",
        "k1",
        "k2",
        "gnb_processing_slots",
    )

    # K0: slots from a downlink DCI to its PDSCH (only 0, the same slot, is modelled).
    k0: int
    # K1: slots from a PDSCH to its HARQ-ACK on PUCCH at the earliest (then the next slot with
    # uplink symbols).
    k1: int
    # K2: slots from an uplink DCI to its PUSCH at the earliest (then the next uplink slot).
    k2: int
    # Slots the gNB needs from a PUSCH or a HARQ NACK to the retransmission's DCI.
    gnb_processing_slots: int

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NrTimingConfig:
        t = cls.__new__(cls)
        t.k0 = d["k0"]
        t.k1 = d["k1"]
        t.k2 = d["k2"]
        t.gnb_processing_slots = d["gnb_processing_slots"]
        return t


class NrHarqConfig(Table):
    """NrHarqConfig"""

    __slots__ = (
        "max_tx",
        "processes",
        "adaptive",
    )

    # Transmissions of a block before HARQ gives up.
    max_tx: int
    # HARQ processes per UE and link (TS 38.331: up to 16).
    processes: int
    # Adaptive retransmissions (TS 38.214 §5.1.3.1, §6.1.4.1): each retransmission keeps its TBS but
    # takes the PRBs that carry it at the UE's current MCS; false: the first transmission's PRBs.
    # Either way a retransmission needs a DCI and waits for the next slot when the CORESET or the
    # PRBs are short.
    adaptive: bool

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NrHarqConfig:
        t = cls.__new__(cls)
        t.max_tx = d["max_tx"]
        t.processes = d["processes"]
        t.adaptive = d["adaptive"]
        return t


class NrFadingConfig(Table):
    """NrFadingConfig"""

    __slots__ = (
        "model",
        "speed_kmh",
        "sinusoids",
    )

    # 'none', 'rayleigh' (i.i.d. block Rayleigh per slot) or 'jakes' (sum of sinusoids at speed_kmh
    # and the carrier).
    model: FadingKind
    # UE speed, km/h.
    speed_kmh: float
    # Sinusoids of the Jakes model.
    sinusoids: int

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NrFadingConfig:
        t = cls.__new__(cls)
        t.model = d["model"]
        t.speed_kmh = d["speed_kmh"]
        t.sinusoids = d["sinusoids"]
        return t


class NrUplinkConfig(Table):
    """NrUplinkConfig"""

    __slots__ = (
        "scheduler",
        "min_prb",
        "bsr",
        "sr_period_slots",
        "sr_grant_delay_slots",
        "sr_grant_bytes",
        "periodic_bsr_ms",
        "retx_bsr_ms",
        "dsr_trans_max",
        "fixed_mcs",
        "power_control",
        "p0_dbm",
        "alpha",
        "ue_power_dbm",
        "phr_periodic_ms",
        "phr_prohibit_ms",
        "phr_pathloss_change_db",
        "gnb_noise_figure_db",
        "interference",
        "iot_db",
        "neighbour_load",
        "reference_prb",
        "pucch_prb",
    )

    # 'pf' (PF order, chunks sized to the reported buffer) or 'round_robin' (equal shares).
    scheduler: UlSchedulerKind
    # Fewest PRBs in a grant.
    min_prb: int
    # 'standard' (SR on PUCCH, Short BSR in the block) or 'ideal' (the gNB learns the buffer every
    # slot with new data; no SR).
    bsr: BsrKind
    # SR periodicity, slots (TS 38.331; with TDD a multiple of the pattern's slots).
    sr_period_slots: int
    # An SR at n is answered by a grant from the first downlink slot at or after n + this.
    sr_grant_delay_slots: int
    # What the gNB grants for an SR, octets.
    sr_grant_bytes: int
    # periodicBSR-Timer, ms; unset = infinity.
    periodic_bsr_ms: int | None
    # retxBSR-Timer, ms.
    retx_bsr_ms: int
    # sr-TransMax: SRs before the UE would fall back to random access.
    dsr_trans_max: int
    # One UL MCS for every UE; unset = link adaptation.
    fixed_mcs: int | None
    # 'per_grant' (TS 38.213 7.1.1: P = min(P_CMAX, P0 + 10 log10(2^mu M) + alpha PL) per grant) or
    # 'reference_prb' (one SINR for reference_prb PRBs whatever the grant).
    power_control: UlPowerControlKind
    # P0 per 180 kHz (the 2^mu M term scales it to the numerology's PRBs), dBm.
    p0_dbm: float
    # Fractional power control alpha.
    alpha: float
    # UE maximum power P_CMAX, dBm.
    ue_power_dbm: float
    # phr-PeriodicTimer, ms; unset = infinity.
    phr_periodic_ms: int | None
    # phr-ProhibitTimer, ms.
    phr_prohibit_ms: int
    # phr-Tx-PowerFactorChange, dB; unset = infinity.
    phr_pathloss_change_db: float | None
    # gNB noise figure, dB.
    gnb_noise_figure_db: float
    # 'load' (the IoT per PRB follows the neighbour sectors' uplink load) or 'constant' (iot_db).
    interference: UlInterferenceKind
    # Interference over thermal with interference = 'constant', dB.
    iot_db: float
    # With interference = 'load': the neighbour sectors' PUSCH load; unset = the site's own
    # mirrored.
    neighbour_load: float | None
    # PRBs the UL SINR is computed for with power_control = 'reference_prb'.
    reference_prb: int
    # PRBs at the band edges taken by PUCCH (even); unset = about 8 % of the carrier.
    pucch_prb: int | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NrUplinkConfig:
        t = cls.__new__(cls)
        t.scheduler = d["scheduler"]
        t.min_prb = d["min_prb"]
        t.bsr = d["bsr"]
        t.sr_period_slots = d["sr_period_slots"]
        t.sr_grant_delay_slots = d["sr_grant_delay_slots"]
        t.sr_grant_bytes = d["sr_grant_bytes"]
        t.periodic_bsr_ms = d["periodic_bsr_ms"]
        t.retx_bsr_ms = d["retx_bsr_ms"]
        t.dsr_trans_max = d["dsr_trans_max"]
        t.fixed_mcs = d["fixed_mcs"]
        t.power_control = d["power_control"]
        t.p0_dbm = d["p0_dbm"]
        t.alpha = d["alpha"]
        t.ue_power_dbm = d["ue_power_dbm"]
        t.phr_periodic_ms = d["phr_periodic_ms"]
        t.phr_prohibit_ms = d["phr_prohibit_ms"]
        t.phr_pathloss_change_db = d["phr_pathloss_change_db"]
        t.gnb_noise_figure_db = d["gnb_noise_figure_db"]
        t.interference = d["interference"]
        t.iot_db = d["iot_db"]
        t.neighbour_load = d["neighbour_load"]
        t.reference_prb = d["reference_prb"]
        t.pucch_prb = d["pucch_prb"]
        return t


ConfiguredGrantKind = Literal["type1", "type2"]


class NrConfiguredGrantConfig(Table):
    """NrConfiguredGrantConfig"""

    __slots__ = (
        "enabled",
        "kind",
        "period_slots",
        "prb",
        "mcs",
        "sr_mask",
    )

    # Every UE has periodic PUSCH occasions (TS 38.321 5.8.2).
    enabled: bool
    # 'type1' or 'type2'.
    kind: ConfiguredGrantKind
    # Period, slots (with TDD a multiple of the pattern's slots); UEs are spread over the period's
    # uplink slots.
    period_slots: int
    # PRBs of an occasion.
    prb: int
    # MCS of an occasion (the uplink table's); unset = the UE's uplink link adaptation at each
    # occasion (as a type-2 grant re-activated with a new MCS would follow it).
    mcs: int | None
    # logicalChannelSR-Mask: a regular BSR raises no SR, the UE waits for its occasion.
    sr_mask: bool

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NrConfiguredGrantConfig:
        t = cls.__new__(cls)
        t.enabled = d["enabled"]
        t.kind = d["kind"]
        t.period_slots = d["period_slots"]
        t.prb = d["prb"]
        t.mcs = d["mcs"]
        t.sr_mask = d["sr_mask"]
        return t


class NrPdcchConfig(Table):
    """NrPdcchConfig"""

    __slots__ = (
        "enabled",
        "coreset_prb",
        "coreset_symbols",
        "aggregation_sinr_db",
        "priority",
        "max_dl_ues_per_slot",
        "max_ul_ues_per_slot",
    )

    # DCIs draw from the CORESET's CCEs (false: any number per slot).
    enabled: bool
    # PRBs of the CORESET (a multiple of 6); unset = the carrier's, rounded down to 6.
    coreset_prb: int | None
    # OFDM symbols of the CORESET (1-3), taken from every downlink slot's PDSCH.
    coreset_symbols: int
    # Wideband DL SINR (dB, before sinr_offset_db) at or above which a UE's DCIs use aggregation
    # level 1, 2, 4; below the last, 8.
    aggregation_sinr_db: list[float]
    # When CCEs run short: 'dl_first' or 'ul_first'.
    priority: DciPriorityKind
    # UEs with a DL assignment per sector and slot; unset = any.
    max_dl_ues_per_slot: int | None
    # UEs with an UL grant per sector and slot; unset = any.
    max_ul_ues_per_slot: int | None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NrPdcchConfig:
        t = cls.__new__(cls)
        t.enabled = d["enabled"]
        t.coreset_prb = d["coreset_prb"]
        t.coreset_symbols = d["coreset_symbols"]
        t.aggregation_sinr_db = d["aggregation_sinr_db"]
        t.priority = d["priority"]
        t.max_dl_ues_per_slot = d["max_dl_ues_per_slot"]
        t.max_ul_ues_per_slot = d["max_ul_ues_per_slot"]
        return t


class NrRlcTable(Table):
    """NR RLC (docs/models/nr-rlc.md): no concatenation, a MAC subheader per RLC PDU, SO-based
    segmentation, NR header sizes; the values of TS 38.331 `RLC-Config` and `PDCP-Config`."""

    __slots__ = (
        "mode",
        "sn_bits",
        "pdcp_sn_bits",
        "integrity",
        "sdap_header",
        "t_poll_retransmit_ms",
        "t_reassembly_ms",
        "t_status_prohibit_ms",
        "poll_pdu",
        "poll_byte_kb",
        "max_retx",
    )

    # 'am' or 'um'.
    mode: RlcModeKind
    # RLC SN length: 12 or 18 (AM), 6 or 12 (UM); unset = 18 (AM) or 12 (UM).
    sn_bits: int | None
    # PDCP SN length: 12 or 18 (a 2- or 3-octet PDCP header).
    pdcp_sn_bits: int
    # Integrity protection of the data bearer (a 4-octet MAC-I per PDCP PDU).
    integrity: bool
    # An SDAP header (1 octet per SDU).
    sdap_header: bool
    # t-PollRetransmit, ms (TS 38.331 values).
    t_poll_retransmit_ms: int
    # t-Reassembly, ms (TS 38.331 values).
    t_reassembly_ms: int
    # t-StatusProhibit, ms (TS 38.331 values).
    t_status_prohibit_ms: int
    # pollPDU; unset = infinity.
    poll_pdu: int | None
    # pollByte, kB; unset = infinity.
    poll_byte_kb: int | None
    # maxRetxThreshold.
    max_retx: int

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NrRlcTable:
        t = cls.__new__(cls)
        t.mode = d["mode"]
        t.sn_bits = d["sn_bits"]
        t.pdcp_sn_bits = d["pdcp_sn_bits"]
        t.integrity = d["integrity"]
        t.sdap_header = d["sdap_header"]
        t.t_poll_retransmit_ms = d["t_poll_retransmit_ms"]
        t.t_reassembly_ms = d["t_reassembly_ms"]
        t.t_status_prohibit_ms = d["t_status_prohibit_ms"]
        t.poll_pdu = d["poll_pdu"]
        t.poll_byte_kb = d["poll_byte_kb"]
        t.max_retx = d["max_retx"]
        return t


class NrConfig(Table):
    """A multi-UE 5G NR cell: the LTE cell's model with NR's numerology, TDD pattern, K1/K2 timing,
    TS 38.214 TBS, Short BSR and configured grants."""

    __slots__ = (
        "kind",
        "ues",
        "carrier_ghz",
        "bandwidth_mhz",
        "scs_khz",
        "duplex",
        "tdd_pattern",
        "special_slot",
        "mcs_table",
        "ul_mcs_table",
        "dl_layers",
        "sinr_offset_db",
        "cqi_delay_slots",
        "cqi_period_slots",
        "olla_step_db",
        "pf_time_constant_slots",
        "timing",
        "harq",
        "cell",
        "fading",
        "uplink",
        "configured_grant",
        "pdcch",
        "rlc",
        "buffer",
        "ack_filter",
    )

    kind: Literal["nr"]
    # UEs dropped in the centre site.
    ues: int
    # Carrier frequency, GHz (FR1 0.41-7.125, FR2 24.25-52.6): the Doppler of the fading and the
    # path loss's frequency term.
    carrier_ghz: float
    # Channel bandwidth, MHz (TS 38.101-1 / -2 Table 5.3.2-1 at the subcarrier spacing).
    bandwidth_mhz: int
    # Subcarrier spacing, kHz: 15, 30, 60, 120 (numerology 0-3; slots of 1, 0.5, 0.25, 0.125 ms).
    scs_khz: int
    # 'tdd' (one carrier, tdd_pattern) or 'fdd' (paired carriers of bandwidth_mhz each).
    duplex: NrDuplexKind
    # TDD slots of one period, one letter per slot: D(ownlink), S(pecial), U(plink).
    tdd_pattern: str
    # The special slot's downlink:guard:uplink symbols (adding up to 14).
    special_slot: str
    # Downlink MCS table: 'qam64' or 'qam256' (TS 38.214 5.1.3.1).
    mcs_table: NrMcsTableKind
    # Uplink MCS table (PUSCH without transform precoding).
    ul_mcs_table: NrMcsTableKind
    # Downlink MIMO layers: the TBS scales with them, the SINR per layer does not (an upper bound of
    # what rank-L transmission gives).
    dl_layers: int
    # Added to every dropped UE's downlink SINR, dB: a calibration of the geometry; SINRs listed in
    # cell.ue_sinr_db are used as written.
    sinr_offset_db: float
    # Age of the CSI an MCS is chosen from, slots.
    cqi_delay_slots: int
    # Periodic CSI reports every this many slots (offsets spread UE by UE).
    cqi_period_slots: int
    # Outer-loop link adaptation step, dB (+step on a decoded first transmission, -9 steps on a
    # failed one); 0 = off.
    olla_step_db: float
    # PF EWMA time constant, slots.
    pf_time_constant_slots: float
    # Slot offsets of scheduling and feedback.
    timing: NrTimingConfig
    # HARQ.
    harq: NrHarqConfig
    # The drop (the LTE cell's keys).
    cell: LteCellConfig
    # Fast fading, sampled once per slot.
    fading: NrFadingConfig
    # Uplink.
    uplink: NrUplinkConfig
    # Configured uplink grants.
    configured_grant: NrConfiguredGrantConfig
    # The PDCCH CORESET of each sector and downlink slot.
    pdcch: NrPdcchConfig
    # RLC, PDCP and SDAP (TS 38.322, 38.323, 37.324).
    rlc: NrRlcTable
    # Each UE's downlink buffer at the gNB.
    buffer: BufferConfig
    # ACK filter in each UE's uplink buffer.
    ack_filter: AckFilterConfig

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NrConfig:
        t = cls.__new__(cls)
        t.kind = d["kind"]
        t.ues = d["ues"]
        t.carrier_ghz = d["carrier_ghz"]
        t.bandwidth_mhz = d["bandwidth_mhz"]
        t.scs_khz = d["scs_khz"]
        t.duplex = d["duplex"]
        t.tdd_pattern = d["tdd_pattern"]
        t.special_slot = d["special_slot"]
        t.mcs_table = d["mcs_table"]
        t.ul_mcs_table = d["ul_mcs_table"]
        t.dl_layers = d["dl_layers"]
        t.sinr_offset_db = d["sinr_offset_db"]
        t.cqi_delay_slots = d["cqi_delay_slots"]
        t.cqi_period_slots = d["cqi_period_slots"]
        t.olla_step_db = d["olla_step_db"]
        t.pf_time_constant_slots = d["pf_time_constant_slots"]
        t.timing = NrTimingConfig.from_dict(d["timing"])
        t.harq = NrHarqConfig.from_dict(d["harq"])
        t.cell = LteCellConfig.from_dict(d["cell"])
        t.fading = NrFadingConfig.from_dict(d["fading"])
        t.uplink = NrUplinkConfig.from_dict(d["uplink"])
        t.configured_grant = NrConfiguredGrantConfig.from_dict(d["configured_grant"])
        t.pdcch = NrPdcchConfig.from_dict(d["pdcch"])
        t.rlc = NrRlcTable.from_dict(d["rlc"])
        t.buffer = BufferConfig.from_dict(d["buffer"])
        t.ack_filter = AckFilterConfig.from_dict(d["ack_filter"])
        return t


AccessConfig = WiredAccessConfig | UmtsConfig | RlpConfig | LteConfig | NrConfig

_ACCESSCONFIG_KINDS: dict[str, Any] = {
    "wired": WiredAccessConfig,
    "umts": UmtsConfig,
    "rlp": RlpConfig,
    "lte": LteConfig,
    "nr": NrConfig,
}


def _AccessConfig_from_dict(v: Mapping[str, Any]) -> AccessConfig:
    return _ACCESSCONFIG_KINDS[v["kind"]].from_dict(v)  # type: ignore[no-any-return]


PacingRuleKind = Literal["srtt_per_window", "srtt_fraction"]


class BsAckConfig(Table):
    """The ACK controller at the base station (docs/models/bs-ack-controller.md)."""

    __slots__ = (
        "enabled",
        "link",
        "g",
        "dup_ack_thresh",
        "pacing",
        "pacing_rule",
        "pace_factor",
        "initial_srtt_ms",
        "max_ack_wait_ms",
        "reply_reset_after_ms",
    )

    # Run the controller at the BS.
    enabled: bool
    # Name of the BS -> mobile host link (the BS is the node before it); '' = the last link.
    link: str
    # EWMA gain of the BS-MH sRTT.
    g: float
    # Duplicate ACKs from the mobile host that signal a loss on this link; the threshold-th gives
    # the fixed host its third.
    dup_ack_thresh: int
    # Pace the ACKs to the fixed host with the txTimer.
    pacing: bool
    # txTimer interval: pace_factor x sRTT / (packets downstream of the BS) or pace_factor x sRTT.
    pacing_rule: PacingRuleKind
    # Multiplies the pacing interval.
    pace_factor: float
    # sRTT before the first sample; unset: from the first sample.
    initial_srtt_ms: float | None
    # Longest an ACK may wait in the BS queue; unset: no bound.
    max_ack_wait_ms: float | None
    # A BS reply that would be the third consecutive duplicate is withheld unless no ACK went to the
    # flow for this long.
    reply_reset_after_ms: float

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BsAckConfig:
        t = cls.__new__(cls)
        t.enabled = d["enabled"]
        t.link = d["link"]
        t.g = d["g"]
        t.dup_ack_thresh = d["dup_ack_thresh"]
        t.pacing = d["pacing"]
        t.pacing_rule = d["pacing_rule"]
        t.pace_factor = d["pace_factor"]
        t.initial_srtt_ms = d["initial_srtt_ms"]
        t.max_ack_wait_ms = d["max_ack_wait_ms"]
        t.reply_reset_after_ms = d["reply_reset_after_ms"]
        return t


class ScenarioConfig(Table):
    """A whole scenario: simulation control, TCP parameters, flows and the wired path."""

    __slots__ = (
        "simulation",
        "tcp",
        "flows",
        "links",
        "access",
        "bs_ack",
    )

    # Simulation control.
    simulation: SimulationConfig
    # TCP parameters.
    tcp: TcpConfig
    # The flows.
    flows: FlowsConfig
    # The wired chain from the server (index 0) to the client (last index), or to the access node
    # (RNC, IAP) when `access` is a radio link.
    links: list[LinkConfig]
    # What joins the end of the wired chain to the client: kind = 'wired' (the last link reaches
    # it), 'umts' (a UMTS bearer with RLC AM), 'rlp' (an IS-707 RLP link), 'lte' (an LTE site with
    # many UEs) or 'nr' (a 5G NR site with many UEs). The other keys of the table are those of its
    # kind.
    access: AccessConfig
    # The base-station ACK controller.
    bs_ack: BsAckConfig

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ScenarioConfig:
        t = cls.__new__(cls)
        t.simulation = SimulationConfig.from_dict(d["simulation"])
        t.tcp = TcpConfig.from_dict(d["tcp"])
        t.flows = FlowsConfig.from_dict(d["flows"])
        t.links = [LinkConfig.from_dict(x) for x in d["links"]]
        t.access = _AccessConfig_from_dict(d["access"])
        t.bs_ack = BsAckConfig.from_dict(d["bs_ack"])
        return t
