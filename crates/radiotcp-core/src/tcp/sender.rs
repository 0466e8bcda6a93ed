//! TCP bulk sender, sans-IO: Reno/NewReno loss recovery, or SACK-based recovery (RFC 6675)
//! with optional Proportional Rate Reduction (RFC 6937); timestamps (RFC 7323) for RTTM.
//!
//! Neither entity owns a clock, a socket or a scheduler: handlers take `now` and update state,
//! [`TcpSender::poll_transmit`] hands out segments to put on the wire and `poll_timeout` tells
//! the caller when to call `handle_timeout`. Timers are deadlines kept as data, so nothing has to be
//! cancelled. Sequence numbers are 64-bit byte offsets starting at 0 (no SYN, no wrap-around):
//! the connection is taken as established when the flow starts, as in ns-2's one-way TCP.
//!
//! Specs: RFC 5681 (congestion control), RFC 6582 (NewReno), RFC 6298 (RTO), RFC 2018 and
//! RFC 6675 (SACK), RFC 6937 (PRR), RFC 7323 (timestamps), RFC 3042 (Limited Transmit);
//! model-specs §5.

use super::cc::{AckInfo, CcParams, CongestionControl};
use super::rtt::{RtoEstimator, RttEstimator};
use super::sack::Scoreboard;
use super::TcpVariant;
use crate::engine::{Time, NS_PER_MS};
use crate::headvec::HeadVec;
use crate::packet::TcpOpts;

/// A data segment the sender wants on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    /// The bytes were sent before (fast retransmit, partial ACK, or go-back-N after an RTO).
    pub retransmission: bool,
}

/// Sender parameters resolved from the configuration into ticks and bytes.
#[derive(Debug, Clone)]
pub struct SenderParams {
    pub variant: TcpVariant,
    /// Window growth and reduction (`tcp.congestion_control`, RFC 3465 byte counting).
    pub cc: CcParams,
    /// Send the timestamps option and take RTT samples from TSecr where the rules say so
    /// (RFC 7323).
    pub timestamps: bool,
    /// RFC 6937 Proportional Rate Reduction in SACK recovery (else cwnd = ssthresh there).
    pub prr: bool,
    pub mss: u32,
    pub initial_window: u64,
    pub initial_ssthresh: u64,
    pub initial_rto: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    pub granularity: Time,
    pub rto_estimator: RtoEstimator,
    /// Which ACKs give RTT samples (`tcp.rtt_sampling`).
    pub rtt_sampling: RttSampling,
    /// RFC 3042 Limited Transmit: a new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// Restart the retransmission timer when fast retransmit sends SND.UNA (ns-2's
    /// `dupack_action` calls `reset_rtx_timer`); RFC 6298 §5.1 leaves a running timer alone.
    pub restart_timer_on_fast_retransmit: bool,
    /// Reno: an RTO sets `recover` = HighTx and duplicate ACKs at or below it start no fast
    /// retransmit (ns-2 with `bugFix_`: go-back-N duplicates are not a new loss). NewReno always
    /// does this (RFC 6582 §3.2 step 4).
    pub reno_recover_after_rto: bool,
    /// Reno: a fast retransmit sets `recover` = HighTx and no second one starts until an ACK
    /// passes it (ns-2 with `bugFix_`); without it Reno may halve again in the same window.
    pub reno_one_recovery_per_window: bool,
    /// ssthresh on an expiry of a timer that had already backed off for the same segment:
    /// held (RFC 5681 §3.1 note, RFC 6298 §5.5) or recomputed from the window (ns-2's
    /// `slowdown()` on every timeout, which brings it to 2 segments).
    pub rto_ssthresh_every_expiry: bool,
    /// What a loss halves (`tcp.ssthresh_basis`).
    pub ssthresh_basis: SsthreshBasis,
    /// Duplicates whose fast retransmit the `recover` guard suppressed still inflate the
    /// window, by 3 segments at the third and one per further duplicate until a new ACK
    /// (ns-2 Reno up to 2.26: `dupwnd_` was set after `dupack_action()` either way).
    pub inflate_when_suppressed: bool,
    /// Offset of the tick grid of the ns-2 estimator (drawn per flow).
    pub clock_phase: Time,
    /// Open the connection with a SYN and send data only once its SYN-ACK is back (ns-2's
    /// `syn_`, any real stack); otherwise the connection exists from the start.
    pub syn: bool,
}

/// The opening handshake, seen from the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handshake {
    /// No SYN (the connection exists from the start), or the SYN-ACK came back.
    Established,
    /// A SYN is due (at the start, and after each expiry while it is unanswered).
    SynDue { retransmitted: bool },
    /// The SYN left at `at` and is unanswered.
    SynSent { at: Time, retransmitted: bool },
}

/// What ssthresh is computed from at a fast retransmit or an RTO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SsthreshBasis {
    /// RFC 5681 eq. (4): FlightSize / 2.
    FlightSize,
    /// ns-2 `slowdown()`: ⌊min(cwnd, receiver window) / 2⌋ in whole segments.
    Window,
    /// Linux (`tcp_reno_ssthresh`, `bictcp_recalc_ssthresh`): cwnd before the reduction,
    /// bounded by the receiver's window.
    Cwnd,
}

/// Which segments the sender times for RTT samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RttSampling {
    /// A sample from every ACK that covers new data (the newest segment it covers), as a stack
    /// with timestamps or one that times every segment (RFC 6298 §3 allows either).
    EveryAck,
    /// One segment timed at a time: the next new segment sent while none is timed, its sample
    /// taken when an ACK covers it (BSD and ns-2 without timestamps: one sample per RTT).
    TimedSegment,
    /// RFC 7323 §4.1 RTTM: every ACK of new data gives now − TSecr (1 ms clock), with no
    /// Karn exclusion (the echoed timestamp says which transmission it answers).
    Timestamps,
}

/// Counters kept by the sender for the whole run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub acks_received: u64,
    /// Congestion-window reductions: fast retransmits, and timeouts that found cwnd above
    /// one segment (a backed-off timeout does not reduce it again).
    pub cwnd_reductions: u64,
    /// RTT samples taken (valid under Karn's rule).
    pub rtt_samples: u64,
    /// Segments sent beyond cwnd by Limited Transmit (RFC 3042).
    pub limited_transmits: u64,
    /// SACK recovery: retransmissions of NextSeg's rule 4 (the rescue, RFC 6675 §4).
    pub rescue_retransmissions: u64,
    /// SYNs sent again after their timer expired.
    pub syn_retransmissions: u64,
}

/// What a retransmission timeout did, for observers (the spurious-timeout oracle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout {
    /// SND.UNA when the timer expired: the segment it retransmits.
    pub una: u64,
    /// cwnd fell (it was above one segment).
    pub cwnd_cut: bool,
}

/// One outstanding segment, for RTT sampling under Karn's rule.
#[derive(Debug, Clone, Copy)]
struct SentRecord {
    end: u64,
    sent_at: Time,
    retransmitted: bool,
}

/// The RTT records of the outstanding segments, oldest first, in order of their ends: a
/// vector read from a head index ([`HeadVec`]) rather than a `VecDeque`. Every ACK of new
/// data drops the records it covers (two with delayed ACKs) and every new segment appends
/// one; the ring's wrap-around arithmetic on each push and pop was most of their cost, where
/// a vector appends and an ACK moves one index. The spent front is reclaimed from 32 records,
/// so that small windows do not copy on every ACK.
type SentLog = HeadVec<SentRecord, 32>;

/// The state of SACK-based loss recovery (RFC 6675 §2 and §5; RFC 6937 §3).
#[derive(Debug, Clone, Default)]
struct SackState {
    sb: Scoreboard,
    /// HighRxt, one past the highest octet retransmitted in this recovery.
    high_rxt: u64,
    /// RescueRxt, one past the octet of the last rescue retransmission (`None`: undefined).
    rescue_rxt: Option<u64>,
    /// The next retransmission is the one that enters recovery (step 4.3).
    entering: bool,
    /// PRR: prr_delivered, prr_out and RecoverFS (octets).
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
}

/// A bulk ("FTP") sender that always has data.
#[derive(Debug, Clone)]
pub struct TcpSender {
    p: SenderParams,
    started: bool,
    /// SND.UNA: oldest unacknowledged byte.
    snd_una: u64,
    /// SND.NXT: next byte to send; below `high_tx` after an RTO (go-back-N).
    snd_nxt: u64,
    /// HighTx: one past the highest byte ever sent.
    high_tx: u64,
    cc: CongestionControl,
    /// Peer's advertised window.
    rwnd: u64,
    dupacks: u32,
    in_recovery: bool,
    /// NewReno `recover` (RFC 6582 §3.2): the highest sequence number sent when recovery or
    /// an RTO began, kept here as HighTx then (one past that byte); `None` before any (the
    /// RFC's "initialised to the ISN"). A full ACK has ack >= recover; a new fast retransmit
    /// needs the ACK to cover *more* than recover, i.e. ack > recover.
    recover: Option<u64>,
    /// RFC 6582 §3.2 step 5: only the first partial ACK restarts the timer.
    partial_ack_seen: bool,
    /// What set `recover` last: an RTO (true) or a fast retransmit.
    recover_set_by_rto: bool,
    /// A fast retransmit or partial-ACK retransmission of SND.UNA is due.
    retransmit_pending: bool,
    /// RFC 3042: segments beyond cwnd allowed by the first two duplicate ACKs, and the bytes
    /// sent that way since the last new ACK (left out of FlightSize when halving, RFC 5681
    /// §3.2 step 2).
    lt_allowance: u32,
    lt_bytes: u64,
    /// ns-2 (to 2.26): the `dupwnd_` opened by duplicates whose fast retransmit the `recover`
    /// guard suppressed (`SenderParams::inflate_when_suppressed`); 0 otherwise.
    dupwnd: u64,
    /// `RttSampling::TimedSegment`: end of the timed segment and when it was sent.
    timed: Option<(u64, Time)>,
    rtt: RttEstimator,
    rto_deadline: Option<Time>,
    sent: SentLog,
    /// Total bytes the application offers; `None` for an endless bulk transfer.
    app_limit: Option<u64>,
    /// SACK recovery (variant `Sack` only).
    sack: SackState,
    /// The RTT sample of the ACK being processed (for HyStart++).
    last_sample: Option<Time>,
    handshake: Handshake,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(p: SenderParams) -> Self {
        Self {
            cc: CongestionControl::new(&p.cc, p.mss as u64, p.initial_window, p.initial_ssthresh),
            rtt: {
                let mut e = RttEstimator::new(
                    p.rto_estimator,
                    p.initial_rto,
                    p.min_rto,
                    p.max_rto,
                    p.granularity,
                );
                e.set_clock_phase(p.clock_phase);
                e
            },
            rwnd: u64::MAX,
            started: false,
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            recover_set_by_rto: false,
            partial_ack_seen: false,
            retransmit_pending: false,
            lt_allowance: 0,
            lt_bytes: 0,
            dupwnd: 0,
            timed: None,
            rto_deadline: None,
            sent: SentLog::default(),
            app_limit: None,
            sack: SackState::default(),
            last_sample: None,
            handshake: Handshake::Established,
            stats: SenderStats::default(),
            p,
        }
    }

    fn sack_on(&self) -> bool {
        self.p.variant == TcpVariant::Sack
    }

    /// Octets SACKed above SND.UNA (0 without SACK).
    pub fn sacked_bytes(&self) -> u64 {
        self.sack.sb.sacked_bytes()
    }

    /// RFC 6675 `SetPipe()`: the octets the sender believes are in the network. Every
    /// unSACKed octet between SND.UNA and HighData counts once unless `IsLost` says it left
    /// the network, and once more if it was retransmitted (below HighRxt). Outside a SACK
    /// recovery HighRxt is SND.UNA, so this is the unSACKed octets not yet deemed lost.
    pub fn pipe(&self) -> u64 {
        let sb = &self.sack.sb;
        let una = self.snd_una;
        // Every SACKed octet lies in [SND.UNA, HighTx) (`Update()` clips the blocks to it and
        // SND.UNA trims them), so the SACKed octets above the lost point are the ones the
        // IsLost walk counted: the unSACKed ones there follow without a second walk.
        let (lost, sacked_above) = sb.lost_split(self.p.mss as u64);
        let lost = lost.max(una);
        let not_lost = (self.high_tx - lost) - sacked_above;
        debug_assert_eq!(
            not_lost,
            sb.unsacked_in(lost.min(self.high_tx), self.high_tx)
        );
        let rxt = if self.in_recovery {
            self.sack.high_rxt.clamp(una, self.high_tx)
        } else {
            una
        };
        let retransmitted = (rxt - una) - sb.sacked_below(rxt);
        debug_assert_eq!(retransmitted, sb.unsacked_in(una, rxt));
        not_lost + retransmitted
    }

    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    /// The window the sender may have outstanding: min(cwnd, the peer's advertised window).
    pub fn send_window(&self) -> u64 {
        (self.cwnd() + self.dupwnd).min(self.rwnd)
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn high_tx(&self) -> u64 {
        self.high_tx
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    pub fn rto(&self) -> Time {
        self.rtt.rto()
    }
    pub fn srtt(&self) -> Option<Time> {
        self.rtt.srtt()
    }
    pub fn mss(&self) -> u32 {
        self.p.mss
    }
    /// Bytes sent and not yet acknowledged in the current transmission round.
    pub fn flight_size(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Bytes the sender counts against cwnd when it sends new data outside recovery: the
    /// flight size, less what SACK blocks reported as received.
    pub fn in_flight(&self) -> u64 {
        if self.sack_on() {
            // SND.UNA <= SND.NXT, and nothing below SND.UNA is SACKed.
            let sb = &self.sack.sb;
            let n = (self.snd_nxt - self.snd_una) - sb.sacked_below(self.snd_nxt);
            debug_assert_eq!(n, sb.unsacked_in(self.snd_una, self.snd_nxt));
            n
        } else {
            self.flight_size()
        }
    }

    /// Make the transfer finite: the application offers `bytes` in all.
    pub fn set_app_limit(&mut self, bytes: u64) {
        self.app_limit = Some(bytes);
    }

    /// Everything the application offered has been acknowledged.
    pub fn is_done(&self) -> bool {
        self.app_limit.is_some_and(|l| self.snd_una >= l)
    }

    /// Length of the segment starting at `seq`: a full MSS except the last one of a finite
    /// transfer. Segment boundaries therefore never change between transmissions.
    fn seg_len(&self, seq: u64) -> u32 {
        match self.app_limit {
            Some(l) => (l.saturating_sub(seq)).min(self.p.mss as u64) as u32,
            None => self.p.mss,
        }
    }

    /// The application opens the connection; data may flow from now on.
    pub fn start(&mut self) {
        self.started = true;
        if self.p.syn {
            self.handshake = Handshake::SynDue {
                retransmitted: false,
            };
        }
    }

    /// The connection is open: data may flow (at once without a handshake).
    pub fn established(&self) -> bool {
        self.handshake == Handshake::Established
    }

    /// Whether a SYN is to be put on the wire now (a header-only segment opening the
    /// connection). Its timer runs like a segment's: unanswered, it is sent again after the
    /// RTO, with backoff.
    pub fn poll_syn(&mut self, now: Time) -> bool {
        let Handshake::SynDue { retransmitted } = self.handshake else {
            return false;
        };
        if !self.started {
            return false;
        }
        self.handshake = Handshake::SynSent {
            at: now,
            retransmitted,
        };
        self.stats.segments_sent += 1;
        if retransmitted {
            self.stats.syn_retransmissions += 1;
            self.stats.retransmissions += 1;
        }
        self.rto_deadline = Some(now + self.rtt.rto());
        true
    }

    /// The SYN-ACK: the connection is open. Its round trip is the first RTT sample unless
    /// the SYN was sent twice (Karn; ns-2 times the SYN, Linux measures the SYN-ACK's RTT).
    fn on_syn_ack(&mut self, now: Time) {
        if let Handshake::SynSent { at, retransmitted } = self.handshake {
            self.handshake = Handshake::Established;
            if !retransmitted {
                self.stats.rtt_samples += 1;
                self.rtt.on_sample_at(at, now, 0, 0);
            }
            self.rto_deadline = None;
        }
    }

    /// Deadline of the retransmission timer, if running.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// Next segment to put on the wire, if the window allows one. Always inlined into the
    /// caller's drain loop, which calls it once per segment and once more per ACK.
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if !self.started || self.handshake != Handshake::Established {
            return None;
        }
        if self.sack_on() {
            let seg = self.next_sack_segment()?;
            self.record_sent(now, seg);
            return Some(seg);
        }
        let mss = self.p.mss as u64;
        let seg = if self.retransmit_pending {
            // RFC 5681 §3.2 step 2 / RFC 6582 §3.2 step 5: the retransmission of SND.UNA goes
            // out regardless of the window.
            self.retransmit_pending = false;
            Segment {
                seq: self.snd_una,
                len: self.seg_len(self.snd_una),
                retransmission: true,
            }
        } else {
            let len = self.seg_len(self.snd_nxt);
            let wnd = self.send_window();
            // Only full-sized segments (but the last): a bulk sender always has a full MSS to
            // send, and sending a runt would be silly-window behaviour (RFC 1122 §4.2.3.4).
            if len == 0 {
                return None;
            }
            if self.flight_size() + mss > wnd {
                // RFC 3042 §2: up to two new segments beyond cwnd (never beyond the
                // receiver's window), cwnd itself unchanged.
                let lt = self.cwnd() + self.lt_allowance as u64 * mss;
                let new_data = self.snd_nxt >= self.high_tx;
                if !(new_data && self.flight_size() + mss <= lt.min(self.rwnd)) {
                    return None;
                }
                self.lt_bytes += len as u64;
                self.stats.limited_transmits += 1;
            }
            let seg = Segment {
                seq: self.snd_nxt,
                len,
                retransmission: self.snd_nxt < self.high_tx,
            };
            self.snd_nxt += len as u64;
            seg
        };
        self.record_sent(now, seg);
        Some(seg)
    }

    /// Bookkeeping of a segment handed out: HighTx, the RTT records, counters, the timer.
    fn record_sent(&mut self, now: Time, seg: Segment) {
        let end = seg.seq + seg.len as u64;
        if end > self.high_tx {
            self.sent.push(SentRecord {
                end,
                sent_at: now,
                retransmitted: false,
            });
            self.high_tx = end;
            if self.p.rtt_sampling == RttSampling::TimedSegment && self.timed.is_none() {
                self.timed = Some((end, now));
            }
        } else {
            self.stats.retransmissions += 1;
        }
        self.stats.segments_sent += 1;
        // RFC 6298 §5.1: start the timer when a segment is sent and it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    /// The next segment of a SACK sender (RFC 6675): the retransmission that enters
    /// recovery; in recovery, NextSeg() while cwnd − pipe ≥ 1 SMSS (step C); otherwise new
    /// data, or after an RTO the unSACKed data from SND.NXT on (§5.1 "filling in"), while
    /// the octets in flight (SACKed ones have left the network) leave room in cwnd.
    /// Always inlined into [`Self::poll_transmit`], as it was before that was inlined into the
    /// drain loop: out of line, its call per poll cost more than it saved.
    #[inline(always)]
    fn next_sack_segment(&mut self) -> Option<Segment> {
        let mss = self.p.mss as u64;
        if self.retransmit_pending {
            // Step 4.3: the segment at HighACK goes out regardless of the window.
            self.retransmit_pending = false;
            let seq = self.snd_una;
            let len = self.rxt_len(seq);
            if len == 0 {
                return None;
            }
            let end = seq + len as u64;
            self.mark_retransmitted(seq);
            self.sack.high_rxt = self.sack.high_rxt.max(end);
            if std::mem::take(&mut self.sack.entering) {
                self.sack.rescue_rxt = Some(end);
            }
            self.sack.prr_out += len as u64;
            return Some(Segment {
                seq,
                len,
                retransmission: true,
            });
        }
        if self.in_recovery {
            if self.pipe() + mss > self.cwnd() {
                return None;
            }
            let seg = self.next_seg()?;
            self.sack.prr_out += seg.len as u64;
            return Some(seg);
        }
        // Outside recovery: skip what the receiver holds (only after an RTO can SND.NXT be
        // below HighTx).
        if self.snd_nxt < self.high_tx {
            self.snd_nxt = self.sack.sb.next_unsacked(self.snd_nxt);
        }
        let seq = self.snd_nxt;
        let len = if seq < self.high_tx {
            self.rxt_len(seq)
        } else {
            self.seg_len(seq)
        };
        if len == 0 {
            return None;
        }
        let in_flight = self.in_flight();
        let beyond_rwnd = seq + len as u64 - self.snd_una > self.rwnd;
        if in_flight + mss > self.cwnd() || beyond_rwnd {
            return None;
        }
        let retransmission = seq < self.high_tx;
        if retransmission {
            self.mark_retransmitted(seq);
        } else if self.dupacks > 0 {
            // New data clocked out by duplicates before recovery (RFC 6675 §5 step 3, the
            // SACK form of Limited Transmit): left out of FlightSize at the reduction.
            self.lt_bytes += len as u64;
            self.stats.limited_transmits += 1;
        }
        self.snd_nxt = seq + len as u64;
        Some(Segment {
            seq,
            len,
            retransmission,
        })
    }

    /// RFC 6675 §4 `NextSeg()` during recovery.
    fn next_seg(&mut self) -> Option<Segment> {
        let mss = self.p.mss as u64;
        let sb = &self.sack.sb;
        let high_sacked = sb.high_sacked().unwrap_or(self.snd_una);
        // The lowest unSACKed octet above HighRxt.
        let s2 = sb.next_unsacked(self.sack.high_rxt.max(self.snd_una));
        // Rule 1: it is below the highest SACKed octet and IsLost() holds for it.
        if s2 < high_sacked && s2 < sb.lost_below(mss) {
            return Some(self.retransmit_at(s2, true));
        }
        // Rule 2: new data, if the application and the receiver's window allow.
        let len = self.seg_len(self.high_tx);
        if len > 0 && self.high_tx + len as u64 - self.snd_una <= self.rwnd {
            let seq = self.high_tx;
            self.snd_nxt = seq + len as u64;
            return Some(Segment {
                seq,
                len,
                retransmission: false,
            });
        }
        // Rule 3: an unSACKed octet above HighRxt below the highest SACKed one, lost or not.
        if s2 < high_sacked {
            return Some(self.retransmit_at(s2, true));
        }
        // Rule 4: one rescue retransmission per recovery, of the segment holding the highest
        // outstanding unSACKed octet, when HighACK has passed RescueRxt (or it is undefined).
        if self.sack.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            let top = self.highest_unsacked()?;
            let seq = (top / mss * mss).max(self.snd_una);
            self.sack.rescue_rxt = Some(self.recover.unwrap_or(self.high_tx));
            self.stats.rescue_retransmissions += 1;
            return Some(self.retransmit_at(seq, false));
        }
        None
    }

    /// The highest outstanding octet not SACKed, if any.
    fn highest_unsacked(&self) -> Option<u64> {
        let sb = &self.sack.sb;
        let mut top = self.high_tx;
        for &(s, e) in sb.blocks().iter().rev() {
            if e < top {
                break;
            }
            top = s;
        }
        (top > self.snd_una).then(|| top - 1)
    }

    /// A retransmission of the segment at `seq` (up to the next SACKed octet); rules 1 and
    /// 3 move HighRxt (step C.2), the rescue does not.
    fn retransmit_at(&mut self, seq: u64, moves_high_rxt: bool) -> Segment {
        let len = self.rxt_len(seq);
        if moves_high_rxt {
            self.sack.high_rxt = self.sack.high_rxt.max(seq + len as u64);
        }
        self.mark_retransmitted(seq);
        Segment {
            seq,
            len,
            retransmission: true,
        }
    }

    /// Length of a retransmission at `seq`: its segment, cut where SACKed data begins.
    fn rxt_len(&self, seq: u64) -> u32 {
        let len = self.seg_len(seq) as u64;
        let stop = self.sack.sb.next_sacked_start(seq).unwrap_or(u64::MAX);
        len.min(stop.saturating_sub(seq))
            .min(self.high_tx.saturating_sub(seq)) as u32
    }

    /// Karn: the RTT record of the segment holding `seq` no longer times one transmission.
    fn mark_retransmitted(&mut self, seq: u64) {
        let live = self.sent.live_mut();
        let i = live.partition_point(|r| r.end <= seq);
        if let Some(r) = live.get_mut(i) {
            r.retransmitted = true;
        }
        if self.timed.is_some_and(|(end, _)| end > seq) {
            self.timed = None;
        }
    }

    /// An ACK arrived carrying cumulative acknowledgement `ack` and window `rwnd`, without
    /// options.
    pub fn on_ack(&mut self, now: Time, ack: u64, rwnd: u32) {
        self.on_ack_opts(now, ack, rwnd, &TcpOpts::default());
    }

    /// An ACK arrived with its options (SACK blocks, TSecr).
    pub fn on_ack_opts(&mut self, now: Time, ack: u64, rwnd: u32, opt: &TcpOpts) {
        self.stats.acks_received += 1;
        if self.handshake != Handshake::Established {
            // Before the SYN-ACK nothing else can be acknowledged; a repeated SYN-ACK after
            // it is an old duplicate.
            if opt.syn {
                self.rwnd = rwnd as u64;
                self.on_syn_ack(now);
            }
            return;
        }
        if opt.syn {
            return;
        }
        self.rwnd = rwnd as u64;
        if self.sack_on() {
            self.on_sack_ack(now, ack, opt);
            return;
        }
        // An ACK beyond anything sent cannot come from our receiver; clamp defensively.
        let ack = ack.min(self.high_tx);
        if ack > self.snd_una {
            let newly_acked = ack - self.snd_una;
            self.take_rtt_sample(now, ack, opt);
            self.snd_una = ack;
            // A retransmission of the old SND.UNA that has not gone out yet is moot now; the
            // partial-ACK path below asks for the new SND.UNA again.
            self.retransmit_pending = false;
            // After go-back-N the receiver may already hold data up to HighTx.
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            if self.in_recovery {
                if self.p.variant == TcpVariant::NewReno && self.recover.is_some_and(|r| ack < r) {
                    self.on_partial_ack(now, newly_acked);
                    return;
                }
                // Full ACK (NewReno) or first new ACK (Reno): deflate the window.
                self.cc.on_recovery_end();
                self.in_recovery = false;
            } else {
                self.grow(now, newly_acked);
            }
            self.dupacks = 0;
            self.lt_allowance = 0;
            self.lt_bytes = 0;
            self.dupwnd = 0;
            self.restart_or_stop_timer(now);
        } else if ack == self.snd_una && self.snd_una < self.high_tx {
            self.on_dupack(now, ack);
        }
        // ack < SND.UNA: an old ACK, reordered or duplicated in the network; ignored.
    }

    fn on_dupack(&mut self, now: Time, ack: u64) {
        self.dupacks += 1;
        if self.p.limited_transmit && !self.in_recovery && self.dupacks <= 2 {
            self.lt_allowance = self.dupacks;
        }
        // RFC 6582 §3.2 step 2: enter only if the cumulative ACK covers more than `recover`.
        // Duplicates of exactly HighTx-at-RTO come from go-back-N copies of data the receiver
        // already holds; they must not start a second, spurious recovery. Reno applies the
        // same guard when its profile asks for it (ns-2's `bugFix_`).
        let guarded = match self.p.variant {
            TcpVariant::NewReno | TcpVariant::Sack => true,
            TcpVariant::Reno if self.recover_set_by_rto => self.p.reno_recover_after_rto,
            TcpVariant::Reno => self.p.reno_one_recovery_per_window,
        };
        let mss = self.p.mss as u64;
        if !self.in_recovery && self.dupacks > 3 && self.dupwnd > 0 {
            // ns-2 before exitFastRetrans_: each further duplicate opens the window by one.
            self.dupwnd += mss;
            return;
        }
        if !self.in_recovery
            && self.dupacks == 3
            && guarded
            && self.recover.is_some_and(|r| ack <= r)
        {
            if self.p.inflate_when_suppressed {
                // ns-2 up to 2.26 set dupwnd_ = numdupacks_ after dupack_action() whether or
                // not it retransmitted (tcp-reno.cc; fixed by exitFastRetrans_ in 2003).
                self.dupwnd = 3 * mss;
            }
            return;
        }
        // RFC 5681 §3.2 step 2: segments sent by Limited Transmit stay out of FlightSize.
        let flight = self.reduction_basis(self.flight_size().saturating_sub(self.lt_bytes));
        if self
            .cc
            .on_dup_ack(now, self.dupacks, self.in_recovery, flight)
        {
            self.recover = Some(self.high_tx);
            self.recover_set_by_rto = false;
            self.in_recovery = true;
            self.partial_ack_seen = false;
            self.lt_allowance = 0;
            self.schedule_retransmit_una();
            self.stats.fast_retransmits += 1;
            self.stats.cwnd_reductions += 1;
            if self.p.restart_timer_on_fast_retransmit {
                self.rto_deadline = Some(now + self.rtt.rto());
            }
        }
    }

    /// Window growth for `acked` new octets outside recovery (after SND.UNA moved). Always
    /// inlined into the ACK handlers: out of line, its call and frame were a third of its
    /// instructions on the wired path.
    #[inline(always)]
    fn grow(&mut self, now: Time, acked: u64) {
        self.cc.on_ack(&AckInfo {
            now,
            acked,
            srtt: self.rtt.srtt(),
            rtt_sample: self.last_sample.take(),
            ack: self.snd_una,
            snd_nxt: self.snd_nxt,
        });
    }

    /// An ACK of a SACK sender (RFC 6675 §5; RFC 6937 §3 for PRR).
    fn on_sack_ack(&mut self, now: Time, ack: u64, opt: &TcpOpts) {
        let ack = ack.min(self.high_tx);
        let sacked_before = self.sack.sb.sacked_bytes();
        let una_before = self.snd_una;
        let advanced = ack > self.snd_una;
        if advanced {
            self.take_rtt_sample(now, ack, opt);
            self.snd_una = ack;
            self.sack.sb.advance(ack);
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
        }
        // Update(): the blocks are relative to the ACK's own number.
        let newly_sacked = self
            .sack
            .sb
            .update(self.snd_una, self.high_tx, opt.sack_blocks(ack));
        // RFC 6937: DeliveredData = change in SND.UNA + change in SACKed octets.
        let delivered =
            (self.snd_una - una_before + self.sack.sb.sacked_bytes()).saturating_sub(sacked_before);
        // RFC 6675 §2: a duplicate ACK carries SACK information that newly SACKs data. An ACK
        // without blocks at SND.UNA (the receiver re-acknowledging an old copy after
        // go-back-N: it holds nothing out of order) is not one; counting it would start a
        // spurious recovery at the RTO's RecoveryPoint.
        let outstanding = self.snd_una < self.high_tx;
        let dup = outstanding && newly_sacked > 0;
        if advanced {
            // §5: a cumulative ACK resets DupAcks.
            self.dupacks = 0;
            self.lt_bytes = 0;
            self.retransmit_pending = false;
        }
        if self.in_recovery {
            if self.recover.is_some_and(|r| ack >= r) {
                // (A) RecoveryPoint acknowledged: recovery ends, cwnd = ssthresh.
                self.cc.on_recovery_end();
                self.in_recovery = false;
            } else if self.p.prr {
                self.prr_update(delivered);
            }
        } else {
            if advanced {
                // Only what this ACK delivered: octets SACKed earlier were counted then, and
                // counting them again when the cumulative ACK passes them would make one ACK
                // after an RTO open cwnd by a whole window (Linux and ns-3 grow by the
                // newly delivered segments too).
                self.grow(now, delivered);
            }
            if dup {
                self.dupacks += 1;
                // §5.1: after an RTO no new recovery before HighACK reaches RecoveryPoint.
                let barred = self.recover_set_by_rto && self.recover.is_some_and(|r| ack < r);
                let lost = self.sack.sb.lost_below(self.p.mss as u64) > self.snd_una;
                if !barred && (self.dupacks >= super::sack::DUP_THRESH as u32 || lost) {
                    self.enter_sack_recovery(now, delivered);
                }
            }
        }
        if advanced || !outstanding {
            self.restart_or_stop_timer(now);
        }
    }

    /// RFC 6675 §5 step 4: RecoveryPoint = HighData, reduce, retransmit HighACK's segment.
    fn enter_sack_recovery(&mut self, now: Time, delivered: u64) {
        // Step 4.2: FlightSize without the segments sent on the duplicates (RFC 5681 §3.2).
        let flight =
            self.reduction_basis((self.high_tx - self.snd_una).saturating_sub(self.lt_bytes));
        self.lt_bytes = 0;
        self.recover = Some(self.high_tx);
        self.recover_set_by_rto = false;
        self.in_recovery = true;
        self.cc.enter_sack_recovery(now, flight);
        self.sack.high_rxt = self.snd_una;
        self.sack.rescue_rxt = None;
        self.sack.entering = true;
        self.sack.prr_delivered = 0;
        self.sack.prr_out = 0;
        self.sack.recover_fs = self.high_tx - self.snd_una;
        self.retransmit_pending = true;
        self.stats.fast_retransmits += 1;
        self.stats.cwnd_reductions += 1;
        if self.p.restart_timer_on_fast_retransmit {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        if self.p.prr {
            self.prr_update(delivered);
        }
    }

    /// RFC 6937 §3 on an ACK in recovery: the octets PRR lets go out now, as cwnd = pipe +
    /// sndcnt (as Linux's `tcp_cwnd_reduction`). Proportional while pipe > ssthresh, then the
    /// slow-start reduction bound (PRR-SSRB). The first retransmission goes regardless (it is
    /// sent before the window is consulted), as RFC 6937's forced fast retransmit.
    fn prr_update(&mut self, delivered: u64) {
        let mss = self.p.mss as u64;
        let st = &mut self.sack;
        st.prr_delivered += delivered;
        let ssthresh = self.cc.ssthresh();
        let pipe = self.pipe();
        let st = &self.sack;
        let sndcnt = if pipe > ssthresh {
            // CEIL(prr_delivered · ssthresh / RecoverFS) in whole segments, as Linux's
            // `tcp_cwnd_reduction` counts it: in octets the ceiling would round to an octet
            // and a segment would wait for the next ACK (RFC 6937's examples send one
            // segment per two delivered for a halving, which this reproduces).
            let segments = (st.prr_delivered * ssthresh).div_ceil(st.recover_fs.max(1) * mss);
            (segments * mss).saturating_sub(st.prr_out)
        } else {
            let limit = (st.prr_delivered.saturating_sub(st.prr_out)).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
        self.cc.set_cwnd(pipe + sndcnt);
    }

    /// The amount whose half becomes ssthresh: FlightSize, or ns-2's window in whole segments
    /// (its even part, so that the controller's half is ⌊w/2⌋ segments, as `slowdown()`'s
    /// integer `window()/2`).
    fn reduction_basis(&self, flight: u64) -> u64 {
        match self.p.ssthresh_basis {
            SsthreshBasis::FlightSize => flight,
            SsthreshBasis::Window => {
                // ns-2 `window()` = min(cwnd_, wnd_), where cwnd_ leaves out the fast-recovery
                // inflation (`dupwnd_`): in recovery it is the halved window, ssthresh.
                let mss = self.p.mss as u64;
                let cwnd = if self.in_recovery {
                    self.cc.ssthresh()
                } else {
                    self.cc.cwnd()
                };
                cwnd.min(self.rwnd) / mss / 2 * 2 * mss
            }
            SsthreshBasis::Cwnd => {
                let cwnd = if self.in_recovery && !self.sack_on() {
                    self.cc.ssthresh()
                } else {
                    self.cc.cwnd()
                };
                cwnd.min(self.rwnd)
            }
        }
    }

    /// RFC 6582 §3.2 step 5.
    fn on_partial_ack(&mut self, now: Time, newly_acked: u64) {
        self.schedule_retransmit_una();
        self.cc.on_partial_ack(newly_acked);
        if !self.partial_ack_seen {
            self.partial_ack_seen = true;
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    fn schedule_retransmit_una(&mut self) {
        self.retransmit_pending = true;
        // A retransmission ends the timing of a segment (4.4BSD `t_rtt = 0` at fast
        // retransmit, ns-2 `rtt_active_ = 0` in `reset_rtx_timer`): Karn's rule at its
        // simplest.
        self.timed = None;
        if let Some(first) = self.sent.live_mut().first_mut() {
            first.retransmitted = true;
        }
    }

    /// RFC 6298 §5.2/5.3: stop when everything is acknowledged, else restart with the RTO.
    fn restart_or_stop_timer(&mut self, now: Time) {
        self.rto_deadline = if self.snd_una < self.high_tx {
            Some(now + self.rtt.rto())
        } else {
            None
        };
    }

    /// Sample the RTT from the newest segment this ACK fully covers, unless the ACK covers any
    /// retransmitted segment (Karn's rule, RFC 6298 §3): an ACK that ends a recovery also
    /// covers the retransmitted hole, and timing it from an original sent RTTs earlier would
    /// inflate SRTT (Linux skips such ACKs the same way). One sample per ACK otherwise, as a
    /// stack without timestamps that times every segment; RFC 6298 §3 allows it.
    ///
    /// With `RttSampling::TimedSegment` only the ACK that covers the timed segment gives a
    /// sample; any retransmission or an RTO cancels the timing (ns-2 `rtt_active_ = 0`), and
    /// that is the whole Karn rule there. With timestamps, an ACK that covers a retransmission
    /// is timed from its TSecr instead of being skipped (RFC 7323 §4.1, Linux). With
    /// `RttSampling::Timestamps` every ACK of new data is timed from TSecr.
    /// Always inlined into the ACK handlers, its one caller each per ACK of new data: out of
    /// line it paid a call and a frame (a sixth of its instructions on the wired path).
    #[inline(always)]
    fn take_rtt_sample(&mut self, now: Time, ack: u64, opt: &TcpOpts) {
        self.last_sample = None;
        // RFC 7323 §4.1: the echoed timestamp times the transmission the receiver answered.
        let ts_sent = (self.p.timestamps && opt.ts).then(|| ts_sent_at(now, opt.ts_ecr));
        if self.p.rtt_sampling == RttSampling::Timestamps {
            let n = self.sent.live().iter().take_while(|r| r.end <= ack).count();
            self.sent.consume(n);
            if let Some(at) = ts_sent {
                self.stats.rtt_samples += 1;
                self.last_sample = Some(now - at);
                self.rtt.on_sample_at(at, now, ack, self.snd_nxt);
            }
            return;
        }
        let live = self.sent.live();
        let mut n = 0;
        let mut covers_retransmission = false;
        while n < live.len() && live[n].end <= ack {
            covers_retransmission |= live[n].retransmitted;
            n += 1;
        }
        if n == 0 {
            return;
        }
        let r = live[n - 1];
        self.sent.consume(n);
        let sent_at = match self.p.rtt_sampling {
            RttSampling::EveryAck | RttSampling::Timestamps => r.sent_at,
            RttSampling::TimedSegment => match self.timed {
                Some((end, at)) if end <= ack => {
                    self.timed = None;
                    at
                }
                _ => return,
            },
        };
        // ns-2 times one segment and cancels the timing at any retransmission, which is its
        // whole Karn rule: the sample stands even when the ACK also covers a repaired hole.
        if covers_retransmission && self.p.rtt_sampling != RttSampling::TimedSegment {
            // Karn, unless the echoed timestamp tells which transmission the ACK answers (as
            // Linux's `tcp_ack_update_rtt` falls back to TSecr).
            if let Some(at) = ts_sent {
                self.stats.rtt_samples += 1;
                self.last_sample = Some(now - at);
                self.rtt.on_sample_at(at, now, ack, self.snd_nxt);
            }
            return;
        }
        self.stats.rtt_samples += 1;
        self.last_sample = Some(now - sent_at);
        self.rtt.on_sample_at(sent_at, now, ack, self.snd_nxt);
    }

    /// Called at (or after) the deadline from `poll_timeout`. A deadline that has moved later
    /// makes this a no-op, so a stale wake-up is harmless.
    /// Returns what the expiry did, or `None` if nothing expired.
    pub fn handle_timeout(&mut self, now: Time) -> Option<Timeout> {
        match self.rto_deadline {
            Some(d) if d <= now => {}
            _ => return None,
        }
        if let Handshake::SynSent { .. } = self.handshake {
            // The SYN went unanswered: back off and send it again (RFC 6298 §5.5-5.6).
            self.rtt.on_expiry();
            self.handshake = Handshake::SynDue {
                retransmitted: true,
            };
            self.rto_deadline = None;
            return None;
        }
        self.stats.timeouts += 1;
        let una = self.snd_una;
        let first = self.rtt.backoffs() == 0;
        // A timeout in a SACK recovery keeps the reduction the recovery made: FlightSize then
        // includes what the recovery sent, and halving it again would raise ssthresh (Linux's
        // `tcp_enter_loss` recomputes ssthresh only outside Recovery; RFC 5681 §3.1 asks for
        // "no more than" FlightSize / 2).
        let recompute =
            (first || self.p.rto_ssthresh_every_expiry) && !(self.sack_on() && self.in_recovery);
        let flight = if self.sack_on() {
            self.high_tx - self.snd_una
        } else {
            self.flight_size()
        };
        let cwnd_cut = self.cc.on_rto(now, self.reduction_basis(flight), recompute);
        if cwnd_cut {
            self.stats.cwnd_reductions += 1;
        }
        // RFC 6582 §3.2 step 4 (RTO sets recover) and go-back-N from SND.UNA.
        self.recover = Some(self.high_tx);
        self.recover_set_by_rto = true;
        self.in_recovery = false;
        self.dupacks = 0;
        self.lt_allowance = 0;
        self.lt_bytes = 0;
        self.dupwnd = 0;
        self.timed = None;
        self.retransmit_pending = false;
        self.snd_nxt = self.snd_una;
        // SACK: the scoreboard is kept (the receiver never reneges here; Linux and ns-3 keep
        // it too, RFC 6675 §5.1 leaves the choice open) and go-back-N skips what it holds.
        self.sack.high_rxt = self.snd_una;
        self.sack.rescue_rxt = None;
        self.sack.entering = false;
        for r in self.sent.live_mut() {
            r.retransmitted = true;
        }
        // RFC 6298 §5.5-5.6: back off and restart.
        self.rtt.on_expiry();
        self.rto_deadline = Some(now + self.rtt.rto());
        Some(Timeout { una, cwnd_cut })
    }
}

/// A send time for the RTT sample of an ACK echoing `ts` (the sender's 1 ms timestamp clock,
/// RFC 7323 §5.4) that arrives at `now`; the 32-bit difference makes wrap-around harmless.
fn ts_sent_at(now: Time, ts: u32) -> Time {
    // The sample is the whole ticks between the two readings, as Linux's
    // `tcp_rtt_tsopt_us` takes it.
    let back = ((now / NS_PER_MS) as u32).wrapping_sub(ts) as u64;
    now.saturating_sub(back * NS_PER_MS)
}
