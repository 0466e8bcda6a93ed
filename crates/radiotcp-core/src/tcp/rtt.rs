//! The retransmission timeout estimator: RFC 6298 (SRTT, RTTVAR, the RTO with its bounds,
//! exponential backoff), or ns-2's tick-based version of the same (Jacobson/Karels as in
//! 4.3BSD-Reno), for the profiles that reproduce ns-2 (docs/models/tcp.md, "Profiles").

use crate::engine::Time;

/// How samples become an RTO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtoEstimator {
    /// RFC 6298 §2 in nanoseconds; G = the clock granularity.
    Rfc6298,
    /// ns-2 `TcpAgent::rtt_update` / `rtt_timeout` / `rtt_backoff`: a sample is the number of
    /// clock ticks (the granularity) between sending and the ACK, at least 1; SRTT is kept
    /// in ticks with 3 fraction bits and RTTVAR with 2; RTO = (SRTT + 4 RTTVAR) ticks, times
    /// the backoff multiplier, then raised to the minimum, cut to the maximum, and at least
    /// 2 ticks. A multiplier above 8 moves SRTT into RTTVAR and clears it.
    Ns2,
    /// Linux `tcp_rtt_estimator` / `__tcp_set_rto`: SRTT with gain 1/8; mdev with gain 1/4,
    /// or 1/32 when the sample is below SRTT; RTO = SRTT + rttvar, where rttvar is the largest
    /// 4·mdev seen in the current window of data, at least the minimum RTO, and decays a
    /// quarter of the way towards that largest value once per window. The minimum thus
    /// bounds the variance term, not the RTO.
    Linux,
}

/// ns-2's fixed-point widths (`T_SRTT_BITS`, `T_RTTVAR_BITS`) and `rttvar_exp_`.
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
const RTTVAR_EXP: u32 = 2;

#[derive(Debug, Clone)]
pub struct RttEstimator {
    kind: RtoEstimator,
    srtt: Option<Time>,
    rttvar: Time,
    /// Current RTO including backoff.
    rto: Time,
    /// Consecutive expiries without a valid RTT sample since (RFC 6298 §5.5, Karn).
    backoffs: u32,
    min_rto: Time,
    max_rto: Time,
    granularity: Time,
    /// ns-2: `t_srtt_` (ticks << 3), `t_rttvar_` (ticks << 2), `t_rtxcur_` (the RTO before
    /// backoff and bounds) and `t_backoff_`.
    ns2_srtt: i64,
    ns2_rttvar: i64,
    ns2_rtxcur: Time,
    ns2_backoff: u32,
    /// ns-2: the offset of the sender's tick grid (`boot_time_`), in [0, granularity).
    clock_phase: Time,
    /// Linux: `mdev_us` (4·mdev), `mdev_max_us`, `rttvar_us` and `rtt_seq`.
    lx_mdev: Time,
    lx_mdev_max: Time,
    lx_rttvar: Time,
    lx_rtt_seq: u64,
}

impl RttEstimator {
    pub fn new(
        kind: RtoEstimator,
        initial_rto: Time,
        min_rto: Time,
        max_rto: Time,
        granularity: Time,
    ) -> Self {
        Self {
            kind,
            srtt: None,
            rttvar: 0,
            rto: initial_rto,
            backoffs: 0,
            min_rto,
            max_rto,
            granularity,
            ns2_srtt: 0,
            ns2_rttvar: 0,
            ns2_rtxcur: initial_rto,
            ns2_backoff: 1,
            clock_phase: 0,
            lx_mdev: 0,
            lx_mdev_max: 0,
            lx_rttvar: 0,
            lx_rtt_seq: 0,
        }
    }

    /// ns-2's tick grid offset for this sender (see [`RtoEstimator::Ns2`]).
    pub fn set_clock_phase(&mut self, phase: Time) {
        self.clock_phase = phase % self.granularity.max(1);
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn rto(&self) -> Time {
        self.rto
    }

    /// Expiries since the last valid sample.
    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }

    /// A valid RTT measurement: the segment went out at `sent_at` and its ACK came at `now`.
    pub fn on_sample(&mut self, sent_at: Time, now: Time) {
        self.on_sample_at(sent_at, now, 0, 0);
    }

    /// [`Self::on_sample`] with the sender's SND.UNA and SND.NXT after the ACK, which the
    /// Linux estimator uses to act once per window of data. Always inlined, its one call per
    /// ACK of new data with it: out of line, the call and frame cost about as much as the
    /// RFC 6298 update itself.
    #[inline(always)]
    pub fn on_sample_at(&mut self, sent_at: Time, now: Time, snd_una: u64, snd_nxt: u64) {
        // A valid sample ends any backoff (RFC 6298 §5.7 and Karn; ns-2 `newack` sets
        // t_backoff_ = 1).
        self.backoffs = 0;
        match self.kind {
            RtoEstimator::Rfc6298 => self.rfc6298_sample(now - sent_at),
            RtoEstimator::Ns2 => self.ns2_sample(sent_at, now),
            RtoEstimator::Linux => self.linux_sample(now - sent_at, snd_una, snd_nxt),
        }
    }

    /// Linux `tcp_rtt_estimator` (net/ipv4/tcp_input.c) in ns, then `__tcp_set_rto` and
    /// `tcp_bound_rto` (at most the maximum RTO).
    fn linux_sample(&mut self, m: Time, snd_una: u64, snd_nxt: u64) {
        let m = m.max(1);
        match self.srtt {
            Some(srtt) => {
                // srtt += (m - srtt) / 8; the error's gain on mdev is 1/4, but only 1/32 when
                // the RTT fell (the "Eifel-like" damping that keeps the RTO from collapsing).
                let err = m as i64 - srtt as i64;
                self.srtt = Some((srtt as i64 + err / 8).max(1) as Time);
                let abs = err.unsigned_abs();
                let dev = self.lx_mdev as i64;
                let mut d = abs as i64 - dev / 4;
                if err < 0 && d > 0 {
                    d /= 8;
                }
                self.lx_mdev = (dev + d).max(0) as Time;
                if self.lx_mdev > self.lx_mdev_max {
                    self.lx_mdev_max = self.lx_mdev;
                    self.lx_rttvar = self.lx_rttvar.max(self.lx_mdev_max);
                }
                if snd_una > self.lx_rtt_seq {
                    // Once per window: rttvar decays towards the window's largest mdev.
                    if self.lx_mdev_max < self.lx_rttvar {
                        self.lx_rttvar -= (self.lx_rttvar - self.lx_mdev_max) / 4;
                    }
                    self.lx_rtt_seq = snd_nxt;
                    self.lx_mdev_max = self.min_rto;
                }
            }
            None => {
                // The first sample: mdev = m/2 (stored as 4·mdev = 2m), so RTO = 3·RTT at
                // least.
                self.srtt = Some(m);
                self.lx_mdev = 2 * m;
                self.lx_rttvar = self.lx_mdev.max(self.min_rto);
                self.lx_mdev_max = self.lx_rttvar;
                self.lx_rtt_seq = snd_nxt;
            }
        }
        self.rttvar = self.lx_rttvar / 4;
        let srtt = self.srtt.unwrap_or(m);
        self.rto = (srtt + self.lx_rttvar).min(self.max_rto);
    }

    fn rfc6298_sample(&mut self, sample: Time) {
        match self.srtt {
            None => {
                // RFC 6298 §2.2.
                self.srtt = Some(sample);
                self.rttvar = sample / 2;
            }
            Some(srtt) => {
                // RFC 6298 §2.3, beta = 1/4 then alpha = 1/8, in that order.
                let err = srtt.abs_diff(sample);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * srtt + sample) / 8);
            }
        }
        let srtt = self.srtt.unwrap_or(sample);
        let rto = srtt + self.granularity.max(4 * self.rttvar);
        // §2.4 lower bound, §2.5 upper bound.
        self.rto = rto.clamp(self.min_rto, self.max_rto);
    }

    /// ns-2 `rtt_update` without timestamps: the ticks the sender's clock advanced between
    /// the send and now, at least one. The clock's ticks fall at `clock_phase` + k·tick (ns-2
    /// draws `boot_time_` uniformly in one tick per connection).
    fn ns2_sample(&mut self, sent_at: Time, now: Time) {
        let tick = self.granularity.max(1);
        let ticks_at = |t: Time| ((t + self.clock_phase) / tick) as i64;
        let m = (ticks_at(now) - ticks_at(sent_at)).max(1);
        if self.ns2_srtt != 0 {
            // a1 = 7/8 a0 + 1/8 m; var1 = 3/4 var0 + 1/4 |m - a0|, in the scaled integers.
            let mut delta = m - (self.ns2_srtt >> SRTT_BITS);
            self.ns2_srtt += delta;
            if self.ns2_srtt <= 0 {
                self.ns2_srtt = 1;
            }
            delta = delta.abs() - (self.ns2_rttvar >> RTTVAR_BITS);
            self.ns2_rttvar += delta;
            if self.ns2_rttvar <= 0 {
                self.ns2_rttvar = 1;
            }
        } else {
            self.ns2_srtt = m << SRTT_BITS;
            self.ns2_rttvar = m << (RTTVAR_BITS - 1);
        }
        let ticks = ((self.ns2_rttvar << (RTTVAR_EXP + SRTT_BITS - RTTVAR_BITS)) + self.ns2_srtt)
            >> SRTT_BITS;
        self.ns2_rtxcur = ticks as Time * tick;
        self.ns2_backoff = 1;
        self.srtt = Some(((self.ns2_srtt as Time) * tick) >> SRTT_BITS);
        self.rttvar = ((self.ns2_rttvar as Time) * tick) >> RTTVAR_BITS;
        self.rto = self.ns2_timeout();
    }

    /// ns-2 `rtt_timeout` with `rfc2988_` (on from 2002): the current value raised to the
    /// minimum, times the backoff, cut to the maximum, and at least two ticks. The ns-2 of
    /// 1997-2000 had no minimum (the profile sets none), which makes the two orders agree.
    fn ns2_timeout(&self) -> Time {
        let tick = self.granularity.max(1);
        let t = (self.ns2_rtxcur.max(self.min_rto) * self.ns2_backoff as Time).min(self.max_rto);
        t.max(2 * tick)
    }

    /// The timer expired: double the RTO (RFC 6298 §5.5, bounded) or ns-2's multiplier (up to
    /// 64).
    pub fn on_expiry(&mut self) {
        self.backoffs += 1;
        match self.kind {
            // Linux `inet_csk_rto_backoff`: the same doubling, capped at TCP_RTO_MAX.
            RtoEstimator::Rfc6298 | RtoEstimator::Linux => {
                self.rto = (self.rto * 2).min(self.max_rto)
            }
            RtoEstimator::Ns2 => {
                // ns-2 `rtt_backoff`.
                if self.ns2_backoff < 64 {
                    self.ns2_backoff <<= 1;
                }
                if self.ns2_backoff > 8 {
                    // "If backed off this far, clobber the srtt value, storing it in the mean
                    // deviation instead."
                    self.ns2_rttvar += self.ns2_srtt >> SRTT_BITS;
                    self.ns2_srtt = 0;
                }
                self.rto = self.ns2_timeout();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::millis;

    fn ns2(initial_ms: f64, min_ms: f64, tick_ms: f64) -> RttEstimator {
        RttEstimator::new(
            RtoEstimator::Ns2,
            millis(initial_ms),
            millis(min_ms),
            millis(64_000.0),
            millis(tick_ms),
        )
    }

    #[test]
    fn ns2_first_sample_gives_srtt_plus_4_rttvar_in_ticks() {
        // A 330 ms RTT on a 100 ms tick, sent at 0: 3 ticks. SRTT = 3, RTTVAR = 1.5, RTO =
        // 3 + 4 * 1.5 = 9 ticks.
        let mut e = ns2(6000.0, 0.0, 100.0);
        assert_eq!(e.rto(), millis(6000.0));
        e.on_sample(0, millis(330.0));
        assert_eq!(e.rto(), millis(900.0));
        // The same RTT sent at 80 ms crosses 4 tick boundaries (100..400): m = 4.
        e.on_sample(millis(80.0), millis(410.0));
        // delta = 4 - 3 = 1: t_srtt = 24 + 1 = 25; |delta| - (6 >> 2) = 0: t_rttvar stays 6;
        // RTO = ((6 << 3) + 25) >> 3 = 73 >> 3 = 9 ticks.
        assert_eq!(e.rto(), millis(900.0));
    }

    #[test]
    fn ns2_rto_is_at_least_the_minimum_and_two_ticks_and_backs_off_to_64x() {
        let mut e = ns2(3000.0, 1000.0, 10.0);
        e.on_sample(0, millis(50.0));
        // 5 ticks: RTO = 5 + 4 * 2.5 = 15 ticks = 150 ms, raised to the 1 s minimum, which
        // then backs off (ns-2 with rfc2988_ raises before the backoff).
        assert_eq!(e.rto(), millis(1000.0));
        e.on_expiry();
        assert_eq!(e.rto(), millis(2000.0));
        // The grid offset by 5 ms ticks at 5, 15, ..., 55 ms. A 52 ms sample sent at 4 ms
        // crosses 6 of them (ns-2: int((tao + fmod(sendtime + boot_time_, tick)) / tick)
        // = int((52 + 9) / 10)): SRTT 6, RTTVAR 3, RTO 18 ticks. The same 52 ms sent at 6 ms
        // crosses only 15..55: 5 ticks.
        let mut e = ns2(3000.0, 0.0, 10.0);
        e.set_clock_phase(millis(5.0));
        e.on_sample(millis(4.0), millis(56.0));
        assert_eq!(e.rto(), millis(180.0));
        let mut e = ns2(3000.0, 0.0, 10.0);
        e.set_clock_phase(millis(5.0));
        e.on_sample(millis(6.0), millis(58.0));
        assert_eq!(e.rto(), millis(150.0));
        let mut e = ns2(3000.0, 0.0, 10.0);
        e.on_sample(0, millis(1.0));
        // One tick at least: SRTT 1, RTTVAR 0.5 (t_rttvar = 2): RTO = (16 + 8) >> 3 = 3 ticks.
        assert_eq!(e.rto(), millis(30.0));
        for _ in 0..10 {
            e.on_expiry();
        }
        assert_eq!(e.backoffs(), 10);
        // After 4 doublings (x16 > 8) SRTT is folded into RTTVAR, but t_rtxcur_ stays until the
        // next sample: 30 ms x 64.
        assert_eq!(e.rto(), millis(30.0 * 64.0));
    }

    fn linux() -> RttEstimator {
        RttEstimator::new(
            RtoEstimator::Linux,
            millis(1000.0),
            millis(200.0),
            millis(120_000.0),
            millis(1.0),
        )
    }

    #[test]
    fn linux_rto_is_srtt_plus_a_variance_term_floored_at_the_minimum() {
        let mut e = linux();
        // First sample 100 ms: 4·mdev = 200 ms, which the 200 ms floor matches: RTO = 300 ms.
        e.on_sample_at(0, millis(100.0), 1000, 10_000);
        assert_eq!(e.rto(), millis(300.0));
        // A steady 100 ms path: mdev decays, but the variance term stays at the 200 ms floor
        // (RFC 6298 would fall to its 200 ms minimum RTO, Linux stays at SRTT + 200 ms).
        for k in 0..200u64 {
            let t = millis(1000.0 + 10.0 * k as f64);
            e.on_sample_at(t - millis(100.0), t, 20_000 + 1000 * k, 30_000 + 1000 * k);
        }
        assert_eq!(e.srtt(), Some(millis(100.0)));
        assert_eq!(e.rto(), millis(300.0));
        e.on_expiry();
        assert_eq!(e.rto(), millis(600.0));
    }

    #[test]
    fn linux_damps_the_variance_gain_when_the_rtt_falls() {
        // From SRTT 400 ms (4·mdev 800 ms), a 100 ms sample: the error 300 ms enters mdev at
        // 1/32 (Linux) rather than 1/4: 4·mdev = 800 + (300 - 200) / 8 = 812.5 ms.
        let mut e = linux();
        e.on_sample_at(0, millis(400.0), 1000, 10_000);
        e.on_sample_at(millis(500.0), millis(600.0), 1000, 10_000);
        // SRTT = 400 - 300 / 8 = 362.5 ms; rttvar holds the window's largest 4·mdev.
        assert_eq!(e.srtt(), Some(millis(362.5)));
        assert_eq!(e.rto(), millis(362.5) + millis(812.5));
    }
}
