//! Variable one-way delay for a wireless hop: the propagation part of a link whose per-packet
//! delay follows a random or scripted process, with optional reordering and scheduled delay
//! spikes (handoffs, short disconnections). Zeng's slides ("TCP ACK control for wireless
//! networks", scenario 1) use a BS-MH link of "around 190 ms of variable delay, delay variation
//! simulated since time 0.5 s"; scenario 2 adds "a large delay at time 5 sec [that] lasts for
//! 6 sec". Both are expressible here; `docs/models/variable-delay-link.md` has the details.
//!
//! Sans-IO like the rest of the crate: the caller serialises the packet (the existing link
//! code), then asks [`VariableDelay::arrival_time`] when the packet that finished serialisation
//! at `now` reaches the far end, and schedules the arrival itself. Every random draw comes from
//! the [`RngStream`] the delay owns, so a run is reproducible from its seed.

use crate::engine::{RngStream, Time};
use crate::error::ParamError;

/// One level of a Markov-modulated delay.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkovLevel {
    /// One-way delay while the chain is in this level.
    pub delay: Time,
    /// Mean of the exponential time the chain stays in this level (> 0).
    pub mean_sojourn: Time,
}

/// How the propagation delay of each packet is drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum DelayProcess {
    /// Every packet takes `delay`.
    Constant { delay: Time },
    /// Uniform on [mean - half_width, mean + half_width] (half_width <= mean), drawn
    /// independently per packet.
    Uniform { mean: Time, half_width: Time },
    /// Normal(mean, std), drawn independently per packet and censored at `floor` (a draw below
    /// the floor takes the floor), so a delay is never negative. Clamping rather than
    /// rejection keeps one draw pair per packet; with floor well below mean - 2 std the mean
    /// moves by well under 1% of std.
    Normal { mean: Time, std: Time, floor: Time },
    /// A continuous-time Markov chain over delay levels: the chain starts in level 0 at
    /// `start_at`, stays in a level for an exponential time of the level's mean, then jumps to
    /// one of the *other* levels uniformly (two levels alternate). A packet takes the level the
    /// chain is in when it leaves the transmitter. One level never changes.
    Markov { levels: Vec<MarkovLevel> },
    /// A step function of absolute time: `(from, delay)` points sorted by strictly increasing
    /// `from`; a packet sent at t takes the delay of the last point with `from <= t`, or the
    /// first point's delay before it.
    Trace { points: Vec<(Time, Time)> },
}

impl DelayProcess {
    /// The delay applied before `start_at`: the constant, the mean, level 0, or the first
    /// trace value.
    pub fn nominal(&self) -> Time {
        match self {
            DelayProcess::Constant { delay } => *delay,
            DelayProcess::Uniform { mean, .. } => *mean,
            DelayProcess::Normal { mean, floor, .. } => (*mean).max(*floor),
            DelayProcess::Markov { levels } => levels[0].delay,
            DelayProcess::Trace { points } => points[0].1,
        }
    }

    pub fn validate(&self) -> Result<(), ParamError> {
        let err =
            |key: &str, value: String, allowed: &str| Err(ParamError::new(key, value, allowed));
        match self {
            DelayProcess::Constant { .. } | DelayProcess::Normal { .. } => Ok(()),
            DelayProcess::Uniform { mean, half_width } => {
                if half_width > mean {
                    return err(
                        "delay.half_width",
                        half_width.to_string(),
                        "at most the mean, so no delay is negative",
                    );
                }
                Ok(())
            }
            DelayProcess::Markov { levels } => {
                if levels.is_empty() {
                    return err("delay.levels", String::new(), "at least one level");
                }
                if let Some(i) = levels.iter().position(|l| l.mean_sojourn == 0) {
                    return err(
                        &format!("delay.levels.{i}.mean_sojourn"),
                        "0".into(),
                        "a positive mean sojourn time",
                    );
                }
                Ok(())
            }
            DelayProcess::Trace { points } => {
                if points.is_empty() {
                    return err("delay.points", String::new(), "at least one point");
                }
                if let Some(i) = points.windows(2).position(|w| w[1].0 <= w[0].0) {
                    return err(
                        &format!("delay.points.{}", i + 1),
                        points[i + 1].0.to_string(),
                        "strictly increasing times",
                    );
                }
                Ok(())
            }
        }
    }
}

/// A scheduled disturbance on the link, as in a handoff or a short disconnection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spike {
    pub start: Time,
    pub duration: Time,
    /// Added to the delay of every packet that leaves the transmitter in
    /// [start, start + duration).
    pub extra: Time,
    /// Nothing leaves the link during [start, start + duration): a packet that would arrive in
    /// the interval arrives at its end instead (in the order the packets were sent: equal
    /// arrival times are delivered in call order by the event queue).
    pub stall: bool,
}

impl Spike {
    /// A disconnection: arrivals in [start, start + duration) are held to its end.
    pub fn stall(start: Time, duration: Time) -> Self {
        Self {
            start,
            duration,
            extra: 0,
            stall: true,
        }
    }

    /// A sudden large delay: packets sent in [start, start + duration) take `extra` longer.
    pub fn extra(start: Time, duration: Time, extra: Time) -> Self {
        Self {
            start,
            duration,
            extra,
            stall: false,
        }
    }

    fn end(&self) -> Time {
        self.start.saturating_add(self.duration)
    }

    fn contains(&self, t: Time) -> bool {
        t >= self.start && t < self.end()
    }
}

/// Configuration of a [`VariableDelay`].
#[derive(Debug, Clone, PartialEq)]
pub struct VariableDelayParams {
    pub process: DelayProcess,
    pub spikes: Vec<Spike>,
    /// Forbid reordering: a packet never arrives before one sent earlier (arrival =
    /// max(drawn arrival, last arrival)). Off: a later packet may overtake an earlier one.
    pub fifo: bool,
    /// The process starts here; before it every packet takes [`DelayProcess::nominal`]
    /// (the slides start the variation at 0.5 s). Spikes apply regardless.
    pub start_at: Time,
}

impl VariableDelayParams {
    /// A constant delay, FIFO, no spikes: the behaviour of a wired link's propagation.
    pub fn constant(delay: Time) -> Self {
        Self {
            process: DelayProcess::Constant { delay },
            spikes: Vec::new(),
            fifo: true,
            start_at: 0,
        }
    }

    pub fn validate(&self) -> Result<(), ParamError> {
        self.process.validate()
    }
}

/// Counters of a [`VariableDelay`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DelayStats {
    pub packets: u64,
    /// Packets that arrive before a packet sent earlier (overtook it).
    pub reordered: u64,
    /// Packets whose arrival FIFO pushed back behind an earlier packet.
    pub fifo_held: u64,
    /// Packets held to the end of a stall.
    pub stalled: u64,
    /// Packets that got extra delay from a spike.
    pub spiked: u64,
    /// Sum of the propagation delays given (arrival - send), ns.
    pub total_delay: u128,
}

/// Exponential with mean `mean` ns, by inversion; `1 - u` lies in (0, 1].
fn exp(rng: &mut RngStream, mean: Time) -> Time {
    let u = 1.0 - rng.uniform();
    (-(mean as f64) * u.ln()).round() as Time
}

/// Standard normal by Box-Muller (one of the pair: two uniforms per draw, so the stream
/// advances by a fixed amount per packet).
fn std_normal(rng: &mut RngStream) -> f64 {
    let u1 = 1.0 - rng.uniform();
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// The propagation part of one direction of a variable-delay link.
#[derive(Debug, Clone)]
pub struct VariableDelay {
    p: VariableDelayParams,
    rng: RngStream,
    /// Latest arrival handed out so far.
    last_arrival: Time,
    /// Markov chain state: current level and when it leaves it; set at the first call at or
    /// after `start_at`.
    markov: Option<(usize, Time)>,
    /// Last `now` seen, to check the calls come in time order.
    last_now: Time,
    pub stats: DelayStats,
}

impl VariableDelay {
    /// # Panics
    /// If `p.validate()` fails: configuration layers validate first, so a user mistake is a
    /// [`crate::ConfigError`], never a panic.
    pub fn new(p: VariableDelayParams, rng: RngStream) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid VariableDelayParams: {e}");
        }
        Self {
            p,
            rng,
            last_arrival: 0,
            markov: None,
            last_now: 0,
            stats: DelayStats::default(),
        }
    }

    pub fn params(&self) -> &VariableDelayParams {
        &self.p
    }

    /// The latest arrival time handed out.
    pub fn last_arrival(&self) -> Time {
        self.last_arrival
    }

    /// Advance the Markov chain to `now` and return its level's delay.
    fn markov_delay(&mut self, now: Time) -> Time {
        let DelayProcess::Markov { levels } = &self.p.process else {
            unreachable!("markov_delay on another process")
        };
        let rng = &mut self.rng;
        let n = levels.len();
        let (mut level, mut leave_at) = self
            .markov
            .unwrap_or_else(|| (0, self.p.start_at + exp(rng, levels[0].mean_sojourn)));
        if n > 1 {
            while leave_at <= now {
                // Jump to one of the other n - 1 levels uniformly.
                let k = ((rng.uniform() * (n - 1) as f64) as usize).min(n - 2);
                level = if k >= level { k + 1 } else { k };
                leave_at += exp(rng, levels[level].mean_sojourn).max(1);
            }
        }
        self.markov = Some((level, leave_at));
        levels[level].delay
    }

    /// The propagation delay drawn from the process for a packet sent at `now`.
    fn draw(&mut self, now: Time) -> Time {
        if now < self.p.start_at {
            return self.p.process.nominal();
        }
        match self.p.process {
            DelayProcess::Constant { delay } => delay,
            DelayProcess::Uniform { mean, half_width } => {
                let lo = (mean - half_width) as f64;
                let span = 2.0 * half_width as f64;
                (lo + span * self.rng.uniform()).round() as Time
            }
            DelayProcess::Normal { mean, std, floor } => {
                let x = mean as f64 + std as f64 * std_normal(&mut self.rng);
                (x.max(floor as f64)).round() as Time
            }
            DelayProcess::Markov { .. } => self.markov_delay(now),
            DelayProcess::Trace { ref points } => {
                let i = points.partition_point(|p| p.0 <= now);
                points[i.saturating_sub(1)].1
            }
        }
    }

    /// When the packet whose serialisation ended at `now_tx_done` reaches the far end.
    /// Calls must come in non-decreasing `now_tx_done` (a transmitter finishes packets in
    /// order); the Markov chain and the FIFO rule rely on it.
    ///
    /// Order of the rules: the process's delay, plus the `extra` of every spike the send time
    /// falls in; then stalls (an arrival inside a stall moves to its end, repeated until it
    /// lies in none, so back-to-back stalls chain); then FIFO (not before the last arrival).
    /// Stalls before FIFO keep FIFO's result out of every stall, because the last arrival was
    /// itself moved out of them.
    pub fn arrival_time(&mut self, now_tx_done: Time) -> Time {
        let now = now_tx_done;
        debug_assert!(
            now >= self.last_now,
            "arrival_time called out of time order"
        );
        self.last_now = now;
        self.stats.packets += 1;
        let mut delay = self.draw(now);
        let mut spiked = false;
        for s in &self.p.spikes {
            if s.extra > 0 && s.contains(now) {
                delay += s.extra;
                spiked = true;
            }
        }
        self.stats.spiked += spiked as u64;
        let mut at = now + delay;
        let mut stalled = false;
        loop {
            let moved = self
                .p
                .spikes
                .iter()
                .filter(|s| s.stall && s.contains(at))
                .map(Spike::end)
                .max();
            match moved {
                Some(end) => {
                    at = end;
                    stalled = true;
                }
                None => break,
            }
        }
        self.stats.stalled += stalled as u64;
        if at < self.last_arrival {
            if self.p.fifo {
                at = self.last_arrival;
                self.stats.fifo_held += 1;
            } else {
                self.stats.reordered += 1;
            }
        }
        self.last_arrival = self.last_arrival.max(at);
        self.stats.total_delay += (at - now) as u128;
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::millis;

    const MS: Time = 1_000_000;

    fn vd(process: DelayProcess, fifo: bool, seed: u64) -> VariableDelay {
        VariableDelay::new(
            VariableDelayParams {
                process,
                spikes: Vec::new(),
                fifo,
                start_at: 0,
            },
            RngStream::new(seed, 0, 7),
        )
    }

    /// Delays of `n` packets sent `gap` apart.
    fn delays(d: &mut VariableDelay, n: u64, gap: Time) -> Vec<Time> {
        (0..n)
            .map(|i| {
                let t = i * gap;
                d.arrival_time(t) - t
            })
            .collect()
    }

    fn mean_std(x: &[Time]) -> (f64, f64) {
        let n = x.len() as f64;
        let m = x.iter().map(|&v| v as f64).sum::<f64>() / n;
        let v = x.iter().map(|&v| (v as f64 - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, v.sqrt())
    }

    #[test]
    fn constant_delay() {
        let mut d = vd(DelayProcess::Constant { delay: 190 * MS }, false, 1);
        assert!(delays(&mut d, 100, 7 * MS).iter().all(|&x| x == 190 * MS));
        assert_eq!(d.stats.reordered, 0);
    }

    #[test]
    fn uniform_mean_and_range() {
        let (mean, hw) = (190 * MS, 40 * MS);
        let mut d = vd(
            DelayProcess::Uniform {
                mean,
                half_width: hw,
            },
            false,
            2,
        );
        let x = delays(&mut d, 50_000, MS);
        assert!(x.iter().all(|&v| v >= mean - hw && v <= mean + hw));
        let (m, s) = mean_std(&x);
        // std of U(a, b) = (b - a) / sqrt(12); standard error of the mean s / sqrt(n).
        let expect_s = 2.0 * hw as f64 / 12f64.sqrt();
        let se = expect_s / (x.len() as f64).sqrt();
        assert!((m - mean as f64).abs() < 5.0 * se, "mean {m}");
        assert!((s / expect_s - 1.0).abs() < 0.02, "std {s}");
        // Both ends are reached.
        assert!(*x.iter().min().unwrap() < mean - hw + MS);
        assert!(*x.iter().max().unwrap() > mean + hw - MS);
    }

    #[test]
    fn normal_mean_std_and_floor() {
        let (mean, std) = (190 * MS, 20 * MS);
        let mut d = vd(
            DelayProcess::Normal {
                mean,
                std,
                floor: 0,
            },
            false,
            3,
        );
        let x = delays(&mut d, 50_000, MS);
        let (m, s) = mean_std(&x);
        let se = std as f64 / (x.len() as f64).sqrt();
        assert!((m - mean as f64).abs() < 5.0 * se, "mean {m}");
        assert!((s / std as f64 - 1.0).abs() < 0.03, "std {s}");
        // About 68% within one standard deviation.
        let within = x.iter().filter(|&&v| v.abs_diff(mean) <= std).count() as f64;
        assert!((within / x.len() as f64 - 0.6827).abs() < 0.01);
        // A floor censors the lower tail: nothing below it, and a mass at it.
        let floor = 180 * MS;
        let mut f = vd(DelayProcess::Normal { mean, std, floor }, false, 3);
        let y = delays(&mut f, 10_000, MS);
        assert!(y.iter().all(|&v| v >= floor));
        let at_floor = y.iter().filter(|&&v| v == floor).count() as f64 / y.len() as f64;
        // P(Z < -0.5) = 0.3085.
        assert!((at_floor - 0.3085).abs() < 0.03, "{at_floor}");
    }

    #[test]
    fn fifo_never_reorders_and_non_fifo_does() {
        let process = DelayProcess::Uniform {
            mean: 190 * MS,
            half_width: 40 * MS,
        };
        // Packets 33 ms apart (1040 bytes at 250 kb/s), delay spread 80 ms: overtaking happens.
        let gap = 33 * MS;
        let mut free = vd(process.clone(), false, 4);
        let arrivals: Vec<Time> = (0..2000).map(|i| free.arrival_time(i * gap)).collect();
        let overtaken = arrivals.windows(2).filter(|w| w[1] < w[0]).count();
        assert!(overtaken > 100, "{overtaken}");
        assert!(free.stats.reordered >= overtaken as u64);

        let mut fifo = vd(process, true, 4);
        let arrivals: Vec<Time> = (0..2000).map(|i| fifo.arrival_time(i * gap)).collect();
        assert!(arrivals.windows(2).all(|w| w[1] >= w[0]));
        assert_eq!(fifo.stats.reordered, 0);
        assert!(fifo.stats.fifo_held > 100);
        // FIFO only ever adds delay to what was drawn.
        assert!(arrivals
            .iter()
            .enumerate()
            .all(|(i, &a)| a - i as Time * gap >= 150 * MS));
    }

    #[test]
    fn same_seed_same_delays_other_seed_other_delays() {
        let p = DelayProcess::Normal {
            mean: 190 * MS,
            std: 30 * MS,
            floor: 0,
        };
        let a = delays(&mut vd(p.clone(), false, 9), 200, MS);
        let b = delays(&mut vd(p.clone(), false, 9), 200, MS);
        let c = delays(&mut vd(p, false, 10), 200, MS);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn nominal_delay_before_start_at() {
        let mut d = VariableDelay::new(
            VariableDelayParams {
                process: DelayProcess::Uniform {
                    mean: 190 * MS,
                    half_width: 40 * MS,
                },
                spikes: Vec::new(),
                fifo: false,
                start_at: 500 * MS,
            },
            RngStream::new(1, 0, 0),
        );
        let x = delays(&mut d, 1000, MS);
        assert!(x[..500].iter().all(|&v| v == 190 * MS));
        assert!(x[500..].iter().any(|&v| v != 190 * MS));
    }

    #[test]
    fn stall_holds_arrivals_to_its_end_in_order() {
        let mut d = VariableDelay::new(
            VariableDelayParams {
                process: DelayProcess::Constant { delay: 100 * MS },
                spikes: vec![Spike::stall(1000 * MS, 500 * MS)],
                fifo: false,
                start_at: 0,
            },
            RngStream::new(1, 0, 0),
        );
        // Sent at 850 ms: arrives 950 ms, before the stall.
        assert_eq!(d.arrival_time(850 * MS), 950 * MS);
        // Would arrive at 1000 ms and 1499 ms: both held to 1500 ms, in send order.
        assert_eq!(d.arrival_time(900 * MS), 1500 * MS);
        assert_eq!(d.arrival_time(1399 * MS), 1500 * MS);
        // Would arrive exactly at the end: not in [start, end), unchanged.
        assert_eq!(d.arrival_time(1400 * MS), 1500 * MS);
        assert_eq!(d.arrival_time(1450 * MS), 1550 * MS);
        assert_eq!(d.stats.stalled, 2);
        assert_eq!(d.stats.reordered, 0);
    }

    #[test]
    fn chained_stalls_and_extra_delay() {
        let mut d = VariableDelay::new(
            VariableDelayParams {
                process: DelayProcess::Constant { delay: 100 * MS },
                spikes: vec![
                    Spike::stall(1000 * MS, 100 * MS),
                    Spike::stall(1100 * MS, 100 * MS),
                    // Scenario 2 of the slides: a large delay from 5 s for 6 s.
                    Spike::extra(5000 * MS, 6000 * MS, 2000 * MS),
                ],
                fifo: true,
                start_at: 0,
            },
            RngStream::new(1, 0, 0),
        );
        assert_eq!(
            d.arrival_time(950 * MS),
            1200 * MS,
            "two stalls back to back"
        );
        assert_eq!(d.arrival_time(4999 * MS), 5099 * MS);
        assert_eq!(d.arrival_time(5000 * MS), 7100 * MS, "sent in the spike");
        assert_eq!(
            d.arrival_time(10_999 * MS),
            13_099 * MS,
            "last ms of the spike"
        );
        // FIFO: a packet sent after the spike cannot overtake those delayed by it.
        assert_eq!(d.arrival_time(11_000 * MS), 13_099 * MS);
        assert_eq!(d.stats.fifo_held, 1);
        assert_eq!(d.stats.spiked, 2);
        assert_eq!(d.stats.stalled, 1);

        // Without FIFO the late sender of the spike is overtaken.
        let mut n = VariableDelay::new(
            VariableDelayParams {
                process: DelayProcess::Constant { delay: 100 * MS },
                spikes: vec![Spike::extra(0, 10 * MS, 50 * MS)],
                fifo: false,
                start_at: 0,
            },
            RngStream::new(1, 0, 0),
        );
        assert_eq!(n.arrival_time(9 * MS), 159 * MS);
        assert_eq!(n.arrival_time(10 * MS), 110 * MS);
        assert_eq!(n.stats.reordered, 1);
    }

    #[test]
    fn trace_is_a_step_function() {
        let mut d = vd(
            DelayProcess::Trace {
                points: vec![
                    (100 * MS, 50 * MS),
                    (200 * MS, 300 * MS),
                    (400 * MS, 10 * MS),
                ],
            },
            false,
            1,
        );
        let x: Vec<Time> = [0, 100, 199, 200, 399, 400, 10_000]
            .iter()
            .map(|&t| d.arrival_time(t * MS) - t * MS)
            .collect();
        assert_eq!(x, [50, 50, 50, 300, 300, 10, 10].map(|v| v * MS).to_vec());
    }

    #[test]
    fn markov_levels_share_time_by_mean_sojourn() {
        let mut d = vd(
            DelayProcess::Markov {
                levels: vec![
                    MarkovLevel {
                        delay: 100 * MS,
                        mean_sojourn: 1000 * MS,
                    },
                    MarkovLevel {
                        delay: 400 * MS,
                        mean_sojourn: 250 * MS,
                    },
                ],
            },
            false,
            5,
        );
        // 2000 s sampled every 10 ms: level 1 holds 250 / 1250 = 20% of the time.
        let x = delays(&mut d, 200_000, 10 * MS);
        assert!(x.iter().all(|&v| v == 100 * MS || v == 400 * MS));
        let high = x.iter().filter(|&&v| v == 400 * MS).count() as f64 / x.len() as f64;
        assert!((high - 0.2).abs() < 0.02, "{high}");
        // It starts in level 0 and switches many times.
        assert_eq!(x[0], 100 * MS);
        let switches = x.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(switches > 2000, "{switches}");

        // Three levels: the chain visits every level.
        let mut t = vd(
            DelayProcess::Markov {
                levels: (1..=3)
                    .map(|i| MarkovLevel {
                        delay: i * 100 * MS,
                        mean_sojourn: 100 * MS,
                    })
                    .collect(),
            },
            false,
            6,
        );
        let y = delays(&mut t, 10_000, 10 * MS);
        for i in 1..=3 {
            let share = y.iter().filter(|&&v| v == i * 100 * MS).count() as f64 / 10_000.0;
            assert!((share - 1.0 / 3.0).abs() < 0.06, "level {i}: {share}");
        }
    }

    #[test]
    fn validation_rejects_impossible_processes() {
        assert!(DelayProcess::Uniform {
            mean: millis(10.0),
            half_width: millis(11.0)
        }
        .validate()
        .is_err());
        assert!(DelayProcess::Markov { levels: vec![] }.validate().is_err());
        assert!(DelayProcess::Markov {
            levels: vec![MarkovLevel {
                delay: 1,
                mean_sojourn: 0
            }]
        }
        .validate()
        .is_err());
        let e = DelayProcess::Trace {
            points: vec![(0, 1), (5, 2), (5, 3)],
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field, "delay.points.2");
        assert!(DelayProcess::Trace { points: vec![] }.validate().is_err());
        assert!(VariableDelayParams::constant(5).validate().is_ok());
    }
}
