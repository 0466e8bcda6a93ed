//! Radio links: channel models and link-layer ARQ entities (UMTS RLC AM; later IS-707 RLP and
//! LTE). A MAC model hands transmission opportunities to an ARQ entity; the channel decides
//! the fate of each transmission time interval.

pub mod channel;
pub mod rlc_am;
