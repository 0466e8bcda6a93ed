//! Policies on the ACK path: ACK rate and ACK delay control at the network-side RLC
//! ([`rate`]), the base-station ACK controller ([`bs`]), and the ACK filter of the UE's LTE
//! uplink buffer (Ohta et al.; [`filter`]).

pub mod bs;
pub mod filter;
pub mod rate;

pub use bs::{BsAckController, BsAckParams, BsAckStats, DataVerdict, PacingRule};
pub use filter::{AckFilter, AckFilterDrops, AckFilterParams, AckFilterScheme, AckFilterStats};
pub use rate::{AckRateControl, AckRateParams, AckRelease, AckStats};
