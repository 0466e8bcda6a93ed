//! LTE building blocks (issue 12): the transport block size tables of 3GPP TS 36.213
//! ([`tbs`]), the Case-1 cell geometry ([`geometry`]), the SINR -> CQI -> MCS -> BLER chain
//! ([`amc`]), fast fading ([`fading`]), HARQ ([`harq`]), the UE's uplink request path, SR and
//! BSR ([`ul_mac`]), the proportional-fair downlink scheduler ([`sched`]), and the RLC entity,
//! AM and UM, of TS 36.322 ([`rlc`]). The LTE cell node (`node/lte.rs`) drives them.

pub mod amc;
pub mod fading;
pub mod geometry;
pub mod harq;
pub mod pdcch;
pub mod power;
pub mod rlc;
pub mod sched;
pub mod tbs;
pub mod ul_mac;

pub use tbs::{
    is_allowed_ul_prb, largest_allowed_ul_prb, mcs_to_itbs, tbs_bits, tbs_bytes, tbs_for_mcs,
    Channel, McsEntry, Modulation, MAX_I_TBS, MAX_MCS, MAX_N_PRB,
};
