//! NR RLC (TS 38.322) and the PDCP and SDAP header sizes (TS 38.323, TS 37.324) as a flavour
//! of the byte-stream RLC entity of `radio/lte/rlc.rs` (docs/models/nr-rlc.md).
//!
//! [`NrRlcConfig`] holds what RRC configures for a bearer (TS 38.331 `RLC-Config`,
//! `PDCP-Config`, `SDAP-Config`), checks each value against the choices 38.331 offers, and
//! builds the [`LteRlcParams`] of the NR flavour (`concatenation = false`): no concatenation
//! (38.322 §4.2.1.3), the NR header sizes, one MAC subheader per RLC PDU (TS 38.321 §6.1.2),
//! the NR STATUS fields and the AM window of the SN length. The entity stays
//! [`crate::radio::lte::rlc::LteRlcEntity`], with the same calls.
//!
//! Value lists checked against srsRAN Project's `rlc_config.h` (the 38.331 enumerations) and
//! its `rlc_am_pdu.h` (header and STATUS field sizes); DRB defaults from OpenAirInterface's
//! NR RLC bearer configuration.

use crate::engine::NS_PER_MS;
use crate::error::ParamError;
use crate::radio::lte::rlc::{LteRlcParams, RlcMode};

/// AMD PDU header with a 12-bit SN: D/C, P, SI, SN (38.322 §6.2.2.4).
pub const AMD_HEADER_BYTES_12: u32 = 2;
/// AMD PDU header with an 18-bit SN: D/C, P, SI, R, SN.
pub const AMD_HEADER_BYTES_18: u32 = 3;
/// UMD PDU with a complete SDU: SI and R only, no SN (38.322 §6.2.2.3).
pub const UMD_COMPLETE_HEADER_BYTES: u32 = 1;
/// UMD PDU with a segment, 6-bit SN: SI, SN.
pub const UMD_SEGMENT_HEADER_BYTES_6: u32 = 1;
/// UMD PDU with a segment, 12-bit SN: SI, R, SN.
pub const UMD_SEGMENT_HEADER_BYTES_12: u32 = 2;
/// The SO of a middle or last segment (16 bits, 38.322 §6.2.3).
pub const SO_BYTES: u32 = 2;
/// STATUS PDU without NACKs: D/C, CPT, ACK_SN, E1 and R pad to 3 octets with a 12- or an
/// 18-bit SN (38.322 §6.2.2.5).
pub const STATUS_HEADER_BYTES: u32 = 3;
/// A NACK entry's NACK_SN, E1, E2, E3 and R: 12 + 3 + 1 bits.
pub const NACK_SN_BYTES_12: u32 = 2;
/// The same with an 18-bit SN: 18 + 3 + 3 bits.
pub const NACK_SN_BYTES_18: u32 = 3;
/// SOstart and SOend (E2 set), 16 bits each.
pub const NACK_SO_BYTES: u32 = 4;
/// NACK range (E3 set), 8 bits: up to 255 SDUs.
pub const NACK_RANGE_BYTES: u32 = 1;
/// MAC subheader for a MAC SDU of up to 255 octets: R, F, LCID (6 bits), 8-bit L (38.321
/// §6.1.2).
pub const MAC_SUBHEADER_BYTES: u32 = 2;
/// The same with a 16-bit L.
pub const MAC_SUBHEADER_LONG_BYTES: u32 = 3;
/// PDCP data PDU header for a DRB with a 12-bit SN: D/C, R, SN (38.323 §6.2.2.2).
pub const PDCP_HEADER_BYTES_12: u32 = 2;
/// The same with an 18-bit SN (§6.2.2.3).
pub const PDCP_HEADER_BYTES_18: u32 = 3;
/// MAC-I, on SRB PDUs and on DRB PDUs of a bearer with integrity protection (38.323
/// §6.3.4).
pub const MAC_I_BYTES: u32 = 4;
/// SDAP data PDU header when configured (DL: RDI, RQI, QFI; UL: D/C, R, QFI; 37.324
/// §6.2.2.2-3); none when not.
pub const SDAP_HEADER_BYTES: u32 = 1;

/// AM_Window_Size (38.322 §7.2): 2^(SN bits - 1), 2048 with a 12-bit SN, 131072 with 18.
pub const fn am_window_size(sn_bits: u32) -> u32 {
    1 << (sn_bits - 1)
}

/// t-PollRetransmit choices in ms (38.331 `T-PollRetransmit`, without the Rel-16 ms1..ms4).
pub const T_POLL_RETRANSMIT_MS: [u32; 59] = [
    5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100, 105, 110, 115,
    120, 125, 130, 135, 140, 145, 150, 155, 160, 165, 170, 175, 180, 185, 190, 195, 200, 205, 210,
    215, 220, 225, 230, 235, 240, 245, 250, 300, 350, 400, 450, 500, 800, 1000, 2000, 4000,
];
/// t-Reassembly choices in ms (38.331 `T-Reassembly`).
pub const T_REASSEMBLY_MS: [u32; 31] = [
    0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100, 110, 120,
    130, 140, 150, 160, 170, 180, 190, 200,
];
/// t-StatusProhibit choices in ms (38.331 `T-StatusProhibit`, without the Rel-16 ms1..ms4).
pub const T_STATUS_PROHIBIT_MS: [u32; 62] = [
    0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100, 105, 110,
    115, 120, 125, 130, 135, 140, 145, 150, 155, 160, 165, 170, 175, 180, 185, 190, 195, 200, 205,
    210, 215, 220, 225, 230, 235, 240, 245, 250, 300, 350, 400, 450, 500, 800, 1000, 1200, 1600,
    2000, 2400,
];
/// pollPDU choices (38.331 `PollPDU`; `None` in [`NrRlcConfig`] is infinity).
pub const POLL_PDU: [u32; 23] = [
    4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 6144, 8192, 12288, 16384, 20480, 24576,
    28672, 32768, 40960, 49152, 57344, 65536,
];
/// pollByte choices in kB (38.331 `PollByte`, kB1 .. mB40; `None` is infinity). A kB is
/// 1000 octets, as in lte-rlc.md.
pub const POLL_BYTE_KB: [u32; 43] = [
    1, 2, 5, 8, 10, 15, 25, 50, 75, 100, 125, 250, 375, 500, 750, 1000, 1250, 1500, 2000, 3000,
    4000, 4500, 5000, 5500, 6000, 6500, 7000, 7500, 8000, 9000, 10000, 11000, 12000, 13000, 14000,
    15000, 16000, 17000, 18000, 20000, 25000, 30000, 40000,
];
/// maxRetxThreshold choices (38.331 `UL-AM-RLC`, t1 .. t32).
pub const MAX_RETX_THRESHOLD: [u32; 8] = [1, 2, 3, 4, 6, 8, 16, 32];

/// One NR radio bearer's RLC, PDCP and SDAP configuration, in 38.331's terms. Both ends of
/// the bearer use it (the entity takes one parameter set for both directions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NrRlcConfig {
    /// AM (`am`) or UM (`um-Bi-Directional`).
    pub mode: RlcMode,
    /// `sn-FieldLength`: 12 or 18 in AM (`SN-FieldLengthAM`), 6 or 12 in UM.
    pub sn_bits: u32,
    /// `pdcp-SN-SizeDL/UL`: 12 or 18.
    pub pdcp_sn_bits: u32,
    /// Integrity protection of the DRB (`integrityProtection`): a 4-octet MAC-I on every
    /// PDCP data PDU. Always on for SRBs, which this model does not carry.
    pub integrity: bool,
    /// `sdap-HeaderDL/UL` present: one octet in front of every PDCP SDU.
    pub sdap_header: bool,
    /// t-PollRetransmit, ms (AM).
    pub t_poll_retransmit_ms: u32,
    /// t-Reassembly, ms.
    pub t_reassembly_ms: u32,
    /// t-StatusProhibit, ms (AM).
    pub t_status_prohibit_ms: u32,
    /// pollPDU (AM); `None` is infinity.
    pub poll_pdu: Option<u32>,
    /// pollByte in kB (AM); `None` is infinity.
    pub poll_byte_kb: Option<u32>,
    /// maxRetxThreshold (AM).
    pub max_retx_threshold: u32,
}

impl Default for NrRlcConfig {
    /// An AM DRB as OpenAirInterface's gNB configures one: 18-bit RLC and PDCP SNs, no
    /// integrity, no SDAP header, t-PollRetransmit 45 ms, t-Reassembly 15 ms,
    /// t-StatusProhibit 15 ms, pollPDU 64, pollByte 500 kB, maxRetxThreshold 32.
    fn default() -> Self {
        Self {
            mode: RlcMode::Am,
            sn_bits: 18,
            pdcp_sn_bits: 18,
            integrity: false,
            sdap_header: false,
            t_poll_retransmit_ms: 45,
            t_reassembly_ms: 15,
            t_status_prohibit_ms: 15,
            poll_pdu: Some(64),
            poll_byte_kb: Some(500),
            max_retx_threshold: 32,
        }
    }
}

fn one_of(field: &str, value: u32, choices: &[u32], what: &str) -> Result<(), ParamError> {
    if choices.contains(&value) {
        Ok(())
    } else {
        Err(ParamError::new(field, value, what))
    }
}

impl NrRlcConfig {
    /// Every value must be one 38.331 offers (the LTE entity accepts any positive time, so
    /// that ns-3's settings can be reproduced; an NR bearer is configured by RRC's lists).
    pub fn validate(&self) -> Result<(), ParamError> {
        match self.mode {
            RlcMode::Am => one_of(
                "sn_bits",
                self.sn_bits,
                &[12, 18],
                "12 or 18 (38.331 SN-FieldLengthAM)",
            )?,
            RlcMode::Um => one_of(
                "sn_bits",
                self.sn_bits,
                &[6, 12],
                "6 or 12 (38.331 SN-FieldLengthUM)",
            )?,
        }
        one_of(
            "pdcp_sn_bits",
            self.pdcp_sn_bits,
            &[12, 18],
            "12 or 18 (38.331 pdcp-SN-Size)",
        )?;
        one_of(
            "t_poll_retransmit_ms",
            self.t_poll_retransmit_ms,
            &T_POLL_RETRANSMIT_MS,
            "38.331 T-PollRetransmit: 5..=250 in steps of 5, 300, 350, 400, 450, 500, 800, 1000, 2000, 4000",
        )?;
        one_of(
            "t_reassembly_ms",
            self.t_reassembly_ms,
            &T_REASSEMBLY_MS,
            "38.331 T-Reassembly: 0..=100 in steps of 5, 110..=200 in steps of 10",
        )?;
        one_of(
            "t_status_prohibit_ms",
            self.t_status_prohibit_ms,
            &T_STATUS_PROHIBIT_MS,
            "38.331 T-StatusProhibit: 0..=250 in steps of 5, 300, 350, 400, 450, 500, 800, 1000, 1200, 1600, 2000, 2400",
        )?;
        if let Some(p) = self.poll_pdu {
            one_of(
                "poll_pdu",
                p,
                &POLL_PDU,
                "38.331 PollPDU: 4, 8, 16, .., 65536, or none (infinity)",
            )?;
        }
        if let Some(b) = self.poll_byte_kb {
            one_of(
                "poll_byte_kb",
                b,
                &POLL_BYTE_KB,
                "38.331 PollByte: 1, 2, 5, 8, 10, 15, 25, .., 40000 kB, or none (infinity)",
            )?;
        }
        one_of(
            "max_retx_threshold",
            self.max_retx_threshold,
            &MAX_RETX_THRESHOLD,
            "38.331 maxRetxThreshold: 1, 2, 3, 4, 6, 8, 16, 32",
        )
    }

    /// The entity's parameters of the NR flavour for this bearer.
    pub fn params(&self) -> Result<LteRlcParams, ParamError> {
        self.validate()?;
        let (full, segment) = match (self.mode, self.sn_bits) {
            (RlcMode::Am, 12) => (AMD_HEADER_BYTES_12, AMD_HEADER_BYTES_12),
            (RlcMode::Am, _) => (AMD_HEADER_BYTES_18, AMD_HEADER_BYTES_18),
            (RlcMode::Um, 6) => (UMD_COMPLETE_HEADER_BYTES, UMD_SEGMENT_HEADER_BYTES_6),
            (RlcMode::Um, _) => (UMD_COMPLETE_HEADER_BYTES, UMD_SEGMENT_HEADER_BYTES_12),
        };
        let pdcp = if self.pdcp_sn_bits == 12 {
            PDCP_HEADER_BYTES_12
        } else {
            PDCP_HEADER_BYTES_18
        } + if self.integrity { MAC_I_BYTES } else { 0 }
            + if self.sdap_header {
                SDAP_HEADER_BYTES
            } else {
                0
            };
        let p = LteRlcParams {
            mode: self.mode,
            pdcp_header_bytes: pdcp,
            rlc_header_bytes: full,
            // No LIs in NR: a PDU never holds a second SDU.
            li_bytes: 0,
            segment_header_bytes: segment,
            nack_bytes: if self.sn_bits == 12 {
                NACK_SN_BYTES_12
            } else {
                NACK_SN_BYTES_18
            },
            t_poll_retransmit: self.t_poll_retransmit_ms as u64 * NS_PER_MS,
            t_reordering: self.t_reassembly_ms as u64 * NS_PER_MS,
            t_status_prohibit: self.t_status_prohibit_ms as u64 * NS_PER_MS,
            poll_pdu: self.poll_pdu.unwrap_or(u32::MAX),
            poll_byte: self.poll_byte_kb.map_or(u64::MAX, |kb| kb as u64 * 1000),
            max_retx: self.max_retx_threshold,
            concatenation: false,
            so_bytes: SO_BYTES,
            mac_subheader_bytes: MAC_SUBHEADER_BYTES,
            mac_subheader_long_bytes: MAC_SUBHEADER_LONG_BYTES,
            status_header_bytes: STATUS_HEADER_BYTES,
            nack_so_bytes: NACK_SO_BYTES,
            nack_range_bytes: NACK_RANGE_BYTES,
            // Used in AM only: UM has no transmitting window (38.322 §5.2.2.1).
            am_window_size: am_window_size(self.sn_bits),
        };
        p.validate()?;
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_the_sn_length() {
        assert_eq!(am_window_size(12), 2048);
        assert_eq!(am_window_size(18), 131_072);
    }

    #[test]
    fn header_sizes_per_mode_and_sn_length() {
        let am12 = NrRlcConfig {
            sn_bits: 12,
            pdcp_sn_bits: 12,
            ..NrRlcConfig::default()
        }
        .params()
        .unwrap();
        assert_eq!(
            (
                am12.rlc_header_bytes,
                am12.segment_header_bytes,
                am12.so_bytes,
                am12.pdcp_header_bytes,
                am12.nack_bytes,
                am12.am_window_size
            ),
            (2, 2, 2, 2, 2, 2048)
        );
        let am18 = NrRlcConfig {
            sdap_header: true,
            integrity: true,
            ..NrRlcConfig::default()
        }
        .params()
        .unwrap();
        assert_eq!(
            (
                am18.rlc_header_bytes,
                am18.segment_header_bytes,
                am18.pdcp_header_bytes,
                am18.nack_bytes,
                am18.am_window_size
            ),
            (3, 3, 3 + 4 + 1, 3, 131_072)
        );
        assert!(!am18.concatenation);
        assert_eq!(am18.status_header_bytes, 3);
        assert_eq!(
            (am18.mac_subheader_bytes, am18.mac_subheader_long_bytes),
            (2, 3)
        );
        assert_eq!(am18.t_reordering, 15 * NS_PER_MS, "t-Reassembly");
        assert_eq!((am18.poll_pdu, am18.poll_byte), (64, 500_000));
        let um = |sn_bits| {
            NrRlcConfig {
                mode: RlcMode::Um,
                sn_bits,
                ..NrRlcConfig::default()
            }
            .params()
            .unwrap()
        };
        assert_eq!((um(6).rlc_header_bytes, um(6).segment_header_bytes), (1, 1));
        assert_eq!(
            (um(12).rlc_header_bytes, um(12).segment_header_bytes),
            (1, 2)
        );
        let inf = NrRlcConfig {
            poll_pdu: None,
            poll_byte_kb: None,
            ..NrRlcConfig::default()
        }
        .params()
        .unwrap();
        assert_eq!((inf.poll_pdu, inf.poll_byte), (u32::MAX, u64::MAX));
    }

    #[test]
    fn only_38_331_choices_are_accepted() {
        let d = NrRlcConfig::default;
        assert!(d().validate().is_ok());
        let bad = |c: NrRlcConfig| c.params().unwrap_err().field;
        assert_eq!(bad(NrRlcConfig { sn_bits: 10, ..d() }), "sn_bits");
        assert_eq!(
            bad(NrRlcConfig {
                mode: RlcMode::Um,
                sn_bits: 18,
                ..d()
            }),
            "sn_bits"
        );
        assert_eq!(
            bad(NrRlcConfig {
                pdcp_sn_bits: 7,
                ..d()
            }),
            "pdcp_sn_bits"
        );
        assert_eq!(
            bad(NrRlcConfig {
                t_poll_retransmit_ms: 0,
                ..d()
            }),
            "t_poll_retransmit_ms"
        );
        assert_eq!(
            bad(NrRlcConfig {
                t_poll_retransmit_ms: 255,
                ..d()
            }),
            "t_poll_retransmit_ms"
        );
        assert_eq!(
            bad(NrRlcConfig {
                t_reassembly_ms: 105,
                ..d()
            }),
            "t_reassembly_ms"
        );
        assert_eq!(
            bad(NrRlcConfig {
                t_status_prohibit_ms: 3,
                ..d()
            }),
            "t_status_prohibit_ms"
        );
        assert_eq!(
            bad(NrRlcConfig {
                poll_pdu: Some(100),
                ..d()
            }),
            "poll_pdu"
        );
        assert_eq!(
            bad(NrRlcConfig {
                poll_byte_kb: Some(3),
                ..d()
            }),
            "poll_byte_kb"
        );
        assert_eq!(
            bad(NrRlcConfig {
                max_retx_threshold: 5,
                ..d()
            }),
            "max_retx_threshold"
        );
        // The lists' ends.
        for (t, r, s) in [(5, 0, 0), (4000, 200, 2400)] {
            assert!(NrRlcConfig {
                t_poll_retransmit_ms: t,
                t_reassembly_ms: r,
                t_status_prohibit_ms: s,
                ..d()
            }
            .validate()
            .is_ok());
        }
    }
}
