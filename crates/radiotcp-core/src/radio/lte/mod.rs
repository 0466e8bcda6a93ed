//! LTE building blocks (issue 12): the transport block size tables of 3GPP TS 36.213
//! ([`tbs`]), the Case-1 cell geometry ([`geometry`]) and the SINR -> CQI -> MCS -> BLER chain
//! ([`amc`]). Entities only so far; the LTE cell node that uses them is not wired into the
//! topology yet.

pub mod amc;
pub mod geometry;
pub mod tbs;

pub use tbs::{
    is_allowed_ul_prb, largest_allowed_ul_prb, mcs_to_itbs, tbs_bits, tbs_bytes, tbs_for_mcs,
    Channel, McsEntry, Modulation, MAX_I_TBS, MAX_MCS, MAX_N_PRB,
};
