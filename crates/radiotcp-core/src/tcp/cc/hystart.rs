//! HyStart++ (RFC 9406), sans-IO: which slow-start growth applies to each ACK of the initial
//! slow start, and when to leave it for congestion avoidance. The sender owns cwnd and
//! ssthresh and feeds in the cumulative ACK, SND.NXT and the ACK's RTT sample.
//!
//! Rounds (§4.2): "Define windowEnd as a sequence number initialized to SND.NXT. When
//! windowEnd is ACKed, the current round ends and windowEnd is set to SND.NXT." Here
//! windowEnd is taken from the first ACK's SND.NXT (the end of the initial window), and a
//! round ends on the ACK whose cumulative ack reaches windowEnd (all data outstanding at the
//! round's start acknowledged); that ACK's sample belongs to the round it ends.

use crate::engine::{Time, NS_PER_MS};

/// RFC 9406 §4.3 constants ("It is RECOMMENDED that a HyStart++ implementation use the
/// following constants").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HyStartParams {
    pub min_rtt_thresh: Time,
    pub max_rtt_thresh: Time,
    pub min_rtt_divisor: u64,
    pub n_rtt_sample: u32,
    /// "MUST be at least 2".
    pub css_growth_divisor: u64,
    pub css_rounds: u32,
    /// L in segments: 8 for a non-paced sender, `u64::MAX` (infinity) for a paced one.
    pub l: u64,
}

impl Default for HyStartParams {
    fn default() -> Self {
        Self {
            min_rtt_thresh: 4 * NS_PER_MS,
            max_rtt_thresh: 16 * NS_PER_MS,
            min_rtt_divisor: 8,
            n_rtt_sample: 8,
            css_growth_divisor: 4,
            css_rounds: 5,
            l: 8,
        }
    }
}

impl HyStartParams {
    /// RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH)).
    pub fn rtt_thresh(&self, last_round_min_rtt: Time) -> Time {
        (last_round_min_rtt / self.min_rtt_divisor)
            .min(self.max_rtt_thresh)
            .max(self.min_rtt_thresh)
    }
}

/// How cwnd grows on this ACK (N = bytes it newly acknowledged); see `HyStart::cwnd_increase`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlowStartStep {
    /// Standard slow start with HyStart++: cwnd += min(N, L·SMSS).
    Normal,
    /// Conservative Slow Start: cwnd += min(N, L·SMSS) / CSS_GROWTH_DIVISOR.
    Conservative,
    /// CSS_ROUNDS rounds of CSS are over: set ssthresh = cwnd (no growth on this ACK).
    ExitToCongestionAvoidance,
    /// HyStart++ is over (exit, loss or timeout): plain RFC 5681 slow start, cwnd +=
    /// min(N, SMSS), up to ssthresh.
    Standard,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HyStartPhase {
    SlowStart,
    ConservativeSlowStart,
    /// Not running until `restart`.
    Done,
}

#[derive(Debug, Clone)]
pub struct HyStart {
    p: HyStartParams,
    phase: HyStartPhase,
    window_end: Option<u64>,
    /// None = infinity.
    last_round_min_rtt: Option<Time>,
    current_round_min_rtt: Option<Time>,
    rtt_sample_count: u32,
    css_baseline_min_rtt: Option<Time>,
    /// CSS rounds ended so far, the partial round CSS began in included.
    css_rounds: u32,
    rounds: u64,
}

impl HyStart {
    pub fn new(p: HyStartParams) -> Self {
        Self {
            p,
            phase: HyStartPhase::SlowStart,
            window_end: None,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            css_baseline_min_rtt: None,
            css_rounds: 0,
            rounds: 0,
        }
    }

    /// One ACK in slow start that newly acknowledged data: `ack` = its cumulative ack,
    /// `snd_nxt` = SND.NXT before this ACK clocks out new data, `rtt_sample` = its RTT sample
    /// if it gives one. The returned step is the growth for this ACK: as in §4.2's
    /// pseudocode the cwnd update comes first and the checks after, so a switch between
    /// slow start and CSS takes effect from the next ACK.
    pub fn on_ack(&mut self, ack: u64, snd_nxt: u64, rtt_sample: Option<Time>) -> SlowStartStep {
        let mut step = match self.phase {
            HyStartPhase::Done => return SlowStartStep::Standard,
            HyStartPhase::SlowStart => SlowStartStep::Normal,
            HyStartPhase::ConservativeSlowStart => SlowStartStep::Conservative,
        };
        let window_end = *self.window_end.get_or_insert(snd_nxt);
        if let Some(rtt) = rtt_sample {
            let cur = self.current_round_min_rtt.map_or(rtt, |m| m.min(rtt));
            self.current_round_min_rtt = Some(cur);
            self.rtt_sample_count += 1;
        }
        if self.rtt_sample_count >= self.p.n_rtt_sample {
            match (
                self.phase,
                self.current_round_min_rtt,
                self.last_round_min_rtt,
                self.css_baseline_min_rtt,
            ) {
                (HyStartPhase::SlowStart, Some(cur), Some(last), _)
                    if cur >= last + self.p.rtt_thresh(last) =>
                {
                    self.css_baseline_min_rtt = Some(cur);
                    self.phase = HyStartPhase::ConservativeSlowStart;
                    self.css_rounds = 0;
                }
                (HyStartPhase::ConservativeSlowStart, Some(cur), _, Some(baseline))
                    if cur < baseline =>
                {
                    // "resume slow start including HyStart++"
                    self.css_baseline_min_rtt = None;
                    self.phase = HyStartPhase::SlowStart;
                }
                _ => {}
            }
        }
        if ack >= window_end {
            // Start of the next round.
            self.rounds += 1;
            self.window_end = Some(snd_nxt);
            self.last_round_min_rtt = self.current_round_min_rtt.take();
            self.rtt_sample_count = 0;
            if self.phase == HyStartPhase::ConservativeSlowStart {
                self.css_rounds += 1;
                if self.css_rounds >= self.p.css_rounds {
                    self.phase = HyStartPhase::Done;
                    step = SlowStartStep::ExitToCongestionAvoidance;
                }
            }
        }
        step
    }

    /// L·SMSS, the most one ACK may add in slow start or (before the division) in CSS.
    pub fn growth_limit(&self, mss: u64) -> u64 {
        self.p.l.saturating_mul(mss)
    }

    /// Bytes to add to cwnd for `step` on an ACK that newly acknowledged `newly_acked`.
    pub fn cwnd_increase(&self, step: SlowStartStep, newly_acked: u64, mss: u64) -> u64 {
        let n = newly_acked.min(self.growth_limit(mss));
        match step {
            SlowStartStep::Normal => n,
            SlowStartStep::Conservative => n / self.p.css_growth_divisor,
            SlowStartStep::ExitToCongestionAvoidance => 0,
            SlowStartStep::Standard => newly_acked.min(mss),
        }
    }

    /// Loss (or ECN) in slow start or CSS. §4.2: "enter congestion avoidance by setting the
    /// ssthresh to the current cwnd"; the controller's own loss response (CUBIC §4.6, lower)
    /// sets ssthresh here. §4.3: HyStart++ "only for the initial slow start", so it is done.
    pub fn on_loss(&mut self) {
        self.phase = HyStartPhase::Done;
    }

    /// A timeout: the slow start that follows is a standard one (§4.3, as for a loss).
    pub fn on_rto(&mut self) {
        self.phase = HyStartPhase::Done;
    }

    /// Re-arms HyStart++ from scratch, e.g. for §4.3's "MAY use HyStart++ to grow the
    /// restart window [RFC5681] after a long idle period".
    pub fn restart(&mut self) {
        *self = Self::new(self.p);
    }

    pub fn phase(&self) -> HyStartPhase {
        self.phase
    }
    /// Rounds completed so far.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }
    pub fn last_round_min_rtt(&self) -> Option<Time> {
        self.last_round_min_rtt
    }
    pub fn css_baseline_min_rtt(&self) -> Option<Time> {
        self.css_baseline_min_rtt
    }
}

#[cfg(test)]
mod tests {
    use super::SlowStartStep::*;
    use super::*;
    use crate::engine::millis;

    const MSS: u64 = 1000;

    /// A slow-start sender acking one segment per ACK and sending two per ACK.
    struct Flow {
        una: u64,
        nxt: u64,
        cwnd: u64,
    }

    impl Flow {
        fn new() -> Self {
            Self {
                una: 0,
                nxt: 10 * MSS,
                cwnd: 10 * MSS,
            }
        }

        fn ack(&mut self, hs: &mut HyStart, rtt: Option<Time>) -> SlowStartStep {
            self.una += MSS;
            let step = hs.on_ack(self.una, self.nxt, rtt);
            self.cwnd += hs.cwnd_increase(step, MSS, MSS);
            self.nxt += 2 * MSS;
            step
        }

        /// ACKs until a round ends; the i-th ACK of the round carries `rtt(i)`.
        fn round(
            &mut self,
            hs: &mut HyStart,
            rtt: impl Fn(usize) -> Option<Time>,
        ) -> Vec<SlowStartStep> {
            let (start, mut steps) = (hs.rounds(), Vec::new());
            while hs.rounds() == start && steps.last() != Some(&Standard) {
                steps.push(self.ack(hs, rtt(steps.len())));
            }
            steps
        }
    }

    fn ms(x: f64) -> Option<Time> {
        Some(millis(x))
    }

    #[test]
    fn constant_rtt_stays_in_slow_start() {
        let mut hs = HyStart::new(HyStartParams::default());
        let mut f = Flow::new();
        for r in 0..12 {
            // ±3 ms of jitter on 100 ms stays inside RttThresh = 12.5 ms.
            let steps = f.round(&mut hs, |i| {
                ms(if (i + r) % 2 == 0 { 100.0 } else { 103.0 })
            });
            assert!(steps.iter().all(|&s| s == Normal), "round {r}");
        }
        assert_eq!(hs.phase(), HyStartPhase::SlowStart);
        assert_eq!(hs.last_round_min_rtt(), ms(100.0));
        assert!(f.cwnd > 1000 * MSS); // doubled per round
    }

    #[test]
    fn delay_increase_enters_css_then_exits_after_css_rounds() {
        let mut hs = HyStart::new(HyStartParams::default());
        let mut f = Flow::new();
        f.round(&mut hs, |_| ms(100.0));
        f.round(&mut hs, |_| ms(100.0));
        // 112 ms < 100 + 12.5: nothing.
        assert!(f.round(&mut hs, |_| ms(112.0)).iter().all(|&s| s == Normal));
        // lastRoundMinRTT is now 112 (RttThresh 14): 126 ms enters CSS at the 8th sample.
        let steps = f.round(&mut hs, |_| ms(126.0));
        assert_eq!(&steps[..8], &[Normal; 8]);
        assert!(steps[8..].iter().all(|&s| s == Conservative));
        assert_eq!(hs.css_baseline_min_rtt(), ms(126.0));
        // CSS growth: a quarter of min(N, L·SMSS).
        assert_eq!(hs.cwnd_increase(Conservative, 20 * MSS, MSS), 2 * MSS);
        assert_eq!(hs.cwnd_increase(Normal, 20 * MSS, MSS), 8 * MSS);
        let before = f.cwnd;
        assert_eq!(f.ack(&mut hs, ms(126.0)), Conservative);
        assert_eq!(f.cwnd, before + MSS / 4);
        // The partial round counted as the first; four more end CSS.
        for _ in 0..3 {
            let steps = f.round(&mut hs, |_| ms(130.0));
            assert!(steps.iter().all(|&s| s == Conservative));
        }
        let steps = f.round(&mut hs, |_| ms(130.0));
        let (last, rest) = steps.split_last().unwrap();
        assert!(rest.iter().all(|&s| s == Conservative));
        assert_eq!(
            (*last, hs.phase()),
            (ExitToCongestionAvoidance, HyStartPhase::Done)
        );
        assert_eq!(f.ack(&mut hs, ms(90.0)), Standard);
        assert_eq!(hs.cwnd_increase(Standard, 20 * MSS, MSS), MSS);
    }

    #[test]
    fn rtt_below_css_baseline_resumes_slow_start() {
        let mut hs = HyStart::new(HyStartParams::default());
        let mut f = Flow::new();
        f.round(&mut hs, |_| ms(100.0));
        f.round(&mut hs, |_| ms(100.0));
        f.round(&mut hs, |_| ms(115.0));
        assert_eq!(hs.phase(), HyStartPhase::ConservativeSlowStart);
        // A lower minimum counts once the round has N_RTT_SAMPLE samples.
        let steps = f.round(&mut hs, |_| ms(114.0));
        assert_eq!(&steps[..8], &[Conservative; 8]);
        assert!(steps[8..].iter().all(|&s| s == Normal));
        assert_eq!(
            (hs.phase(), hs.css_baseline_min_rtt()),
            (HyStartPhase::SlowStart, None)
        );
        // A later delay increase needs a fresh CSS_ROUNDS rounds.
        f.round(&mut hs, |_| ms(140.0));
        for _ in 0..4 {
            assert_eq!(hs.phase(), HyStartPhase::ConservativeSlowStart);
            f.round(&mut hs, |_| ms(140.0));
        }
        assert_eq!(hs.phase(), HyStartPhase::Done);
    }

    #[test]
    fn fewer_than_n_rtt_samples_decide_nothing() {
        let mut hs = HyStart::new(HyStartParams::default());
        let mut f = Flow::new();
        f.round(&mut hs, |_| ms(100.0));
        f.round(&mut hs, |_| ms(100.0));
        // Only 7 ACKs of the round give a sample (Karn, or one timed segment per RTT).
        for _ in 0..3 {
            let steps = f.round(&mut hs, |i| if i < 7 { ms(200.0) } else { None });
            assert!(steps.iter().all(|&s| s == Normal));
        }
        assert_eq!(hs.phase(), HyStartPhase::SlowStart);
        // A round without samples makes lastRoundMinRTT infinite: the next round can't exit.
        assert_eq!(hs.last_round_min_rtt(), ms(200.0));
        f.round(&mut hs, |_| None);
        assert_eq!(hs.last_round_min_rtt(), None);
        assert!(f.round(&mut hs, |_| ms(400.0)).iter().all(|&s| s == Normal));
    }

    #[test]
    fn rtt_thresh_is_clamped() {
        let p = HyStartParams::default();
        assert_eq!(p.rtt_thresh(millis(20.0)), millis(4.0));
        assert_eq!(p.rtt_thresh(millis(80.0)), millis(10.0));
        assert_eq!(p.rtt_thresh(millis(200.0)), millis(16.0));
        // Through the algorithm: the increase must reach lastRoundMinRTT + RttThresh.
        for (base, thresh) in [(20.0, 4.0), (80.0, 10.0), (200.0, 16.0)] {
            let mut hs = HyStart::new(p);
            let mut f = Flow::new();
            f.round(&mut hs, |_| ms(base));
            f.round(&mut hs, |_| ms(base));
            f.round(&mut hs, |_| ms(base + thresh - 0.001));
            assert_eq!(hs.phase(), HyStartPhase::SlowStart, "{base}");
            let b = hs.last_round_min_rtt().unwrap() as f64 / 1e6;
            f.round(&mut hs, |_| ms(b + p.rtt_thresh(millis(b)) as f64 / 1e6));
            assert_eq!(hs.phase(), HyStartPhase::ConservativeSlowStart, "{base}");
        }
    }

    #[test]
    fn loss_rto_and_restart() {
        let mut hs = HyStart::new(HyStartParams::default());
        let mut f = Flow::new();
        f.round(&mut hs, |_| ms(100.0));
        hs.on_loss();
        assert_eq!(f.ack(&mut hs, ms(100.0)), Standard);
        hs.restart();
        assert_eq!(f.ack(&mut hs, ms(100.0)), Normal);
        hs.on_rto();
        assert_eq!(hs.phase(), HyStartPhase::Done);
        // L: 8 segments unpaced, unbounded when paced.
        assert_eq!(hs.growth_limit(MSS), 8 * MSS);
        let paced = HyStart::new(HyStartParams {
            l: u64::MAX,
            ..HyStartParams::default()
        });
        assert_eq!(paced.cwnd_increase(Normal, 100 * MSS, MSS), 100 * MSS);
    }
}
