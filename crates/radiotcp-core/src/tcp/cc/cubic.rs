//! CUBIC window arithmetic (RFC 9438), sans-IO. The sender owns cwnd and ssthresh in bytes
//! and calls in on the events below; inside, windows are in segments (f64) as in the RFC
//! (W = bytes / SMSS, "segments_acked" = acked bytes / SMSS, §4.1) and times in seconds.
//!
//! Not here: slow start (the sender's, or HyStart++ in `hystart.rs`), fast recovery, and
//! the spurious-congestion undo of §4.9.

use crate::engine::{to_secs, Time};

/// The constants of RFC 9438 §4.1.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubicParams {
    /// C in segments / s³; §5.1: "C SHOULD be set to 0.4".
    pub c: f64,
    /// β_cubic; §4.6: "SHOULD be set to 0.7".
    pub beta: f64,
    /// Fast convergence (§4.7, a SHOULD; "SHOULD be disabled" for a lone flow).
    pub fast_convergence: bool,
    /// The Reno-friendly region (§4.3).
    pub reno_friendly: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        Self {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
        }
    }
}

impl CubicParams {
    /// α_cubic = 3 (1 − β) / (1 + β) (§4.3), ≈ 0.529 for β = 0.7.
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// What fixes W_max and K when the next congestion avoidance stage begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EpochOrigin {
    /// No congestion event yet: the first slow start ended by reaching ssthresh or by
    /// HyStart++ (§4.10): cwnd_prior = W_max = cwnd_epoch, K = 0.
    FirstSlowStart,
    /// A congestion event (§4.6): W_max from `on_congestion`, K from Figure 2.
    Congestion,
    /// A timeout (§4.8): W_max = cwnd_epoch, K = 0; cwnd_prior from `on_rto`.
    Timeout,
}

/// CUBIC state of one sender.
#[derive(Debug, Clone)]
pub struct Cubic {
    p: CubicParams,
    mss: u64,
    /// W_max (segments); 0 while undefined.
    w_max: f64,
    /// cwnd_prior (segments): cwnd when ssthresh was last set.
    cwnd_prior: f64,
    /// K (seconds); negative when cwnd_epoch > W_max (the curve starts past its plateau).
    k: f64,
    /// t_epoch: start of the current congestion avoidance stage; None until its first ACK.
    t_epoch: Option<Time>,
    cwnd_epoch: f64,
    /// W_est (segments), the Reno-friendly estimate.
    w_est: f64,
    origin: EpochOrigin,
    /// Sub-byte growth carried to the next ACK, valid while cwnd is still `last_cwnd`.
    frac: f64,
    last_cwnd: u64,
    last_event: Option<Time>,
}

impl Cubic {
    pub fn new(p: CubicParams, mss: u64) -> Self {
        Self {
            p,
            mss,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            t_epoch: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            origin: EpochOrigin::FirstSlowStart,
            frac: 0.0,
            last_cwnd: 0,
            last_event: None,
        }
    }

    /// W_cubic(t) = C (t − K)³ + W_max, in segments, t in seconds since t_epoch (Figure 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.p.c * d * d * d + self.w_max
    }

    /// Congestion avoidance on a new ACK that acknowledged `acked` bytes, outside recovery,
    /// with cwnd >= ssthresh; `rtt` is the smoothed RTT (§4.1.2: "RTT: Smoothed round-trip
    /// time in seconds, calculated as described in [RFC6298]"). Returns the new cwnd (bytes),
    /// never below `cwnd`. The first call after a congestion event, a timeout or the end of
    /// the first slow start begins the stage (t_epoch = now, cwnd_epoch = cwnd).
    pub fn cong_avoid(&mut self, cwnd: u64, acked: u64, now: Time, rtt: Time) -> u64 {
        if acked == 0 || cwnd == 0 {
            return cwnd;
        }
        let mss = self.mss as f64;
        if cwnd != self.last_cwnd {
            self.frac = 0.0; // the sender moved cwnd: the carried fraction is stale
        }
        let w = (cwnd as f64 + self.frac) / mss;
        let t_epoch = match self.t_epoch {
            Some(t) => t,
            None => self.start_epoch(w, now),
        };
        let t = to_secs(now.saturating_sub(t_epoch));
        let segments_acked = acked as f64 / mss;
        // §4.2: target = W_cubic(t + RTT) bounded to [cwnd, 1.5 cwnd].
        let target = self.w_cubic(t + to_secs(rtt)).clamp(w, 1.5 * w);
        // §4.4/§4.5: (target − cwnd)/cwnd per new ACK, scaled by the segments it acked.
        let mut next = w + (target - w) / w * segments_acked;
        if self.p.reno_friendly {
            // §4.3, Figure 4, with α_cubic → 1 once W_est >= cwnd_prior.
            let alpha = if self.w_est >= self.cwnd_prior {
                1.0
            } else {
                self.p.alpha()
            };
            self.w_est += alpha * segments_acked / w;
            if self.w_cubic(t) < self.w_est {
                next = next.max(self.w_est); // §4.2: "chooses the larger of the two values"
            }
        }
        let bytes = next * mss;
        let out = (bytes.floor() as u64).max(cwnd);
        self.frac = (bytes - out as f64).max(0.0);
        self.last_cwnd = out;
        out
    }

    /// §4.2, Figure 2, and the special origins of §4.8 and §4.10. Returns t_epoch.
    fn start_epoch(&mut self, w: f64, now: Time) -> Time {
        self.t_epoch = Some(now);
        self.cwnd_epoch = w;
        self.w_est = w; // §4.3: "W_est is set equal to cwnd_epoch"
        match self.origin {
            EpochOrigin::Congestion => self.k = ((self.w_max - w) / self.p.c).cbrt(),
            EpochOrigin::FirstSlowStart => {
                self.cwnd_prior = w;
                self.w_max = w;
                self.k = 0.0;
            }
            EpochOrigin::Timeout => {
                self.w_max = w;
                self.k = 0.0;
            }
        }
        now
    }

    /// A congestion event detected by duplicate ACKs / SACK (§4.6): updates W_max (§4.7),
    /// cwnd_prior and ends the stage. Returns ssthresh = max(β · `flight`, 2 SMSS) bytes
    /// (Figure 5 uses flight_size; pass cwnd instead for Linux's variant, which §4.6 allows
    /// only with cwnd validation). The sender sets cwnd (= ssthresh after recovery).
    pub fn on_congestion(&mut self, cwnd: u64, flight: u64, now: Time) -> u64 {
        let w = cwnd as f64 / self.mss as f64;
        self.w_max = if self.p.fast_convergence && w < self.w_max {
            w * (1.0 + self.p.beta) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        self.end_epoch(EpochOrigin::Congestion, now);
        self.ssthresh(flight)
    }

    /// A retransmission timeout (§4.8): ssthresh as in §4.6 (returned, bytes), cwnd_prior =
    /// `cwnd`, and the next stage starts with K = 0 and W_max = cwnd_epoch. The sender sets
    /// cwnd to the loss window. Call it when ssthresh is recomputed (not on backed-off
    /// expiries that hold it, which would record a one-segment cwnd_prior).
    pub fn on_rto(&mut self, cwnd: u64, flight: u64, now: Time) -> u64 {
        self.cwnd_prior = cwnd as f64 / self.mss as f64;
        self.end_epoch(EpochOrigin::Timeout, now);
        self.ssthresh(flight)
    }

    /// Moves t_epoch later by an application-limited (e.g. idle) `interval`: §4.2 "The
    /// elapsed time t in Figure 1 MUST NOT include periods during which cwnd has not been
    /// updated due to application-limited behavior".
    pub fn exclude_interval(&mut self, interval: Time) {
        if let Some(t) = self.t_epoch.as_mut() {
            *t += interval;
        }
    }

    fn end_epoch(&mut self, origin: EpochOrigin, now: Time) {
        self.t_epoch = None;
        self.origin = origin;
        self.last_event = Some(now);
    }

    fn ssthresh(&self, flight: u64) -> u64 {
        ((flight as f64 * self.p.beta) as u64).max(2 * self.mss)
    }

    pub fn params(&self) -> &CubicParams {
        &self.p
    }
    /// W_max in segments (0 before the first stage or congestion event).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    /// K in seconds for the current stage.
    pub fn k(&self) -> f64 {
        self.k
    }
    /// t_epoch, or None between a congestion event and the first ACK of the next stage.
    pub fn epoch_start(&self) -> Option<Time> {
        self.t_epoch
    }
    pub fn cwnd_epoch(&self) -> f64 {
        self.cwnd_epoch
    }
    pub fn cwnd_prior(&self) -> f64 {
        self.cwnd_prior
    }
    pub fn w_est(&self) -> f64 {
        self.w_est
    }
    /// When the last congestion event or timeout was signalled.
    pub fn last_event(&self) -> Option<Time> {
        self.last_event
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{millis, secs};

    const MSS: u64 = 1000;

    /// ACKs of one segment each, spaced RTT/cwnd apart (a full window per RTT), from `now`
    /// until `until`; calls `check(now, cwnd)` after each.
    fn run(
        c: &mut Cubic,
        mut cwnd: u64,
        mut now: Time,
        until: Time,
        rtt: Time,
        mut check: impl FnMut(&Cubic, Time, u64),
    ) -> (u64, Time) {
        while now < until {
            cwnd = c.cong_avoid(cwnd, MSS, now, rtt);
            check(c, now, cwnd);
            now += rtt * MSS / cwnd;
        }
        (cwnd, now)
    }

    fn seg(b: u64) -> f64 {
        b as f64 / MSS as f64
    }

    #[test]
    fn window_follows_the_cubic_curve() {
        let p = CubicParams {
            reno_friendly: false,
            ..CubicParams::default()
        };
        let mut c = Cubic::new(p, MSS);
        let ssthresh = c.on_congestion(100 * MSS, 100 * MSS, 0);
        assert_eq!(ssthresh, 70 * MSS);
        let (rtt, t0) = (millis(100.0), secs(1.0));
        let mut cwnd = ssthresh;
        cwnd = c.cong_avoid(cwnd, MSS, t0, rtt);
        assert_eq!(c.epoch_start(), Some(t0));
        assert!((c.k() - 75f64.cbrt()).abs() < 1e-12 && (c.k() - 4.2172).abs() < 1e-3);
        // cwnd relaxes toward W(t + RTT) with time constant RTT, so it runs ~ W(t + RTT) −
        // RTT·W'(t) = W(t) + O(RTT² W''/2): W'' = 6C(t − K) ≤ 10 seg/s² here, so 0.05 seg,
        // plus < 0.01 seg of per-ACK discretisation. 0.1 segment bounds it from below; it can
        // never pass W(t + RTT) (each ACK closes only a 1/cwnd share of the gap).
        let mut worst: f64 = 0.0;
        let (cwnd, now) = run(&mut c, cwnd, t0, t0 + secs(7.0), rtt, |c, now, cwnd| {
            let t = to_secs(now - t0);
            let w = seg(cwnd);
            assert!(
                w <= c.w_cubic(t + to_secs(rtt)) + 1e-6,
                "t {t}: {w} above W(t+RTT)"
            );
            worst = worst.max(c.w_cubic(t) - w);
        });
        assert!(worst < 0.1, "lags W(t) by {worst} segments");
        // Plateau: at t = K the window is W_max.
        let mut c2 = Cubic::new(p, MSS);
        c2.on_congestion(100 * MSS, 100 * MSS, 0);
        let w = c2.cong_avoid(70 * MSS, MSS, t0, rtt);
        let k = secs(c2.k());
        let (at_k, _) = run(&mut c2, w, t0, t0 + k, rtt, |_, _, _| {});
        assert!((seg(at_k) - 100.0).abs() < 0.1, "{at_k} at t = K");
        // Convex region, t ≈ 7 s: above W_max and on the curve (W(7) ≈ 108.6).
        let t = to_secs(now - t0);
        assert!(seg(cwnd) > 105.0 && (seg(cwnd) - c.w_cubic(t)).abs() < 0.1);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut c = Cubic::new(CubicParams::default(), MSS);
        c.on_congestion(100 * MSS, 100 * MSS, 0);
        assert_eq!(c.w_max(), 100.0);
        // Second event below the first W_max: W_max = cwnd (1 + β) / 2.
        c.on_congestion(90 * MSS, 90 * MSS, secs(5.0));
        assert!((c.w_max() - 76.5).abs() < 1e-9);
        assert_eq!(c.cwnd_prior(), 90.0);
        c.cong_avoid(63 * MSS, MSS, secs(6.0), millis(100.0));
        assert!((c.k() - ((76.5f64 - 63.0) / 0.4).cbrt()).abs() < 1e-9);
        // Above the old W_max, or with fast convergence off: W_max = cwnd.
        c.on_congestion(120 * MSS, 120 * MSS, secs(9.0));
        assert_eq!(c.w_max(), 120.0);
        let p = CubicParams {
            fast_convergence: false,
            ..CubicParams::default()
        };
        let mut c = Cubic::new(p, MSS);
        c.on_congestion(100 * MSS, 100 * MSS, 0);
        c.on_congestion(90 * MSS, 90 * MSS, secs(5.0));
        assert_eq!(c.w_max(), 90.0);
    }

    /// Rounds of one RTT each acknowledging a full window; (cwnd, W_est) at each round end.
    fn rounds(c: &mut Cubic, mut cwnd: u64, rtt: Time, n: usize) -> Vec<(u64, f64)> {
        let mut now = 0;
        let mut out = Vec::new();
        for _ in 0..n {
            let (full, rest) = (cwnd / MSS, cwnd % MSS);
            let step = rtt / (full + 1);
            for i in 0..=full {
                let acked = if i == full { rest } else { MSS };
                cwnd = c.cong_avoid(cwnd, acked, now, rtt);
                now += step;
            }
            out.push((cwnd, c.w_est()));
        }
        out
    }

    #[test]
    fn reno_friendly_region_tracks_w_est() {
        // Small W_max and a short RTT: Reno (α per RTT) outgrows the cubic curve (§4.3).
        let p = CubicParams::default();
        assert!((p.alpha() - 9.0 / 17.0).abs() < 1e-12);
        let mut c = Cubic::new(p, MSS);
        let ss = c.on_congestion(20 * MSS, 20 * MSS, 0);
        let rtt = millis(10.0);
        let after = rounds(&mut c, ss, rtt, 40);
        let mut prev = seg(ss);
        for (i, &(cwnd, w_est)) in after.iter().enumerate() {
            let (w, growth) = (seg(cwnd), seg(cwnd) - prev);
            prev = w;
            // cwnd is W_est (to the byte).
            assert!((w - w_est).abs() < 1e-3, "round {i}: {w} vs W_est {w_est}");
            if w < 19.4 {
                assert!(
                    (0.50..0.535).contains(&growth),
                    "round {i}: {growth}, α = 0.53"
                );
            } else if w > 20.6 {
                assert!((0.95..1.01).contains(&growth), "round {i}: {growth}, α = 1");
            }
        }
        // 40 rounds = 0.4 s: still far below on the concave curve (W_cubic(0.4) ≈ 16.5).
        assert!(c.w_cubic(0.4) < after.last().unwrap().1 - 15.0);
        // Without the region the window creeps along the concave curve instead.
        let p = CubicParams {
            reno_friendly: false,
            ..p
        };
        let mut c = Cubic::new(p, MSS);
        let ss = c.on_congestion(20 * MSS, 20 * MSS, 0);
        let cubic_only = rounds(&mut c, ss, rtt, 40);
        assert!(seg(cubic_only.last().unwrap().0) < 17.0 && seg(after.last().unwrap().0) > 35.0);
    }

    #[test]
    fn ssthresh_floor_and_growth_clamp() {
        let mut c = Cubic::new(CubicParams::default(), MSS);
        // β · flight_size (not cwnd), at least 2 SMSS.
        assert_eq!(c.on_congestion(100 * MSS, 80 * MSS, 0), 56 * MSS);
        assert_eq!(c.on_congestion(2 * MSS, 1500, 1), 2 * MSS);
        assert_eq!(c.on_rto(10 * MSS, 10 * MSS, 2), 7 * MSS);
        assert_eq!(c.on_rto(MSS, MSS, 3), 2 * MSS);
        // First stage after the timeout at 10 segments (K = 0); then a long gap puts
        // W_cubic(t + RTT) far above 1.5 cwnd: one RTT of ACKs grows cwnd by 50% at most.
        let rtt = millis(100.0);
        let cwnd = c.cong_avoid(10 * MSS, MSS, 0, rtt);
        assert!(c.w_cubic(20.1) > 1000.0);
        let mut w = cwnd;
        for i in 0..=cwnd / MSS {
            let acked = if i == cwnd / MSS { cwnd % MSS } else { MSS };
            w = c.cong_avoid(w, acked, secs(20.0), rtt);
        }
        assert!(w <= cwnd * 3 / 2 && w + 2 >= cwnd * 3 / 2, "{cwnd} -> {w}");
        // One ACK for a whole window: exactly +50%.
        let mut c = Cubic::new(CubicParams::default(), MSS);
        c.cong_avoid(10 * MSS, MSS, 0, rtt);
        assert_eq!(c.cong_avoid(10 * MSS, 10 * MSS, secs(20.0), rtt), 15 * MSS);
        // Above the curve the window holds (target = cwnd), it never shrinks.
        let mut c = Cubic::new(CubicParams::default(), MSS);
        c.on_congestion(100 * MSS, 100 * MSS, 0);
        c.cong_avoid(70 * MSS, MSS, 0, rtt);
        assert_eq!(c.cong_avoid(95 * MSS, MSS, millis(10.0), rtt), 95 * MSS);
    }

    #[test]
    fn epoch_restart_and_k_from_cwnd_epoch() {
        let rtt = millis(100.0);
        let mut c = Cubic::new(CubicParams::default(), MSS);
        // §4.10: no congestion event yet: K = 0, W_max = cwnd_prior = cwnd_epoch.
        c.cong_avoid(30 * MSS, MSS, secs(0.5), rtt);
        assert_eq!((c.k(), c.w_max(), c.cwnd_prior()), (0.0, 30.0, 30.0));
        // Congestion with a flight below cwnd: cwnd_epoch = 42 < β W_max, so K is from
        // Figure 2 with cwnd_epoch, not cbrt(W_max (1 − β) / C).
        let ss = c.on_congestion(100 * MSS, 60 * MSS, secs(0.9));
        assert_eq!((ss, c.epoch_start()), (42 * MSS, None));
        let w = c.cong_avoid(ss, MSS, secs(1.0), rtt);
        assert_eq!(c.epoch_start(), Some(secs(1.0)));
        assert!((c.k() - 145f64.cbrt()).abs() < 1e-9 && (c.w_cubic(0.0) - 42.0).abs() < 1e-9);
        assert!(w > 42 * MSS && seg(w) < c.w_cubic(0.1));
        // §4.8: after a timeout the next stage starts from its own cwnd with K = 0,
        // W_max = W_est = cwnd_epoch, and cwnd_prior = cwnd at the timeout.
        let ss = c.on_rto(50 * MSS, 50 * MSS, secs(3.0));
        assert_eq!(
            (ss, c.epoch_start(), c.cwnd_prior()),
            (35 * MSS, None, 50.0)
        );
        let (w, _) = run(&mut c, ss, secs(4.0), secs(4.0) + 1, rtt, |_, _, _| {});
        assert_eq!(c.epoch_start(), Some(secs(4.0)));
        assert_eq!((c.k(), c.w_max(), c.cwnd_epoch()), (0.0, 35.0, 35.0));
        assert!(seg(w) - 35.0 < 0.05);
        // Convex from the start: one second later W_cubic(1) = 35.4, W_est ~ 35 + 10 α.
        let (w, _) = run(&mut c, w, secs(4.0) + 1, secs(5.0), rtt, |_, _, _| {});
        assert!((seg(w) - c.w_est()).abs() < 1e-3 && (40.0..41.0).contains(&seg(w)));
        // An idle second excluded from t: the curve is evaluated as if it had not passed.
        let k_before = c.epoch_start().unwrap();
        c.exclude_interval(secs(1.0));
        assert_eq!(c.epoch_start(), Some(k_before + secs(1.0)));
    }
}
