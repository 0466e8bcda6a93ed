//! From the configuration schema to entity parameters: units resolved into ticks, bits and
//! bytes, enums mapped onto the entities' own. Entities never import the schema; this module
//! is the only bridge, and the only place that knows both.

use super::{
    AckControlConfig, AckControlMode, AckFilterKind, AckRelease, BsrKind, BufferConfig,
    BufferDisciplineKind, ChannelConfig, ChannelKind, CongestionControlKind, FadingKind,
    LinkConfig, LteConfig, RlcModeKind, RlpConfig, RoundingKind, RtoEstimatorKind, RttSamplingKind,
    SsthreshBasisKind, TcpConfig, TcpVariant, UlSchedulerKind, UmtsConfig,
};
use crate::ack::filter::{AckFilterParams, AckFilterScheme, TOptRounding};
use crate::ack::{self, AckRateParams};
use std::sync::Arc;

use crate::engine::{millis, RngStream, Time, NS_PER_MS};
use crate::link::{Dir, LinkDirParams};
use crate::queue::{Aqm, BufferDiscipline, Codel, Pie, Red, Sbd};
use crate::radio::cell::{HarqMode, LinkCurves, Rat, TbsTable};
use crate::radio::channel::{ChannelModel, MarkovParams};
use crate::radio::lte::fading::{doppler_hz, FadingModel};
use crate::radio::lte::geometry::CellParams;
use crate::radio::lte::harq::HarqParams;
use crate::radio::lte::pdcch::cce_count;
use crate::radio::lte::rlc::{LteRlcParams, RlcMode};
use crate::radio::lte::sched::{PfParams, UlMode};
use crate::radio::lte::ul_mac::{BsrMode, BsrTable, UlMacParams};
use crate::radio::nr::duplex::Duplex;
use crate::radio::rlc_am::RlcAmParams;
use crate::radio::rlp::RlpParams;
use crate::tcp::{self, ReceiverParams, SenderParams, SSTHRESH_INFINITE};

pub fn tcp_variant(v: TcpVariant) -> tcp::TcpVariant {
    match v {
        TcpVariant::Reno => tcp::TcpVariant::Reno,
        TcpVariant::NewReno => tcp::TcpVariant::NewReno,
        TcpVariant::Sack => tcp::TcpVariant::Sack,
    }
}

/// The congestion controller's parameters.
pub fn cc_params(c: &TcpConfig) -> tcp::cc::CcParams {
    let mss = c.mss() as u64;
    tcp::cc::CcParams {
        algo: match c.congestion_control {
            CongestionControlKind::Reno => tcp::cc::CcAlgo::Reno,
            CongestionControlKind::Cubic => tcp::cc::CcAlgo::Cubic(tcp::cc::CubicParams {
                beta: c.cubic_beta,
                c: c.cubic_c,
                ..Default::default()
            }),
        },
        abc_limit: match c.abc_limit_segments {
            0 => u64::MAX,
            l => l as u64 * mss,
        },
        ca_byte_counting: c.ca_byte_counting,
        hystart: c.hystart,
    }
}

pub fn sender_params(c: &TcpConfig) -> SenderParams {
    let mss = c.packet_size_bytes - c.header_bytes;
    SenderParams {
        variant: tcp_variant(c.variant),
        cc: cc_params(c),
        timestamps: c.timestamps,
        prr: c.prr,
        mss,
        initial_window: c.initial_window_segments as u64 * mss as u64,
        initial_ssthresh: c.initial_ssthresh_bytes.unwrap_or(SSTHRESH_INFINITE),
        initial_rto: millis(c.initial_rto_ms),
        min_rto: millis(c.min_rto_ms),
        max_rto: millis(c.max_rto_ms),
        granularity: millis(c.clock_granularity_ms),
        rto_estimator: match c.rto_estimator {
            RtoEstimatorKind::Rfc6298 => tcp::RtoEstimator::Rfc6298,
            RtoEstimatorKind::Ns2 => tcp::RtoEstimator::Ns2,
            RtoEstimatorKind::Linux => tcp::RtoEstimator::Linux,
        },
        rtt_sampling: match c.rtt_sampling {
            RttSamplingKind::EveryAck => tcp::RttSampling::EveryAck,
            RttSamplingKind::TimedSegment => tcp::RttSampling::TimedSegment,
            RttSamplingKind::Timestamps => tcp::RttSampling::Timestamps,
        },
        limited_transmit: c.limited_transmit,
        restart_timer_on_fast_retransmit: c.restart_timer_on_fast_retransmit,
        reno_recover_after_rto: c.reno_recover_after_rto,
        reno_one_recovery_per_window: c.reno_one_recovery_per_window,
        rto_ssthresh_every_expiry: c.rto_ssthresh_every_expiry,
        ssthresh_basis: match c.ssthresh_basis {
            SsthreshBasisKind::FlightSize => tcp::SsthreshBasis::FlightSize,
            SsthreshBasisKind::Window => tcp::SsthreshBasis::Window,
            SsthreshBasisKind::Cwnd => tcp::SsthreshBasis::Cwnd,
        },
        inflate_when_suppressed: c.suppressed_dupack_inflation,
        clock_phase: 0,
        syn: c.syn,
    }
}

pub fn receiver_params(c: &TcpConfig) -> ReceiverParams {
    ReceiverParams {
        rcv_buf: c.receive_buffer_bytes(),
        window_scaling: c.window_scaling,
        delack_count: c.delack_count,
        delack_timeout: millis(c.delack_timeout_ms),
        sack: c.variant == TcpVariant::Sack,
        timestamps: c.timestamps,
        quickack_segments: c.quickack_segments,
    }
}

/// The UE's TTI offset from the RNC's: the configured one, or one-way delay mod TTI (see
/// `UmtsConfig::ue_tti_offset_ms`), in whole nanoseconds.
pub fn ue_tti_offset(r: &UmtsConfig) -> Time {
    let tti = millis(r.tti_ms);
    match r.ue_tti_offset_ms {
        Some(o) => millis(o) % tti.max(1),
        None => millis(r.one_way_delay_ms) % tti.max(1),
    }
}

/// One direction of a wired link: `loss_rate` for data, `ack_loss_rate` for ACKs.
pub fn link_dir_params(c: &LinkConfig, dir: Dir) -> LinkDirParams {
    LinkDirParams {
        rate_bps: c.rate_kbps * 1000.0,
        prop_delay: millis(c.delay_ms),
        loss_rate: match dir {
            Dir::Data => c.loss_rate,
            Dir::Ack => c.ack_loss_rate,
        },
        limit_packets: c.queue.limit_packets as usize,
        limit_bytes: c.queue.limit_bytes,
    }
}

pub fn channel_model(c: &ChannelConfig) -> ChannelModel {
    match c.model {
        ChannelKind::None => ChannelModel::ErrorFree,
        ChannelKind::Iid => ChannelModel::Iid { fer: c.fer },
        ChannelKind::Markov => ChannelModel::Markov(
            MarkovParams::from_fer_doppler(c.fer, c.fd_t)
                .expect("channel parameters validated with the configuration"),
        ),
    }
}

pub fn rlc_am_params(r: &UmtsConfig) -> RlcAmParams {
    RlcAmParams {
        pdu_payload_bytes: r.pdu_payload_bytes,
        li_bytes: r.li_bytes,
        window_pdus: r.rlc.window_pdus,
        max_dat: r.rlc.max_dat,
        timer_poll: millis(r.rlc.poll_timer_ms),
        timer_poll_prohibit: millis(r.rlc.poll_prohibit_ms),
        timer_status_prohibit: millis(r.rlc.status_prohibit_ms),
        poll_window_pct: r.rlc.poll_window_pct,
        poll_last_pdu: r.rlc.poll_last_pdu,
        poll_last_retransmitted: r.rlc.poll_last_retransmitted,
        missing_pdu_indicator: r.rlc.missing_pdu_indicator,
        timer_mrw: millis(r.rlc.mrw_timer_ms),
    }
}

pub fn rlp_params(c: &RlpConfig) -> RlpParams {
    RlpParams {
        frame_payload_bytes: c.frame_payload_bytes,
        frames_per_slot: c.frames_per_slot,
        nak_rounds: c.nak_rounds,
        t_ret: millis(c.t_ret_ms),
        t_abort: millis(c.t_abort_ms),
        idle_frames: c.idle_frames,
    }
}

/// The ACK rate controller's parameters; `None` when the mode is `none`. `delay` is the
/// alpha = 0 case (a fixed spacing once BO >= minth).
pub fn ack_rate_params(c: &AckControlConfig, tti: Time) -> Option<AckRateParams> {
    if c.mode == AckControlMode::None {
        return None;
    }
    Some(AckRateParams {
        minth: c.minth_sdus,
        maxth: c.maxth_sdus,
        mind: millis(c.mind_ms),
        maxd: millis(c.maxd_ms),
        alpha: if c.mode == AckControlMode::Delay {
            0.0
        } else {
            c.alpha
        },
        tti: c.sync_to_tti.then_some(tti),
        release: match c.release {
            AckRelease::PerTti => ack::AckRelease::PerTti,
            AckRelease::OnePerEvent => ack::AckRelease::OnePerEvent,
            AckRelease::WhileDue => ack::AckRelease::WhileDue,
        },
    })
}

/// The per-user buffer's discipline. `sdu_bytes`: the maximum SDU size, converting thresholds
/// in SDUs to bits for SBD.
pub fn buffer_discipline(
    c: &BufferConfig,
    sdu_bytes: u32,
    tti: Time,
    rng: RngStream,
) -> BufferDiscipline {
    let limit = c.limit_sdus as usize;
    let bits = sdu_bytes as f64 * 8.0;
    let aqm = match c.discipline {
        BufferDisciplineKind::DropTail => Aqm::DropTail,
        BufferDisciplineKind::Red => Aqm::Red(Red::new(
            c.red.min_th_sdus,
            c.red.max_th_sdus,
            c.red.max_p,
            rng,
        )),
        BufferDisciplineKind::Sbd => Aqm::Sbd(Sbd::new(
            c.sbd.min_th_sdus * bits,
            limit as f64 * bits,
            millis(c.sbd.t_r_ms),
            c.sbd.alpha_bits,
            c.sbd.sync_to_tti.then_some(tti),
        )),
        BufferDisciplineKind::Codel => Aqm::Codel(Codel::new(
            millis(c.codel.target_ms),
            millis(c.codel.interval_ms),
            sdu_bytes as u64,
        )),
        BufferDisciplineKind::Pie => Aqm::Pie(Pie::new(
            millis(c.pie.qdelay_ref_ms),
            millis(c.pie.t_update_ms),
            c.pie.alpha,
            c.pie.beta,
            millis(c.pie.max_burst_ms),
            rng,
        )),
    };
    BufferDiscipline::new(limit, aqm)
}

// The LTE cell (`access.kind = "lte"`).

impl LteConfig {
    pub fn harq_params(&self) -> HarqParams {
        HarqParams {
            processes: self.harq.processes,
            max_tx: self.harq.max_tx,
            ..HarqParams::default()
        }
    }

    /// The UL MAC of a UE whose SR opportunities fall at `sr_offset` within the period.
    pub fn ul_mac_params(&self, sr_offset: u32) -> UlMacParams {
        let u = &self.uplink;
        UlMacParams {
            mode: match u.bsr {
                BsrKind::Standard => BsrMode::Standard,
                BsrKind::Ideal => BsrMode::Ideal,
            },
            sr_period: u.sr_period_ms,
            sr_offset,
            dsr_trans_max: u.dsr_trans_max,
            periodic_bsr: u.periodic_bsr_tti,
            retx_bsr: u.retx_bsr_tti,
            ..UlMacParams::default()
        }
    }

    /// What the LTE RAT sets in the shared cell model.
    pub fn rat(&self) -> Rat {
        let pd = &self.pdcch;
        let u = &self.uplink;
        Rat {
            nr: false,
            slot: NS_PER_MS,
            n_prb: self.n_prb(),
            pusch_prb: self.pusch_prb(),
            cce_total: if pd.enabled {
                cce_count(self.n_prb(), pd.cfi, pd.phich_ng)
            } else {
                u32::MAX
            },
            k1: 4,
            k2: 4,
            ul_decision: 4,
            retx_gap: 4,
            duplex: Duplex::Fdd,
            tbs: Arc::new(TbsTable::lte(self.n_prb().max(self.ul_n_prb()))),
            curves: [LinkCurves::lte(), LinkCurves::lte()],
            bsr: BsrTable::Lte,
            configured_grant: None,
            prb_lte: 1,
            cell: self.cell_params(),
            fading: self.fading_model(),
            ul_mac: self.ul_mac_params(0),
            // SR opportunities spread over the period, UE by UE (sr-ConfigIndex).
            sr_offsets: match u.sr_offset_ms {
                Some(o) => vec![o],
                None => (0..u.sr_period_ms).collect(),
            },
            rlc: self.rlc_params(),
            mac_header: self.rlc.mac_header_bytes,
            harq: HarqMode::default(),
        }
    }

    pub fn pf_params(&self) -> PfParams {
        PfParams {
            n_prb: self.n_prb(),
            t_c: self.pf_time_constant_tti,
            ..PfParams::default()
        }
    }

    pub fn ul_mode(&self) -> UlMode {
        let min_prb = self.uplink.min_prb;
        match self.uplink.scheduler {
            UlSchedulerKind::Pf => UlMode::Pf { min_prb },
            UlSchedulerKind::RoundRobin => UlMode::RoundRobin { min_prb },
        }
    }

    /// The Case-1 layout at this carrier, with the configured overrides.
    pub fn cell_params(&self) -> CellParams {
        let c = &self.cell;
        let mut p = CellParams::case1(self.n_prb());
        if let Some(power) = c.enb_power_dbm {
            p.enb_power_dbm = power;
        }
        p.isd_m = c.isd_m;
        p.shadowing_sigma_db = c.shadowing_sigma_db;
        p.penetration_loss_db = c.penetration_loss_db;
        p.min_distance_m = c.min_distance_m;
        p.ue_noise_figure_db = c.ue_noise_figure_db;
        p
    }

    pub fn fading_model(&self) -> FadingModel {
        let f = &self.fading;
        match f.model {
            FadingKind::None => FadingModel::None,
            FadingKind::Rayleigh => FadingModel::IidRayleigh,
            FadingKind::Jakes => FadingModel::Jakes {
                sinusoids: f.sinusoids,
                doppler_hz: doppler_hz(f.speed_kmh, f.carrier_ghz * 1e9),
            },
        }
    }

    pub fn rlc_params(&self) -> LteRlcParams {
        let r = &self.rlc;
        LteRlcParams {
            mode: match r.mode {
                RlcModeKind::Am => RlcMode::Am,
                RlcModeKind::Um => RlcMode::Um,
            },
            pdcp_header_bytes: r.pdcp_header_bytes,
            rlc_header_bytes: r.rlc_header_bytes,
            t_poll_retransmit: millis(r.t_poll_retransmit_ms),
            t_reordering: millis(r.t_reordering_ms),
            t_status_prohibit: millis(r.t_status_prohibit_ms),
            poll_pdu: r.poll_pdu,
            poll_byte: r.poll_byte,
            max_retx: r.max_retx,
            ..LteRlcParams::default()
        }
    }

    /// The UE uplink buffer's filter; HybridOpt starts at T = 1 until the UE's downlink TBS
    /// is known (the node sets T_opt as it learns it).
    pub fn ack_filter_params(&self) -> AckFilterParams {
        let a = &self.ack_filter;
        AckFilterParams {
            scheme: match a.scheme {
                AckFilterKind::Basic => AckFilterScheme::Basic,
                AckFilterKind::Passive => AckFilterScheme::Passive { ratio: a.ratio },
                AckFilterKind::Active => AckFilterScheme::Active {
                    threshold: a.threshold,
                },
                AckFilterKind::Hybrid => AckFilterScheme::Hybrid {
                    threshold: a.threshold,
                    ratio: a.ratio,
                },
                AckFilterKind::HybridOpt => AckFilterScheme::HybridOpt { t_opt: 1 },
                AckFilterKind::Cake => AckFilterScheme::Cake {
                    aggressive: a.aggressive,
                },
            },
            l2_overhead: self.rlc.pdcp_header_bytes
                + self.rlc.rlc_header_bytes
                + self.rlc.mac_header_bytes,
        }
    }

    pub fn t_opt_rounding(&self) -> TOptRounding {
        match self.ack_filter.rounding {
            RoundingKind::Ceil => TOptRounding::Ceil,
            RoundingKind::Nearest => TOptRounding::Nearest,
        }
    }
}
