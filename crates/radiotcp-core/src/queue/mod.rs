//! Queue disciplines for the per-user downlink buffer at the RLC (model-specs §6).
//!
//! The buffer itself is the RLC transmitter's SDU list (an SDU stays until fully
//! acknowledged); a discipline only decides. It is told of every arrival with the current
//! buffer occupancy (BO, in SDUs) and answers with a [`Verdict`]; disciplines that act when an
//! SDU leaves the queue (CoDel's sojourn time) or drop a queued SDU (Slope Based Discard drops
//! the first SDU whose transmission has not started) use the same verdicts. Every drop carries
//! a reason, counted per reason in the results.
//!
//! Drop-tail, RED (instantaneous) and Slope Based Discard so far; CoDel and PIE plug in as
//! further variants (enum dispatch, no allocation per decision).

use crate::engine::{RngStream, Time, NS_PER_S};

/// Why the buffer refused or removed an SDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BufferDrop {
    /// The buffer held `limit_sdus` SDUs.
    BufferFull,
    /// RED's random early drop (min_th <= BO < max_th).
    RedEarly,
    /// RED's forced drop (BO >= max_th).
    RedForced,
    /// Slope Based Discard: the filling rate exceeded the critical rate.
    Sbd,
    /// CoDel: dropped at dequeue (transmission start) in the dropping state.
    Codel,
    /// PIE: random early drop on arrival.
    Pie,
}

impl BufferDrop {
    pub const ALL: [BufferDrop; 6] = [
        BufferDrop::BufferFull,
        BufferDrop::RedEarly,
        BufferDrop::RedForced,
        BufferDrop::Sbd,
        BufferDrop::Codel,
        BufferDrop::Pie,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BufferDrop::BufferFull => "buffer_full",
            BufferDrop::RedEarly => "red_early",
            BufferDrop::RedForced => "red_forced",
            BufferDrop::Sbd => "sbd",
            BufferDrop::Codel => "codel",
            BufferDrop::Pie => "pie",
        }
    }
}

/// What to do with an arriving SDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Admit,
    /// Drop the arriving SDU.
    Drop(BufferDrop),
    /// Admit it and drop the first queued SDU whose transmission has not started (SBD's
    /// choice, which spares the SDUs the RLC has already put on the air).
    AdmitDropFirstUnsent(BufferDrop),
}

/// RED on the instantaneous occupancy (w_q = 1) with the count-based correction
/// (model-specs §6.1; Floyd & Jacobson 1993).
#[derive(Debug, Clone)]
pub struct Red {
    min_th: f64,
    max_th: f64,
    max_p: f64,
    /// Arrivals since the last drop while in [min_th, max_th); -1 when inactive.
    count: i64,
    rng: RngStream,
}

impl Red {
    pub fn new(min_th: f64, max_th: f64, max_p: f64, rng: RngStream) -> Self {
        Self {
            min_th,
            max_th,
            max_p,
            count: -1,
            rng,
        }
    }

    /// The drop probability p_a for an arrival that finds `q` SDUs, updating `count`.
    pub fn drop_probability(&mut self, q: f64) -> f64 {
        if q < self.min_th {
            self.count = -1;
            return 0.0;
        }
        if q >= self.max_th {
            return 1.0;
        }
        self.count += 1;
        let p_b = self.max_p * (q - self.min_th) / (self.max_th - self.min_th);
        let c = self.count as f64;
        if c * p_b >= 1.0 {
            1.0
        } else {
            p_b / (1.0 - c * p_b)
        }
    }

    fn on_arrival(&mut self, q: f64) -> Verdict {
        let forced = q >= self.max_th;
        let p_a = self.drop_probability(q);
        if p_a > 0.0 && (p_a >= 1.0 || self.rng.uniform() < p_a) {
            self.count = 0;
            Verdict::Drop(if forced {
                BufferDrop::RedForced
            } else {
                BufferDrop::RedEarly
            })
        } else {
            Verdict::Admit
        }
    }
}

/// Slope Based Discard (Alcaraz & Cerdan, IWCMC 2006, §4 and Fig. 5). Occupancies in bits.
#[derive(Debug, Clone)]
pub struct Sbd {
    minth: f64,
    maxth: f64,
    t_r: Time,
    alpha: f64,
    /// TTI to which timer expiries are rounded up, if synchronised.
    tti: Option<Time>,
    /// Timer C_n running: (expiry, th_n).
    c_n: Option<(Time, f64)>,
    /// Monitoring deactivated until this instant after a drop.
    t_r_until: Option<Time>,
}

impl Sbd {
    pub fn new(
        minth_bits: f64,
        maxth_bits: f64,
        t_r: Time,
        alpha_bits: f64,
        tti: Option<Time>,
    ) -> Self {
        Self {
            minth: minth_bits,
            maxth: maxth_bits,
            t_r,
            alpha: alpha_bits,
            tti,
            c_n: None,
            t_r_until: None,
        }
    }

    fn on_grid(&self, t: Time) -> Time {
        match self.tti {
            Some(tti) if tti > 0 => t.div_ceil(tti) * tti,
            _ => t,
        }
    }

    /// The critical rate for threshold `th`, r_c = (maxth - th_n) / T_r (eq. 1), bits/s.
    pub fn critical_rate(&self, th: f64) -> f64 {
        (self.maxth - th) / (self.t_r as f64 / NS_PER_S as f64)
    }

    /// "if BO >= minth - alpha: th_n = BO + alpha, C_n = alpha / r_c, start timer C_n".
    fn arm(&mut self, at: Time, bo: f64) {
        if bo < self.minth - self.alpha {
            self.c_n = None;
            return;
        }
        let th = bo + self.alpha;
        let r_c = self.critical_rate(th);
        let expiry = if r_c > 0.0 {
            at + ((self.alpha / r_c) * NS_PER_S as f64).ceil() as Time
        } else {
            // Past maxth every filling is too fast: stay armed until th_n is reached.
            Time::MAX
        };
        self.c_n = Some((self.on_grid(expiry).max(at + 1), th));
    }

    /// Process timer expiries up to `now`; `bo` has been constant since the last call.
    pub fn advance(&mut self, now: Time, bo: f64) {
        loop {
            if let Some(t) = self.t_r_until {
                if t <= now {
                    self.t_r_until = None;
                    self.arm(t, bo);
                    continue;
                }
                return;
            }
            match self.c_n {
                Some((t, _)) if t <= now => self.arm(t, bo),
                _ => return,
            }
        }
    }

    /// An SDU arrived; `bo` includes it (Fig. 5: "update BO").
    fn on_arrival(&mut self, now: Time, bo: f64) -> Verdict {
        if self.t_r_until.is_some() {
            return Verdict::Admit;
        }
        match self.c_n {
            Some((_, th)) if bo >= th => {
                self.c_n = None;
                self.t_r_until = Some(self.on_grid(now + self.t_r));
                Verdict::AdmitDropFirstUnsent(BufferDrop::Sbd)
            }
            Some(_) => Verdict::Admit,
            None => {
                self.arm(now, bo);
                Verdict::Admit
            }
        }
    }

    pub fn monitoring(&self) -> bool {
        self.t_r_until.is_none()
    }
}

/// CoDel (RFC 8289), acting when an SDU's transmission starts (its dequeue from the RLC
/// buffer): the sojourn time must stay above `target` for `interval` before the first drop,
/// then drops are spaced by interval / sqrt(count) (model-specs §6.2).
#[derive(Debug, Clone)]
pub struct Codel {
    target: Time,
    interval: Time,
    mtu: u64,
    first_above_time: Option<Time>,
    dropping: bool,
    drop_next: Time,
    count: u32,
    lastcount: u32,
}

impl Codel {
    pub fn new(target: Time, interval: Time, mtu_bytes: u64) -> Self {
        Self {
            target,
            interval,
            mtu: mtu_bytes,
            first_above_time: None,
            dropping: false,
            drop_next: 0,
            count: 0,
            lastcount: 0,
        }
    }

    /// RFC 8289 control law: t + interval / sqrt(count).
    fn control_law(&self, t: Time, count: u32) -> Time {
        t + (self.interval as f64 / (count.max(1) as f64).sqrt()) as Time
    }

    /// RFC 8289 `dodequeue`'s ok_to_drop: sojourn above target (and more than one MTU
    /// queued) continuously for an interval.
    fn ok_to_drop(&mut self, now: Time, sojourn: Time, queued_bytes: u64) -> bool {
        if sojourn < self.target || queued_bytes <= self.mtu {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + self.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// The packet about to be sent waited `sojourn`; `queued_bytes` remain behind it. True:
    /// drop it (and the caller asks again for the next one, which is RFC 8289's loop).
    pub fn on_dequeue(&mut self, now: Time, sojourn: Time, queued_bytes: u64) -> bool {
        let ok = self.ok_to_drop(now, sojourn, queued_bytes);
        if self.dropping {
            if !ok {
                self.dropping = false;
                return false;
            }
            if now >= self.drop_next {
                self.count += 1;
                self.drop_next = self.control_law(self.drop_next, self.count);
                return true;
            }
            return false;
        }
        if !ok {
            return false;
        }
        // Enter the dropping state, reusing the recent count if the last episode was recent.
        self.dropping = true;
        let delta = self.count.saturating_sub(self.lastcount);
        self.count = if delta > 1 && now.saturating_sub(self.drop_next) < 16 * self.interval {
            delta
        } else {
            1
        };
        self.drop_next = self.control_law(now, self.count);
        self.lastcount = self.count;
        true
    }

    pub fn dropping(&self) -> bool {
        self.dropping
    }
}

/// PIE (RFC 8033; model-specs §6.3): a PI controller on the queueing delay sets the drop
/// probability every `t_update`; arrivals are dropped with that probability. The delay is
/// taken from timestamps: the sojourn of the last SDU whose transmission started.
#[derive(Debug, Clone)]
pub struct Pie {
    qdelay_ref: f64,
    t_update: Time,
    alpha: f64,
    beta: f64,
    max_burst: Time,
    p: f64,
    qdelay: f64,
    qdelay_old: f64,
    burst_allowance: Time,
    next_update: Time,
    rng: RngStream,
}

impl Pie {
    pub fn new(
        qdelay_ref: Time,
        t_update: Time,
        alpha: f64,
        beta: f64,
        max_burst: Time,
        rng: RngStream,
    ) -> Self {
        Self {
            qdelay_ref: qdelay_ref as f64 / NS_PER_S as f64,
            t_update,
            alpha,
            beta,
            max_burst,
            p: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            burst_allowance: max_burst,
            next_update: t_update,
            rng,
        }
    }

    pub fn probability(&self) -> f64 {
        self.p
    }

    /// One controller update (RFC 8033 §4.2, with auto-tuning, the 2% cap and decay).
    fn update(&mut self, queue_empty: bool) {
        if queue_empty {
            self.qdelay = 0.0;
        }
        let mut delta = self.alpha * (self.qdelay - self.qdelay_ref)
            + self.beta * (self.qdelay - self.qdelay_old);
        // Auto-tuning: small probabilities move in small steps.
        let scale = [
            (1e-6, 2048.0),
            (1e-5, 512.0),
            (1e-4, 128.0),
            (1e-3, 32.0),
            (1e-2, 8.0),
            (1e-1, 2.0),
        ]
        .iter()
        .find(|(bound, _)| self.p < *bound)
        .map_or(1.0, |(_, d)| *d);
        delta /= scale;
        if self.p >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        self.p = (self.p + delta).clamp(0.0, 1.0);
        if self.qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.p *= 0.98;
        }
        self.burst_allowance = self.burst_allowance.saturating_sub(self.t_update);
        if self.p == 0.0
            && self.qdelay < self.qdelay_ref / 2.0
            && self.qdelay_old < self.qdelay_ref / 2.0
        {
            self.burst_allowance = self.max_burst;
        }
        self.qdelay_old = self.qdelay;
    }

    /// Run the updates due up to `now`.
    pub fn advance(&mut self, now: Time, queue_empty: bool) {
        while self.next_update <= now {
            self.update(queue_empty);
            self.next_update += self.t_update;
        }
    }

    pub fn on_dequeue(&mut self, sojourn: Time) {
        self.qdelay = sojourn as f64 / NS_PER_S as f64;
    }

    /// RFC 8033 §4.1 drop_early, with its safeguards.
    fn on_arrival(&mut self, bo_sdus: usize) -> Verdict {
        if self.burst_allowance > 0
            || (self.qdelay_old < self.qdelay_ref / 2.0 && self.p < 0.2)
            || bo_sdus <= 2
        {
            return Verdict::Admit;
        }
        if self.rng.uniform() < self.p {
            Verdict::Drop(BufferDrop::Pie)
        } else {
            Verdict::Admit
        }
    }
}

/// The active queue management on top of the hard limit.
#[derive(Debug, Clone)]
pub enum Aqm {
    DropTail,
    Red(Red),
    Sbd(Sbd),
    Codel(Codel),
    Pie(Pie),
}

/// The discipline of one per-user buffer: a hard limit in SDUs plus an optional AQM.
#[derive(Debug, Clone)]
pub struct BufferDiscipline {
    limit: usize,
    kind: Aqm,
}

impl BufferDiscipline {
    /// A hard limit of `limit` SDUs plus `aqm`.
    pub fn new(limit: usize, aqm: Aqm) -> Self {
        Self { limit, kind: aqm }
    }

    pub fn drop_tail(limit: usize) -> Self {
        Self {
            limit,
            kind: Aqm::DropTail,
        }
    }

    /// Let time pass up to `now`; `bo_bits` is the occupancy since the last call. Call it
    /// before every change of the occupancy (arrival, release, discard).
    pub fn advance(&mut self, now: Time, bo_bits: f64) {
        match &mut self.kind {
            Aqm::Sbd(s) => s.advance(now, bo_bits),
            Aqm::Pie(p) => p.advance(now, bo_bits == 0.0),
            _ => {}
        }
    }

    /// An SDU of `size_bits` arrives at `now` and finds `bo_sdus` SDUs (`bo_bits` bits).
    pub fn on_arrival(
        &mut self,
        now: Time,
        bo_sdus: usize,
        bo_bits: f64,
        size_bits: f64,
    ) -> Verdict {
        if bo_sdus >= self.limit {
            return Verdict::Drop(BufferDrop::BufferFull);
        }
        match &mut self.kind {
            Aqm::DropTail => Verdict::Admit,
            Aqm::Red(r) => r.on_arrival(bo_sdus as f64),
            Aqm::Sbd(s) => s.on_arrival(now, bo_bits + size_bits),
            Aqm::Codel(_) => Verdict::Admit,
            Aqm::Pie(p) => p.on_arrival(bo_sdus),
        }
    }

    /// An SDU's transmission is about to start after `sojourn` in the buffer, with
    /// `queued_bytes` unsent behind it: drop it instead? (CoDel; others never.)
    pub fn on_dequeue(
        &mut self,
        now: Time,
        sojourn: Time,
        queued_bytes: u64,
    ) -> Option<BufferDrop> {
        match &mut self.kind {
            Aqm::Codel(c) => c
                .on_dequeue(now, sojourn, queued_bytes)
                .then_some(BufferDrop::Codel),
            Aqm::Pie(p) => {
                p.on_dequeue(sojourn);
                None
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::millis;

    const SDU: f64 = 12_000.0; // bits of a 1500-byte SDU

    fn sbd() -> Sbd {
        // The SBD paper's set-up: maxth 40 SDUs, minth 25, T_r 350 ms, alpha 5 SDUs.
        Sbd::new(25.0 * SDU, 40.0 * SDU, millis(350.0), 5.0 * SDU, None)
    }

    /// Feed SDU arrivals every `gap` from occupancy `bo0` (no departures, a drop removes one
    /// queued SDU) until `until`; returns the drop times.
    fn feed(s: &mut Sbd, bo0: f64, gap: Time, until: Time) -> Vec<Time> {
        let (mut bo, mut t, mut drops) = (bo0, 0, Vec::new());
        while t <= until {
            s.advance(t, bo);
            bo += SDU;
            if let Verdict::AdmitDropFirstUnsent(BufferDrop::Sbd) = s.on_arrival(t, bo) {
                drops.push(t);
                bo -= SDU;
            }
            t += gap;
        }
        drops
    }

    #[test]
    fn sbd_drops_when_filling_faster_than_the_critical_rate() {
        // First arrival at BO = 24 SDUs (>= minth - alpha = 20): th_n = 24 + 5 = 29 SDUs...
        // with the arriving SDU counted, BO = 25 at arming, so th_n = 30 SDUs.
        let s0 = sbd();
        let th = 30.0 * SDU;
        let r_c = s0.critical_rate(th); // (40 - 30) SDUs / 0.35 s
        let c_n = 5.0 * SDU / r_c; // seconds to add alpha at the critical rate
        assert!((c_n - 0.175).abs() < 1e-12);
        // alpha (5 SDUs) arrives in 0.9 C_n: th_n is reached first, one drop, at the 5th
        // arrival after arming.
        let fast = ((0.9 * c_n / 5.0) * 1e9) as Time;
        let mut s = sbd();
        let drops = feed(&mut s, 24.0 * SDU, fast, 5 * fast);
        assert_eq!(drops, vec![5 * fast]);
        assert!(!s.monitoring(), "a drop deactivates monitoring for T_r");
        // The same 5 SDUs spread over 1.1 C_n: C_n expires first, no drop.
        let slow = ((1.1 * c_n / 5.0) * 1e9) as Time;
        let mut s = sbd();
        assert!(feed(&mut s, 24.0 * SDU, slow, 5 * slow).is_empty());
        assert!(s.monitoring());
    }

    #[test]
    fn sbd_never_drops_within_t_r_of_a_drop() {
        let mut s = sbd();
        // A fast flood (an SDU every 5 ms) from minth for 3 s.
        let drops = feed(&mut s, 24.0 * SDU, millis(5.0), millis(3000.0));
        assert!(drops.len() >= 3, "{drops:?}");
        for w in drops.windows(2) {
            assert!(
                w[1] - w[0] >= millis(350.0),
                "drops at {} and {}",
                w[0],
                w[1]
            );
        }
    }

    #[test]
    fn sbd_timers_on_the_tti_grid() {
        let mut s = Sbd::new(
            25.0 * SDU,
            40.0 * SDU,
            millis(350.0),
            5.0 * SDU,
            Some(millis(10.0)),
        );
        s.advance(0, 0.0);
        s.on_arrival(millis(3.0), 25.0 * SDU);
        let (expiry, _) = s.c_n.unwrap();
        assert_eq!(
            expiry % millis(10.0),
            0,
            "C_n expiry {expiry} not on the TTI grid"
        );
        assert!(expiry >= millis(3.0) + millis(175.0));
    }

    #[test]
    fn sbd_below_minth_minus_alpha_does_not_monitor() {
        let mut s = sbd();
        assert_eq!(s.on_arrival(0, 15.0 * SDU), Verdict::Admit);
        assert!(s.c_n.is_none());
        s.on_arrival(1, 21.0 * SDU);
        assert!(s.c_n.is_some());
    }

    #[test]
    fn red_drop_fraction_at_fixed_occupancy_matches_the_count_corrected_formula() {
        // q midway: p_b = max_p / 2 = 0.025. With count incremented before p_a is computed
        // (model-specs 6.1), the k-th arrival after a drop is dropped with probability
        // p_b / (1 - k p_b); the product telescopes, so the gap is uniform on {1, ..., 39}
        // (each with probability p_b / (1 - p_b) = 1/39): drop fraction 1 / 20.
        let mut red = Red::new(20.0, 40.0, 0.05, RngStream::new(1, 0, 0));
        let n = 400_000;
        let drops = (0..n)
            .filter(|_| matches!(red.on_arrival(30.0), Verdict::Drop(BufferDrop::RedEarly)))
            .count();
        let frac = drops as f64 / n as f64;
        let expect = 1.0 / 20.0;
        // About 20,000 drops with gaps of sd 11.3 around 20: relative sd ~0.4%; 5 sd = 2%.
        assert!(
            (frac - expect).abs() < 0.02 * expect,
            "fraction {frac} vs {expect}"
        );
        // Below min_th nothing, at or above max_th everything (forced).
        assert_eq!(red.on_arrival(19.0), Verdict::Admit);
        assert_eq!(red.on_arrival(40.0), Verdict::Drop(BufferDrop::RedForced));
    }

    #[test]
    fn red_probability_follows_the_1993_formula() {
        let mut red = Red::new(20.0, 40.0, 0.1, RngStream::new(1, 0, 0));
        assert_eq!(red.drop_probability(10.0), 0.0);
        // count 0 -> p_a = p_b; count 1 -> p_b / (1 - p_b).
        let p_b = 0.1 * (25.0 - 20.0) / 20.0;
        assert!((red.drop_probability(25.0) - p_b).abs() < 1e-15);
        assert!((red.drop_probability(25.0) - p_b / (1.0 - p_b)).abs() < 1e-15);
    }

    /// RFC 8289 on scripted sojourn times: nothing before the sojourn has stayed above target
    /// for an interval, then one drop, then drops at interval / sqrt(count), then leaving the
    /// dropping state as soon as a sojourn is below target.
    #[test]
    fn codel_follows_the_rfc_state_machine() {
        let ms = |x: u64| x * 1_000_000;
        let mut c = Codel::new(ms(5), ms(100), 1500);
        let q = 30_000; // bytes queued: well above one MTU
                        // Below target: never.
        assert!(!c.on_dequeue(ms(0), ms(4), q));
        // Above target from t = 10 ms: first_above_time = 110 ms.
        assert!(!c.on_dequeue(ms(10), ms(50), q));
        assert!(!c.on_dequeue(ms(109), ms(50), q));
        assert!(
            c.on_dequeue(ms(110), ms(50), q),
            "first drop after a full interval"
        );
        assert!(c.dropping());
        // drop_next = 110 + 100/sqrt(1) = 210 ms.
        assert!(!c.on_dequeue(ms(209), ms(50), q));
        assert!(c.on_dequeue(ms(210), ms(50), q));
        // count 2: next at 210 + 100/sqrt(2) = 280.7 ms.
        assert!(!c.on_dequeue(ms(280), ms(50), q));
        assert!(c.on_dequeue(ms(281), ms(50), q));
        // A sojourn below target ends the dropping state; so does one MTU or less queued.
        assert!(!c.on_dequeue(ms(290), ms(2), q));
        assert!(!c.dropping());
        assert!(!c.on_dequeue(ms(300), ms(50), 1500));
        // Re-entering soon after reuses the count (delta = count - lastcount = 2 > 1).
        assert!(!c.on_dequeue(ms(310), ms(50), q));
        assert!(c.on_dequeue(ms(410), ms(50), q));
        let next = c.drop_next;
        assert_eq!(next, ms(410) + (ms(100) as f64 / 2f64.sqrt()) as Time);
    }

    #[test]
    fn pie_controller_steps_follow_rfc_8033() {
        let ms = |x: u64| x * 1_000_000;
        let mut p = Pie::new(
            ms(15),
            ms(15),
            0.125,
            1.25,
            ms(150),
            RngStream::new(1, 0, 0),
        );
        // A 100 ms queueing delay appears: first update at 15 ms.
        p.on_dequeue(ms(100));
        p.advance(ms(15), false);
        // delta = 0.125 (0.1 - 0.015) + 1.25 (0.1 - 0) = 0.135625; p < 1e-6: / 2048.
        let d1 = (0.125 * (0.1 - 0.015) + 1.25 * 0.1) / 2048.0;
        assert!((p.probability() - d1).abs() < 1e-15);
        // Second update, same delay: only the integral term; p in [1e-5, 1e-4): / 128.
        p.advance(ms(30), false);
        let d2 = 0.125 * (0.1 - 0.015) / 128.0;
        assert!((p.probability() - (d1 + d2)).abs() < 1e-15);
        // Burst allowance: 150 ms from the start, no early drop before it is spent.
        assert_eq!(p.on_arrival(10), Verdict::Admit);
        // Run long enough at high delay: p grows, in steps of at most 0.02 above 0.1.
        let mut last = p.probability();
        for k in 3..200 {
            p.advance(ms(15 * k), false);
            let now = p.probability();
            if last >= 0.1 {
                assert!(
                    now - last <= 0.02 + 1e-12,
                    "step {} at p {last}",
                    now - last
                );
            }
            last = now;
        }
        assert!(last > 0.5);
        // Empty queue: delay 0, decay by 2% per update once both delays are 0.
        p.advance(ms(15 * 200), true);
        let before = p.probability();
        p.advance(ms(15 * 201), true);
        assert!(p.probability() < before);
    }

    #[test]
    fn pie_protects_short_queues_and_low_delay() {
        let ms = |x: u64| x * 1_000_000;
        let mut p = Pie::new(ms(15), ms(15), 0.125, 1.25, ms(0), RngStream::new(1, 0, 0));
        p.p = 0.5;
        p.qdelay_old = 0.1;
        assert_eq!(
            p.on_arrival(2),
            Verdict::Admit,
            "two packets or fewer: never"
        );
        let drops = (0..10_000)
            .filter(|_| p.on_arrival(10) == Verdict::Drop(BufferDrop::Pie))
            .count();
        assert!((drops as f64 / 10_000.0 - 0.5).abs() < 0.03);
        p.qdelay_old = 0.001;
        p.p = 0.1;
        assert_eq!(
            p.on_arrival(10),
            Verdict::Admit,
            "low delay and p < 0.2: never"
        );
    }

    #[test]
    fn drop_tail_admits_below_the_limit_only() {
        let mut d = BufferDiscipline::drop_tail(3);
        assert_eq!(d.on_arrival(0, 0, 0.0, 12e3), Verdict::Admit);
        assert_eq!(d.on_arrival(0, 2, 24e3, 12e3), Verdict::Admit);
        assert_eq!(
            d.on_arrival(0, 3, 36e3, 12e3),
            Verdict::Drop(BufferDrop::BufferFull)
        );
        assert_eq!(
            d.on_arrival(0, 7, 84e3, 12e3),
            Verdict::Drop(BufferDrop::BufferFull)
        );
    }
}
