//! Radio links: channel models, link-layer ARQ entities (UMTS RLC AM, IS-707 RLP) and LTE
//! building blocks. A MAC model hands transmission opportunities to an ARQ entity; the
//! channel decides the fate of each transmission time interval (or 20 ms RLP slot).

pub mod cell;
pub mod channel;
pub mod lte;
pub mod nr;
pub mod rlc_am;
pub mod rlp;

/// A power ratio in dB as a linear factor.
#[inline]
pub(crate) fn db_to_lin(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// A linear power ratio in dB.
#[inline]
pub(crate) fn lin_to_db(lin: f64) -> f64 {
    10.0 * lin.log10()
}

/// A modulation of the LTE and NR shared channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modulation {
    Qpsk,
    Qam16,
    Qam64,
    Qam256,
}

impl Modulation {
    /// Modulation order Q_m, bits per symbol.
    pub fn order(self) -> u32 {
        match self {
            Modulation::Qpsk => 2,
            Modulation::Qam16 => 4,
            Modulation::Qam64 => 6,
            Modulation::Qam256 => 8,
        }
    }
}

/// What the MAC grants an ARQ entity for one transmission time interval: the interface
/// between a scheduler and RLC / RLP. A dedicated channel grants a fixed number of
/// fixed-size PDUs (the UMTS DCH's transport blocks per TTI, IS-707 frames per slot); a
/// shared-channel scheduler grants a transport block of some octets (the LTE TBS of an
/// uplink grant or a downlink allocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxOpportunity {
    /// This many PDUs of the entity's configured size.
    Pdus(u32),
    /// A transport block of this many octets.
    Bytes(u32),
}

impl TxOpportunity {
    /// The octets of a transport block, for an entity whose PDUs have no fixed size (LTE
    /// RLC builds PDUs to fit). Panics on `Pdus`: such an entity has no PDU size to count in.
    #[inline]
    pub fn octets(self) -> u32 {
        match self {
            TxOpportunity::Bytes(b) => b,
            TxOpportunity::Pdus(_) => {
                panic!("an entity with variable PDUs takes a grant in octets")
            }
        }
    }

    /// The PDUs of `pdu_bytes` octets each (header included) that fit: an entity with
    /// fixed-size PDUs (RLC AM as configured for the DCH, RLP frames) fills that many; the
    /// octets left over are padding.
    #[inline]
    pub fn pdus(self, pdu_bytes: u32) -> usize {
        match self {
            TxOpportunity::Pdus(n) => n as usize,
            TxOpportunity::Bytes(b) => (b / pdu_bytes.max(1)) as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TxOpportunity;

    #[test]
    fn a_transport_block_holds_whole_pdus_only() {
        assert_eq!(TxOpportunity::Pdus(12).pdus(42), 12);
        assert_eq!(TxOpportunity::Bytes(12 * 42).pdus(42), 12);
        assert_eq!(TxOpportunity::Bytes(12 * 42 - 1).pdus(42), 11);
        assert_eq!(TxOpportunity::Bytes(41).pdus(42), 0);
    }
}
