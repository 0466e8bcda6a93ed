//! Policies on the ACK path: ACK rate and ACK delay control at the network-side RLC
//! ([`rate`]) and the base-station ACK controller ([`bs`]). UE-side ACK filtering (LTE) goes
//! here too.

pub mod bs;
pub mod rate;

pub use bs::{BsAckController, BsAckParams, BsAckStats, DataVerdict, PacingRule};
pub use rate::{AckRateControl, AckRateParams, AckRelease, AckStats};
