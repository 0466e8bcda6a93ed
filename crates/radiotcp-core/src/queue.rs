//! Queue disciplines for the per-user downlink buffer at the RLC (model-specs §6).
//!
//! The buffer itself is the RLC transmitter's SDU list (an SDU stays until fully
//! acknowledged); a discipline only decides. It is told of every arrival with the current
//! buffer occupancy (BO, in SDUs) and answers with a [`Verdict`]; disciplines that act when an
//! SDU leaves the queue (CoDel's sojourn time) or drop a queued SDU (Slope Based Discard drops
//! the first SDU whose transmission has not started) use the same verdicts. Every drop carries
//! a reason, counted per reason in the results.
//!
//! Only drop-tail exists so far; RED, SBD, CoDel and PIE plug in as further variants of
//! [`BufferDiscipline`] (enum dispatch, no allocation per decision).

use crate::config::{BufferConfig, QueueDiscipline};
use crate::engine::Time;

/// Why the buffer refused or removed an SDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BufferDrop {
    /// The buffer held `limit_sdus` SDUs.
    BufferFull,
}

impl BufferDrop {
    pub const ALL: [BufferDrop; 1] = [BufferDrop::BufferFull];

    pub fn name(self) -> &'static str {
        match self {
            BufferDrop::BufferFull => "buffer_full",
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

/// A discipline with its state.
#[derive(Debug, Clone)]
pub enum BufferDiscipline {
    DropTail { limit: usize },
}

impl BufferDiscipline {
    pub fn from_config(c: &BufferConfig) -> Self {
        match c.discipline {
            QueueDiscipline::DropTail => BufferDiscipline::DropTail {
                limit: c.limit_sdus as usize,
            },
        }
    }

    /// An SDU arrives at `now` and finds `bo` SDUs in the buffer.
    pub fn on_arrival(&mut self, _now: Time, bo: usize) -> Verdict {
        match self {
            BufferDiscipline::DropTail { limit } => {
                if bo >= *limit {
                    Verdict::Drop(BufferDrop::BufferFull)
                } else {
                    Verdict::Admit
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_tail_admits_below_the_limit_only() {
        let mut d = BufferDiscipline::DropTail { limit: 3 };
        assert_eq!(d.on_arrival(0, 0), Verdict::Admit);
        assert_eq!(d.on_arrival(0, 2), Verdict::Admit);
        assert_eq!(d.on_arrival(0, 3), Verdict::Drop(BufferDrop::BufferFull));
        assert_eq!(d.on_arrival(0, 7), Verdict::Drop(BufferDrop::BufferFull));
    }
}
