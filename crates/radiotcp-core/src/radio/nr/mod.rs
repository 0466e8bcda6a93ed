//! NR building blocks (issue 25): numerology and carrier size ([`numerology`], TS 38.211 and
//! TS 38.101), FDD and TDD slot patterns ([`duplex`], TS 38.213 §11.1), the Short BSR's
//! levels ([`bsr`], TS 38.321 §6.1.3.1), and the transport block size, MCS tables, LDPC base graph and code-block
//! segmentation ([`tbs`], TS 38.214 §5.1.3 and TS 38.212). Pure functions with no state: the
//! NR cell's entities and node build on them.

pub mod bsr;
pub mod duplex;
pub mod numerology;
pub mod rlc;
pub mod tbs;
