//! `access.kind = "lte"`: a multi-UE LTE-A Pro cell (Ohta et al., CSCN 2018; model-specs §4;
//! lte-cell.md; docs/models/lte-cell.md). The defaults are the paper's setup where the paper
//! gives it and the 3GPP Case-1 / RRC defaults otherwise; docs/models/lte-cell.md lists which.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    check, finite_nonneg, timer_ms, timer_or_off_ms, AccessCostTerms, AccessKind, BufferConfig,
    Note, Problems,
};
use crate::error::ConfigError;
use crate::radio::lte::tbs::{is_allowed_ul_prb, largest_allowed_ul_prb};
use crate::radio::lte::ul_mac::{DSR_TRANS_MAX, SR_PERIODS};

/// TS 36.331 UplinkPowerControlCommon alpha.
const ALPHAS: [f64; 8] = [0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
/// Carrier bandwidths, MHz (25, 50, 100 PRB).
const BANDWIDTHS_MHZ: [u32; 3] = [5, 10, 20];
/// TS 36.213 Table 7.2.2-1A: CQI reporting periods, TTIs.
const CQI_PERIODS_TTI: [u32; 8] = [1, 2, 5, 10, 20, 40, 80, 160];
/// TS 36.321 periodicPHR-Timer, prohibitPHR-Timer (subframes) and dl-PathlossChange (dB).
const PHR_PERIODIC_TTI: [u32; 7] = [10, 20, 50, 100, 200, 500, 1000];
const PHR_PROHIBIT_TTI: [u32; 8] = [0, 10, 20, 50, 100, 200, 500, 1000];
const PHR_PATHLOSS_CHANGE_DB: [f64; 3] = [1.0, 3.0, 6.0];
/// TS 36.211 Table 6.7-1: OFDM symbols of the control region (more than 10 PRB).
const CFIS: [u32; 3] = [1, 2, 3];

/// The per-TTI (LTE) or per-slot (NR) caps on UEs with a DL assignment / an UL grant, under the
/// caller's keys: 1..=1000, or unset.
pub(crate) fn check_ue_caps(p: &mut Problems, caps: [(&str, Option<u32>); 2]) {
    for (key, v) in caps {
        if let Some(v) = v {
            check(
                (1..=1000).contains(&v),
                key,
                v,
                "an integer in 1..=1000, or unset",
            )
            .note(p);
        }
    }
}

/// periodicPHR-Timer and prohibitPHR-Timer (TS 36.321 §5.4.6; NR's phr-PeriodicTimer and
/// phr-ProhibitTimer take the same values in ms, TS 38.331), under the caller's keys and unit.
pub(crate) fn check_phr_timers(
    p: &mut Problems,
    (periodic_key, periodic): (&str, Option<u32>),
    (prohibit_key, prohibit): (&str, u32),
    unit: &str,
) {
    if let Some(t) = periodic {
        check(
            PHR_PERIODIC_TTI.contains(&t),
            periodic_key,
            t,
            &format!("one of 10, 20, 50, 100, 200, 500, 1000 {unit}, or unset (infinity)"),
        )
        .note(p);
    }
    check(
        PHR_PROHIBIT_TTI.contains(&prohibit),
        prohibit_key,
        prohibit,
        &format!("one of 0, 10, 20, 50, 100, 200, 500, 1000 {unit}"),
    )
    .note(p);
}

/// The values a numeric key may take, in its schema (`enum`; an optional key may be unset).
fn choices<T: serde::Serialize>(schema: &mut schemars::Schema, values: &[T]) {
    let mut list: Vec<serde_json::Value> = values
        .iter()
        .map(|v| serde_json::to_value(v).expect("a number"))
        .collect();
    let optional = schema
        .get("type")
        .and_then(|t| t.as_array())
        .is_some_and(|t| t.iter().any(|x| x == "null"));
    if optional {
        list.push(serde_json::Value::Null);
    }
    schema.insert("enum".into(), list.into());
}

fn bandwidth_choices(s: &mut schemars::Schema) {
    choices(s, &BANDWIDTHS_MHZ)
}
fn cqi_period_choices(s: &mut schemars::Schema) {
    choices(s, &CQI_PERIODS_TTI)
}
fn sr_period_choices(s: &mut schemars::Schema) {
    choices(s, &SR_PERIODS)
}
fn dsr_trans_max_choices(s: &mut schemars::Schema) {
    choices(s, &DSR_TRANS_MAX)
}
fn alpha_choices(s: &mut schemars::Schema) {
    choices(s, &ALPHAS)
}
fn phr_periodic_choices(s: &mut schemars::Schema) {
    choices(s, &PHR_PERIODIC_TTI)
}
fn phr_prohibit_choices(s: &mut schemars::Schema) {
    choices(s, &PHR_PROHIBIT_TTI)
}
fn phr_pathloss_choices(s: &mut schemars::Schema) {
    choices(s, &PHR_PATHLOSS_CHANGE_DB)
}
fn cfi_choices(s: &mut schemars::Schema) {
    choices(s, &CFIS)
}
/// TS 36.211 §6.9 N_g.
const PHICH_NG: [f64; 4] = [1.0 / 6.0, 0.5, 1.0, 2.0];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LteConfig {
    // UEs dropped in the centre site (each with `flows.count` TCP downloads).
    /// UEs dropped in the centre site.
    pub ues: u32,
    // Carrier bandwidth: 5, 10 or 20 MHz (25, 50, 100 PRB). Table I of the paper implies whole-band
    // 100-PRB transport blocks (lte-cell.md §3).
    /// Carrier bandwidth, MHz (25, 50, 100 PRB).
    #[schemars(transform = bandwidth_choices)]
    pub bandwidth_mhz: u32,
    // Added to every dropped UE's downlink SINR before link adaptation and BLER, dB: a calibration
    // of the Case-1 geometry (lte-cell.md §3), not a physical effect. It does not apply to SINRs
    // listed in `cell.ue_sinr_db`, which are used as written.
    /// Added to every dropped UE's downlink SINR, dB: a calibration of the Case-1 geometry; SINRs
    /// listed in cell.ue_sinr_db are used as written.
    pub sinr_offset_db: f64,
    /// Age of the CQI an MCS is chosen from, TTIs.
    pub cqi_delay_tti: u32,
    // Periodic CQI reporting (TS 36.213 §7.2.2, N_pd on PUCCH): a UE measures its channel every
    // this many TTIs (offsets spread UE by UE); the MCS follows the latest report old enough
    // (`cqi_delay_tti`). 1 = every TTI.
    /// Periodic CQI reports every this many TTIs (TS 36.213 7.2.2; offsets spread UE by UE); the
    /// MCS follows the latest report at least cqi_delay_tti old. 1 = every TTI.
    #[schemars(transform = cqi_period_choices)]
    pub cqi_period_tti: u32,
    // Outer-loop link adaptation: per UE and link, an offset on the reported SINR that rises by
    // this step (dB) on every decoded first transmission and falls by 9 steps on every failed one,
    // which holds the first-transmission BLER at 10 % (lte-cell.md §2.4); 0 = off.
    /// Outer-loop link adaptation: the SINR offset rises by this step on a decoded first
    /// transmission and falls by 9 steps on a failed one (10 % BLER); 0 = off.
    pub olla_step_db: f64,
    /// The drop.
    pub cell: LteCellConfig,
    /// Fast fading.
    pub fading: LteFadingConfig,
    /// HARQ.
    pub harq: LteHarqConfig,
    // EWMA time constant of the PF schedulers, TTIs (ns-3: 100).
    /// PF EWMA time constant, TTIs.
    pub pf_time_constant_tti: f64,
    /// Uplink.
    pub uplink: LteUplinkConfig,
    /// The PDCCH budget per sector and TTI.
    pub pdcch: LtePdcchConfig,
    /// RLC and headers.
    pub rlc: LteRlcConfig,
    // The per-UE downlink buffer (PDCP/RLC SDUs at the eNB) and its discipline.
    /// Each UE's downlink buffer at the eNB.
    pub buffer: BufferConfig,
    /// ACK filter in each UE's uplink buffer.
    pub ack_filter: AckFilterConfig,
}

/// The Case-1 drop (lte-cell.md §1; TR 36.814 A.2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LteCellConfig {
    /// Inter-site distance, m.
    pub isd_m: f64,
    /// eNB power over the band, dBm; unset = 43 / 46 / 49 dBm at 5 / 10 / 20 MHz.
    pub enb_power_dbm: Option<f64>,
    /// Log-normal shadowing, dB.
    pub shadowing_sigma_db: f64,
    /// Building penetration loss, dB.
    pub penetration_loss_db: f64,
    /// Closest a UE is dropped to a site, m.
    pub min_distance_m: f64,
    /// UE noise figure, dB.
    pub ue_noise_figure_db: f64,
    // Per-UE wideband DL SINR in dB instead of a drop (one value per UE; positions are then not
    // defined): to replay a measured or published set of UEs (Table I).
    /// Per-UE mean downlink SINR, dB, instead of a drop (one value per UE; sectors then go round
    /// robin and positions are undefined).
    pub ue_sinr_db: Option<Vec<f64>>,
    /// With ue_sinr_db: each UE's coupling loss to its sector, dB, for uplink power control (one
    /// value per UE); unset = such UEs are received at P0 and never power-limited.
    pub ue_coupling_loss_db: Option<Vec<f64>>,
    // With `ue_sinr_db`: the UEs go round robin over this many sectors of the site (1 puts them all
    // in one cell, as a single-cell comparison needs).
    /// With ue_sinr_db: the UEs go round robin over this many sectors (1 = all in one cell, for a
    /// single-cell comparison).
    pub sectors: u32,
    // UEs per sector of the centre site (e.g. Table I's 2 / 4 / 4): the drop keeps drawing until
    // each sector has its count; with `ue_sinr_db`, the UEs fill the sectors in order. Must sum to
    // `ues`. `None`: a uniform drop (with `ue_sinr_db`: round robin).
    /// UEs per sector of the centre site (e.g. Table I's [2, 4, 4]): the drop keeps drawing until
    /// each sector has its count; with ue_sinr_db the UEs fill the sectors in order. Must sum to
    /// `ues`; unset = a uniform drop.
    pub ues_per_sector: Option<Vec<u32>>,
    // Draw the drop from this seed (run 0) instead of the run's own seed and index, so that the
    // replications of a sweep share one placement of UEs (per-UE figures); `None`: every run has
    // its own drop.
    /// Draw the drop from this seed instead of each run's own, so that all replications share one
    /// placement of UEs (per-UE figures); unset = a drop per run.
    pub drop_seed: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FadingKind {
    None,
    /// i.i.d. block Rayleigh, one draw per TTI.
    Rayleigh,
    /// Jakes sum of sinusoids at `speed_kmh`.
    Jakes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LteFadingConfig {
    /// 'none', 'rayleigh' (i.i.d. block Rayleigh per TTI) or 'jakes' (sum of sinusoids at
    /// speed_kmh).
    pub model: FadingKind,
    /// UE speed, km/h.
    pub speed_kmh: f64,
    /// Carrier frequency, GHz.
    pub carrier_ghz: f64,
    /// Sinusoids of the Jakes model.
    pub sinusoids: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LteHarqConfig {
    /// Transmissions of a block before HARQ gives up (ns-3: 4).
    pub max_tx: u32,
    /// HARQ processes per UE and link.
    pub processes: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UlSchedulerKind {
    Pf,
    /// ns-3 PfFfMacScheduler's uplink: equal shares, round robin.
    RoundRobin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BsrKind {
    /// SR on PUCCH, regular / periodic / padding BSR in the transport block (36.321).
    Standard,
    /// ns-3: an ideal BSR reaches the eNB every TTI with new data; no SR.
    Ideal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UlPowerControlKind {
    /// 36.213 §5.1.1.1 per grant: P = min(P_CMAX, 10 log10 M + P0 + α·PL); a power-limited UE's
    /// SINR per PRB falls with the PRBs it is granted, and the eNB sizes grants to the PHR.
    PerGrant,
    /// The SINR computed once for `reference_prb` PRBs, whatever the grant (the model before
    /// the uplink issue; the ns-3 comparison mode).
    ReferencePrb,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UlInterferenceKind {
    /// IoT per PRB from the neighbour sectors' uplink load (`neighbour_load`, or the serving
    /// site's own PUSCH utilisation mirrored).
    Load,
    /// A constant `iot_db`.
    Constant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DciPriorityKind {
    /// DL HARQ retransmissions, then new DL assignments (PF order), then UL grants.
    DlFirst,
    /// DL HARQ retransmissions, then UL grants, then new DL assignments.
    UlFirst,
}

/// The PDCCH of each sector (TS 36.211 §6.7-6.8, TS 36.213 §9.1.1): a budget of CCEs per TTI
/// shared by DL assignments and UL grants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LtePdcchConfig {
    /// DCIs draw from a CCE budget (false: any number per TTI, as ns-3).
    pub enabled: bool,
    // Control format indicator: OFDM symbols of the control region (1, 2, 3).
    /// OFDM symbols of the control region.
    #[schemars(transform = cfi_choices)]
    pub cfi: u32,
    /// PHICH N_g: 1/6 (0.1667), 0.5, 1 or 2 (TS 36.211 6.9); its REGs leave the budget.
    pub phich_ng: f64,
    /// Wideband DL SINR (dB, before sinr_offset_db) at or above which a UE's DCIs use aggregation
    /// level 1, 2, 4; below the last, 8.
    pub aggregation_sinr_db: [f64; 3],
    /// When CCEs run short: 'dl_first' (DL retransmissions, new DL assignments, then UL grants) or
    /// 'ul_first' (DL retransmissions, UL grants, then new DL assignments).
    pub priority: DciPriorityKind,
    // At most this many UEs with a DL assignment (retransmissions included) / an UL grant per
    // sector and TTI (a scheduler limit many commercial eNBs have); `None`: no limit.
    /// UEs with a DL assignment per sector and TTI; unset = any.
    pub max_dl_ues_per_tti: Option<u32>,
    /// UEs with an UL grant per sector and TTI; unset = any.
    pub max_ul_ues_per_tti: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LteUplinkConfig {
    /// The uplink carrier, MHz; unset = the downlink's (access.bandwidth_mhz).
    #[schemars(transform = bandwidth_choices)]
    pub bandwidth_mhz: Option<u32>,
    /// 'pf' (PF order, chunks sized to the reported buffer) or 'round_robin' (ns-3
    /// PfFfMacScheduler's uplink: equal shares).
    pub scheduler: UlSchedulerKind,
    /// Fewest PRBs in a grant (a PUSCH size 2^a 3^b 5^c).
    pub min_prb: u32,
    /// 'standard' (SR on PUCCH, regular/periodic/padding BSR in the block) or 'ideal' (ns-3: the
    /// eNB learns the buffer every TTI with new data; no SR).
    pub bsr: BsrKind,
    /// SR periodicity T_SR, ms (TS 36.213 Table 10.1.5-1).
    #[schemars(transform = sr_period_choices)]
    pub sr_period_ms: u32,
    /// Every UE's SR subframe offset (below sr_period_ms); unset = UE u at u mod T_SR, spreading
    /// the opportunities over the period.
    pub sr_offset_ms: Option<u32>,
    // SR received at n -> grant issued at n + this (model-specs §4.1 default 4).
    /// An SR at n is answered by a grant at n + this.
    pub sr_grant_delay_tti: u32,
    /// What the eNB grants for an SR, octets.
    pub sr_grant_bytes: u32,
    /// periodicBSR-Timer, subframes; unset = infinity.
    pub periodic_bsr_tti: Option<u32>,
    /// retxBSR-Timer, subframes.
    pub retx_bsr_tti: u32,
    /// dsr-TransMax: SRs before the UE would fall back to random access.
    #[schemars(transform = dsr_trans_max_choices)]
    pub dsr_trans_max: u32,
    // A fixed UL MCS for every UE (ns-3 uses 0 until SRS-based UL CQI); `None` = link adaptation
    // from the UL SINR.
    /// One UL MCS for every UE (ns-3 uses 0); unset = link adaptation.
    pub fixed_mcs: Option<u8>,
    /// 'per_grant' (TS 36.213 5.1.1.1: P = min(P_CMAX, 10 log10 M + P0 + alpha PL) per grant, so a
    /// power-limited UE's SINR per PRB falls with its PRBs; grants sized to the PHR) or
    /// 'reference_prb' (one SINR for reference_prb PRBs whatever the grant; the ns-3 comparison
    /// mode).
    pub power_control: UlPowerControlKind,
    // Fractional power control: P0 (dBm per PRB), α (36.213 §5.1.1.1; one of 0, 0.4 ... 1) and the
    // UE's maximum power P_CMAX, dBm.
    /// P0 per PRB, dBm.
    pub p0_dbm: f64,
    /// Fractional power control alpha (TS 36.331).
    #[schemars(transform = alpha_choices)]
    pub alpha: f64,
    /// UE maximum power P_CMAX, dBm.
    pub ue_power_dbm: f64,
    // periodicPHR-Timer and prohibitPHR-Timer (subframes) and dl-PathlossChange (dB) of the power
    // headroom report (36.321 §5.4.6, 36.331 PHR-Config); `None` = infinity.
    /// periodicPHR-Timer, subframes (TS 36.321 5.4.6); unset = infinity.
    #[schemars(transform = phr_periodic_choices)]
    pub phr_periodic_tti: Option<u32>,
    /// prohibitPHR-Timer, subframes.
    #[schemars(transform = phr_prohibit_choices)]
    pub phr_prohibit_tti: u32,
    /// dl-PathlossChange, dB; unset = infinity.
    #[schemars(transform = phr_pathloss_choices)]
    pub phr_pathloss_change_db: Option<f64>,
    /// eNB noise figure, dB.
    pub enb_noise_figure_db: f64,
    /// 'load' (the IoT per PRB follows the neighbour sectors' uplink load) or 'constant' (iot_db).
    pub interference: UlInterferenceKind,
    /// Interference over thermal at the eNB with interference = 'constant', dB.
    pub iot_db: f64,
    /// With interference = 'load': the fraction of PUSCH PRBs the neighbour sectors use; unset =
    /// the serving site's own utilisation mirrored (EWMA, 100 TTIs).
    pub neighbour_load: Option<f64>,
    // SC-FDMA loss against the DL thresholds, dB.
    /// SC-FDMA loss, dB.
    pub sc_fdma_loss_db: f64,
    /// PRBs the UL SINR is computed for with power_control = 'reference_prb'.
    pub reference_prb: u32,
    /// PRBs at the band edges taken by PUCCH (not available to PUSCH; even); unset = 2 / 4 / 8 at 5
    /// / 10 / 20 MHz.
    pub pucch_prb: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RlcModeKind {
    Am,
    Um,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LteRlcConfig {
    /// 'am' or 'um'.
    pub mode: RlcModeKind,
    /// t-PollRetransmit, ms.
    pub t_poll_retransmit_ms: f64,
    /// t-Reordering, ms.
    pub t_reordering_ms: f64,
    /// t-StatusProhibit, ms; 0 = none.
    pub t_status_prohibit_ms: f64,
    /// pollPDU.
    pub poll_pdu: u32,
    /// pollByte, octets.
    pub poll_byte: u64,
    /// maxRetxThreshold (then the SDU is discarded).
    pub max_retx: u32,
    // PDCP header per SDU, RLC header per PDU, MAC subheader per RLC PDU: 2 + 2 + 2 = the paper's 6
    // B of MAC/RLC/PDCP (§III.B).
    /// PDCP header per SDU, octets.
    pub pdcp_header_bytes: u32,
    /// RLC header per PDU, octets.
    pub rlc_header_bytes: u32,
    /// MAC subheader per block, octets.
    pub mac_header_bytes: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AckFilterKind {
    /// No discard (legacy LTE-A Pro).
    Basic,
    /// Grant-triggered with `ratio` (1 = Granted ACK).
    Passive,
    /// Arrival-triggered with `threshold` (1 = Highest ACK).
    Active,
    /// Active with `threshold`, then Passive with `ratio` at each grant.
    Hybrid,
    /// Hybrid with the per-UE T_opt of eq. (2) and Granted ACK.
    HybridOpt,
    /// CAKE's ACK filter (`aggressive` for its aggressive mode).
    Cake,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RoundingKind {
    /// ⌈N_ack⌉, as the paper prints it.
    Ceil,
    /// Round to nearest: what reproduces the printed T_opt column (lte-cell.md §3).
    Nearest,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AckFilterConfig {
    /// 'basic' (none), 'passive' (at a grant, ratio; 1 = Granted ACK), 'active' (on arrival,
    /// threshold; 1 = Highest ACK), 'hybrid' (both), 'hybrid_opt' (Hybrid with the per-UE T_opt of
    /// eq. (2)) or 'cake' (CAKE's ACK filter).
    pub scheme: AckFilterKind,
    /// Passive Discard ratio.
    pub ratio: f64,
    /// Active Discard threshold T (ratio 0.94 is T = 6).
    pub threshold: u32,
    /// How eq. (2) rounds N_ack: 'ceil' as printed, 'nearest' (what reproduces the printed T_opt
    /// column).
    pub rounding: RoundingKind,
    /// S_TCP_segment of eq. (1); unset = the MSS.
    pub segment_bytes: Option<u32>,
    /// CAKE's aggressive mode.
    pub aggressive: bool,
}

impl Default for LteConfig {
    fn default() -> Self {
        Self {
            ues: 10,
            bandwidth_mhz: 20,
            sinr_offset_db: 0.0,
            cqi_delay_tti: 6,
            cqi_period_tti: 5,
            olla_step_db: 0.1,
            cell: LteCellConfig::default(),
            fading: LteFadingConfig::default(),
            harq: LteHarqConfig::default(),
            pf_time_constant_tti: 100.0,
            uplink: LteUplinkConfig::default(),
            pdcch: LtePdcchConfig::default(),
            rlc: LteRlcConfig::default(),
            buffer: BufferConfig {
                limit_sdus: 1000,
                ..BufferConfig::default()
            },
            ack_filter: AckFilterConfig::default(),
        }
    }
}

impl Default for LteCellConfig {
    fn default() -> Self {
        Self {
            isd_m: 500.0,
            enb_power_dbm: None,
            shadowing_sigma_db: 8.0,
            penetration_loss_db: 20.0,
            min_distance_m: 35.0,
            ue_noise_figure_db: 9.0,
            ue_sinr_db: None,
            ue_coupling_loss_db: None,
            sectors: 3,
            ues_per_sector: None,
            drop_seed: None,
        }
    }
}

impl Default for LteFadingConfig {
    fn default() -> Self {
        Self {
            model: FadingKind::Jakes,
            speed_kmh: 3.0,
            carrier_ghz: 2.0,
            sinusoids: 16,
        }
    }
}

impl Default for LteHarqConfig {
    fn default() -> Self {
        Self {
            max_tx: 4,
            processes: 8,
        }
    }
}

impl Default for LteUplinkConfig {
    fn default() -> Self {
        Self {
            bandwidth_mhz: None,
            scheduler: UlSchedulerKind::Pf,
            min_prb: 1,
            bsr: BsrKind::Standard,
            sr_period_ms: 10,
            sr_offset_ms: None,
            sr_grant_delay_tti: 4,
            sr_grant_bytes: 125,
            periodic_bsr_tti: Some(10),
            retx_bsr_tti: 2560,
            dsr_trans_max: 64,
            fixed_mcs: None,
            power_control: UlPowerControlKind::PerGrant,
            p0_dbm: -106.0,
            alpha: 1.0,
            ue_power_dbm: 23.0,
            phr_periodic_tti: Some(50),
            phr_prohibit_tti: 0,
            phr_pathloss_change_db: Some(3.0),
            enb_noise_figure_db: 5.0,
            interference: UlInterferenceKind::Load,
            iot_db: 2.0,
            neighbour_load: None,
            sc_fdma_loss_db: 1.0,
            reference_prb: 4,
            pucch_prb: None,
        }
    }
}

impl Default for LtePdcchConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            cfi: 3,
            phich_ng: 1.0,
            aggregation_sinr_db: [3.0, 0.0, -3.0],
            priority: DciPriorityKind::DlFirst,
            max_dl_ues_per_tti: None,
            max_ul_ues_per_tti: None,
        }
    }
}

impl Default for LteRlcConfig {
    fn default() -> Self {
        Self {
            mode: RlcModeKind::Am,
            t_poll_retransmit_ms: 45.0,
            t_reordering_ms: 35.0,
            t_status_prohibit_ms: 10.0,
            poll_pdu: 4,
            poll_byte: 25_000,
            max_retx: 32,
            pdcp_header_bytes: 2,
            rlc_header_bytes: 2,
            mac_header_bytes: 2,
        }
    }
}

impl Default for AckFilterConfig {
    fn default() -> Self {
        Self {
            scheme: AckFilterKind::Basic,
            ratio: 1.0,
            threshold: 6,
            rounding: RoundingKind::Ceil,
            segment_bytes: None,
            aggressive: false,
        }
    }
}

/// What one busy LTE sector carries, kb/s: the preset's cell delivers about 13 Mb/s per
/// occupied sector (measured, `make bench`); only the order of magnitude matters.
pub const LTE_SECTOR_KBPS: f64 = 13_000.0;

impl AccessKind for LteConfig {
    fn name(&self) -> &'static str {
        "lte"
    }

    fn ue_count(&self) -> u32 {
        self.ues
    }

    fn cost_terms(&self) -> AccessCostTerms {
        AccessCostTerms {
            capacity_kbps: Some(self.ues.min(3) as f64 * LTE_SECTOR_KBPS),
            one_way_ms: 0.0,
            period_ms: Some(1.0),
            ns_per_event: 1100.0,
        }
    }
}

impl LteConfig {
    /// PRBs of the carrier.
    pub fn n_prb(&self) -> u32 {
        match self.bandwidth_mhz {
            5 => 25,
            10 => 50,
            _ => 100,
        }
    }

    /// PRBs of the uplink carrier.
    pub fn ul_n_prb(&self) -> u32 {
        match self.uplink.bandwidth_mhz.unwrap_or(self.bandwidth_mhz) {
            5 => 25,
            10 => 50,
            _ => 100,
        }
    }

    /// PRBs at the uplink band edges taken by PUCCH.
    pub fn pucch_prb(&self) -> u32 {
        self.uplink.pucch_prb.unwrap_or(match self.ul_n_prb() {
            25 => 2,
            50 => 4,
            _ => 8,
        })
    }

    /// PRBs the uplink scheduler can grant (the carrier less the PUCCH region).
    pub fn pusch_prb(&self) -> u32 {
        self.ul_n_prb().saturating_sub(self.pucch_prb())
    }

    pub(crate) fn collect(&self, p: &mut Problems) {
        check(
            (1..=1000).contains(&self.ues),
            "access.ues",
            self.ues,
            "an integer in 1..=1000",
        )
        .note(p);
        check(
            BANDWIDTHS_MHZ.contains(&self.bandwidth_mhz),
            "access.bandwidth_mhz",
            self.bandwidth_mhz,
            "one of 5, 10, 20 (25, 50, 100 PRB)",
        )
        .note(p);
        check(
            self.sinr_offset_db.is_finite() && self.sinr_offset_db.abs() <= 50.0,
            "access.sinr_offset_db",
            self.sinr_offset_db,
            "an offset in [-50, 50] dB",
        )
        .note(p);
        check(
            self.cqi_delay_tti <= 1000,
            "access.cqi_delay_tti",
            self.cqi_delay_tti,
            "an integer in 0..=1000",
        )
        .note(p);
        check(
            CQI_PERIODS_TTI.contains(&self.cqi_period_tti),
            "access.cqi_period_tti",
            self.cqi_period_tti,
            "one of 1, 2, 5, 10, 20, 40, 80, 160 TTIs (TS 36.213 Table 7.2.2-1A; 1 = every TTI)",
        )
        .note(p);
        check(
            self.olla_step_db.is_finite() && (0.0..=10.0).contains(&self.olla_step_db),
            "access.olla_step_db",
            self.olla_step_db,
            "a step in [0, 10] dB (0 = no outer loop)",
        )
        .note(p);
        let c = &self.cell;
        check(
            c.isd_m.is_finite() && c.isd_m > 2.0 * c.min_distance_m,
            "access.cell.isd_m",
            c.isd_m,
            "a distance greater than twice access.cell.min_distance_m",
        )
        .note(p);
        if let Some(pw) = c.enb_power_dbm {
            check(
                pw.is_finite() && (-30.0..=80.0).contains(&pw),
                "access.cell.enb_power_dbm",
                pw,
                "a power in [-30, 80] dBm",
            )
            .note(p);
        }
        finite_nonneg("access.cell.shadowing_sigma_db", c.shadowing_sigma_db).note(p);
        finite_nonneg("access.cell.penetration_loss_db", c.penetration_loss_db).note(p);
        finite_nonneg("access.cell.min_distance_m", c.min_distance_m).note(p);
        finite_nonneg("access.cell.ue_noise_figure_db", c.ue_noise_figure_db).note(p);
        check(
            (1..=3).contains(&c.sectors),
            "access.cell.sectors",
            c.sectors,
            "1, 2 or 3 (sectors of the site)",
        )
        .note(p);
        if let Some(v) = &c.ue_sinr_db {
            check(
                v.len() == self.ues as usize,
                "access.cell.ue_sinr_db",
                format!("{} values", v.len()),
                "exactly access.ues values",
            )
            .note(p);
            for (i, &x) in v.iter().enumerate() {
                check(
                    x.is_finite() && x.abs() <= 100.0,
                    &format!("access.cell.ue_sinr_db.{i}"),
                    x,
                    "a SINR in [-100, 100] dB",
                )
                .note(p);
            }
        }
        if let Some(v) = &c.ue_coupling_loss_db {
            check(
                c.ue_sinr_db.is_some(),
                "access.cell.ue_coupling_loss_db",
                format!("{} values", v.len()),
                "only with access.cell.ue_sinr_db (a drop has its own path losses)",
            )
            .note(p);
            check(
                v.len() == self.ues as usize,
                "access.cell.ue_coupling_loss_db",
                format!("{} values", v.len()),
                "exactly access.ues values",
            )
            .note(p);
            for (i, &x) in v.iter().enumerate() {
                check(
                    x.is_finite() && (0.0..=250.0).contains(&x),
                    &format!("access.cell.ue_coupling_loss_db.{i}"),
                    x,
                    "a loss in [0, 250] dB",
                )
                .note(p);
            }
        }
        if let Some(v) = &c.ues_per_sector {
            let sectors = if c.ue_sinr_db.is_some() { c.sectors } else { 3 };
            check(
                v.len() == sectors as usize,
                "access.cell.ues_per_sector",
                format!("{} values", v.len()),
                &format!("one count per sector ({sectors})"),
            )
            .note(p);
            check(
                v.iter().map(|&x| x as u64).sum::<u64>() == self.ues as u64,
                "access.cell.ues_per_sector",
                format!("{v:?}"),
                &format!("counts that sum to access.ues = {}", self.ues),
            )
            .note(p);
        }
        let f = &self.fading;
        check(
            f.speed_kmh.is_finite() && f.speed_kmh > 0.0 && f.speed_kmh <= 500.0,
            "access.fading.speed_kmh",
            f.speed_kmh,
            "a speed in (0, 500] km/h",
        )
        .note(p);
        check(
            f.carrier_ghz.is_finite() && f.carrier_ghz >= 0.4 && f.carrier_ghz <= 100.0,
            "access.fading.carrier_ghz",
            f.carrier_ghz,
            "a carrier in [0.4, 100] GHz",
        )
        .note(p);
        check(
            (1..=256).contains(&f.sinusoids),
            "access.fading.sinusoids",
            f.sinusoids,
            "an integer in 1..=256",
        )
        .note(p);
        self.harq_params()
            .validate()
            .map_err(|e| e.at("access.harq"))
            .note(p);
        check(
            self.pf_time_constant_tti.is_finite()
                && (1.0..=1e6).contains(&self.pf_time_constant_tti),
            "access.pf_time_constant_tti",
            self.pf_time_constant_tti,
            "a number of TTIs in [1, 1e6]",
        )
        .note(p);
        let u = &self.uplink;
        if let Some(b) = u.bandwidth_mhz {
            check(
                BANDWIDTHS_MHZ.contains(&b),
                "access.uplink.bandwidth_mhz",
                b,
                "one of 5, 10, 20 (25, 50, 100 PRB), or unset (the downlink's)",
            )
            .note(p);
        }
        if let Some(pucch) = u.pucch_prb {
            check(
                pucch <= self.ul_n_prb() - 6 && pucch % 2 == 0,
                "access.uplink.pucch_prb",
                pucch,
                &format!(
                    "an even number of PRBs in 0..={} (both band edges; at least 6 left to PUSCH)",
                    self.ul_n_prb() - 6
                ),
            )
            .note(p);
        }
        let pusch = self.pusch_prb();
        // A grant is 2^a 3^b 5^c PRBs (36.211 §5.3.3) within the PUSCH region: any other
        // minimum is one the scheduler can never grant.
        if !(u.min_prb >= 1 && u.min_prb <= pusch && is_allowed_ul_prb(u.min_prb)) {
            let below = largest_allowed_ul_prb(u.min_prb.min(pusch));
            let above = (u.min_prb.max(1)..=pusch).find(|&n| is_allowed_ul_prb(n));
            let nearest = match (below, above) {
                (Some(b), Some(a)) if a != b => format!("nearest: {b} or {a}"),
                (Some(b), _) => format!("nearest: {b}"),
                (None, Some(a)) => format!("nearest: {a}"),
                (None, None) => String::new(),
            };
            p.push(ConfigError::new(
                "access.uplink.min_prb",
                u.min_prb,
                format!(
                    "a PUSCH size 2^a 3^b 5^c in 1..={pusch} (the PRBs left by PUCCH); {nearest}"
                ),
            ));
        }
        self.ul_mac_params(0)
            .validate()
            .map_err(|e| {
                // The entity names its timers in subframes; the keys say their unit.
                let key = match e.field.as_str() {
                    "sr_period" => "sr_period_ms",
                    "periodic_bsr" => "periodic_bsr_tti",
                    "retx_bsr" => "retx_bsr_tti",
                    other => other,
                };
                ConfigError::new(format!("access.uplink.{key}"), e.value, e.allowed)
            })
            .note(p);
        if let Some(o) = u.sr_offset_ms {
            check(
                o < u.sr_period_ms,
                "access.uplink.sr_offset_ms",
                o,
                "an offset below access.uplink.sr_period_ms",
            )
            .note(p);
        }
        check(
            u.sr_grant_delay_tti <= 100,
            "access.uplink.sr_grant_delay_tti",
            u.sr_grant_delay_tti,
            "an integer in 0..=100",
        )
        .note(p);
        check(
            (8..=100_000).contains(&u.sr_grant_bytes),
            "access.uplink.sr_grant_bytes",
            u.sr_grant_bytes,
            "an integer in 8..=100000",
        )
        .note(p);
        if let Some(m) = u.fixed_mcs {
            check(m <= 28, "access.uplink.fixed_mcs", m, "an MCS in 0..=28").note(p);
        }
        for (key, v) in [
            ("access.uplink.p0_dbm", u.p0_dbm),
            ("access.uplink.ue_power_dbm", u.ue_power_dbm),
        ] {
            check(
                v.is_finite() && (-200.0..=80.0).contains(&v),
                key,
                v,
                "a power in [-200, 80] dBm",
            )
            .note(p);
        }
        check(
            ALPHAS.iter().any(|&a| (a - u.alpha).abs() < 1e-9),
            "access.uplink.alpha",
            u.alpha,
            "one of 0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1 (TS 36.331 alpha)",
        )
        .note(p);
        check_phr_timers(
            p,
            ("access.uplink.phr_periodic_tti", u.phr_periodic_tti),
            ("access.uplink.phr_prohibit_tti", u.phr_prohibit_tti),
            "subframes",
        );
        if let Some(d) = u.phr_pathloss_change_db {
            check(
                PHR_PATHLOSS_CHANGE_DB.contains(&d),
                "access.uplink.phr_pathloss_change_db",
                d,
                "one of 1, 3, 6 dB, or unset (infinity)",
            )
            .note(p);
        }
        if let Some(l) = u.neighbour_load {
            check(
                (0.0..=1.0).contains(&l),
                "access.uplink.neighbour_load",
                l,
                "a fraction in [0, 1]",
            )
            .note(p);
        }
        finite_nonneg("access.uplink.enb_noise_figure_db", u.enb_noise_figure_db).note(p);
        finite_nonneg("access.uplink.iot_db", u.iot_db).note(p);
        finite_nonneg("access.uplink.sc_fdma_loss_db", u.sc_fdma_loss_db).note(p);
        check(
            (1..=self.ul_n_prb()).contains(&u.reference_prb),
            "access.uplink.reference_prb",
            u.reference_prb,
            &format!(
                "an integer in 1..={} (the uplink carrier's PRBs)",
                self.ul_n_prb()
            ),
        )
        .note(p);
        let pd = &self.pdcch;
        check(
            CFIS.contains(&pd.cfi),
            "access.pdcch.cfi",
            pd.cfi,
            "1, 2 or 3 OFDM symbols (TS 36.211 Table 6.7-1, more than 10 PRB)",
        )
        .note(p);
        check(
            PHICH_NG.iter().any(|&g| (g - pd.phich_ng).abs() < 1e-6),
            "access.pdcch.phich_ng",
            pd.phich_ng,
            "one of 1/6, 1/2, 1, 2 (TS 36.211 §6.9)",
        )
        .note(p);
        let a = pd.aggregation_sinr_db;
        check(
            a.iter().all(|x| x.is_finite() && x.abs() <= 50.0) && a[0] >= a[1] && a[1] >= a[2],
            "access.pdcch.aggregation_sinr_db",
            format!("{a:?}"),
            "three non-increasing SINRs in [-50, 50] dB (levels 1, 2, 4; below: 8)",
        )
        .note(p);
        check_ue_caps(
            p,
            [
                ("access.pdcch.max_dl_ues_per_tti", pd.max_dl_ues_per_tti),
                ("access.pdcch.max_ul_ues_per_tti", pd.max_ul_ues_per_tti),
            ],
        );
        let r = &self.rlc;
        timer_ms("access.rlc.t_poll_retransmit_ms", r.t_poll_retransmit_ms).note(p);
        timer_ms("access.rlc.t_reordering_ms", r.t_reordering_ms).note(p);
        timer_or_off_ms("access.rlc.t_status_prohibit_ms", r.t_status_prohibit_ms).note(p);
        check(
            r.poll_pdu >= 1,
            "access.rlc.poll_pdu",
            r.poll_pdu,
            "an integer >= 1",
        )
        .note(p);
        check(
            r.poll_byte >= 1,
            "access.rlc.poll_byte",
            r.poll_byte,
            "an integer >= 1",
        )
        .note(p);
        check(
            (1..=32).contains(&r.max_retx),
            "access.rlc.max_retx",
            r.max_retx,
            "an integer in 1..=32 (TS 36.331 maxRetxThreshold)",
        )
        .note(p);
        for (key, v) in [
            ("access.rlc.pdcp_header_bytes", r.pdcp_header_bytes),
            ("access.rlc.rlc_header_bytes", r.rlc_header_bytes),
            ("access.rlc.mac_header_bytes", r.mac_header_bytes),
        ] {
            check(v <= 64, key, v, "an integer in 0..=64 octets").note(p);
        }
        self.buffer.collect("access.buffer", p);
        let a = &self.ack_filter;
        check(
            (0.0..=1.0).contains(&a.ratio),
            "access.ack_filter.ratio",
            a.ratio,
            "a ratio in [0, 1]",
        )
        .note(p);
        check(
            a.threshold >= 1,
            "access.ack_filter.threshold",
            a.threshold,
            "an integer >= 1 (a flow's newest ACK always stays)",
        )
        .note(p);
        if let Some(s) = a.segment_bytes {
            check(
                (1..=65_535).contains(&s),
                "access.ack_filter.segment_bytes",
                s,
                "an integer in 1..=65535",
            )
            .note(p);
        }
    }
}
