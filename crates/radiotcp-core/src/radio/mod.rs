//! Radio links: channel models and link-layer ARQ entities (UMTS RLC AM, IS-707 RLP; later
//! LTE). A MAC model hands transmission opportunities to an ARQ entity; the channel decides
//! the fate of each transmission time interval (or 20 ms RLP slot).

pub mod channel;
pub mod rlc_am;
pub mod rlp;
