//! LTE HARQ, sans-IO: 8 stop-and-wait processes per UE and direction, feedback 4 TTIs after a
//! transmission, a retransmission 8 TTIs after the previous one (the HARQ RTT), and a give-up
//! after max transmissions (model-specs §4.1; TS 36.213 §8, §10).
//!
//! The entity keeps the timing and the transport blocks in flight; whether a transmission is
//! decoded is the caller's draw (a BLER per transmission, model-specs §4.1 "HARQ error
//! model"). Uplink HARQ is synchronous: process = TTI mod 8 and a retransmission goes exactly
//! at n + 8 on the same resources. Downlink HARQ is asynchronous, but its earliest
//! retransmission is also n + 8 and a scheduler serves retransmissions first, so one rule
//! serves both here: a retransmission is due exactly 8 TTIs after the previous transmission.

use crate::error::ParamError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarqParams {
    /// Stop-and-wait processes (8 for FDD).
    pub processes: u32,
    /// TTIs from a transmission to its ACK/NACK (4: PHICH / PUCCH at n + 4).
    pub feedback_delay: u32,
    /// TTIs from a transmission to its retransmission (8: the HARQ RTT).
    pub rtt: u32,
    /// Transmissions in all before the transport block is given up (maxHARQ-Tx; ns-3's PF
    /// scheduler: 4, the RRC default: 5).
    pub max_tx: u32,
}

impl Default for HarqParams {
    fn default() -> Self {
        Self {
            processes: 8,
            feedback_delay: 4,
            rtt: 8,
            max_tx: 4,
        }
    }
}

impl HarqParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        if !(1..=16).contains(&self.processes) {
            return Err(ParamError::new("processes", self.processes, "1..=16"));
        }
        if self.feedback_delay == 0 || self.rtt <= self.feedback_delay {
            return Err(ParamError::new(
                "rtt",
                self.rtt,
                "more TTIs than feedback_delay (>= 1): the retransmission follows the NACK",
            ));
        }
        if !(1..=28).contains(&self.max_tx) {
            return Err(ParamError::new(
                "max_tx",
                self.max_tx,
                "1..=28 transmissions (TS 36.331 maxHARQ-Tx)",
            ));
        }
        Ok(())
    }
}

/// What a transmission's feedback means for its transport block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Feedback<T> {
    /// Decoded: the block is delivered (to the receiving RLC).
    Delivered(T),
    /// Not decoded: retransmitted at this TTI.
    RetransmitAt(u64),
    /// Not decoded at the last allowed transmission: lost (RLC must recover it).
    GivenUp(T),
}

#[derive(Debug, Clone)]
struct Process<T> {
    block: T,
    /// Transmissions so far.
    tx: u32,
    /// TTI of the last transmission.
    last_tx: u64,
    /// The feedback of the last transmission is known (NACK) and a retransmission waits.
    retx_due: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct HarqStats {
    pub transmissions: u64,
    pub retransmissions: u64,
    pub delivered: u64,
    pub given_up: u64,
    /// Retransmissions moved to a later TTI (no DCI or PRBs at their time).
    pub postponed: u64,
}

/// The HARQ processes of one UE in one direction.
#[derive(Debug, Clone)]
pub struct Harq<T> {
    p: HarqParams,
    procs: Vec<Option<Process<T>>>,
    /// Bit `pid` set while process `pid` holds a block: the schedulers ask every UE of the
    /// cell for a free process each slot, which this answers without reading the processes.
    busy: u32,
    pub stats: HarqStats,
}

impl<T: Clone> Harq<T> {
    /// Panics on invalid parameters (validated by the configuration layer first).
    pub fn new(p: HarqParams) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid HARQ parameters: {e:?}");
        }
        let n = p.processes as usize;
        Self {
            p,
            procs: vec![None; n],
            busy: 0,
            stats: HarqStats::default(),
        }
    }

    /// A free process for a new transmission, if any (all 8 busy: the UE cannot get
    /// a new transport block this TTI).
    /// Processes of the entity.
    pub fn processes(&self) -> usize {
        self.procs.len()
    }

    /// Whether process `pid` holds no block.
    pub fn is_free(&self, pid: usize) -> bool {
        assert!(pid < self.procs.len(), "no HARQ process {pid}");
        self.busy >> pid & 1 == 0
    }

    /// The block process `pid` holds.
    pub fn block(&self, pid: usize) -> Option<&T> {
        self.procs[pid].as_ref().map(|p| &p.block)
    }

    pub fn free_process(&self) -> Option<usize> {
        // The lowest free process (processes are at most 16).
        let free = !self.busy & ((1u32 << self.procs.len()) - 1);
        (free != 0).then(|| free.trailing_zeros() as usize)
    }

    /// Processes whose retransmission is due at `tti` (served before new data).
    pub fn due(&self, tti: u64) -> impl Iterator<Item = (usize, &T)> + '_ {
        self.procs.iter().enumerate().filter_map(move |(i, p)| {
            p.as_ref()
                .filter(|p| p.retx_due == Some(tti))
                .map(|p| (i, &p.block))
        })
    }

    /// Send a new transport block on process `pid` at `tti`; its feedback comes at
    /// `tti + feedback_delay`.
    pub fn send_new(&mut self, tti: u64, pid: usize, block: T) {
        assert!(self.procs[pid].is_none(), "HARQ process {pid} is busy");
        self.procs[pid] = Some(Process {
            block,
            tx: 1,
            last_tx: tti,
            retx_due: None,
        });
        self.busy |= 1 << pid;
        self.stats.transmissions += 1;
    }

    /// Retransmit the block of process `pid` at `tti` (when [`Harq::due`] lists it).
    pub fn retransmit(&mut self, tti: u64, pid: usize) {
        let p = self.procs[pid].as_mut().expect("a process with a block");
        assert_eq!(p.retx_due, Some(tti), "retransmission off its HARQ timing");
        p.tx += 1;
        p.last_tx = tti;
        p.retx_due = None;
        self.stats.transmissions += 1;
        self.stats.retransmissions += 1;
    }

    /// Move process `pid`'s retransmission from `from` to the later `to` (NR's asynchronous
    /// HARQ: no DCI or PRBs were left for it at `from`, TS 38.321 §5.3.2, §5.4.2).
    pub fn postpone(&mut self, pid: usize, from: u64, to: u64) {
        let p = self.procs[pid].as_mut().expect("a process with a block");
        assert_eq!(
            p.retx_due,
            Some(from),
            "postponing a retransmission not due"
        );
        assert!(to > from, "a retransmission is postponed to a later TTI");
        p.retx_due = Some(to);
        self.stats.postponed += 1;
    }

    /// The TTI at which the feedback of process `pid`'s last transmission arrives.
    pub fn feedback_at(&self, pid: usize) -> Option<u64> {
        let p = self.procs[pid].as_ref()?;
        p.retx_due
            .is_none()
            .then_some(p.last_tx + self.p.feedback_delay as u64)
    }

    /// The feedback of process `pid`'s last transmission: decoded or not; a retransmission
    /// goes one HARQ RTT after the transmission.
    pub fn on_feedback(&mut self, pid: usize, decoded: bool) -> Feedback<T> {
        let at = self.procs[pid]
            .as_ref()
            .map_or(0, |p| p.last_tx + self.p.rtt as u64);
        self.on_feedback_retx_at(pid, decoded, at)
    }

    /// [`Harq::on_feedback`] with the retransmission at TTI `at`, which the caller chose (NR's
    /// asynchronous HARQ: the next slot its scheduler and the TDD pattern allow).
    pub fn on_feedback_retx_at(&mut self, pid: usize, decoded: bool, at: u64) -> Feedback<T> {
        let p = self.procs[pid]
            .as_mut()
            .expect("feedback for a busy process");
        if decoded {
            self.busy &= !(1 << pid);
            let block = self.procs[pid].take().expect("busy").block;
            self.stats.delivered += 1;
            return Feedback::Delivered(block);
        }
        if p.tx >= self.p.max_tx {
            self.busy &= !(1 << pid);
            let block = self.procs[pid].take().expect("busy").block;
            self.stats.given_up += 1;
            return Feedback::GivenUp(block);
        }
        p.retx_due = Some(at);
        Feedback::RetransmitAt(at)
    }

    /// Processes holding a block.
    pub fn busy(&self) -> usize {
        self.busy.count_ones() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nacked_block_is_retransmitted_at_n_plus_8_and_given_up_after_max_tx() {
        let mut h: Harq<&str> = Harq::new(HarqParams::default());
        let pid = h.free_process().unwrap();
        h.send_new(100, pid, "tb");
        assert_eq!(h.feedback_at(pid), Some(104));
        assert_eq!(h.on_feedback(pid, false), Feedback::RetransmitAt(108));
        assert_eq!(h.due(107).count(), 0);
        assert_eq!(h.due(108).collect::<Vec<_>>(), vec![(pid, &"tb")]);
        h.retransmit(108, pid);
        assert_eq!(h.feedback_at(pid), Some(112));
        assert_eq!(h.on_feedback(pid, false), Feedback::RetransmitAt(116));
        h.retransmit(116, pid);
        assert_eq!(h.on_feedback(pid, false), Feedback::RetransmitAt(124));
        h.retransmit(124, pid);
        // The 4th transmission (max_tx = 4, ns-3's PF scheduler) fails: the block is lost.
        assert_eq!(h.on_feedback(pid, false), Feedback::GivenUp("tb"));
        assert_eq!(h.busy(), 0);
        assert_eq!(
            h.stats,
            HarqStats {
                transmissions: 4,
                retransmissions: 3,
                delivered: 0,
                given_up: 1,
                postponed: 0
            }
        );
    }

    #[test]
    fn a_decoded_retransmission_delivers_and_frees_the_process() {
        let mut h: Harq<u32> = Harq::new(HarqParams {
            max_tx: 5,
            ..HarqParams::default()
        });
        h.send_new(0, 3, 7);
        assert_eq!(h.on_feedback(3, false), Feedback::RetransmitAt(8));
        h.retransmit(8, 3);
        assert_eq!(h.on_feedback(3, true), Feedback::Delivered(7));
        assert_eq!(h.free_process(), Some(0));
        assert_eq!(h.busy(), 0);
    }

    #[test]
    fn eight_blocks_in_flight_use_every_process() {
        let mut h: Harq<u64> = Harq::new(HarqParams::default());
        for tti in 0..8 {
            let pid = h.free_process().expect("a free process");
            h.send_new(tti, pid, tti);
        }
        assert_eq!(h.free_process(), None, "stop-and-wait: 8 in flight at most");
        // The first block's ACK at 4 frees its process for new data at 4.
        assert_eq!(h.on_feedback(0, true), Feedback::Delivered(0));
        assert_eq!(h.free_process(), Some(0));
    }

    #[test]
    fn a_postponed_retransmission_is_due_at_its_new_time_only() {
        let mut h: Harq<u8> = Harq::new(HarqParams::default());
        h.send_new(0, 2, 9);
        assert_eq!(
            h.on_feedback_retx_at(2, false, 6),
            Feedback::RetransmitAt(6)
        );
        h.postpone(2, 6, 7);
        assert_eq!(h.due(6).count(), 0);
        assert_eq!(h.due(7).collect::<Vec<_>>(), vec![(2, &9)]);
        h.retransmit(7, 2);
        assert_eq!(h.feedback_at(2), Some(11));
        assert_eq!((h.stats.retransmissions, h.stats.postponed), (1, 1));
    }

    #[test]
    #[should_panic(expected = "not due")]
    fn postponing_a_process_without_a_pending_retransmission_is_a_logic_error() {
        let mut h: Harq<u8> = Harq::new(HarqParams::default());
        h.send_new(0, 0, 1);
        h.postpone(0, 8, 9);
    }

    #[test]
    #[should_panic(expected = "off its HARQ timing")]
    fn a_retransmission_off_timing_is_a_logic_error() {
        let mut h: Harq<u8> = Harq::new(HarqParams::default());
        h.send_new(0, 0, 1);
        h.on_feedback(0, false);
        h.retransmit(7, 0);
    }

    #[test]
    fn parameters_are_checked() {
        let d = HarqParams::default;
        assert!(d().validate().is_ok());
        let bad = |p: HarqParams| p.validate().unwrap_err().field;
        assert_eq!(bad(HarqParams { max_tx: 0, ..d() }), "max_tx");
        assert_eq!(bad(HarqParams { rtt: 4, ..d() }), "rtt");
        assert_eq!(
            bad(HarqParams {
                processes: 0,
                ..d()
            }),
            "processes"
        );
    }
}
