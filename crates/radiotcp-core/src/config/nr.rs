//! `access.kind = "nr"`: a 5G NR site of three sectors serving N UEs (issue 25;
//! docs/models/nr-cell.md). The cell model is the LTE cell's (`node/lte.rs`) with what NR
//! changes handed in as a [`Rat`]: the numerology and its slot, the carrier's PRBs (TS
//! 38.101-1/-2), FDD or a TDD pattern, K1/K2 timing and asynchronous HARQ, the TS 38.214 MCS
//! tables and computed TBS, the CORESET's CCEs, the 5-bit Short BSR, SR periods in slots, and
//! configured grants (TS 38.321 §5.8.2). The drop, the channel, power control, the PF
//! schedulers, RLC, the buffers and the ACK filters are the LTE cell's, with the same keys.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    check, AccessCostTerms, AccessKind, AckFilterConfig, BsrKind, BufferConfig, DciPriorityKind,
    FadingKind, LteCellConfig, LteConfig, LteHarqConfig, LteRlcConfig, LteUplinkConfig, Note,
    Problems, RlcModeKind, UlInterferenceKind, UlPowerControlKind, UlSchedulerKind,
    LTE_SECTOR_KBPS,
};
use crate::error::{ConfigError, ParamError};
use crate::radio::cell::{ConfiguredGrant, HarqMode, LinkCurves, NrTbs, Rat, TbsTable};
use crate::radio::lte::fading::{doppler_hz, FadingModel};
use crate::radio::lte::geometry::{CellParams, PRB_HZ};
use crate::radio::lte::rlc::RlcMode;
use crate::radio::lte::ul_mac::{BsrMode, BsrTable, UlMacParams, NR_SR_PERIODS};
use crate::radio::nr::duplex::Duplex;
use crate::radio::nr::numerology::{n_rb, FrequencyRange, Numerology, SUBCARRIERS_PER_RB};
use crate::radio::nr::rlc::NrRlcConfig;
use crate::radio::nr::tbs::{McsTable, ReBudget};

/// CSI report periodicities, slots (TS 38.331 `CSI-ReportPeriodicityAndOffset`); 1: every
/// slot (an idealisation, as LTE's 1).
const CQI_PERIODS_SLOTS: [u32; 11] = [1, 4, 5, 8, 10, 16, 20, 40, 80, 160, 320];
/// periodicBSR-Timer and retxBSR-Timer values, ms (TS 38.331 `BSR-Config`).
const PERIODIC_BSR_MS: [u32; 15] = [
    1, 5, 10, 16, 20, 32, 40, 64, 80, 128, 160, 320, 640, 1280, 2560,
];
const RETX_BSR_MS: [u32; 11] = [10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240];
/// DM-RS resource elements per PRB: one front-loaded type-1 symbol (TS 38.211 §7.4.1.1).
const DMRS_RE: u32 = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NrDuplexKind {
    /// Paired spectrum: every slot carries both directions.
    Fdd,
    /// One carrier shared in time by `tdd_pattern`.
    Tdd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NrMcsTableKind {
    /// TS 38.214 Table 5.1.3.1-1 (up to 64QAM, MCS 0..=28).
    Qam64,
    /// TS 38.214 Table 5.1.3.1-2 (up to 256QAM, MCS 0..=27).
    Qam256,
}

impl NrMcsTableKind {
    fn table(self) -> McsTable {
        match self {
            NrMcsTableKind::Qam64 => McsTable::Qam64,
            NrMcsTableKind::Qam256 => McsTable::Qam256,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NrConfig {
    /// UEs dropped in the centre site.
    pub ues: u32,
    /// Carrier frequency, GHz (FR1 0.41-7.125, FR2 24.25-52.6): the Doppler of the fading and
    /// the path loss's frequency term.
    pub carrier_ghz: f64,
    /// Channel bandwidth, MHz (TS 38.101-1 / -2 Table 5.3.2-1 at the subcarrier spacing).
    pub bandwidth_mhz: u32,
    /// Subcarrier spacing, kHz: 15, 30, 60, 120 (numerology 0-3; slots of 1, 0.5, 0.25, 0.125
    /// ms).
    pub scs_khz: u32,
    /// 'tdd' (one carrier, tdd_pattern) or 'fdd' (paired carriers of bandwidth_mhz each).
    pub duplex: NrDuplexKind,
    /// TDD slots of one period, one letter per slot: D(ownlink), S(pecial), U(plink).
    pub tdd_pattern: String,
    /// The special slot's downlink:guard:uplink symbols (adding up to 14).
    pub special_slot: String,
    /// Downlink MCS table: 'qam64' or 'qam256' (TS 38.214 5.1.3.1).
    pub mcs_table: NrMcsTableKind,
    /// Uplink MCS table (PUSCH without transform precoding).
    pub ul_mcs_table: NrMcsTableKind,
    /// Downlink MIMO layers: the TBS scales with them, the SINR per layer does not (an
    /// upper bound of what rank-L transmission gives).
    pub dl_layers: u32,
    /// Added to every dropped UE's downlink SINR, dB: a calibration of the geometry; SINRs
    /// listed in cell.ue_sinr_db are used as written.
    pub sinr_offset_db: f64,
    /// Age of the CSI an MCS is chosen from, slots.
    pub cqi_delay_slots: u32,
    /// Periodic CSI reports every this many slots (offsets spread UE by UE).
    pub cqi_period_slots: u32,
    /// Outer-loop link adaptation step, dB (+step on a decoded first transmission, -9 steps on a
    /// failed one); 0 = off.
    pub olla_step_db: f64,
    /// PF EWMA time constant, slots.
    pub pf_time_constant_slots: f64,
    /// Slot offsets of scheduling and feedback.
    pub timing: NrTimingConfig,
    /// HARQ.
    pub harq: NrHarqConfig,
    /// The drop (the LTE cell's keys).
    pub cell: LteCellConfig,
    /// Fast fading, sampled once per slot.
    pub fading: NrFadingConfig,
    /// Uplink.
    pub uplink: NrUplinkConfig,
    /// Configured uplink grants.
    pub configured_grant: NrConfiguredGrantConfig,
    /// The PDCCH CORESET of each sector and downlink slot.
    pub pdcch: NrPdcchConfig,
    /// RLC, PDCP and SDAP (TS 38.322, 38.323, 37.324).
    pub rlc: NrRlcTable,
    /// Each UE's downlink buffer at the gNB.
    pub buffer: BufferConfig,
    /// ACK filter in each UE's uplink buffer.
    pub ack_filter: AckFilterConfig,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NrTimingConfig {
    /// K0: slots from a downlink DCI to its PDSCH (only 0, the same slot, is modelled).
    pub k0: u32,
    /// K1: slots from a PDSCH to its HARQ-ACK on PUCCH at the earliest (then the next slot with
    /// uplink symbols).
    pub k1: u32,
    /// K2: slots from an uplink DCI to its PUSCH at the earliest (then the next uplink slot).
    pub k2: u32,
    /// Slots the gNB needs from a PUSCH or a HARQ NACK to the retransmission's DCI.
    pub gnb_processing_slots: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NrHarqConfig {
    /// Transmissions of a block before HARQ gives up.
    pub max_tx: u32,
    /// HARQ processes per UE and link (TS 38.331: up to 16).
    pub processes: u32,
    /// Adaptive retransmissions (TS 38.214 §5.1.3.1, §6.1.4.1): each retransmission keeps its
    /// TBS but takes the PRBs that carry it at the UE's current MCS; false: the first
    /// transmission's PRBs. Either way a retransmission needs a DCI and waits for the next
    /// slot when the CORESET or the PRBs are short.
    pub adaptive: bool,
}

impl Default for NrHarqConfig {
    fn default() -> Self {
        Self {
            max_tx: 4,
            processes: 16,
            adaptive: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NrFadingConfig {
    /// 'none', 'rayleigh' (i.i.d. block Rayleigh per slot) or 'jakes' (sum of sinusoids at
    /// speed_kmh and the carrier).
    pub model: FadingKind,
    /// UE speed, km/h.
    pub speed_kmh: f64,
    /// Sinusoids of the Jakes model.
    pub sinusoids: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NrUplinkConfig {
    /// 'pf' (PF order, chunks sized to the reported buffer) or 'round_robin' (equal shares).
    pub scheduler: UlSchedulerKind,
    /// Fewest PRBs in a grant.
    pub min_prb: u32,
    /// 'standard' (SR on PUCCH, Short BSR in the block) or 'ideal' (the gNB learns the buffer
    /// every slot with new data; no SR).
    pub bsr: BsrKind,
    /// SR periodicity, slots (TS 38.331; with TDD a multiple of the pattern's slots).
    pub sr_period_slots: u32,
    /// An SR at n is answered by a grant from the first downlink slot at or after n + this.
    pub sr_grant_delay_slots: u32,
    /// What the gNB grants for an SR, octets.
    pub sr_grant_bytes: u32,
    /// periodicBSR-Timer, ms; unset = infinity.
    pub periodic_bsr_ms: Option<u32>,
    /// retxBSR-Timer, ms.
    pub retx_bsr_ms: u32,
    /// sr-TransMax: SRs before the UE would fall back to random access.
    pub dsr_trans_max: u32,
    /// One UL MCS for every UE; unset = link adaptation.
    pub fixed_mcs: Option<u8>,
    /// 'per_grant' (TS 38.213 7.1.1: P = min(P_CMAX, P0 + 10 log10(2^mu M) + alpha PL) per grant)
    /// or 'reference_prb' (one SINR for reference_prb PRBs whatever the grant).
    pub power_control: UlPowerControlKind,
    /// P0 per 180 kHz (the 2^mu M term scales it to the numerology's PRBs), dBm.
    pub p0_dbm: f64,
    /// Fractional power control alpha.
    pub alpha: f64,
    /// UE maximum power P_CMAX, dBm.
    pub ue_power_dbm: f64,
    /// phr-PeriodicTimer, ms; unset = infinity.
    pub phr_periodic_ms: Option<u32>,
    /// phr-ProhibitTimer, ms.
    pub phr_prohibit_ms: u32,
    /// phr-Tx-PowerFactorChange, dB; unset = infinity.
    pub phr_pathloss_change_db: Option<f64>,
    /// gNB noise figure, dB.
    pub gnb_noise_figure_db: f64,
    /// 'load' (the IoT per PRB follows the neighbour sectors' uplink load) or 'constant' (iot_db).
    pub interference: UlInterferenceKind,
    /// Interference over thermal with interference = 'constant', dB.
    pub iot_db: f64,
    /// With interference = 'load': the neighbour sectors' PUSCH load; unset = the site's own
    /// mirrored.
    pub neighbour_load: Option<f64>,
    /// PRBs the UL SINR is computed for with power_control = 'reference_prb'.
    pub reference_prb: u32,
    /// PRBs at the band edges taken by PUCCH (even); unset = about 8 % of the carrier.
    pub pucch_prb: Option<u32>,
}

/// NR RLC (docs/models/nr-rlc.md): no concatenation, a MAC subheader per RLC PDU, SO-based
/// segmentation, NR header sizes; the values of TS 38.331 `RLC-Config` and `PDCP-Config`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NrRlcTable {
    /// 'am' or 'um'.
    pub mode: RlcModeKind,
    /// RLC SN length: 12 or 18 (AM), 6 or 12 (UM); unset = 18 (AM) or 12 (UM).
    pub sn_bits: Option<u32>,
    /// PDCP SN length: 12 or 18 (a 2- or 3-octet PDCP header).
    pub pdcp_sn_bits: u32,
    /// Integrity protection of the data bearer (a 4-octet MAC-I per PDCP PDU).
    pub integrity: bool,
    /// An SDAP header (1 octet per SDU).
    pub sdap_header: bool,
    /// t-PollRetransmit, ms (TS 38.331 values).
    pub t_poll_retransmit_ms: u32,
    /// t-Reassembly, ms (TS 38.331 values).
    pub t_reassembly_ms: u32,
    /// t-StatusProhibit, ms (TS 38.331 values).
    pub t_status_prohibit_ms: u32,
    /// pollPDU; unset = infinity.
    pub poll_pdu: Option<u32>,
    /// pollByte, kB; unset = infinity.
    pub poll_byte_kb: Option<u32>,
    /// maxRetxThreshold.
    pub max_retx: u32,
}

impl Default for NrRlcTable {
    /// OpenAirInterface's AM data bearer (docs/models/nr-rlc.md).
    fn default() -> Self {
        let e = NrRlcConfig::default();
        Self {
            mode: RlcModeKind::Am,
            sn_bits: None,
            pdcp_sn_bits: e.pdcp_sn_bits,
            integrity: e.integrity,
            sdap_header: e.sdap_header,
            t_poll_retransmit_ms: e.t_poll_retransmit_ms,
            t_reassembly_ms: e.t_reassembly_ms,
            t_status_prohibit_ms: e.t_status_prohibit_ms,
            poll_pdu: e.poll_pdu,
            poll_byte_kb: e.poll_byte_kb,
            max_retx: e.max_retx_threshold,
        }
    }
}

impl NrRlcTable {
    /// The entity's configuration.
    pub fn entity(&self) -> NrRlcConfig {
        let mode = match self.mode {
            RlcModeKind::Am => RlcMode::Am,
            RlcModeKind::Um => RlcMode::Um,
        };
        NrRlcConfig {
            mode,
            sn_bits: self
                .sn_bits
                .unwrap_or(if mode == RlcMode::Am { 18 } else { 12 }),
            pdcp_sn_bits: self.pdcp_sn_bits,
            integrity: self.integrity,
            sdap_header: self.sdap_header,
            t_poll_retransmit_ms: self.t_poll_retransmit_ms,
            t_reassembly_ms: self.t_reassembly_ms,
            t_status_prohibit_ms: self.t_status_prohibit_ms,
            poll_pdu: self.poll_pdu,
            poll_byte_kb: self.poll_byte_kb,
            max_retx_threshold: self.max_retx,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ConfiguredGrantKind {
    /// Type 1: configured by RRC, active at once.
    Type1,
    /// Type 2: configured by RRC, activated by one DCI (counted once per UE).
    Type2,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NrConfiguredGrantConfig {
    /// Every UE has periodic PUSCH occasions (TS 38.321 5.8.2).
    pub enabled: bool,
    /// 'type1' or 'type2'.
    pub kind: ConfiguredGrantKind,
    /// Period, slots (with TDD a multiple of the pattern's slots); UEs are spread over the
    /// period's uplink slots.
    pub period_slots: u32,
    /// PRBs of an occasion.
    pub prb: u32,
    /// MCS of an occasion (the uplink table's); unset = the UE's uplink link adaptation at each
    /// occasion (as a type-2 grant re-activated with a new MCS would follow it).
    pub mcs: Option<u8>,
    /// logicalChannelSR-Mask: a regular BSR raises no SR, the UE waits for its occasion.
    pub sr_mask: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NrPdcchConfig {
    /// DCIs draw from the CORESET's CCEs (false: any number per slot).
    pub enabled: bool,
    /// PRBs of the CORESET (a multiple of 6); unset = the carrier's, rounded down to 6.
    pub coreset_prb: Option<u32>,
    /// OFDM symbols of the CORESET (1-3), taken from every downlink slot's PDSCH.
    pub coreset_symbols: u32,
    /// Wideband DL SINR (dB, before sinr_offset_db) at or above which a UE's DCIs use aggregation
    /// level 1, 2, 4; below the last, 8.
    pub aggregation_sinr_db: [f64; 3],
    /// When CCEs run short: 'dl_first' or 'ul_first'.
    pub priority: DciPriorityKind,
    /// UEs with a DL assignment per sector and slot; unset = any.
    pub max_dl_ues_per_slot: Option<u32>,
    /// UEs with an UL grant per sector and slot; unset = any.
    pub max_ul_ues_per_slot: Option<u32>,
}

impl Default for NrConfig {
    fn default() -> Self {
        Self {
            ues: 10,
            carrier_ghz: 3.5,
            bandwidth_mhz: 100,
            scs_khz: 30,
            duplex: NrDuplexKind::Tdd,
            tdd_pattern: "DDDSU".into(),
            special_slot: "10:2:2".into(),
            mcs_table: NrMcsTableKind::Qam256,
            ul_mcs_table: NrMcsTableKind::Qam64,
            dl_layers: 1,
            sinr_offset_db: 0.0,
            cqi_delay_slots: 4,
            cqi_period_slots: 10,
            olla_step_db: 0.1,
            pf_time_constant_slots: 200.0,
            timing: NrTimingConfig::default(),
            harq: NrHarqConfig::default(),
            cell: LteCellConfig::default(),
            fading: NrFadingConfig::default(),
            uplink: NrUplinkConfig::default(),
            configured_grant: NrConfiguredGrantConfig::default(),
            pdcch: NrPdcchConfig::default(),
            rlc: NrRlcTable::default(),
            buffer: BufferConfig {
                limit_sdus: 1000,
                ..BufferConfig::default()
            },
            ack_filter: AckFilterConfig::default(),
        }
    }
}

impl Default for NrTimingConfig {
    fn default() -> Self {
        Self {
            k0: 0,
            k1: 2,
            k2: 2,
            gnb_processing_slots: 1,
        }
    }
}

impl Default for NrFadingConfig {
    fn default() -> Self {
        Self {
            model: FadingKind::Jakes,
            speed_kmh: 3.0,
            sinusoids: 16,
        }
    }
}

impl Default for NrUplinkConfig {
    fn default() -> Self {
        let lte = LteUplinkConfig::default();
        Self {
            scheduler: UlSchedulerKind::Pf,
            min_prb: 1,
            bsr: BsrKind::Standard,
            sr_period_slots: 10,
            sr_grant_delay_slots: 2,
            sr_grant_bytes: lte.sr_grant_bytes,
            periodic_bsr_ms: Some(10),
            retx_bsr_ms: 2560,
            dsr_trans_max: lte.dsr_trans_max,
            fixed_mcs: None,
            power_control: UlPowerControlKind::PerGrant,
            p0_dbm: lte.p0_dbm,
            alpha: lte.alpha,
            ue_power_dbm: lte.ue_power_dbm,
            phr_periodic_ms: lte.phr_periodic_tti,
            phr_prohibit_ms: lte.phr_prohibit_tti,
            phr_pathloss_change_db: lte.phr_pathloss_change_db,
            gnb_noise_figure_db: lte.enb_noise_figure_db,
            interference: UlInterferenceKind::Load,
            iot_db: lte.iot_db,
            neighbour_load: None,
            reference_prb: lte.reference_prb,
            pucch_prb: None,
        }
    }
}

impl Default for NrConfiguredGrantConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            kind: ConfiguredGrantKind::Type1,
            period_slots: 10,
            prb: 6,
            mcs: None,
            sr_mask: true,
        }
    }
}

impl Default for NrPdcchConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            coreset_prb: None,
            coreset_symbols: 1,
            aggregation_sinr_db: [3.0, 0.0, -3.0],
            priority: DciPriorityKind::DlFirst,
            max_dl_ues_per_slot: None,
            max_ul_ues_per_slot: None,
        }
    }
}

impl AccessKind for NrConfig {
    fn name(&self) -> &'static str {
        "nr"
    }

    fn ue_count(&self) -> u32 {
        self.ues
    }

    fn cost_terms(&self) -> AccessCostTerms {
        // The LTE cell's per-sector rate scaled by the carrier's PRBs (an order of magnitude
        // is all the estimate needs); one slot per event period.
        let prbs = self.n_rb().unwrap_or(100) as f64 * f64::from(self.prb_lte());
        AccessCostTerms {
            capacity_kbps: Some(self.ues.min(3) as f64 * LTE_SECTOR_KBPS * prbs / 100.0),
            one_way_ms: 0.0,
            period_ms: Some(1.0 / f64::from(self.prb_lte())),
            ns_per_event: 1100.0,
        }
    }
}

impl NrConfig {
    fn numerology(&self) -> Result<Numerology, ParamError> {
        Numerology::from_scs_khz(self.scs_khz)
    }

    /// 180 kHz PRBs per PRB: 2^μ.
    fn prb_lte(&self) -> u32 {
        self.numerology().map_or(1, |n| 1 << n.mu())
    }

    /// PRBs of the carrier (each direction with FDD).
    pub fn n_rb(&self) -> Result<u32, ParamError> {
        let fr = FrequencyRange::of_carrier_ghz(self.carrier_ghz)?;
        n_rb(fr, self.bandwidth_mhz, self.numerology()?)
    }

    pub fn duplex(&self) -> Result<Duplex, ParamError> {
        match self.duplex {
            NrDuplexKind::Fdd => Ok(Duplex::Fdd),
            NrDuplexKind::Tdd => {
                Duplex::tdd(&self.tdd_pattern, &self.special_slot, self.numerology()?)
            }
        }
    }

    /// Slots of one duplex period (1 with FDD).
    fn pattern_len(&self) -> u32 {
        match self.duplex {
            NrDuplexKind::Fdd => 1,
            NrDuplexKind::Tdd => self.tdd_pattern.trim().len().max(1) as u32,
        }
    }

    fn pucch_prb(&self, n_rb: u32) -> u32 {
        self.uplink
            .pucch_prb
            .unwrap_or_else(|| (n_rb * 8 / 100 / 2 * 2).max(2))
    }

    fn coreset_prb(&self, n_rb: u32) -> u32 {
        self.pdcch.coreset_prb.unwrap_or(n_rb / 6 * 6)
    }

    /// The LTE cell configuration the shared cell model reads (`node/lte.rs`): the shared
    /// keys as given, NR's timers converted to slots. Not a valid LTE scenario (slot units).
    pub fn cell_config(&self) -> LteConfig {
        let per_ms = self.prb_lte();
        let u = &self.uplink;
        let mut c = self.shared_as_lte();
        c.cqi_delay_tti = self.cqi_delay_slots;
        c.cqi_period_tti = self.cqi_period_slots;
        c.pf_time_constant_tti = self.pf_time_constant_slots;
        c.uplink.sr_grant_delay_tti = u.sr_grant_delay_slots;
        c.uplink.phr_periodic_tti = u.phr_periodic_ms.map(|t| t * per_ms);
        c.uplink.phr_prohibit_tti = u.phr_prohibit_ms * per_ms;
        c.uplink.fixed_mcs = u.fixed_mcs;
        c.uplink.reference_prb = u.reference_prb;
        c
    }

    /// The keys NR shares with the LTE cell in an LTE configuration; the LTE-only keys keep
    /// LTE defaults, so that the LTE checks of the shared keys apply with the same names.
    fn shared_as_lte(&self) -> LteConfig {
        let u = &self.uplink;
        let lte = LteConfig::default();
        LteConfig {
            ues: self.ues,
            sinr_offset_db: self.sinr_offset_db,
            olla_step_db: self.olla_step_db,
            cell: self.cell.clone(),
            fading: super::LteFadingConfig {
                model: self.fading.model,
                speed_kmh: self.fading.speed_kmh,
                sinusoids: self.fading.sinusoids,
                ..lte.fading.clone()
            },
            harq: LteHarqConfig {
                max_tx: self.harq.max_tx,
                processes: self.harq.processes,
            },
            uplink: LteUplinkConfig {
                scheduler: u.scheduler,
                bsr: u.bsr,
                sr_grant_bytes: u.sr_grant_bytes,
                dsr_trans_max: u.dsr_trans_max,
                power_control: u.power_control,
                p0_dbm: u.p0_dbm,
                alpha: u.alpha,
                ue_power_dbm: u.ue_power_dbm,
                phr_pathloss_change_db: u.phr_pathloss_change_db,
                enb_noise_figure_db: u.gnb_noise_figure_db,
                interference: u.interference,
                iot_db: u.iot_db,
                neighbour_load: u.neighbour_load,
                // CP-OFDM PUSCH (no transform precoding): no SC-FDMA loss.
                sc_fdma_loss_db: 0.0,
                ..lte.uplink.clone()
            },
            pdcch: super::LtePdcchConfig {
                enabled: self.pdcch.enabled,
                aggregation_sinr_db: self.pdcch.aggregation_sinr_db,
                priority: self.pdcch.priority,
                max_dl_ues_per_tti: self.pdcch.max_dl_ues_per_slot,
                max_ul_ues_per_tti: self.pdcch.max_ul_ues_per_slot,
                ..lte.pdcch.clone()
            },
            rlc: self.lte_rlc_headers(),
            buffer: self.buffer.clone(),
            ack_filter: self.ack_filter.clone(),
            ..lte
        }
    }

    /// The header sizes an ACK costs in the uplink buffer (the ACK filter's accounting, TS
    /// 38.323 / 38.322 / 38.321): PDCP (+ MAC-I, + SDAP), the RLC header of a whole SDU, a
    /// 2-octet MAC subheader. The LTE RLC keys are not NR's; the timers here are unused.
    fn lte_rlc_headers(&self) -> LteRlcConfig {
        let p = self.rlc.entity().params();
        let lte = LteRlcConfig::default();
        match p {
            Ok(p) => LteRlcConfig {
                pdcp_header_bytes: p.pdcp_header_bytes,
                rlc_header_bytes: p.rlc_header_bytes,
                mac_header_bytes: p.mac_subheader_bytes,
                ..lte
            },
            Err(_) => lte,
        }
    }

    /// What NR sets in the shared cell model. Call on a validated configuration.
    pub fn rat(&self) -> Rat {
        let num = self.numerology().expect("validated");
        let n_rb = self.n_rb().expect("validated");
        let duplex = self.duplex().expect("validated");
        let per_ms = 1u32 << num.mu();
        let slot = num.slot();
        let slot_ms = slot as f64 / 1e6;
        let u = &self.uplink;
        let cs = if self.pdcch.enabled {
            self.pdcch.coreset_symbols
        } else {
            1
        };
        let re = |symbols: u32| ReBudget {
            symbols,
            dmrs: DMRS_RE,
            overhead: 0,
        };
        let special_dl = match &duplex {
            Duplex::Tdd(p) => p.iter().map(|s| u32::from(s.dl)).filter(|&d| d < 14).max(),
            Duplex::Fdd => None,
        }
        .unwrap_or(14);
        let dl_table = self.mcs_table.table();
        let ul_table = self.ul_mcs_table.table();
        let tbs = TbsTable::nr(
            n_rb,
            NrTbs {
                table: dl_table,
                re: re(14 - cs),
                layers: self.dl_layers,
            },
            NrTbs {
                table: dl_table,
                re: re(special_dl.saturating_sub(cs).max(1)),
                layers: self.dl_layers,
            },
            NrTbs {
                table: ul_table,
                re: re(14),
                layers: 1,
            },
        );
        // The Case-1 geometry at the same power per Hz as the LTE cell's 20 MHz carrier (the
        // SINR depends on the density, not the width); the path loss grows by the frequency
        // term 20 log10(f / 2 GHz) of the free-space part.
        let mut cell = CellParams::case1(100);
        let c = &self.cell;
        let width_hz = f64::from(n_rb * SUBCARRIERS_PER_RB * self.scs_khz) * 1e3;
        if let Some(p) = c.enb_power_dbm {
            cell.enb_power_dbm = p - 10.0 * (width_hz / (100.0 * PRB_HZ)).log10();
        }
        cell.isd_m = c.isd_m;
        cell.shadowing_sigma_db = c.shadowing_sigma_db;
        cell.penetration_loss_db = c.penetration_loss_db;
        cell.min_distance_m = c.min_distance_m;
        cell.ue_noise_figure_db = c.ue_noise_figure_db;
        cell.pathloss_at_1km_db += 20.0 * (self.carrier_ghz / 2.0).log10();
        // The fading process steps once per slot: a slot of T ms is the LTE model's 1 ms step
        // at T times the Doppler.
        let f = &self.fading;
        let fading = match f.model {
            FadingKind::None => FadingModel::None,
            FadingKind::Rayleigh => FadingModel::IidRayleigh,
            FadingKind::Jakes => FadingModel::Jakes {
                sinusoids: f.sinusoids,
                doppler_hz: doppler_hz(f.speed_kmh, self.carrier_ghz * 1e9) * slot_ms,
            },
        };
        let cg = &self.configured_grant;
        let pusch_prb = n_rb - self.pucch_prb(n_rb);
        let sr_offsets: Vec<u32> = (0..u.sr_period_slots)
            .filter(|&t| duplex.has_ul(u64::from(t)))
            .collect();
        Rat {
            nr: true,
            slot,
            n_prb: n_rb,
            pusch_prb,
            cce_total: if self.pdcch.enabled {
                self.coreset_prb(n_rb) * self.pdcch.coreset_symbols / 6
            } else {
                u32::MAX
            },
            k1: u64::from(self.timing.k1),
            k2: u64::from(self.timing.k2),
            ul_decision: u64::from(self.timing.gnb_processing_slots),
            retx_gap: u64::from(self.timing.gnb_processing_slots),
            duplex,
            tbs: Arc::new(tbs),
            curves: [LinkCurves::nr(dl_table), LinkCurves::nr(ul_table)],
            bsr: BsrTable::NrShort,
            configured_grant: cg.enabled.then(|| ConfiguredGrant {
                period: u64::from(cg.period_slots),
                n_prb: cg.prb,
                mcs: cg.mcs,
            }),
            prb_lte: per_ms,
            cell,
            fading,
            ul_mac: UlMacParams {
                mode: match u.bsr {
                    BsrKind::Standard => BsrMode::Standard,
                    BsrKind::Ideal => BsrMode::Ideal,
                },
                sr_period: u.sr_period_slots,
                sr_offset: 0,
                dsr_trans_max: u.dsr_trans_max,
                periodic_bsr: u.periodic_bsr_ms.map(|t| t * per_ms),
                retx_bsr: u.retx_bsr_ms * per_ms,
                table: BsrTable::NrShort,
                nr_periods: true,
                sr_masked: cg.enabled && cg.sr_mask,
            },
            sr_offsets,
            rlc: self.rlc.entity().params().expect("validated"),
            mac_header: 0,
            harq: HarqMode {
                dci_every_retx: true,
                adaptive: self.harq.adaptive,
            },
        }
    }

    pub(crate) fn collect(&self, p: &mut Problems) {
        // The keys NR shares with the LTE cell, checked by the LTE cell's rules and names.
        self.shared_as_lte().collect(p);
        let fr = FrequencyRange::of_carrier_ghz(self.carrier_ghz);
        if let Err(e) = &fr {
            p.push(ConfigError::new(
                "access.carrier_ghz",
                e.value.clone(),
                e.allowed.clone(),
            ));
        }
        let num = self.numerology();
        if let Err(e) = &num {
            p.push(ConfigError::new(
                "access.scs_khz",
                e.value.clone(),
                e.allowed.clone(),
            ));
        }
        let n_rb = match self.n_rb() {
            Ok(n) => Some(n),
            Err(e) => {
                if fr.is_ok() && num.is_ok() {
                    p.push(ConfigError::new("access.bandwidth_mhz", e.value, e.allowed));
                }
                None
            }
        };
        let duplex = match (self.duplex, num) {
            (NrDuplexKind::Fdd, _) => Some(Duplex::Fdd),
            (NrDuplexKind::Tdd, Ok(_)) => match self.duplex() {
                Ok(d) => Some(d),
                Err(e) => {
                    let key = if e.field == "special_slot" {
                        "access.special_slot"
                    } else {
                        "access.tdd_pattern"
                    };
                    p.push(ConfigError::new(key, e.value, e.allowed));
                    None
                }
            },
            _ => None,
        };
        let ul_max = self.ul_mcs_table.table().max_mcs();
        if let Err(e) = self.rlc.entity().params() {
            let field = match e.field.as_str() {
                "max_retx_threshold" => "max_retx",
                f => f,
            };
            p.push(ConfigError::new(
                format!("access.rlc.{field}"),
                e.value,
                e.allowed,
            ));
        }
        check(
            (1..=4).contains(&self.dl_layers),
            "access.dl_layers",
            self.dl_layers,
            "1, 2, 3 or 4 layers",
        )
        .note(p);
        check(
            self.cqi_delay_slots <= 1000,
            "access.cqi_delay_slots",
            self.cqi_delay_slots,
            "an integer in 0..=1000",
        )
        .note(p);
        check(
            CQI_PERIODS_SLOTS.contains(&self.cqi_period_slots),
            "access.cqi_period_slots",
            self.cqi_period_slots,
            "one of 1, 4, 5, 8, 10, 16, 20, 40, 80, 160, 320 slots (TS 38.331; 1 = every slot)",
        )
        .note(p);
        check(
            self.pf_time_constant_slots.is_finite()
                && (1.0..=1e6).contains(&self.pf_time_constant_slots),
            "access.pf_time_constant_slots",
            self.pf_time_constant_slots,
            "a number of slots in [1, 1e6]",
        )
        .note(p);
        let t = &self.timing;
        check(
            t.k0 == 0,
            "access.timing.k0",
            t.k0,
            "0 (the PDSCH in its DCI's slot; other offsets are not modelled)",
        )
        .note(p);
        check(
            (1..=15).contains(&t.k1),
            "access.timing.k1",
            t.k1,
            "an integer in 1..=15 slots (dl-DataToUL-ACK; 0, feedback in the PDSCH's slot, is not modelled)",
        )
        .note(p);
        check(
            (1..=32).contains(&t.k2),
            "access.timing.k2",
            t.k2,
            "an integer in 1..=32 slots (TS 38.214 k2; 0 is not modelled)",
        )
        .note(p);
        check(
            (1..=8).contains(&t.gnb_processing_slots),
            "access.timing.gnb_processing_slots",
            t.gnb_processing_slots,
            "an integer in 1..=8 slots",
        )
        .note(p);
        let len = self.pattern_len();
        let u = &self.uplink;
        // (Against a valid pattern only: an invalid one has its own error.)
        let per_pattern =
            |v: u32| self.duplex == NrDuplexKind::Fdd || duplex.is_none() || v % len == 0;
        check(
            NR_SR_PERIODS.contains(&u.sr_period_slots) && per_pattern(u.sr_period_slots),
            "access.uplink.sr_period_slots",
            u.sr_period_slots,
            &format!(
                "one of 1, 2, 4, 5, 8, 10, 16, 20, 40, 80, 160, 320, 640 slots (TS 38.331){}",
                if self.duplex == NrDuplexKind::Tdd {
                    format!(", a multiple of the TDD pattern's {len} slots")
                } else {
                    String::new()
                }
            ),
        )
        .note(p);
        check(
            u.sr_grant_delay_slots <= 100,
            "access.uplink.sr_grant_delay_slots",
            u.sr_grant_delay_slots,
            "an integer in 0..=100",
        )
        .note(p);
        if let Some(t) = u.periodic_bsr_ms {
            check(
                PERIODIC_BSR_MS.contains(&t),
                "access.uplink.periodic_bsr_ms",
                t,
                "one of 1, 5, 10, 16, 20, 32, 40, 64, 80, 128, 160, 320, 640, 1280, 2560 ms (TS 38.331), or unset (infinity)",
            )
            .note(p);
        }
        check(
            RETX_BSR_MS.contains(&u.retx_bsr_ms),
            "access.uplink.retx_bsr_ms",
            u.retx_bsr_ms,
            "one of 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240 ms (TS 38.331)",
        )
        .note(p);
        super::lte::check_phr_timers(
            p,
            ("access.uplink.phr_periodic_ms", u.phr_periodic_ms),
            ("access.uplink.phr_prohibit_ms", u.phr_prohibit_ms),
            "ms",
        );
        check(
            u.gnb_noise_figure_db.is_finite() && u.gnb_noise_figure_db >= 0.0,
            "access.uplink.gnb_noise_figure_db",
            u.gnb_noise_figure_db,
            "a finite number >= 0",
        )
        .note(p);
        if let Some(m) = u.fixed_mcs {
            check(
                m <= ul_max,
                "access.uplink.fixed_mcs",
                m,
                &format!("an MCS in 0..={ul_max} (the uplink table)"),
            )
            .note(p);
        }
        let cg = &self.configured_grant;
        if cg.enabled {
            if let Some(m) = cg.mcs {
                check(
                    m <= ul_max,
                    "access.configured_grant.mcs",
                    m,
                    &format!("an MCS in 0..={ul_max} (the uplink table), or unset"),
                )
                .note(p);
            }
            check(
                (1..=640).contains(&cg.period_slots) && per_pattern(cg.period_slots),
                "access.configured_grant.period_slots",
                cg.period_slots,
                &format!(
                    "an integer in 1..=640 slots, a multiple of the TDD pattern's {len} slots"
                ),
            )
            .note(p);
        }
        let Some(n_rb) = n_rb else {
            return;
        };
        let pucch = self.pucch_prb(n_rb);
        if let Some(v) = u.pucch_prb {
            check(
                v + 6 <= n_rb && v % 2 == 0,
                "access.uplink.pucch_prb",
                v,
                &format!(
                    "an even number of PRBs in 0..={} (both band edges; at least 6 left to PUSCH)",
                    n_rb - 6
                ),
            )
            .note(p);
        }
        let pusch = n_rb.saturating_sub(pucch);
        check(
            (1..=pusch).contains(&u.min_prb),
            "access.uplink.min_prb",
            u.min_prb,
            &format!("an integer in 1..={pusch} (the PRBs left by PUCCH)"),
        )
        .note(p);
        check(
            (1..=n_rb).contains(&u.reference_prb),
            "access.uplink.reference_prb",
            u.reference_prb,
            &format!("an integer in 1..={n_rb} (the carrier's PRBs)"),
        )
        .note(p);
        let pd = &self.pdcch;
        check(
            (1..=3).contains(&pd.coreset_symbols),
            "access.pdcch.coreset_symbols",
            pd.coreset_symbols,
            "1, 2 or 3 OFDM symbols",
        )
        .note(p);
        if let Some(v) = pd.coreset_prb {
            check(
                v >= 6 && v <= n_rb && v % 6 == 0,
                "access.pdcch.coreset_prb",
                v,
                &format!("a multiple of 6 in 6..={n_rb} (the carrier's PRBs)"),
            )
            .note(p);
        }
        super::lte::check_ue_caps(
            p,
            [
                ("access.pdcch.max_dl_ues_per_slot", pd.max_dl_ues_per_slot),
                ("access.pdcch.max_ul_ues_per_slot", pd.max_ul_ues_per_slot),
            ],
        );
        let Some(duplex) = duplex else {
            return;
        };
        if let Duplex::Tdd(slots) = &duplex {
            if let Some(s) = slots.iter().find(|s| s.dl > 0 && s.dl < 14) {
                check(
                    u32::from(s.dl) > pd.coreset_symbols,
                    "access.special_slot",
                    &self.special_slot,
                    &format!(
                        "a special slot with more downlink symbols than the CORESET's {}",
                        pd.coreset_symbols
                    ),
                )
                .note(p);
            }
        }
        // A grant reaches at most K2 plus the pattern's longest stretch without downlink
        // ahead; the cell keeps each UE's last 16 grants.
        let reach = (0..u64::from(len))
            .filter(|&n| duplex.has_dl(n))
            .map(|n| duplex.next_dl(n + 1) + u64::from(t.k2) - 1 - n)
            .max()
            .unwrap_or(0);
        check(
            reach < 16,
            "access.timing.k2",
            t.k2,
            &format!(
                "a K2 that, with the TDD pattern's {} slots without downlink, reaches fewer than 16 slots ahead",
                reach.saturating_sub(u64::from(t.k2))
            ),
        )
        .note(p);
        if cg.enabled {
            check(
                (1..=pusch).contains(&cg.prb),
                "access.configured_grant.prb",
                cg.prb,
                &format!("an integer in 1..={pusch} (the PUSCH PRBs)"),
            )
            .note(p);
            // Every UE's occasions must fit beside the others' in their slot: the gNB gives
            // them disjoint PRBs (UEs spread over the period's uplink slots).
            let slots = (0..u64::from(cg.period_slots.max(1)))
                .filter(|&t| duplex.has_pusch(t))
                .count() as u32;
            if slots > 0 && cg.prb >= 1 {
                let per_slot = self.ues.div_ceil(slots);
                check(
                    per_slot * cg.prb <= pusch,
                    "access.configured_grant.prb",
                    cg.prb,
                    &format!(
                        "at most {} PRBs: {} UEs share each of the period's {slots} uplink slots, \
                         and the PUSCH has {pusch} PRBs (or a longer period_slots)",
                        pusch / per_slot,
                        per_slot
                    ),
                )
                .note(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(c: &NrConfig, n: u64) -> Vec<u64> {
        let mut v = Vec::new();
        c.rat().ul_targets(n, &mut v);
        v
    }

    /// DDDSU at 30 kHz with K2 = 2: the U slot 4 is granted from the D slot 2 (the latest
    /// downlink slot at or before 4 - 2), nothing from slots 0, 1 and the special slot 3; the
    /// next period's U slot 9 from slot 7. DDDDDDDSUU: both U slots, from slot 6 and the
    /// special slot 7. FDD: n + K2.
    #[test]
    fn grants_reach_the_uplink_slots_k2_ahead() {
        let c = NrConfig::default();
        assert_eq!(c.rat().n_prb, 273);
        assert_eq!(targets(&c, 2), vec![4]);
        for n in [0, 1, 3, 5, 6] {
            assert_eq!(targets(&c, n), Vec::<u64>::new(), "slot {n}");
        }
        assert_eq!(targets(&c, 7), vec![9]);
        let c = NrConfig {
            tdd_pattern: "DDDDDDDSUU".into(),
            ..NrConfig::default()
        };
        assert_eq!(targets(&c, 6), vec![8]);
        assert_eq!(targets(&c, 7), vec![9]);
        let c = NrConfig {
            duplex: NrDuplexKind::Fdd,
            timing: NrTimingConfig {
                k2: 4,
                ..NrTimingConfig::default()
            },
            ..NrConfig::default()
        };
        assert_eq!(targets(&c, 10), vec![14]);
    }

    /// SR opportunities only in slots with uplink symbols (S and U of DDDSU); CCEs of a
    /// one-symbol CORESET over the whole 273-PRB carrier: 270 / 6 = 45; the Short BSR.
    #[test]
    fn the_rat_follows_the_frame() {
        let r = NrConfig::default().rat();
        assert_eq!(r.sr_offsets, vec![3, 4, 8, 9]);
        assert_eq!(r.cce_total, 45);
        assert_eq!(r.slot, 500_000);
        assert_eq!(r.prb_lte, 2);
        assert_eq!(r.pusch_prb, 273 - 20);
    }

    fn problems(c: &NrConfig) -> Vec<String> {
        let mut p = Vec::new();
        c.collect(&mut p);
        p.into_iter().map(|e| e.key).collect()
    }

    #[test]
    fn values_the_cell_cannot_run_are_refused_with_their_key() {
        assert_eq!(problems(&NrConfig::default()), Vec::<String>::new());
        let bad = NrConfig {
            bandwidth_mhz: 5,
            scs_khz: 60,
            ..NrConfig::default()
        };
        assert_eq!(problems(&bad), vec!["access.bandwidth_mhz"]);
        let bad = NrConfig {
            tdd_pattern: "DDDSUUU".into(),
            ..NrConfig::default()
        };
        assert_eq!(problems(&bad), vec!["access.tdd_pattern"]);
        let mut bad = NrConfig::default();
        bad.timing.k0 = 1;
        bad.timing.k1 = 0;
        bad.uplink.sr_period_slots = 8;
        assert_eq!(
            problems(&bad),
            vec![
                "access.timing.k0",
                "access.timing.k1",
                "access.uplink.sr_period_slots"
            ]
        );
        // 60 UEs on 2 uplink slots of a 10-slot period: 30 per slot x 10 PRBs > 253.
        let mut bad = NrConfig {
            ues: 60,
            ..NrConfig::default()
        };
        bad.configured_grant.enabled = true;
        bad.configured_grant.prb = 10;
        assert_eq!(problems(&bad), vec!["access.configured_grant.prb"]);
    }
}
