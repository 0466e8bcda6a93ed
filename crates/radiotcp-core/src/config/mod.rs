//! Scenario configuration as the core sees it.
//!
//! The Python front (pydantic) is where users meet the configuration: it validates TOML, applies
//! documented defaults and hands the core a fully resolved JSON document. The core still checks
//! every value it relies on ([`ScenarioConfig::validate`]) so that Rust users and tests get the
//! same guarantees, and it rejects unknown keys so a mismatch between the two layers is caught.
//! The `Default` impls mirror the documented defaults; a Python test checks they agree.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod convert;
pub mod cost;
pub mod lte;
pub mod nr;
pub mod resolve;

pub use convert::*;
pub use cost::{AccessCostTerms, Cost};
pub use lte::*;
pub use nr::*;

use crate::ack::{BsAckParams, PacingRule};
use crate::engine::{millis, secs};
use crate::error::ConfigError;
use crate::link::delay::{DelayProcess, MarkovLevel, Spike, VariableDelayParams};

/// A whole scenario: simulation control, TCP parameters, flows and the wired path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ScenarioConfig {
    /// Simulation control.
    pub simulation: SimulationConfig,
    /// TCP parameters.
    pub tcp: TcpConfig,
    /// The flows.
    pub flows: FlowsConfig,
    /// The wired chain from the server (index 0) to the client (last index), or to the access node
    /// (RNC, IAP) when `access` is a radio link.
    pub links: Vec<LinkConfig>,
    /// What joins the end of the wired chain to the client: kind = 'wired' (the last link reaches
    /// it), 'umts' (a UMTS bearer with RLC AM), 'rlp' (an IS-707 RLP link), 'lte' (an LTE site
    /// with many UEs) or 'nr' (a 5G NR site with many UEs). The other keys of the table are
    /// those of its kind.
    pub access: AccessConfig,
    // The base-station ACK controller (Zeng) on one of the links.
    /// The base-station ACK controller.
    pub bs_ack: BsAckConfig,
}

/// The access network at the end of the wired chain: a tagged choice (`kind`), so that two
/// radio links on one path cannot be expressed. The LTE cell is the next variant.
// A run holds one configuration, read at set-up: the LTE variant's size costs nothing per
// event, and boxing it would only add indirection at every access.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum AccessConfig {
    /// The last link reaches the client directly.
    Wired(WiredAccessConfig),
    /// A UMTS dedicated channel with RLC AM (the RNC's buffer, the DCH, the UE's RLC).
    Umts(UmtsConfig),
    /// An IS-707 RLP link (the IAP's buffer, the traffic channel, the mobile's RLP).
    Rlp(RlpConfig),
    /// A multi-UE LTE cell: per-UE DL buffers and RLC, PF schedulers, HARQ, SR/BSR/grants,
    /// and the ACK filter in each UE's uplink buffer.
    Lte(LteConfig),
    /// A multi-UE 5G NR cell: the LTE cell's model with NR's numerology, TDD pattern, K1/K2
    /// timing, TS 38.214 TBS, Short BSR and configured grants.
    Nr(NrConfig),
}

/// `access.kind = "wired"` has no parameters of its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WiredAccessConfig {}

impl AccessKind for WiredAccessConfig {
    fn name(&self) -> &'static str {
        "wired"
    }

    fn cost_terms(&self) -> AccessCostTerms {
        AccessCostTerms {
            capacity_kbps: None,
            one_way_ms: 0.0,
            period_ms: None,
            ns_per_event: 150.0,
        }
    }
}

/// What every access kind's configuration answers about itself. The kind's own configuration
/// file implements it; [`AccessConfig::as_kind`] is the one place in the configuration that
/// lists the kinds.
pub trait AccessKind {
    /// The `access.kind` name (the serde tag of its variant).
    fn name(&self) -> &'static str;
    /// UE hosts at the far end of the path: 1 unless the kind serves many.
    fn ue_count(&self) -> u32 {
        1
    }
    /// What it adds to a run's cost estimate ([`ScenarioConfig::estimate_cost`]).
    fn cost_terms(&self) -> AccessCostTerms;
}

impl AccessConfig {
    /// The kind's own answers (the registration point of the access kinds).
    pub fn as_kind(&self) -> &dyn AccessKind {
        match self {
            AccessConfig::Wired(c) => c,
            AccessConfig::Umts(c) => c,
            AccessConfig::Rlp(c) => c,
            AccessConfig::Lte(c) => c,
            AccessConfig::Nr(c) => c,
        }
    }

    pub fn kind(&self) -> &'static str {
        self.as_kind().name()
    }

    /// This kind's part of [`ScenarioConfig::estimate_cost`].
    pub fn cost_terms(&self) -> AccessCostTerms {
        self.as_kind().cost_terms()
    }

    pub fn umts(&self) -> Option<&UmtsConfig> {
        match self {
            AccessConfig::Umts(u) => Some(u),
            _ => None,
        }
    }

    pub fn umts_mut(&mut self) -> Option<&mut UmtsConfig> {
        match self {
            AccessConfig::Umts(u) => Some(u),
            _ => None,
        }
    }

    pub fn rlp_mut(&mut self) -> Option<&mut RlpConfig> {
        match self {
            AccessConfig::Rlp(r) => Some(r),
            _ => None,
        }
    }

    pub fn lte(&self) -> Option<&LteConfig> {
        match self {
            AccessConfig::Lte(l) => Some(l),
            _ => None,
        }
    }

    pub fn lte_mut(&mut self) -> Option<&mut LteConfig> {
        match self {
            AccessConfig::Lte(l) => Some(l),
            _ => None,
        }
    }

    /// UE hosts at the far end: the LTE cell's UEs, else the one client.
    pub fn ue_count(&self) -> u32 {
        self.as_kind().ue_count()
    }

    pub fn rlp(&self) -> Option<&RlpConfig> {
        match self {
            AccessConfig::Rlp(r) => Some(r),
            _ => None,
        }
    }
}

/// An IS-707 RLP link (model-specs §3; docs/models/rlp.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RlpConfig {
    // Radio frame period; frames are sent, and the channel state changes, once per slot.
    /// Radio frame period, ms (20 in IS-707).
    pub slot_ms: f64,
    /// Octets of the octet stream per RLP data frame (19 at 9600 bit/s).
    pub frame_payload_bytes: u32,
    /// RLP frames per slot and direction (16 for the 16 x 9600 bit/s case); all frames of a slot
    /// share the channel state.
    pub frames_per_slot: u32,
    /// From the start of a frame's slot to its arrival at the peer RLP, ms (2 frames: interleaving,
    /// processing, backhaul; model-specs 3.3).
    pub one_way_delay_ms: f64,
    /// Retransmission cycles: round i sends i NAKs; rounds 1..n-1 end with the NAK retransmission
    /// timer, round n with the abort timer (IS-707: 2).
    pub nak_rounds: u32,
    /// NAK retransmission timer, ms.
    pub t_ret_ms: f64,
    /// NAK abort timer, ms.
    pub t_abort_ms: f64,
    /// Idle frames (carrying the next sequence number) sent after the data runs out, so that a lost
    /// last frame is detected; 0 = none.
    pub idle_frames: u32,
    /// IP packets the IAP buffer (before the RLP sender) holds; drop-tail.
    pub iap_buffer_packets: u32,
    /// Forward (IAP to mobile) frame-error channel, one state per slot.
    pub forward: ChannelConfig,
    /// Reverse channel (ACKs and NAKs); unset = the forward parameters with an independent chain.
    pub reverse: Option<ChannelConfig>,
}

impl Default for RlpConfig {
    fn default() -> Self {
        Self {
            slot_ms: 20.0,
            frame_payload_bytes: 19,
            frames_per_slot: 1,
            one_way_delay_ms: 40.0,
            nak_rounds: 2,
            t_ret_ms: 200.0,
            t_abort_ms: 200.0,
            idle_frames: 3,
            iap_buffer_packets: 1024,
            forward: ChannelConfig {
                fd_t: 0.1,
                ..ChannelConfig::default()
            },
            reverse: None,
        }
    }
}

impl AccessKind for RlpConfig {
    fn name(&self) -> &'static str {
        "rlp"
    }

    fn cost_terms(&self) -> AccessCostTerms {
        AccessCostTerms {
            capacity_kbps: Some(
                self.frame_payload_bytes as f64 * self.frames_per_slot as f64 * 8.0 / self.slot_ms,
            ),
            one_way_ms: self.one_way_delay_ms,
            period_ms: Some(self.slot_ms),
            ns_per_event: 1000.0,
        }
    }
}

impl RlpConfig {
    fn collect(&self, p: &mut Problems) {
        period_ms("access.slot_ms", self.slot_ms).note(p);
        check(
            (1..=1_000_000).contains(&self.frame_payload_bytes),
            "access.frame_payload_bytes",
            self.frame_payload_bytes,
            "an integer in 1..=1000000",
        )
        .note(p);
        check(
            (1..=1024).contains(&self.frames_per_slot),
            "access.frames_per_slot",
            self.frames_per_slot,
            "an integer in 1..=1024",
        )
        .note(p);
        delay_ms("access.one_way_delay_ms", self.one_way_delay_ms).note(p);
        check(
            (1..=1000).contains(&self.nak_rounds),
            "access.nak_rounds",
            self.nak_rounds,
            "an integer in 1..=1000",
        )
        .note(p);
        timer_ms("access.t_ret_ms", self.t_ret_ms).note(p);
        timer_ms("access.t_abort_ms", self.t_abort_ms).note(p);
        check(
            self.iap_buffer_packets >= 1,
            "access.iap_buffer_packets",
            self.iap_buffer_packets,
            "an integer >= 1",
        )
        .note(p);
        self.forward.collect("access.forward", p);
        if let Some(r) = &self.reverse {
            r.collect("access.reverse", p);
        }
    }
}

/// A UMTS dedicated channel with RLC in acknowledged mode (model-specs §1, §2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct UmtsConfig {
    // Transmission time interval: PDUs are sent, and the channel state changes, once per TTI.
    /// Transmission time interval, ms.
    pub tti_ms: f64,
    // PDUs per TTI and direction (12 at 384 kbit/s with 320-bit payloads and a 10 ms TTI).
    /// PDUs per TTI and direction (12 at 384 kbit/s).
    pub pdus_per_tti: u32,
    /// Payload octets per AMD PDU (40 = 320 bits).
    pub pdu_payload_bytes: u32,
    // Octets per length indicator (1 for PDUs up to 126 octets).
    /// Octets per length indicator.
    pub li_bytes: u32,
    // From the start of the TTI a PDU is sent in to its arrival at the peer RLC; the radio round
    // trip is twice this (50 ms in the papers).
    /// From the start of a PDU's TTI to its arrival at the peer RLC, ms; the radio round trip is
    /// twice this.
    pub one_way_delay_ms: f64,
    // How far the UE's TTI grid lies behind the RNC's, in [0, tti_ms). `None` (the default):
    // `one_way_delay_ms` mod `tti_ms`, so that each side sends in the TTI in which the other side's
    // PDUs arrive and the RLC round trip is twice the one-way delay (50 ms with the papers' 25 ms);
    // 0: one grid for both, where a STATUS waits for the next TTI and the loop is 60 ms (the model
    // before this key existed).
    /// How far the UE's TTI grid lies behind the RNC's, ms, in [0, tti_ms). Unset: one_way_delay_ms
    /// mod tti_ms, so each side sends in the TTI in which the other's PDUs arrive and the RLC loop
    /// is twice the one-way delay (50 ms); 0: one grid, a 60 ms loop with the default delay (the
    /// model before this key).
    pub ue_tti_offset_ms: Option<f64>,
    /// Downlink block-error channel.
    pub downlink: ChannelConfig,
    /// Uplink channel; unset = the downlink's parameters, independent chain.
    pub uplink: Option<ChannelConfig>,
    /// RLC AM parameters.
    pub rlc: RlcConfig,
    // The per-user downlink buffer at the network side (in SDUs of the RLC transmitter).
    /// Per-user downlink buffer.
    pub buffer: BufferConfig,
    // Policy on the uplink ACKs leaving the network-side RLC.
    /// Uplink ACK policy at the RNC.
    pub ack_control: AckControlConfig,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AckControlMode {
    /// ACKs leave as soon as the RLC delivers them.
    None,
    /// ACK rate control: inter-departure time t_id = f(BO) (Alcaraz & Cerdan 2006).
    Rate,
    /// ACK delay control: the alpha -> 0 case, a fixed spacing maxd once BO >= minth.
    Delay,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AckControlConfig {
    /// 'none', 'rate' (ACK rate control: inter-departure time t_id = f(BO), Alcaraz & Cerdan 2006)
    /// or 'delay' (ACK delay control: the alpha -> 0 case, a fixed spacing maxd_ms once BO >=
    /// minth_sdus).
    pub mode: AckControlMode,
    /// BO at which ACKs start to be spaced.
    pub minth_sdus: f64,
    /// BO at which t_id reaches maxd_ms.
    pub maxth_sdus: f64,
    /// t_id at minth, ms.
    pub mind_ms: f64,
    /// t_id at maxth and above, ms.
    pub maxd_ms: f64,
    // Shape of f (ignored by `delay`, which is alpha = 0).
    /// Shape of f (rate mode).
    pub alpha: f64,
    /// Round id_timer expiries up to TTI boundaries.
    pub sync_to_tti: bool,
    /// Fig. 4 releases at most one ACK per event: 'per_tti' (every TTI of the RLC is an event too,
    /// so a backlog drains one ACK per TTI), 'one_per_event' (only ACK arrivals and timer expiries:
    /// a backlog can be stranded until a TCP timeout) or 'while_due' (ACKs keep leaving while the
    /// spacing allows: a backlog leaves at once when BO < minth).
    pub release: AckRelease,
}

/// Fig. 4 of the ACK rate paper runs its tail once per event, so at most one ACK leaves per
/// event; what counts as an event decides what happens to a backlog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AckRelease {
    /// The RLC's TTIs are events too: a backlog left when BO falls below minth drains one ACK
    /// per TTI (the default).
    PerTti,
    /// Only ACK arrivals and id_timer expiries are events: a backlog can be stranded when no
    /// ACK arrives (every window held in the ACK buffer), until a TCP timeout.
    OnePerEvent,
    /// Repeat the tail while the spacing allows: a backlog leaves at once when t_id = 0.
    WhileDue,
}

impl Default for AckControlConfig {
    fn default() -> Self {
        Self {
            mode: AckControlMode::None,
            minth_sdus: 20.0,
            maxth_sdus: 50.0,
            mind_ms: 0.0,
            maxd_ms: 500.0,
            alpha: 1.0,
            sync_to_tti: false,
            release: AckRelease::PerTti,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChannelKind {
    /// No block is ever lost.
    None,
    /// Each TTI lost independently with probability `fer`.
    Iid,
    /// First-order Markov model of Rayleigh fading (Zorzi et al.), from `fer` and `fd_t`.
    Markov,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ChannelConfig {
    /// 'none' (error-free), 'iid' (each TTI lost with probability fer) or 'markov' (first-order
    /// Markov model of Rayleigh fading, Zorzi et al.).
    pub model: ChannelKind,
    /// Average TTI (block) error rate.
    pub fer: f64,
    /// Normalised Doppler frequency f_d x TTI (markov only).
    pub fd_t: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RlcConfig {
    /// Transmission (= receiving) window, PDUs.
    pub window_pdus: u32,
    /// A PDU is sent at most max_dat - 1 times; then its SDUs are discarded (Move Receiving
    /// Window).
    pub max_dat: u32,
    /// Timer_Poll, ms.
    pub poll_timer_ms: f64,
    /// Timer_Poll_Prohibit, ms (0 = off).
    pub poll_prohibit_ms: f64,
    /// Timer_Status_Prohibit, ms (0 = off).
    pub status_prohibit_ms: f64,
    /// Poll when this share of the window is outstanding, % (above 100 = off).
    pub poll_window_pct: f64,
    /// Poll on the last PDU in the buffer.
    pub poll_last_pdu: bool,
    /// Poll on the last retransmitted PDU.
    pub poll_last_retransmitted: bool,
    /// The receiver sends a STATUS as soon as it detects a missing PDU.
    pub missing_pdu_indicator: bool,
    /// Timer_MRW, ms.
    pub mrw_timer_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BufferConfig {
    /// 'droptail', 'red' (instantaneous RED), 'sbd' (Slope Based Discard), 'codel' (CoDel at
    /// transmission start) or 'pie'; the hard limit applies to all.
    pub discipline: BufferDisciplineKind,
    /// SDUs the RLC transmitter may hold (queued, in flight or awaiting acknowledgement); SBD's
    /// maxth.
    pub limit_sdus: u32,
    /// RED parameters.
    pub red: RedConfig,
    /// SBD parameters.
    pub sbd: SbdConfig,
    /// CoDel parameters.
    pub codel: CodelConfig,
    /// PIE parameters.
    pub pie: PieConfig,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BufferDisciplineKind {
    DropTail,
    /// RED on the instantaneous occupancy (model-specs §6.1).
    Red,
    /// Slope Based Discard (Alcaraz & Cerdan 2006, §4).
    Sbd,
    /// CoDel (RFC 8289) at the start of each SDU's transmission.
    Codel,
    /// PIE (RFC 8033) on arrival, its delay taken at transmission start.
    Pie,
}

/// PIE; QDELAY_REF is raised above one SDU's transmission time at 384 kbit/s (31 ms).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PieConfig {
    /// QDELAY_REF, ms.
    pub qdelay_ref_ms: f64,
    /// T_UPDATE, ms.
    pub t_update_ms: f64,
    /// Integral gain, 1/s.
    pub alpha: f64,
    /// Proportional gain, 1/s.
    pub beta: f64,
    /// MAX_BURST allowance, ms.
    pub max_burst_ms: f64,
}

impl Default for PieConfig {
    fn default() -> Self {
        Self {
            qdelay_ref_ms: 40.0,
            t_update_ms: 15.0,
            alpha: 0.125,
            beta: 1.25,
            max_burst_ms: 150.0,
        }
    }
}

/// CoDel; at 384 kbit/s one 1500-byte SDU takes 31 ms, so the RFC's 5 ms target is raised
/// (model-specs §6.2 cellular notes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// TARGET sojourn time, ms.
    pub target_ms: f64,
    /// INTERVAL, about the worst-case RTT, ms.
    pub interval_ms: f64,
}

impl Default for CodelConfig {
    fn default() -> Self {
        Self {
            target_ms: 40.0,
            interval_ms: 300.0,
        }
    }
}

/// RED with the instantaneous queue (w_q = 1) and the count-based correction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {
    /// Lower threshold, SDUs.
    pub min_th_sdus: f64,
    /// Upper threshold, SDUs; at or above it every arrival is dropped.
    pub max_th_sdus: f64,
    /// Drop probability reached at max_th.
    pub max_p: f64,
}

/// Slope Based Discard; maxth is the buffer limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SbdConfig {
    /// minth, SDUs (below limit_sdus).
    pub min_th_sdus: f64,
    /// Estimated reaction time T_r, ms.
    pub t_r_ms: f64,
    /// Occupancy interval alpha, bits (5 maximum-size SDUs).
    pub alpha_bits: f64,
    // Run the C_n and T_r timers on the TTI grid (expiries rounded up to a TTI boundary).
    /// Round the C_n and T_r timer expiries up to TTI boundaries.
    pub sync_to_tti: bool,
}

impl Default for RedConfig {
    fn default() -> Self {
        Self {
            min_th_sdus: 20.0,
            max_th_sdus: 40.0,
            max_p: 0.05,
        }
    }
}

impl Default for SbdConfig {
    fn default() -> Self {
        Self {
            min_th_sdus: 25.0,
            t_r_ms: 350.0,
            alpha_bits: 5.0 * 1500.0 * 8.0,
            sync_to_tti: false,
        }
    }
}

impl Default for UmtsConfig {
    /// The papers' Table 1: 384 kbit/s DCH, FER 10%, f_dT 0.01, buffer 50 SDUs.
    fn default() -> Self {
        Self {
            tti_ms: 10.0,
            pdus_per_tti: 12,
            pdu_payload_bytes: 40,
            li_bytes: 1,
            one_way_delay_ms: 25.0,
            ue_tti_offset_ms: None,
            downlink: ChannelConfig::default(),
            uplink: None,
            rlc: RlcConfig::default(),
            buffer: BufferConfig::default(),
            ack_control: AckControlConfig::default(),
        }
    }
}

impl Default for ChannelConfig {
    fn default() -> Self {
        Self {
            model: ChannelKind::Markov,
            fer: 0.1,
            fd_t: 0.01,
        }
    }
}

impl Default for RlcConfig {
    fn default() -> Self {
        Self {
            window_pdus: 1024,
            max_dat: 10,
            poll_timer_ms: 60.0,
            poll_prohibit_ms: 0.0,
            status_prohibit_ms: 60.0,
            poll_window_pct: 50.0,
            poll_last_pdu: true,
            poll_last_retransmitted: true,
            missing_pdu_indicator: true,
            mrw_timer_ms: 500.0,
        }
    }
}

impl Default for BufferConfig {
    fn default() -> Self {
        Self {
            discipline: BufferDisciplineKind::DropTail,
            limit_sdus: 50,
            red: RedConfig::default(),
            sbd: SbdConfig::default(),
            codel: CodelConfig::default(),
            pie: PieConfig::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SimulationConfig {
    /// Simulated time of one run, in seconds.
    pub duration_s: f64,
    /// Metrics (goodput, delay) count only what happens after this instant; must be less than
    /// duration_s.
    pub warmup_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TcpVariant {
    /// RFC 5681 fast retransmit / fast recovery; recovery ends on the first new ACK.
    Reno,
    /// RFC 6582: recovery ends only when `recover` is acknowledged; partial ACKs retransmit.
    NewReno,
    /// RFC 2018 SACK with RFC 6675 loss recovery.
    Sack,
}

/// `tcp.congestion_control`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControlKind {
    /// RFC 5681 additive increase, multiplicative decrease to FlightSize / 2.
    Reno,
    /// RFC 9438 CUBIC.
    Cubic,
}

/// A TCP stack as a paper's simulator or a host runs it: the defaults of every `tcp` key
/// (docs/models/tcp.md, "Profiles"). Keys given explicitly override the profile's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TcpProfile {
    /// RFC 5681/6582/6298 as written; the model's defaults.
    #[serde(rename = "rfc")]
    Rfc,
    /// ns-2.26 (ns-2.1b10 numbering), the simulator of Zeng's BS ACK-controller study.
    #[serde(rename = "ns2-2.26")]
    Ns2_2_26,
    /// The ns-2 of 1997-99 (ns-2.1b5), whose Reno Bai et al. ported to SSF.
    #[serde(rename = "ns2-1999")]
    Ns2_1999,
    /// A Linux host of today: CUBIC, SACK with PRR, timestamps, IW10, 200 ms minimum RTO,
    /// quick ACKs then delayed ACKs.
    #[serde(rename = "linux")]
    Linux,
}

impl TcpProfile {
    pub const ALL: [TcpProfile; 4] = [
        TcpProfile::Rfc,
        TcpProfile::Ns2_2_26,
        TcpProfile::Ns2_1999,
        TcpProfile::Linux,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TcpProfile::Rfc => "rfc",
            TcpProfile::Ns2_2_26 => "ns2-2.26",
            TcpProfile::Ns2_1999 => "ns2-1999",
            TcpProfile::Linux => "linux",
        }
    }
}

/// `tcp.rtt_sampling`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttSamplingKind {
    /// A sample from every ACK that covers new data.
    EveryAck,
    /// One timed segment at a time (one sample per RTT), as ns-2 and BSD without timestamps.
    TimedSegment,
    /// RFC 7323 RTTM: now − TSecr on every ACK of new data (needs `timestamps`).
    Timestamps,
}

/// `tcp.rto_estimator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimatorKind {
    /// RFC 6298 in nanoseconds, G = `clock_granularity_ms`.
    Rfc6298,
    /// ns-2's `rtt_update`/`rtt_timeout`: samples in whole ticks of `clock_granularity_ms`,
    /// fixed-point SRTT and RTTVAR, RTO = (SRTT + 4 RTTVAR) ticks, backoff, then the bounds.
    Ns2,
    /// Linux `tcp_rtt_estimator`: RTO = SRTT + max(the largest 4·mdev of the last RTT,
    /// `min_rto_ms`), mdev gained less when the RTT falls.
    Linux,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// The TCP stack whose defaults every other tcp key takes: 'rfc' (RFC 5681/6582/6298),
    /// 'ns2-2.26' (Zeng's simulator), 'ns2-1999' (the ns-2 Reno Bai et al. ported), 'linux' (CUBIC,
    /// SACK with PRR, timestamps, IW10, as a Linux host). Keys set explicitly override the profile
    /// (docs/models/tcp.md).
    pub profile: TcpProfile,
    /// Loss recovery: 'reno' (RFC 5681: recovery ends on the first new ACK), 'newreno' (RFC 6582:
    /// partial ACKs retransmit, recovery ends when `recover` is acknowledged) or 'sack' (RFC 2018
    /// SACK blocks and RFC 6675 recovery).
    pub variant: TcpVariant,
    /// IP packet size of a full data segment, bytes; MSS = packet - header.
    pub packet_size_bytes: u32,
    /// TCP/IP header bytes on every segment (40: no options).
    pub header_bytes: u32,
    /// Size of a pure ACK on the wire, in bytes.
    pub ack_size_bytes: u32,
    /// Initial congestion window, in segments.
    pub initial_window_segments: u32,
    /// Initial ssthresh in bytes; unset means arbitrarily high (RFC 5681 3.1). At least 2 MSS when
    /// set.
    pub initial_ssthresh_bytes: Option<u64>,
    /// Receiver buffer = maximum advertised window, in bytes (at least one MSS).
    pub rwnd_bytes: u32,
    /// Receiver buffer in segments (ns-2's window_, Bai et al.'s awnd); when set it replaces
    /// rwnd_bytes by awnd_segments x MSS.
    pub awnd_segments: Option<u32>,
    /// RFC 7323 window scaling; without it the advertised window is capped at 65535 bytes whatever
    /// rwnd_bytes says.
    pub window_scaling: bool,
    /// Initial retransmission timeout, ms.
    pub initial_rto_ms: f64,
    /// Lower bound of the RTO, ms.
    pub min_rto_ms: f64,
    /// Upper bound of the RTO (at least min_rto_ms), ms.
    pub max_rto_ms: f64,
    /// Clock granularity G of RFC 6298 section 2, ms.
    pub clock_granularity_ms: f64,
    /// Acknowledge every delack_count-th in-order segment; 1 disables delayed ACKs.
    pub delack_count: u32,
    /// Delayed-ACK timer, ms.
    pub delack_timeout_ms: f64,
    /// RTT samples from every ACK of new data ('every_ack'), from one timed segment at a time, one
    /// per RTT ('timed_segment', ns-2 and BSD without timestamps), or from the echoed timestamp of
    /// every ACK of new data ('timestamps', RFC 7323 RTTM; needs timestamps = true).
    pub rtt_sampling: RttSamplingKind,
    /// 'rfc6298' (SRTT/RTTVAR in ns, G = clock_granularity_ms), 'ns2' (samples floored to ticks of
    /// clock_granularity_ms, ns-2's fixed-point SRTT/RTTVAR and RTO) or 'linux' (RTO = SRTT +
    /// max(largest 4 x mdev of the last window, min_rto_ms)).
    pub rto_estimator: RtoEstimatorKind,
    /// RFC 3042 Limited Transmit: a new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// Restart the retransmission timer at fast retransmit (ns-2).
    pub restart_timer_on_fast_retransmit: bool,
    /// Reno: duplicate ACKs at or below the highest sequence sent at an RTO start no fast
    /// retransmit (ns-2 bugFix_; NewReno always does this, RFC 6582).
    pub reno_recover_after_rto: bool,
    /// Reno: no second fast retransmit until an ACK passes the highest sequence sent at the first
    /// (ns-2 bugFix_).
    pub reno_one_recovery_per_window: bool,
    /// Recompute ssthresh on every RTO expiry (ns-2 slowdown()), not only on the first one for a
    /// segment (RFC 5681).
    pub rto_ssthresh_every_expiry: bool,
    /// What a loss reduces: 'flight_size' (RFC 5681 eq. 4), 'window' (ns-2: min(cwnd, receiver
    /// window) in whole segments) or 'cwnd' (Linux: min(cwnd, receiver window)).
    pub ssthresh_basis: SsthreshBasisKind,
    /// Duplicate ACKs whose fast retransmit the recover guard suppresses (after an RTO) still
    /// inflate the window by 3 segments, then 1 per duplicate (ns-2 Reno up to 2.26).
    pub suppressed_dupack_inflation: bool,
    /// Window growth: 'reno' (RFC 5681) or 'cubic' (RFC 9438).
    pub congestion_control: CongestionControlKind,
    /// CUBIC's multiplicative decrease factor (RFC 9438: 0.7).
    pub cubic_beta: f64,
    /// CUBIC's C (RFC 9438: 0.4).
    pub cubic_c: f64,
    /// HyStart++ (RFC 9406) in slow start.
    pub hystart: bool,
    /// The timestamps option on every segment (RFC 7323); header_bytes and ack_size_bytes must then
    /// include its 12 bytes (at least 52).
    pub timestamps: bool,
    /// Proportional Rate Reduction (RFC 6937) in SACK recovery; needs variant = 'sack'.
    pub prr: bool,
    /// RFC 3465 L: at most this many segments added to cwnd per ACK in slow start; 0 = no limit
    /// (Linux).
    pub abc_limit_segments: u32,
    /// RFC 3465 byte counting in congestion avoidance (one MSS per cwnd of acknowledged bytes)
    /// instead of MSS^2/cwnd per ACK (Reno).
    pub ca_byte_counting: bool,
    /// ACK each of the first this many in-order segments at once (Linux's quick-ACK mode at the
    /// start: 16); 0 = off.
    pub quickack_segments: u32,
    /// Open each connection with a SYN (header_bytes on the wire, timed, resent with backoff); data
    /// flows once the SYN-ACK is back. Off: the connection exists from the flow's start (ns-2's
    /// one-way TCP without syn_).
    pub syn: bool,
}

/// `tcp.ssthresh_basis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshBasisKind {
    /// RFC 5681 eq. (4): max(FlightSize / 2, 2 SMSS).
    FlightSize,
    /// ns-2 `slowdown()`: max(⌊min(cwnd, window) / 2⌋, 2) segments.
    Window,
    /// Linux: cwnd (bounded by the receiver's window) times the algorithm's factor.
    Cwnd,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FlowsConfig {
    /// Number of flows (per UE with access.kind = 'lte' or 'nr').
    pub count: u32,
    /// Start of the first flow, seconds.
    pub start_s: f64,
    /// Flow i starts at start_s + i * stagger_s (unless start_times_s is set).
    pub stagger_s: f64,
    /// Explicit start time of every flow, seconds; exactly `count` values.
    pub start_times_s: Option<Vec<f64>>,
    /// Each flow starts a random U(0, start_jitter_s) seconds later (drawn per run from the flow's
    /// own stream), so replications of a loss-free scenario differ.
    pub start_jitter_s: f64,
    /// Bytes each flow's application sends (a file transfer; its completion time is the metric
    /// flows.<i>.completion_s); unset = unlimited bulk.
    pub size_bytes: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// Name used in metric keys (letters, digits, '_' and '-'); unique per scenario.
    pub name: String,
    /// Transmission rate, kbit/s (1 kbit = 1000 bit).
    pub rate_kbps: f64,
    /// One-way propagation delay, ms.
    pub delay_ms: f64,
    /// Probability that a data packet (server -> client) is lost here.
    pub loss_rate: f64,
    /// Probability that an ACK (client -> server) is lost here.
    pub ack_loss_rate: f64,
    // Queue at the input of this link, one per direction.
    /// Queue of this link.
    pub queue: QueueConfig,
    /// A per-packet delay process (reordering, spikes) instead of delay_ms; unset = the constant
    /// delay_ms.
    pub variable_delay: Option<VariableDelayConfig>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DelayProcessKind {
    Constant,
    Uniform,
    Normal,
    Markov,
    Trace,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DelayDirections {
    Both,
    Data,
    Ack,
}

/// One level of a Markov-modulated delay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DelayLevelConfig {
    /// One-way delay at this level, ms.
    pub delay_ms: f64,
    /// Mean time the chain stays at this level, ms (exponential).
    pub mean_sojourn_ms: f64,
}

/// A scheduled stall or added delay on a link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SpikeConfig {
    /// Start of the spike, s.
    pub start_s: f64,
    /// Length of the spike, s.
    pub duration_s: f64,
    /// Delay added to packets sent during the spike, ms.
    pub extra_ms: f64,
    /// Nothing leaves the link during the spike: arrivals in it wait for its end.
    pub stall: bool,
}

impl Default for DelayLevelConfig {
    fn default() -> Self {
        Self {
            delay_ms: 190.0,
            mean_sojourn_ms: 1000.0,
        }
    }
}

impl Default for SpikeConfig {
    fn default() -> Self {
        Self {
            start_s: 5.0,
            duration_s: 6.0,
            extra_ms: 0.0,
            stall: false,
        }
    }
}

/// The per-packet one-way delay of a link (docs/models/variable-delay-link.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct VariableDelayConfig {
    /// 'constant' (mean_ms), 'uniform' (mean_ms +- half_width_ms), 'normal' (mean_ms, std_ms, at
    /// least floor_ms), 'markov' (levels) or 'trace' (trace).
    pub process: DelayProcessKind,
    /// Delay (constant) or mean delay, ms.
    pub mean_ms: f64,
    /// uniform: half the width of the range, at most mean_ms, ms.
    pub half_width_ms: f64,
    // normal: standard deviation, and the floor draws are raised to.
    /// normal: standard deviation, ms.
    pub std_ms: f64,
    /// normal: smaller draws are raised to this, ms.
    pub floor_ms: f64,
    /// markov: delay levels; the chain jumps to another level, uniformly, after an exponential
    /// sojourn.
    pub levels: Vec<DelayLevelConfig>,
    /// trace: [from_s, delay_ms] points, times increasing; a step function.
    pub trace: Vec<[f64; 2]>,
    /// Forbid reordering: no packet arrives before one sent earlier.
    pub fifo: bool,
    /// The process starts here; before, packets take its nominal delay, s.
    pub start_s: f64,
    /// Directions the process applies to; the other keeps delay_ms.
    pub directions: DelayDirections,
    /// Scheduled spikes.
    pub spikes: Vec<SpikeConfig>,
}

impl Default for VariableDelayConfig {
    fn default() -> Self {
        Self {
            process: DelayProcessKind::Uniform,
            mean_ms: 190.0,
            half_width_ms: 100.0,
            std_ms: 50.0,
            floor_ms: 0.0,
            levels: Vec::new(),
            trace: Vec::new(),
            fifo: false,
            start_s: 0.0,
            directions: DelayDirections::Both,
            spikes: Vec::new(),
        }
    }
}

impl VariableDelayConfig {
    /// Every field in its bounds, whether the process uses it or not, then the process's own
    /// consistency ([`VariableDelayConfig::params`]).
    fn collect(&self, key: &str, p: &mut Problems) {
        for (name, v) in [
            ("mean_ms", self.mean_ms),
            ("half_width_ms", self.half_width_ms),
            ("std_ms", self.std_ms),
            ("floor_ms", self.floor_ms),
        ] {
            delay_ms(&format!("{key}.{name}"), v).note(p);
        }
        for (i, l) in self.levels.iter().enumerate() {
            delay_ms(&format!("{key}.levels.{i}.delay_ms"), l.delay_ms).note(p);
            timer_ms(
                &format!("{key}.levels.{i}.mean_sojourn_ms"),
                l.mean_sojourn_ms,
            )
            .note(p);
        }
        for (i, [t, d]) in self.trace.iter().enumerate() {
            finite_nonneg(&format!("{key}.trace.{i}"), *t).note(p);
            delay_ms(&format!("{key}.trace.{i}"), *d).note(p);
        }
        self.params(key).note(p);
    }

    /// The engine's parameters; validated (with `key` as the prefix of error keys) first.
    pub fn params(&self, key: &str) -> Result<VariableDelayParams, ConfigError> {
        let ms = |name: &str, v: f64| delay_ms(&format!("{key}.{name}"), v).map(|_| millis(v));
        let process = match self.process {
            DelayProcessKind::Constant => DelayProcess::Constant {
                delay: ms("mean_ms", self.mean_ms)?,
            },
            DelayProcessKind::Uniform => {
                check(
                    self.half_width_ms <= self.mean_ms,
                    &format!("{key}.half_width_ms"),
                    self.half_width_ms,
                    "at most mean_ms, so that no delay is negative",
                )?;
                DelayProcess::Uniform {
                    mean: ms("mean_ms", self.mean_ms)?,
                    half_width: ms("half_width_ms", self.half_width_ms)?,
                }
            }
            DelayProcessKind::Normal => DelayProcess::Normal {
                mean: ms("mean_ms", self.mean_ms)?,
                std: ms("std_ms", self.std_ms)?,
                floor: ms("floor_ms", self.floor_ms)?,
            },
            DelayProcessKind::Markov => {
                check(
                    !self.levels.is_empty(),
                    &format!("{key}.levels"),
                    "[]",
                    "at least one level for process = markov",
                )?;
                let mut levels = Vec::new();
                for (i, l) in self.levels.iter().enumerate() {
                    timer_ms(
                        &format!("{key}.levels.{i}.mean_sojourn_ms"),
                        l.mean_sojourn_ms,
                    )?;
                    levels.push(MarkovLevel {
                        delay: ms(&format!("levels.{i}.delay_ms"), l.delay_ms)?,
                        mean_sojourn: millis(l.mean_sojourn_ms),
                    });
                }
                DelayProcess::Markov { levels }
            }
            DelayProcessKind::Trace => {
                check(
                    !self.trace.is_empty(),
                    &format!("{key}.trace"),
                    "[]",
                    "at least one [from_s, delay_ms] point for process = trace",
                )?;
                let mut points = Vec::new();
                for (i, [t, d]) in self.trace.iter().enumerate() {
                    finite_nonneg(&format!("{key}.trace.{i}"), *t)?;
                    let at = secs(*t);
                    if let Some(&(prev, _)) = points.last() {
                        check(
                            at > prev,
                            &format!("{key}.trace.{i}"),
                            t,
                            "times strictly increasing",
                        )?;
                    }
                    points.push((at, ms(&format!("trace.{i}"), *d)?));
                }
                DelayProcess::Trace { points }
            }
        };
        finite_nonneg(&format!("{key}.start_s"), self.start_s)?;
        let mut spikes = Vec::new();
        for (i, sp) in self.spikes.iter().enumerate() {
            let k = format!("{key}.spikes.{i}");
            finite_nonneg(&format!("{k}.start_s"), sp.start_s)?;
            check(
                sp.duration_s >= 1e-6 && sp.duration_s <= 86_400.0,
                &format!("{k}.duration_s"),
                sp.duration_s,
                "a duration in [1e-06, 86400] s (1 us to 1 day)",
            )?;
            delay_ms(&format!("{k}.extra_ms"), sp.extra_ms)?;
            spikes.push(Spike {
                start: secs(sp.start_s),
                duration: secs(sp.duration_s),
                extra: millis(sp.extra_ms),
                stall: sp.stall,
            });
        }
        Ok(VariableDelayParams {
            process,
            spikes,
            fifo: self.fifo,
            start_at: secs(self.start_s),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PacingRuleKind {
    SrttPerWindow,
    SrttFraction,
}

/// The ACK controller at the base station (docs/models/bs-ack-controller.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BsAckConfig {
    /// Run the controller at the BS.
    pub enabled: bool,
    /// Name of the BS -> mobile host link (the BS is the node before it); '' = the last link.
    pub link: String,
    /// EWMA gain of the BS-MH sRTT.
    pub g: f64,
    /// Duplicate ACKs from the mobile host that signal a loss on this link; the threshold-th gives
    /// the fixed host its third.
    pub dup_ack_thresh: u32,
    /// Pace the ACKs to the fixed host with the txTimer.
    pub pacing: bool,
    /// txTimer interval: pace_factor x sRTT / (packets downstream of the BS) or pace_factor x sRTT.
    pub pacing_rule: PacingRuleKind,
    /// Multiplies the pacing interval.
    pub pace_factor: f64,
    /// sRTT before the first sample; unset: from the first sample.
    pub initial_srtt_ms: Option<f64>,
    /// Longest an ACK may wait in the BS queue; unset: no bound.
    pub max_ack_wait_ms: Option<f64>,
    /// A BS reply that would be the third consecutive duplicate is withheld unless no ACK went to
    /// the flow for this long.
    pub reply_reset_after_ms: f64,
}

impl Default for BsAckConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            link: String::new(),
            g: 0.125,
            dup_ack_thresh: 5,
            pacing: true,
            pacing_rule: PacingRuleKind::SrttPerWindow,
            pace_factor: 0.5,
            initial_srtt_ms: None,
            max_ack_wait_ms: None,
            reply_reset_after_ms: 1000.0,
        }
    }
}

impl BsAckConfig {
    /// The controller's parameters; None when disabled.
    pub fn params(&self) -> Option<BsAckParams> {
        self.enabled.then(|| self.controller_params())
    }

    /// The controller's parameters as configured, enabled or not.
    fn controller_params(&self) -> BsAckParams {
        BsAckParams {
            g: self.g,
            dup_ack_thresh: self.dup_ack_thresh,
            pacing: self.pacing,
            pacing_rule: match self.pacing_rule {
                PacingRuleKind::SrttPerWindow => PacingRule::SrttPerWindow,
                PacingRuleKind::SrttFraction => PacingRule::SrttFraction,
            },
            pace_factor: self.pace_factor,
            initial_srtt: self.initial_srtt_ms.map(millis),
            max_ack_wait: self.max_ack_wait_ms.map(millis),
            reply_reset_after: millis(self.reply_reset_after_ms),
        }
    }

    /// Index of the BS -> MH link in `links`.
    pub fn link_index(&self, links: &[LinkConfig]) -> Option<usize> {
        if self.link.is_empty() {
            links.len().checked_sub(1)
        } else {
            links.iter().position(|l| l.name == self.link)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QueueDiscipline {
    DropTail,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct QueueConfig {
    /// Only 'droptail' for now.
    pub discipline: QueueDiscipline,
    /// Packets that may wait (not counting the one being transmitted).
    pub limit_packets: u32,
    /// Optional byte limit on the waiting packets (at least tcp.packet_size_bytes); both limits
    /// apply when both are set.
    pub limit_bytes: Option<u64>,
}

impl Default for SimulationConfig {
    fn default() -> Self {
        Self {
            duration_s: 60.0,
            warmup_s: 0.0,
        }
    }
}

impl TcpConfig {
    /// Maximum segment size: packet minus headers.
    pub fn mss(&self) -> u32 {
        self.packet_size_bytes - self.header_bytes
    }

    /// The receive buffer in bytes: awnd_segments x MSS when set, else rwnd_bytes.
    pub fn receive_buffer_bytes(&self) -> u32 {
        match self.awnd_segments {
            Some(a) => (a as u64 * self.mss() as u64).min(u32::MAX as u64) as u32,
            None => self.rwnd_bytes,
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self::profile_defaults(TcpProfile::Rfc)
    }
}

impl TcpConfig {
    /// Every key's value under `profile` (docs/models/tcp.md has the sources of each).
    pub fn profile_defaults(profile: TcpProfile) -> Self {
        let rfc = Self {
            profile: TcpProfile::Rfc,
            variant: TcpVariant::NewReno,
            packet_size_bytes: 1500,
            header_bytes: 40,
            ack_size_bytes: 40,
            initial_window_segments: 1,
            initial_ssthresh_bytes: None,
            rwnd_bytes: 65535,
            awnd_segments: None,
            window_scaling: false,
            initial_rto_ms: 1000.0,
            min_rto_ms: 1000.0,
            max_rto_ms: 60000.0,
            clock_granularity_ms: 1.0,
            delack_count: 2,
            delack_timeout_ms: 200.0,
            rtt_sampling: RttSamplingKind::EveryAck,
            rto_estimator: RtoEstimatorKind::Rfc6298,
            limited_transmit: false,
            restart_timer_on_fast_retransmit: false,
            reno_recover_after_rto: false,
            reno_one_recovery_per_window: false,
            rto_ssthresh_every_expiry: false,
            ssthresh_basis: SsthreshBasisKind::FlightSize,
            suppressed_dupack_inflation: false,
            congestion_control: CongestionControlKind::Reno,
            cubic_beta: 0.7,
            cubic_c: 0.4,
            hystart: false,
            timestamps: false,
            prr: false,
            abc_limit_segments: 1,
            ca_byte_counting: false,
            quickack_segments: 0,
            syn: false,
        };
        // What every ns-2 version shares: TCPSink (an ACK per segment), window_ 20 packets,
        // one timed segment per RTT and the tick estimator, the timer restarted at fast
        // retransmit, bugFix_ after an RTO, slowdown() from the window on every timeout, and
        // maxrto_ 100000 s (we cap at a day; the 64x backoff limit stops far below).
        let ns2 = Self {
            packet_size_bytes: 1040,
            header_bytes: 40,
            ack_size_bytes: 40,
            awnd_segments: Some(20),
            max_rto_ms: bounds::TIME_MAX_MS,
            delack_count: 1,
            rtt_sampling: RttSamplingKind::TimedSegment,
            rto_estimator: RtoEstimatorKind::Ns2,
            restart_timer_on_fast_retransmit: true,
            reno_recover_after_rto: true,
            rto_ssthresh_every_expiry: true,
            ssthresh_basis: SsthreshBasisKind::Window,
            suppressed_dupack_inflation: true,
            ..rfc.clone()
        };
        match profile {
            TcpProfile::Rfc => rfc,
            // ns-2.26 (2003): ns-default.tcl of the release (windowInit_ 2, minrto_ 1, tcpTick_
            // 0.01, singledup_ 1, useHeaders_), the C++ of ns-2.1b8a/2.28 around it
            // (docs/models/tcp.md, "Profiles").
            TcpProfile::Ns2_2_26 => Self {
                profile,
                initial_window_segments: 2,
                initial_rto_ms: 6000.0,
                min_rto_ms: 1000.0,
                clock_granularity_ms: 10.0,
                limited_transmit: true,
                reno_one_recovery_per_window: false,
                // syn_ and delay_growth_ true since 2001/5/17: a 40-byte SYN first, timed,
                // and the initial window only once it is answered.
                syn: true,
                ..ns2
            },
            // The ns-2 of 1997-2000 (ns-2.1b5/b6): a 100 ms tick, no minimum RTO (the floor is
            // two ticks), no Limited Transmit, no SYN, 1000-byte packets on the wire.
            TcpProfile::Ns2_1999 => Self {
                profile,
                packet_size_bytes: 1000,
                initial_window_segments: 1,
                initial_rto_ms: 6000.0,
                min_rto_ms: bounds::TIMER_MIN_MS,
                clock_granularity_ms: 100.0,
                limited_transmit: false,
                reno_one_recovery_per_window: false,
                ..ns2
            },
            // Linux 6.x defaults (net.ipv4 sysctls and include/net/tcp.h): CUBIC with
            // HyStart (HyStart++ stands in), SACK with PRR, timestamps (1448-byte MSS in a
            // 1500-byte packet), IW 10 (TCP_INIT_CWND), RTO 1 s initial, 200 ms minimum
            // (TCP_RTO_MIN), 120 s maximum (TCP_RTO_MAX), the timer re-armed when the head is
            // retransmitted, slow start adding every acknowledged segment, 16 quick ACKs then
            // delayed ACKs every second segment or after 40 ms (TCP_DELACK_MIN), window
            // scaling with tcp_rmem's 6 MiB maximum (autotuning is not modelled).
            TcpProfile::Linux => Self {
                profile,
                variant: TcpVariant::Sack,
                packet_size_bytes: 1500,
                header_bytes: 52,
                ack_size_bytes: 52,
                initial_window_segments: 10,
                rwnd_bytes: 6_291_456,
                window_scaling: true,
                initial_rto_ms: 1000.0,
                min_rto_ms: 200.0,
                max_rto_ms: 120_000.0,
                delack_count: 2,
                delack_timeout_ms: 40.0,
                rto_estimator: RtoEstimatorKind::Linux,
                limited_transmit: true,
                restart_timer_on_fast_retransmit: true,
                congestion_control: CongestionControlKind::Cubic,
                hystart: true,
                timestamps: true,
                prr: true,
                abc_limit_segments: 0,
                quickack_segments: 16,
                ssthresh_basis: SsthreshBasisKind::Cwnd,
                syn: true,
                ..rfc
            },
        }
    }
}

impl Default for FlowsConfig {
    fn default() -> Self {
        Self {
            count: 1,
            start_s: 0.0,
            stagger_s: 0.0,
            start_times_s: None,
            start_jitter_s: 0.0,
            size_bytes: None,
        }
    }
}

impl Default for QueueConfig {
    fn default() -> Self {
        Self {
            discipline: QueueDiscipline::DropTail,
            limit_packets: 100,
            limit_bytes: None,
        }
    }
}

impl Default for LinkConfig {
    fn default() -> Self {
        Self {
            name: "link".into(),
            rate_kbps: 1000.0,
            delay_ms: 10.0,
            loss_rate: 0.0,
            ack_loss_rate: 0.0,
            queue: QueueConfig::default(),
            variable_delay: None,
        }
    }
}

impl Default for ScenarioConfig {
    /// The `wired-384k` preset with one flow.
    fn default() -> Self {
        Self {
            simulation: SimulationConfig::default(),
            tcp: TcpConfig::default(),
            flows: FlowsConfig::default(),
            links: vec![
                LinkConfig {
                    name: "wan".into(),
                    rate_kbps: 1000.0,
                    delay_ms: 100.0,
                    queue: QueueConfig {
                        limit_packets: 1000,
                        ..QueueConfig::default()
                    },
                    ..LinkConfig::default()
                },
                LinkConfig {
                    name: "access".into(),
                    rate_kbps: 384.0,
                    delay_ms: 25.0,
                    queue: QueueConfig {
                        limit_packets: 50,
                        ..QueueConfig::default()
                    },
                    ..LinkConfig::default()
                },
            ],
            access: AccessConfig::Wired(WiredAccessConfig {}),
            bs_ack: BsAckConfig::default(),
        }
    }
}

impl ChannelConfig {
    /// `fer` and `fd_t` are checked whatever the model uses (a value that means nothing to the
    /// model chosen is still a mistake to report).
    fn collect(&self, key: &str, p: &mut Problems) {
        if self.model == ChannelKind::Markov {
            check(
                self.fer > 0.0 && self.fer < 1.0,
                &format!("{key}.fer"),
                self.fer,
                "a block error rate in (0, 1) for the markov model",
            )
            .note(p);
        }
        probability(&format!("{key}.fer"), self.fer).note(p);
        positive(&format!("{key}.fd_t"), self.fd_t).note(p);
    }
}

impl BufferConfig {
    /// Checks the per-user buffer's settings; `prefix` is its key path (`access.buffer`).
    pub(crate) fn collect(&self, prefix: &str, p: &mut Problems) {
        let b = self;
        check(
            b.limit_sdus >= 1,
            &format!("{prefix}.limit_sdus"),
            b.limit_sdus,
            "an integer >= 1",
        )
        .note(p);
        finite_nonneg(&format!("{prefix}.red.min_th_sdus"), b.red.min_th_sdus).note(p);
        check(
            b.red.max_th_sdus.is_finite() && b.red.max_th_sdus > b.red.min_th_sdus,
            &format!("{prefix}.red.max_th_sdus"),
            b.red.max_th_sdus,
            &format!("a number greater than {prefix}.red.min_th_sdus"),
        )
        .note(p);
        check(
            b.red.max_p > 0.0 && b.red.max_p <= 1.0,
            &format!("{prefix}.red.max_p"),
            b.red.max_p,
            "a probability in (0, 1]",
        )
        .note(p);
        // minth must lie below maxth (the limit) only when SBD is in use.
        check(
            b.sbd.min_th_sdus.is_finite()
                && b.sbd.min_th_sdus >= 0.0
                && (b.discipline != BufferDisciplineKind::Sbd
                    || b.sbd.min_th_sdus < b.limit_sdus as f64),
            &format!("{prefix}.sbd.min_th_sdus"),
            b.sbd.min_th_sdus,
            &format!("a number >= 0 and below {prefix}.limit_sdus (SBD's maxth)"),
        )
        .note(p);
        timer_ms(&format!("{prefix}.sbd.t_r_ms"), b.sbd.t_r_ms).note(p);
        positive(&format!("{prefix}.sbd.alpha_bits"), b.sbd.alpha_bits).note(p);
        timer_ms(&format!("{prefix}.codel.target_ms"), b.codel.target_ms).note(p);
        timer_ms(&format!("{prefix}.codel.interval_ms"), b.codel.interval_ms).note(p);
        timer_ms(&format!("{prefix}.pie.qdelay_ref_ms"), b.pie.qdelay_ref_ms).note(p);
        timer_ms(&format!("{prefix}.pie.t_update_ms"), b.pie.t_update_ms).note(p);
        positive(&format!("{prefix}.pie.alpha"), b.pie.alpha).note(p);
        positive(&format!("{prefix}.pie.beta"), b.pie.beta).note(p);
        delay_ms(&format!("{prefix}.pie.max_burst_ms"), b.pie.max_burst_ms).note(p);
    }
}

impl AccessKind for UmtsConfig {
    fn name(&self) -> &'static str {
        "umts"
    }

    fn cost_terms(&self) -> AccessCostTerms {
        AccessCostTerms {
            capacity_kbps: Some(
                self.pdus_per_tti as f64 * self.pdu_payload_bytes as f64 * 8.0 / self.tti_ms,
            ),
            one_way_ms: self.one_way_delay_ms,
            period_ms: Some(self.tti_ms),
            ns_per_event: 2000.0,
        }
    }
}

impl UmtsConfig {
    fn collect(&self, p: &mut Problems) {
        period_ms("access.tti_ms", self.tti_ms).note(p);
        check(
            self.pdus_per_tti >= 1,
            "access.pdus_per_tti",
            self.pdus_per_tti,
            "an integer >= 1",
        )
        .note(p);
        check(
            self.pdu_payload_bytes > self.li_bytes && self.li_bytes >= 1,
            "access.pdu_payload_bytes",
            self.pdu_payload_bytes,
            "an integer greater than access.li_bytes (>= 1)",
        )
        .note(p);
        delay_ms("access.one_way_delay_ms", self.one_way_delay_ms).note(p);
        if let Some(o) = self.ue_tti_offset_ms {
            check(
                o.is_finite() && o >= 0.0 && o < self.tti_ms,
                "access.ue_tti_offset_ms",
                o,
                "a time in [0, access.tti_ms) ms, or unset (one_way_delay_ms mod tti_ms)",
            )
            .note(p);
        }
        self.downlink.collect("access.downlink", p);
        if let Some(u) = &self.uplink {
            u.collect("access.uplink", p);
        }
        let r = &self.rlc;
        check(
            (1..=2047).contains(&r.window_pdus),
            "access.rlc.window_pdus",
            r.window_pdus,
            "an integer in 1..=2047 (half the 12-bit SN space)",
        )
        .note(p);
        check(
            r.max_dat >= 2,
            "access.rlc.max_dat",
            r.max_dat,
            "an integer >= 2 (a PDU is sent at most max_dat - 1 times)",
        )
        .note(p);
        timer_ms("access.rlc.poll_timer_ms", r.poll_timer_ms).note(p);
        timer_or_off_ms("access.rlc.poll_prohibit_ms", r.poll_prohibit_ms).note(p);
        timer_or_off_ms("access.rlc.status_prohibit_ms", r.status_prohibit_ms).note(p);
        positive("access.rlc.poll_window_pct", r.poll_window_pct).note(p);
        timer_ms("access.rlc.mrw_timer_ms", r.mrw_timer_ms).note(p);
        self.buffer.collect("access.buffer", p);
        let a = &self.ack_control;
        finite_nonneg("access.ack_control.minth_sdus", a.minth_sdus).note(p);
        check(
            a.maxth_sdus.is_finite() && a.maxth_sdus > a.minth_sdus,
            "access.ack_control.maxth_sdus",
            a.maxth_sdus,
            "a number greater than access.ack_control.minth_sdus",
        )
        .note(p);
        delay_ms("access.ack_control.mind_ms", a.mind_ms).note(p);
        delay_ms("access.ack_control.maxd_ms", a.maxd_ms).note(p);
        check(
            a.maxd_ms >= a.mind_ms,
            "access.ack_control.maxd_ms",
            a.maxd_ms,
            "a number >= access.ack_control.mind_ms",
        )
        .note(p);
        finite_nonneg("access.ack_control.alpha", a.alpha).note(p);
    }
}

/// The problems of a document, collected rather than returned one at a time.
pub(crate) type Problems = Vec<ConfigError>;

/// Record a check's problem and go on with the next check.
pub(crate) trait Note {
    fn note(self, p: &mut Problems);
}

impl<T> Note for Result<T, ConfigError> {
    fn note(self, p: &mut Problems) {
        if let Err(e) = self {
            p.push(e);
        }
    }
}

fn check(ok: bool, key: &str, value: impl ToString, allowed: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError {
            key: key.to_string(),
            value: value.to_string(),
            allowed: allowed.to_string(),
            unknown_key: false,
        })
    }
}

fn finite_nonneg(key: &str, v: f64) -> Result<(), ConfigError> {
    check(v.is_finite() && v >= 0.0, key, v, "a finite number >= 0")
}

fn positive(key: &str, v: f64) -> Result<(), ConfigError> {
    check(v.is_finite() && v > 0.0, key, v, "a finite number > 0")
}

/// Physical bounds of the times and rates a scenario may set: wide enough for every network
/// radiotcp models (and for stress tests), narrow enough that a typo (a TTI in seconds written
/// in ms, a timer of 1e-9 ms) is an error up front instead of a run that never ends. The
/// Python models check the same bounds with the same messages (docs/usage.md, "Bounds").
pub mod bounds {
    /// Shortest timer: 1 microsecond.
    pub const TIMER_MIN_MS: f64 = 1e-3;
    /// Longest timer or delay: one day.
    pub const TIME_MAX_MS: f64 = 86_400_000.0;
    /// Shortest and longest radio period (a TTI, an RLP frame slot): 0.1 ms to 1 s.
    pub const PERIOD_MIN_MS: f64 = 0.1;
    pub const PERIOD_MAX_MS: f64 = 1000.0;
    /// Slowest and fastest link: 1 bit/s to 1 Tbit/s.
    pub const RATE_MIN_KBPS: f64 = 1e-3;
    pub const RATE_MAX_KBPS: f64 = 1e9;
    /// Longest run: 1e7 s (about 116 days of simulated time).
    pub const DURATION_MAX_S: f64 = 1e7;
}

/// A timer (an RTO, Timer_Poll, a CoDel interval): 1 us to 1 day.
fn timer_ms(key: &str, v: f64) -> Result<(), ConfigError> {
    check(
        (bounds::TIMER_MIN_MS..=bounds::TIME_MAX_MS).contains(&v),
        key,
        v,
        "a timer in [0.001, 86400000] ms (1 us to 1 day)",
    )
}

/// A timer that 0 turns off (Timer_Poll_Prohibit, Timer_Status_Prohibit).
fn timer_or_off_ms(key: &str, v: f64) -> Result<(), ConfigError> {
    check(
        v == 0.0 || (bounds::TIMER_MIN_MS..=bounds::TIME_MAX_MS).contains(&v),
        key,
        v,
        "0 (off) or a timer in [0.001, 86400000] ms (1 us to 1 day)",
    )
}

/// A delay or a time offset in ms: 0 to 1 day.
fn delay_ms(key: &str, v: f64) -> Result<(), ConfigError> {
    check(
        (0.0..=bounds::TIME_MAX_MS).contains(&v),
        key,
        v,
        "a delay in [0, 86400000] ms (at most 1 day)",
    )
}

/// A radio period (a TTI, an RLP slot): 0.1 ms to 1 s.
fn period_ms(key: &str, v: f64) -> Result<(), ConfigError> {
    check(
        (bounds::PERIOD_MIN_MS..=bounds::PERIOD_MAX_MS).contains(&v),
        key,
        v,
        "a period in [0.1, 1000] ms",
    )
}

/// A link rate: 1 bit/s to 1 Tbit/s.
fn rate_kbps(key: &str, v: f64) -> Result<(), ConfigError> {
    check(
        (bounds::RATE_MIN_KBPS..=bounds::RATE_MAX_KBPS).contains(&v),
        key,
        v,
        "a rate in [0.001, 1e9] kb/s (1 bit/s to 1 Tbit/s)",
    )
}

fn probability(key: &str, v: f64) -> Result<(), ConfigError> {
    check((0.0..1.0).contains(&v), key, v, "a probability in [0, 1)")
}

impl ScenarioConfig {
    /// Parse a JSON document and validate it: the first problem of
    /// [`ScenarioConfig::from_partial_json`] (keys left out take their defaults).
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        Self::from_partial_json(text).map_err(|p| {
            p.into_iter()
                .next()
                .unwrap_or_else(|| ConfigError::new("<document>", "", "a scenario document"))
        })
    }

    /// Resolve a partial JSON document (the keys it leaves out take their defaults): the
    /// scenario, or every problem of the document ([`resolve::resolve`]).
    pub fn from_partial_json(text: &str) -> Result<Self, Vec<ConfigError>> {
        let doc: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| vec![ConfigError::new("<document>", "", e.to_string())])?;
        resolve::resolve(&doc)
    }

    /// The first problem of [`ScenarioConfig::problems`], if any.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self.problems().into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Every value the simulation cannot use, one problem per key (the first found), each
    /// naming the key, the value and what is allowed.
    pub fn problems(&self) -> Vec<ConfigError> {
        let mut p = Problems::new();
        self.collect(&mut p);
        let mut seen = std::collections::HashSet::new();
        p.retain(|e| seen.insert(e.key.clone()));
        p
    }

    /// Check every value the simulation relies on.
    fn collect(&self, p: &mut Problems) {
        let s = &self.simulation;
        check(
            s.duration_s > 0.0 && s.duration_s <= bounds::DURATION_MAX_S,
            "simulation.duration_s",
            s.duration_s,
            "a duration in (0, 1e7] s (at most about 116 days)",
        )
        .note(p);
        finite_nonneg("simulation.warmup_s", s.warmup_s).note(p);
        check(
            s.warmup_s < s.duration_s,
            "simulation.warmup_s",
            s.warmup_s,
            "less than simulation.duration_s",
        )
        .note(p);

        let t = &self.tcp;
        check(
            t.header_bytes >= 20,
            "tcp.header_bytes",
            t.header_bytes,
            "an integer >= 20",
        )
        .note(p);
        check(
            t.packet_size_bytes > t.header_bytes,
            "tcp.packet_size_bytes",
            t.packet_size_bytes,
            "an integer greater than tcp.header_bytes",
        )
        .note(p);
        check(
            t.ack_size_bytes >= 20,
            "tcp.ack_size_bytes",
            t.ack_size_bytes,
            "an integer >= 20",
        )
        .note(p);
        check(
            t.initial_window_segments >= 1,
            "tcp.initial_window_segments",
            t.initial_window_segments,
            "an integer >= 1",
        )
        .note(p);
        let mss = t.packet_size_bytes.saturating_sub(t.header_bytes) as u64;
        if let Some(ss) = t.initial_ssthresh_bytes {
            check(
                ss >= 2 * mss,
                "tcp.initial_ssthresh_bytes",
                ss,
                &format!("at least 2 MSS = {} bytes (RFC 5681 lower bound)", 2 * mss),
            )
            .note(p);
        }
        check(
            t.rwnd_bytes as u64 >= mss,
            "tcp.rwnd_bytes",
            t.rwnd_bytes,
            &format!("at least one MSS = {mss} bytes"),
        )
        .note(p);
        if let Some(a) = t.awnd_segments {
            check(
                a >= 1 && a as u64 * mss <= u32::MAX as u64,
                "tcp.awnd_segments",
                a,
                "an integer >= 1 whose window (x MSS) fits in 32 bits",
            )
            .note(p);
        }
        timer_ms("tcp.initial_rto_ms", t.initial_rto_ms).note(p);
        timer_ms("tcp.min_rto_ms", t.min_rto_ms).note(p);
        timer_ms("tcp.max_rto_ms", t.max_rto_ms).note(p);
        check(
            t.max_rto_ms >= t.min_rto_ms,
            "tcp.max_rto_ms",
            t.max_rto_ms,
            "at least tcp.min_rto_ms",
        )
        .note(p);
        delay_ms("tcp.clock_granularity_ms", t.clock_granularity_ms).note(p);
        check(
            t.delack_count >= 1,
            "tcp.delack_count",
            t.delack_count,
            "an integer >= 1 (1 disables delayed ACKs)",
        )
        .note(p);
        timer_ms("tcp.delack_timeout_ms", t.delack_timeout_ms).note(p);
        if t.timestamps {
            // RFC 7323 §3: the option takes 10 octets, 12 with the two NOPs before it.
            check(
                t.header_bytes >= 52,
                "tcp.header_bytes",
                t.header_bytes,
                "at least 52 with tcp.timestamps = true (40 B TCP/IP + 12 B option)",
            )
            .note(p);
            check(
                t.ack_size_bytes >= 52,
                "tcp.ack_size_bytes",
                t.ack_size_bytes,
                "at least 52 with tcp.timestamps = true (40 B TCP/IP + 12 B option)",
            )
            .note(p);
        }
        check(
            t.rtt_sampling != RttSamplingKind::Timestamps || t.timestamps,
            "tcp.rtt_sampling",
            "timestamps",
            "'every_ack' or 'timed_segment' unless tcp.timestamps = true",
        )
        .note(p);
        check(
            !t.prr || t.variant == TcpVariant::Sack,
            "tcp.prr",
            t.prr,
            "false unless tcp.variant = 'sack' (PRR runs on the SACK pipe estimate)",
        )
        .note(p);
        check(
            t.cubic_beta > 0.0 && t.cubic_beta < 1.0,
            "tcp.cubic_beta",
            t.cubic_beta,
            "a factor in (0, 1)",
        )
        .note(p);
        check(
            t.cubic_c > 0.0 && t.cubic_c <= 100.0,
            "tcp.cubic_c",
            t.cubic_c,
            "a constant in (0, 100]",
        )
        .note(p);
        check(
            t.quickack_segments <= 1_000_000,
            "tcp.quickack_segments",
            t.quickack_segments,
            "an integer in 0..=1000000",
        )
        .note(p);
        check(
            t.abc_limit_segments <= 1_000_000,
            "tcp.abc_limit_segments",
            t.abc_limit_segments,
            "an integer in 0..=1000000 (0 = no limit)",
        )
        .note(p);

        let f = &self.flows;
        check(
            (1..=10_000).contains(&f.count),
            "flows.count",
            f.count,
            "an integer in 1..=10000",
        )
        .note(p);
        finite_nonneg("flows.start_s", f.start_s).note(p);
        finite_nonneg("flows.stagger_s", f.stagger_s).note(p);
        finite_nonneg("flows.start_jitter_s", f.start_jitter_s).note(p);
        if let Some(b) = f.size_bytes {
            check(
                (1..=1u64 << 50).contains(&b),
                "flows.size_bytes",
                b,
                "a size in 1..=2^50 bytes (unset = unlimited)",
            )
            .note(p);
        }
        if let Some(times) = &f.start_times_s {
            check(
                times.len() == f.count as usize,
                "flows.start_times_s",
                format!("{} values", times.len()),
                &format!("exactly flows.count = {} values", f.count),
            )
            .note(p);
            for (i, &x) in times.iter().enumerate() {
                finite_nonneg(&format!("flows.start_times_s.{i}"), x).note(p);
            }
        }

        check(!self.links.is_empty(), "links", "[]", "at least one link").note(p);
        for (i, l) in self.links.iter().enumerate() {
            check(
                !l.name.is_empty()
                    && l.name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                &format!("links.{i}.name"),
                format!("{:?}", l.name),
                "a non-empty name of letters, digits, '_' and '-'",
            )
            .note(p);
            if let Some(j) = self.links[..i].iter().position(|o| o.name == l.name) {
                check(
                    false,
                    &format!("links.{i}.name"),
                    format!("{:?}", l.name),
                    &format!("a name not used by another link (links.{j} has it)"),
                )
                .note(p);
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            rate_kbps(&format!("links.{i}.rate_kbps"), l.rate_kbps).note(p);
            delay_ms(&format!("links.{i}.delay_ms"), l.delay_ms).note(p);
            probability(&format!("links.{i}.loss_rate"), l.loss_rate).note(p);
            probability(&format!("links.{i}.ack_loss_rate"), l.ack_loss_rate).note(p);
            check(
                l.queue.limit_packets >= 1,
                &format!("links.{i}.queue.limit_packets"),
                l.queue.limit_packets,
                "an integer >= 1",
            )
            .note(p);
            if let Some(b) = l.queue.limit_bytes {
                check(
                    b >= t.packet_size_bytes as u64,
                    &format!("links.{i}.queue.limit_bytes"),
                    b,
                    "at least tcp.packet_size_bytes",
                )
                .note(p);
            }
        }
        match &self.access {
            AccessConfig::Wired(_) => {}
            AccessConfig::Umts(r) => r.collect(p),
            AccessConfig::Rlp(r) => r.collect(p),
            AccessConfig::Lte(l) => l.collect(p),
            AccessConfig::Nr(c) => c.collect(p),
        }
        check(
            self.total_flows() <= 100_000,
            "flows.count",
            self.flows.count,
            "at most 100000 flows in all (flows.count per UE x access.ues)",
        )
        .note(p);
        for (i, l) in self.links.iter().enumerate() {
            if let Some(v) = &l.variable_delay {
                v.collect(&format!("links.{i}.variable_delay"), p);
            }
        }
        let b = &self.bs_ack;
        if b.enabled {
            let idx = b.link_index(&self.links);
            check(
                idx.is_some_and(|i| i >= 1),
                "bs_ack.link",
                format!("{:?}", b.link),
                &format!(
                    "the name of a link other than the first ({}; the BS is the node before \
                     it), or \"\" for the last link",
                    match self.links.get(1..) {
                        Some(rest) if !rest.is_empty() => rest
                            .iter()
                            .map(|l| l.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                        _ => "none".into(),
                    }
                ),
            )
            .note(p);
        }
        // The controller's settings are checked whether it runs or not.
        check(
            b.pace_factor.is_finite() && b.pace_factor > 0.0 && b.pace_factor <= 1000.0,
            "bs_ack.pace_factor",
            b.pace_factor,
            "a number in (0, 1000]",
        )
        .note(p);
        if let Some(v) = b.initial_srtt_ms {
            timer_ms("bs_ack.initial_srtt_ms", v).note(p);
        }
        if let Some(v) = b.max_ack_wait_ms {
            timer_ms("bs_ack.max_ack_wait_ms", v).note(p);
        }
        timer_ms("bs_ack.reply_reset_after_ms", b.reply_reset_after_ms).note(p);
        // g and dupAckThresh: the controller's own checks (the ones its constructor relies on).
        b.controller_params()
            .validate()
            .map_err(|e| e.at("bs_ack"))
            .note(p);
    }

    /// Flows in the scenario: `flows.count` per UE host.
    pub fn total_flows(&self) -> usize {
        self.flows.count as usize * self.access.ue_count() as usize
    }

    /// Nominal start time of every flow in seconds (before `start_jitter_s`). Flows are
    /// numbered UE by UE (flow `u * count + k` is UE u's k-th); `start_times_s` gives the
    /// k-th flow of every UE its start, else flow g starts at start_s + g * stagger_s.
    pub fn flow_start_times_s(&self) -> Vec<f64> {
        let count = self.flows.count as usize;
        (0..self.total_flows())
            .map(|g| match &self.flows.start_times_s {
                Some(t) => t[g % count],
                None => self.flows.start_s + g as f64 * self.flows.stagger_s,
            })
            .collect()
    }
}
