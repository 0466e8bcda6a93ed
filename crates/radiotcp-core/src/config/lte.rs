//! `access.kind = "lte"`: a multi-UE LTE-A Pro cell (Ohta et al., CSCN 2018; model-specs §4;
//! lte-cell.md; docs/models/lte-cell.md). The defaults are the paper's setup where the paper
//! gives it and the 3GPP Case-1 / RRC defaults otherwise; docs/models/lte-cell.md lists which.

use serde::{Deserialize, Serialize};

use super::{
    check, finite_nonneg, timer_ms, timer_or_off_ms, BufferConfig, BufferDisciplineKind,
    CodelConfig, PieConfig, RedConfig, SbdConfig,
};
use crate::error::ConfigError;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LteConfig {
    /// UEs dropped in the centre site (each with `flows.count` TCP downloads).
    pub ues: u32,
    /// Carrier bandwidth: 5, 10 or 20 MHz (25, 50, 100 PRB). Table I of the paper implies
    /// whole-band 100-PRB transport blocks (lte-cell.md §3).
    pub bandwidth_mhz: u32,
    /// Added to every dropped UE's downlink SINR before link adaptation and BLER, dB: a
    /// calibration of the Case-1 geometry (lte-cell.md §3), not a physical effect. It does
    /// not apply to SINRs listed in `cell.ue_sinr_db`, which are used as written.
    pub sinr_offset_db: f64,
    /// Age of the CQI a DL (and UL) MCS is chosen from, TTIs.
    pub cqi_delay_tti: u32,
    /// Periodic CQI reporting (TS 36.213 §7.2.2, N_pd on PUCCH): a UE measures its channel
    /// every this many TTIs (offsets spread UE by UE); the MCS follows the latest report old
    /// enough (`cqi_delay_tti`). 1 = every TTI.
    pub cqi_period_tti: u32,
    /// Outer-loop link adaptation: per UE and link, an offset on the reported SINR that rises
    /// by this step (dB) on every decoded first transmission and falls by 9 steps on every
    /// failed one, which holds the first-transmission BLER at 10 % (lte-cell.md §2.4); 0 = off.
    pub olla_step_db: f64,
    pub cell: LteCellConfig,
    pub fading: LteFadingConfig,
    pub harq: LteHarqConfig,
    /// EWMA time constant of the PF schedulers, TTIs (ns-3: 100).
    pub pf_time_constant_tti: f64,
    pub uplink: LteUplinkConfig,
    pub rlc: LteRlcConfig,
    /// The per-UE downlink buffer (PDCP/RLC SDUs at the eNB) and its discipline.
    pub buffer: BufferConfig,
    pub ack_filter: AckFilterConfig,
}

/// The Case-1 drop (lte-cell.md §1; TR 36.814 A.2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LteCellConfig {
    pub isd_m: f64,
    /// eNB power over the band; `None`: 43 / 46 / 49 dBm at 5 / 10 / 20 MHz.
    pub enb_power_dbm: Option<f64>,
    pub shadowing_sigma_db: f64,
    pub penetration_loss_db: f64,
    pub min_distance_m: f64,
    pub ue_noise_figure_db: f64,
    /// Per-UE wideband DL SINR in dB instead of a drop (one value per UE; positions are then
    /// not defined): to replay a measured or published set of UEs (Table I).
    pub ue_sinr_db: Option<Vec<f64>>,
    /// With `ue_sinr_db`: the UEs go round robin over this many sectors of the site (1 puts
    /// them all in one cell, as a single-cell comparison needs).
    pub sectors: u32,
    /// Draw the drop from this seed (run 0) instead of the run's own seed and index, so that
    /// the replications of a sweep share one placement of UEs (per-UE figures); `None`: every
    /// run has its own drop.
    pub drop_seed: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FadingKind {
    None,
    /// i.i.d. block Rayleigh, one draw per TTI.
    Rayleigh,
    /// Jakes sum of sinusoids at `speed_kmh`.
    Jakes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LteFadingConfig {
    pub model: FadingKind,
    pub speed_kmh: f64,
    pub carrier_ghz: f64,
    pub sinusoids: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LteHarqConfig {
    /// Total transmissions of a transport block before HARQ gives up (ns-3: 4).
    pub max_tx: u32,
    pub processes: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UlSchedulerKind {
    Pf,
    /// ns-3 PfFfMacScheduler's uplink: equal shares, round robin.
    RoundRobin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BsrKind {
    /// SR on PUCCH, regular / periodic / padding BSR in the transport block (36.321).
    Standard,
    /// ns-3: an ideal BSR reaches the eNB every TTI with new data; no SR.
    Ideal,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LteUplinkConfig {
    pub scheduler: UlSchedulerKind,
    /// Fewest PRBs in a grant.
    pub min_prb: u32,
    pub bsr: BsrKind,
    /// T_SR, ms: 1, 2, 5, 10, 20, 40 or 80 (TS 36.213 Table 10.1.5-1).
    pub sr_period_ms: u32,
    /// Every UE's SR subframe offset (below `sr_period_ms`); `None`: UE u at u mod T_SR, so
    /// that the UEs' opportunities are spread over the period.
    pub sr_offset_ms: Option<u32>,
    /// SR received at n -> grant issued at n + this (model-specs §4.1 default 4).
    pub sr_grant_delay_tti: u32,
    /// What the eNB grants for an SR before any BSR, octets.
    pub sr_grant_bytes: u32,
    /// periodicBSR-Timer, subframes; `None` = infinity.
    pub periodic_bsr_tti: Option<u32>,
    pub retx_bsr_tti: u32,
    pub dsr_trans_max: u32,
    /// A fixed UL MCS for every UE (ns-3 uses 0 until SRS-based UL CQI); `None` = link
    /// adaptation from the UL SINR.
    pub fixed_mcs: Option<u8>,
    /// Open-loop power control P0 (dBm per PRB) and the UE's maximum power (36.213 §5.1.1).
    pub p0_dbm: f64,
    pub ue_power_dbm: f64,
    pub enb_noise_figure_db: f64,
    /// Interference over thermal at the eNB, dB (an ACK-only uplink is lightly loaded).
    pub iot_db: f64,
    /// SC-FDMA loss against the DL thresholds, dB.
    pub sc_fdma_loss_db: f64,
    /// PRBs the UL SINR is computed for (power spread over them when power-limited).
    pub reference_prb: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RlcModeKind {
    Am,
    Um,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LteRlcConfig {
    pub mode: RlcModeKind,
    pub t_poll_retransmit_ms: f64,
    pub t_reordering_ms: f64,
    /// 0 = no t-StatusProhibit.
    pub t_status_prohibit_ms: f64,
    pub poll_pdu: u32,
    pub poll_byte: u64,
    pub max_retx: u32,
    /// PDCP header per SDU, RLC header per PDU, MAC subheader per RLC PDU: 2 + 2 + 2 = the
    /// paper's 6 B of MAC/RLC/PDCP (§III.B).
    pub pdcp_header_bytes: u32,
    pub rlc_header_bytes: u32,
    pub mac_header_bytes: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoundingKind {
    /// ⌈N_ack⌉, as the paper prints it.
    Ceil,
    /// Round to nearest: what reproduces the printed T_opt column (lte-cell.md §3).
    Nearest,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AckFilterConfig {
    pub scheme: AckFilterKind,
    pub ratio: f64,
    pub threshold: u32,
    pub rounding: RoundingKind,
    /// S_TCP_segment of eq. (1); `None` = the MSS.
    pub segment_bytes: Option<u32>,
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
            cell: LteCellConfig {
                isd_m: 500.0,
                enb_power_dbm: None,
                shadowing_sigma_db: 8.0,
                penetration_loss_db: 20.0,
                min_distance_m: 35.0,
                ue_noise_figure_db: 9.0,
                ue_sinr_db: None,
                sectors: 3,
                drop_seed: None,
            },
            fading: LteFadingConfig {
                model: FadingKind::Jakes,
                speed_kmh: 3.0,
                carrier_ghz: 2.0,
                sinusoids: 16,
            },
            harq: LteHarqConfig {
                max_tx: 4,
                processes: 8,
            },
            pf_time_constant_tti: 100.0,
            uplink: LteUplinkConfig {
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
                p0_dbm: -106.0,
                ue_power_dbm: 23.0,
                enb_noise_figure_db: 5.0,
                iot_db: 2.0,
                sc_fdma_loss_db: 1.0,
                reference_prb: 4,
            },
            rlc: LteRlcConfig {
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
            },
            buffer: BufferConfig {
                discipline: BufferDisciplineKind::DropTail,
                limit_sdus: 1000,
                red: RedConfig::default(),
                sbd: SbdConfig::default(),
                codel: CodelConfig::default(),
                pie: PieConfig::default(),
            },
            ack_filter: AckFilterConfig {
                scheme: AckFilterKind::Basic,
                ratio: 1.0,
                threshold: 6,
                rounding: RoundingKind::Ceil,
                segment_bytes: None,
                aggressive: false,
            },
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

    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        check(
            (1..=1000).contains(&self.ues),
            "access.ues",
            self.ues,
            "an integer in 1..=1000",
        )?;
        check(
            [5, 10, 20].contains(&self.bandwidth_mhz),
            "access.bandwidth_mhz",
            self.bandwidth_mhz,
            "one of 5, 10, 20 (25, 50, 100 PRB)",
        )?;
        check(
            self.sinr_offset_db.is_finite() && self.sinr_offset_db.abs() <= 50.0,
            "access.sinr_offset_db",
            self.sinr_offset_db,
            "an offset in [-50, 50] dB",
        )?;
        check(
            self.cqi_delay_tti <= 1000,
            "access.cqi_delay_tti",
            self.cqi_delay_tti,
            "an integer in 0..=1000",
        )?;
        check(
            [1, 2, 5, 10, 20, 40, 80, 160].contains(&self.cqi_period_tti),
            "access.cqi_period_tti",
            self.cqi_period_tti,
            "one of 1, 2, 5, 10, 20, 40, 80, 160 TTIs (TS 36.213 Table 7.2.2-1A; 1 = every TTI)",
        )?;
        check(
            self.olla_step_db.is_finite() && (0.0..=10.0).contains(&self.olla_step_db),
            "access.olla_step_db",
            self.olla_step_db,
            "a step in [0, 10] dB (0 = no outer loop)",
        )?;
        let c = &self.cell;
        check(
            c.isd_m.is_finite() && c.isd_m > 2.0 * c.min_distance_m,
            "access.cell.isd_m",
            c.isd_m,
            "a distance greater than twice access.cell.min_distance_m",
        )?;
        if let Some(p) = c.enb_power_dbm {
            check(
                p.is_finite() && (-30.0..=80.0).contains(&p),
                "access.cell.enb_power_dbm",
                p,
                "a power in [-30, 80] dBm",
            )?;
        }
        finite_nonneg("access.cell.shadowing_sigma_db", c.shadowing_sigma_db)?;
        finite_nonneg("access.cell.penetration_loss_db", c.penetration_loss_db)?;
        finite_nonneg("access.cell.min_distance_m", c.min_distance_m)?;
        finite_nonneg("access.cell.ue_noise_figure_db", c.ue_noise_figure_db)?;
        check(
            (1..=3).contains(&c.sectors),
            "access.cell.sectors",
            c.sectors,
            "1, 2 or 3 (sectors of the site)",
        )?;
        if let Some(v) = &c.ue_sinr_db {
            check(
                v.len() == self.ues as usize,
                "access.cell.ue_sinr_db",
                format!("{} values", v.len()),
                "exactly access.ues values",
            )?;
            for (i, &x) in v.iter().enumerate() {
                check(
                    x.is_finite() && x.abs() <= 100.0,
                    &format!("access.cell.ue_sinr_db.{i}"),
                    x,
                    "a SINR in [-100, 100] dB",
                )?;
            }
        }
        let f = &self.fading;
        check(
            f.speed_kmh.is_finite() && f.speed_kmh > 0.0 && f.speed_kmh <= 500.0,
            "access.fading.speed_kmh",
            f.speed_kmh,
            "a speed in (0, 500] km/h",
        )?;
        check(
            f.carrier_ghz.is_finite() && f.carrier_ghz >= 0.4 && f.carrier_ghz <= 100.0,
            "access.fading.carrier_ghz",
            f.carrier_ghz,
            "a carrier in [0.4, 100] GHz",
        )?;
        check(
            (1..=256).contains(&f.sinusoids),
            "access.fading.sinusoids",
            f.sinusoids,
            "an integer in 1..=256",
        )?;
        self.harq_params()
            .validate()
            .map_err(|e| e.at("access.harq"))?;
        check(
            self.pf_time_constant_tti.is_finite()
                && (1.0..=1e6).contains(&self.pf_time_constant_tti),
            "access.pf_time_constant_tti",
            self.pf_time_constant_tti,
            "a number of TTIs in [1, 1e6]",
        )?;
        let u = &self.uplink;
        check(
            (1..=self.n_prb()).contains(&u.min_prb),
            "access.uplink.min_prb",
            u.min_prb,
            &format!("an integer in 1..={} (the carrier's PRBs)", self.n_prb()),
        )?;
        self.ul_mac_params(0).validate().map_err(|e| {
            // The entity names its timers in subframes; the keys say their unit.
            let key = match e.field.as_str() {
                "sr_period" => "sr_period_ms",
                "periodic_bsr" => "periodic_bsr_tti",
                "retx_bsr" => "retx_bsr_tti",
                other => other,
            };
            ConfigError {
                key: format!("access.uplink.{key}"),
                value: e.value,
                allowed: e.allowed,
            }
        })?;
        if let Some(o) = u.sr_offset_ms {
            check(
                o < u.sr_period_ms,
                "access.uplink.sr_offset_ms",
                o,
                "an offset below access.uplink.sr_period_ms",
            )?;
        }
        check(
            u.sr_grant_delay_tti <= 100,
            "access.uplink.sr_grant_delay_tti",
            u.sr_grant_delay_tti,
            "an integer in 0..=100",
        )?;
        check(
            (8..=100_000).contains(&u.sr_grant_bytes),
            "access.uplink.sr_grant_bytes",
            u.sr_grant_bytes,
            "an integer in 8..=100000",
        )?;
        if let Some(m) = u.fixed_mcs {
            check(m <= 28, "access.uplink.fixed_mcs", m, "an MCS in 0..=28")?;
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
            )?;
        }
        finite_nonneg("access.uplink.enb_noise_figure_db", u.enb_noise_figure_db)?;
        finite_nonneg("access.uplink.iot_db", u.iot_db)?;
        finite_nonneg("access.uplink.sc_fdma_loss_db", u.sc_fdma_loss_db)?;
        check(
            (1..=self.n_prb()).contains(&u.reference_prb),
            "access.uplink.reference_prb",
            u.reference_prb,
            &format!("an integer in 1..={} (the carrier's PRBs)", self.n_prb()),
        )?;
        let r = &self.rlc;
        timer_ms("access.rlc.t_poll_retransmit_ms", r.t_poll_retransmit_ms)?;
        timer_ms("access.rlc.t_reordering_ms", r.t_reordering_ms)?;
        timer_or_off_ms("access.rlc.t_status_prohibit_ms", r.t_status_prohibit_ms)?;
        check(
            r.poll_pdu >= 1,
            "access.rlc.poll_pdu",
            r.poll_pdu,
            "an integer >= 1",
        )?;
        check(
            r.poll_byte >= 1,
            "access.rlc.poll_byte",
            r.poll_byte,
            "an integer >= 1",
        )?;
        check(
            (1..=32).contains(&r.max_retx),
            "access.rlc.max_retx",
            r.max_retx,
            "an integer in 1..=32 (TS 36.331 maxRetxThreshold)",
        )?;
        for (key, v) in [
            ("access.rlc.pdcp_header_bytes", r.pdcp_header_bytes),
            ("access.rlc.rlc_header_bytes", r.rlc_header_bytes),
            ("access.rlc.mac_header_bytes", r.mac_header_bytes),
        ] {
            check(v <= 64, key, v, "an integer in 0..=64 octets")?;
        }
        self.buffer.validate("access.buffer")?;
        let a = &self.ack_filter;
        check(
            (0.0..=1.0).contains(&a.ratio),
            "access.ack_filter.ratio",
            a.ratio,
            "a ratio in [0, 1]",
        )?;
        check(
            a.threshold >= 1,
            "access.ack_filter.threshold",
            a.threshold,
            "an integer >= 1 (a flow's newest ACK always stays)",
        )?;
        if let Some(s) = a.segment_bytes {
            check(
                (1..=65_535).contains(&s),
                "access.ack_filter.segment_bytes",
                s,
                "an integer in 1..=65535",
            )?;
        }
        Ok(())
    }
}
