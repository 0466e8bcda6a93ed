//! RLC AM: segmentation, polling, STATUS timing, MaxDAT discard with MRW, and exactly-once
//! in-order delivery under random and bursty TTI losses.

use std::collections::HashSet;

use proptest::prelude::*;
use radiotcp_core::engine::{millis, RngStream, Time};
use radiotcp_core::packet::{Packet, PacketKind};
use radiotcp_core::radio::rlc_am::{Pdu, RlcAmEntity, RlcAmParams};
use radiotcp_core::radio::TxOpportunity;

const TTI: Time = 10_000_000;

fn params() -> RlcAmParams {
    // The papers' Table 1 (model-specs §2.9 for what the table leaves out).
    RlcAmParams {
        pdu_payload_bytes: 40,
        li_bytes: 1,
        window_pdus: 1024,
        max_dat: 10,
        timer_poll: millis(60.0),
        timer_poll_prohibit: 0,
        timer_status_prohibit: millis(60.0),
        poll_window_pct: 50.0,
        poll_last_pdu: true,
        poll_last_retransmitted: true,
        missing_pdu_indicator: true,
        timer_mrw: millis(500.0),
    }
}

fn sdu(seq: u64, size: u32) -> Packet {
    Packet {
        flow: 0,
        kind: PacketKind::Data,
        dst: 0,
        seq,
        len: size.saturating_sub(40),
        size,
        rwnd: 0,
        sent_at: 0,
        opt: Default::default(),
    }
}

/// Two entities over a channel of `delay_ttis` one-way delay; `lose(dir, tti)` decides the
/// fate of each TTI (dir 0: a -> b, 1: b -> a), all PDUs of a TTI sharing it.
struct Bearer {
    a: RlcAmEntity,
    b: RlcAmEntity,
    /// The MAC's grant to each end every TTI.
    grant: TxOpportunity,
    delay_ttis: u64,
    tti: u64,
    in_flight: Vec<(u64, usize, Vec<Pdu>)>,
    /// (tti, dir, pdus sent) for inspection.
    log: Vec<(u64, usize, Vec<Pdu>)>,
    delivered_b: Vec<Packet>,
}

impl Bearer {
    fn new(p: RlcAmParams) -> Self {
        Self {
            a: RlcAmEntity::new(p.clone()),
            b: RlcAmEntity::new(p),
            grant: TxOpportunity::Pdus(12),
            delay_ttis: 2,
            tti: 0,
            in_flight: Vec::new(),
            log: Vec::new(),
            delivered_b: Vec::new(),
        }
    }

    fn step(&mut self, lose: &mut dyn FnMut(usize, u64) -> bool) {
        let now = self.tti * TTI;
        // Deliver what arrives now.
        let (due, rest): (Vec<_>, Vec<_>) = self
            .in_flight
            .drain(..)
            .partition(|(t, _, _)| *t <= self.tti);
        self.in_flight = rest;
        for (_, dir, pdus) in due {
            if dir == 0 {
                self.b.on_pdus(pdus);
            } else {
                self.a.on_pdus(pdus);
            }
        }
        self.delivered_b.extend(self.b.take_delivered());
        for dir in 0..2 {
            let e = if dir == 0 { &mut self.a } else { &mut self.b };
            let pdus = e.poll_transmit(now, self.grant);
            if pdus.is_empty() {
                continue;
            }
            self.log.push((self.tti, dir, pdus.clone()));
            if !lose(dir, self.tti) {
                self.in_flight.push((self.tti + self.delay_ttis, dir, pdus));
            }
        }
        self.tti += 1;
    }

    fn run(&mut self, ttis: u64, lose: &mut dyn FnMut(usize, u64) -> bool) {
        for _ in 0..ttis {
            self.step(lose);
        }
    }

    fn data_sns(&self, dir: usize) -> Vec<(u64, u32, bool)> {
        self.log
            .iter()
            .filter(|(_, d, _)| *d == dir)
            .flat_map(|(t, _, pdus)| {
                pdus.iter().filter_map(move |p| match p {
                    Pdu::Data { sn, poll, .. } => Some((*t, *sn, *poll)),
                    _ => None,
                })
            })
            .collect()
    }

    fn status_ttis(&self, dir: usize) -> Vec<u64> {
        self.log
            .iter()
            .filter(|(_, d, pdus)| {
                *d == dir && pdus.iter().any(|p| matches!(p, Pdu::Status { .. }))
            })
            .map(|(t, _, _)| *t)
            .collect()
    }
}

#[test]
fn segmentation_counts_length_indicators_and_concatenates() {
    let mut b = Bearer::new(params());
    b.a.offer_sdu(0, sdu(0, 1500));
    b.run(1, &mut |_, _| false);
    // 1500 octets + 1 LI = 1501 -> 38 PDUs of 40 (§2.2 worked example); 12 go in the first TTI.
    b.run(10, &mut |_, _| false);
    assert_eq!(b.data_sns(0).len(), 38);
    assert_eq!(b.delivered_b.len(), 1);

    // Two 40-byte ACKs: 41 + 41 octets concatenated into 3 PDUs (not 2 x 2).
    let mut b = Bearer::new(params());
    b.a.offer_sdu(0, sdu(0, 40));
    b.a.offer_sdu(0, sdu(1, 40));
    b.run(10, &mut |_, _| false);
    assert_eq!(b.data_sns(0).len(), 3);
    assert_eq!(
        b.delivered_b.iter().map(|p| p.seq).collect::<Vec<_>>(),
        vec![0, 1]
    );

    // One 40-byte SDU exactly fills a PDU; its LI goes in a second PDU (2 PDUs, §2.2).
    let mut b = Bearer::new(params());
    b.a.offer_sdu(0, sdu(0, 40));
    b.run(10, &mut |_, _| false);
    assert_eq!(b.data_sns(0).len(), 2);
    assert_eq!(b.delivered_b.len(), 1);
}

#[test]
fn a_grant_in_octets_holds_whole_42_octet_pdus() {
    // 1500 octets + 1 LI -> 38 PDUs of 40 payload + 2 header octets. A transport block of
    // 12 x 42 octets is the same grant as 12 PDUs; one octet less holds only 11.
    let run = |grant| {
        let mut b = Bearer::new(params());
        b.grant = grant;
        b.a.offer_sdu(0, sdu(0, 1500));
        b.run(1, &mut |_, _| false);
        b.data_sns(0).len()
    };
    assert_eq!(run(TxOpportunity::Pdus(12)), 12);
    assert_eq!(run(TxOpportunity::Bytes(12 * 42)), 12);
    assert_eq!(run(TxOpportunity::Bytes(12 * 42 - 1)), 11);
    assert_eq!(run(TxOpportunity::Bytes(41)), 0);
}

#[test]
fn last_pdu_in_buffer_carries_the_poll_and_status_acknowledges() {
    let mut b = Bearer::new(params());
    b.a.offer_sdu(0, sdu(0, 200)); // 201 octets -> 6 PDUs, one TTI
    b.run(10, &mut |_, _| false);
    let sent = b.data_sns(0);
    assert_eq!(sent.len(), 6);
    assert!(sent.last().unwrap().2, "poll on the last PDU in buffer");
    assert!(sent[..5].iter().all(|s| !s.2));
    // The poll makes the receiver send a STATUS, which empties the sender's buffer.
    assert_eq!(b.status_ttis(1).len(), 1);
    assert_eq!(b.a.buffer_occupancy(), 0);
    assert_eq!(b.a.vt_a(), 6);
}

#[test]
fn lost_last_pdu_is_recovered_by_the_poll_timer() {
    let mut b = Bearer::new(params());
    b.a.offer_sdu(0, sdu(0, 200));
    // Lose the first TTI from a to b: all six PDUs, the poll among them. Nothing tells the
    // receiver anything is missing; only Timer_Poll (60 ms) can recover.
    b.run(30, &mut |dir, tti| dir == 0 && tti == 0);
    let sent = b.data_sns(0);
    let retx: Vec<_> = sent.iter().filter(|s| s.0 > 0).collect();
    // At t = 60 ms the poll is repeated on a retransmission of VT(S) - 1 (the carrier).
    assert_eq!(retx[0].0, 6, "first retransmission at Timer_Poll expiry");
    assert_eq!(retx[0].1, 5);
    assert!(retx[0].2);
    // The receiver's STATUS then NACKs 0..4, which are retransmitted, and the SDU arrives.
    assert_eq!(b.delivered_b.len(), 1);
    assert_eq!(b.a.buffer_occupancy(), 0);
}

/// The entity vocabulary: `poll_timeout` names Timer_Poll's expiry, `handle_timeout` before
/// it changes nothing, at it re-arms the poll, which the next opportunity carries.
#[test]
fn poll_timeout_names_timer_poll_and_handle_timeout_runs_it() {
    let mut a = RlcAmEntity::new(params());
    assert_eq!(a.poll_timeout(), None);
    a.offer_sdu(0, sdu(0, 200));
    let sent = a.poll_transmit(0, TxOpportunity::Pdus(12));
    assert!(matches!(sent.last(), Some(Pdu::Data { poll: true, .. })));
    let due = a.poll_timeout().expect("Timer_Poll runs after a poll");
    assert_eq!(due, millis(60.0));
    a.handle_timeout(due - 1);
    assert_eq!(a.poll_timeout(), Some(due));
    a.handle_timeout(due);
    assert_eq!(a.poll_timeout(), None, "expired");
    let again = a.poll_transmit(due, TxOpportunity::Pdus(1));
    assert!(
        matches!(
            again[..],
            [Pdu::Data {
                sn: 5,
                poll: true,
                ..
            }]
        ),
        "{again:?}"
    );
}

#[test]
fn status_prohibit_spaces_status_reports() {
    let mut b = Bearer::new(params());
    for i in 0..20 {
        b.a.offer_sdu(0, sdu(i, 1500));
    }
    // Lose every third TTI a -> b: the missing-PDU indicator fires every few TTIs.
    b.run(400, &mut |dir, tti| dir == 0 && tti % 3 == 0 && tti < 200);
    let st = b.status_ttis(1);
    assert!(st.len() > 5);
    for w in st.windows(2) {
        assert!(
            w[1] - w[0] >= 6,
            "STATUS at TTIs {} and {}: < 60 ms apart",
            w[0],
            w[1]
        );
    }
    assert_eq!(b.delivered_b.len(), 20);
}

#[test]
fn max_dat_discards_whole_sdus_and_mrw_keeps_both_sides_in_step() {
    let mut p = params();
    p.max_dat = 3; // at most 2 transmissions per PDU
    let mut b = Bearer::new(p);
    for i in 0..10 {
        b.a.offer_sdu(0, sdu(i, 1500));
    }
    // A long downlink fade: every TTI a -> b lost for 300 ms after the first two.
    b.run(300, &mut |dir, tti| dir == 0 && (2..32).contains(&tti));
    assert!(b.a.stats.sdus_discarded > 0, "{:?}", b.a.stats);
    assert!(b.a.stats.mrw_sent > 0);
    let got: Vec<u64> = b.delivered_b.iter().map(|p| p.seq).collect();
    assert!(
        got.windows(2).all(|w| w[0] < w[1]),
        "in order, no duplicates: {got:?}"
    );
    // Every SDU is delivered or discarded; a discarded SDU may have reached the receiver
    // already (§2.7 discards every SDU with a segment in [VT(A), X], acknowledged or not).
    let discarded = b.a.stats.sdus_discarded;
    assert!(got.len() as u64 + discarded >= 10, "{got:?} + {discarded}");
    assert!(
        got.len() < 10,
        "the fade outlasts MaxDAT: something is discarded"
    );
    // Both ends agree: the sender's window is empty and the receiver expects what comes next.
    assert_eq!(b.a.buffer_occupancy(), 0);
    assert_eq!(b.a.vt_a(), b.a.vt_s());
    assert_eq!(b.b.vr_r(), b.a.vt_s());
}

fn run_random(
    max_dat: u32,
    sizes: &[u32],
    mut lose: impl FnMut(usize, u64) -> bool,
) -> (Bearer, Vec<u64>) {
    let mut p = params();
    p.max_dat = max_dat;
    let mut b = Bearer::new(p);
    // SDUs arrive over time, as from TCP.
    let mut next = 0;
    for tti in 0..20_000u64 {
        if tti % 3 == 0 && next < sizes.len() {
            b.a.offer_sdu(0, sdu(next as u64, sizes[next]));
            next += 1;
        }
        b.step(&mut lose);
        if next == sizes.len() && b.a.is_idle() && b.b.is_idle() && b.in_flight.is_empty() {
            break;
        }
    }
    let got = b.delivered_b.iter().map(|p| p.seq).collect();
    (b, got)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Unlimited MaxDAT: every SDU exactly once, in order, under i.i.d. TTI losses in both
    /// directions (STATUS and polls lost too).
    #[test]
    fn unlimited_max_dat_delivers_everything_once_in_order(
        seed in any::<u64>(),
        p_loss in 0.0f64..0.5,
        sizes in prop::collection::vec(20u32..1600, 1..60),
    ) {
        let mut rng = RngStream::new(seed, 0, 0);
        let (b, got) = run_random(u32::MAX, &sizes, |_, _| rng.bernoulli(p_loss));
        prop_assert_eq!(got, (0..sizes.len() as u64).collect::<Vec<_>>());
        prop_assert_eq!(b.a.buffer_occupancy(), 0);
    }

    /// Bursty losses (a two-state chain with long bad periods): same guarantee.
    #[test]
    fn unlimited_max_dat_survives_bursts(
        seed in any::<u64>(),
        sizes in prop::collection::vec(20u32..1600, 1..40),
    ) {
        let mut rng = RngStream::new(seed, 0, 1);
        let mut bad = [false, false];
        let (b, got) = run_random(u32::MAX, &sizes, |dir, _| {
            let flip = if bad[dir] { 0.1 } else { 0.02 };
            if rng.bernoulli(flip) {
                bad[dir] = !bad[dir];
            }
            bad[dir]
        });
        prop_assert_eq!(got, (0..sizes.len() as u64).collect::<Vec<_>>());
        prop_assert_eq!(b.a.buffer_occupancy(), 0);
    }

    /// Small MaxDAT: SDUs are discarded and counted, never delivered twice or out of order,
    /// and every SDU is either delivered or discarded; both ends end in step.
    #[test]
    fn small_max_dat_discards_cleanly(
        seed in any::<u64>(),
        max_dat in 2u32..5,
        p_loss in 0.1f64..0.6,
        sizes in prop::collection::vec(20u32..1600, 1..50),
    ) {
        let mut rng = RngStream::new(seed, 0, 2);
        let (b, got) = run_random(max_dat, &sizes, |_, _| rng.bernoulli(p_loss));
        let set: HashSet<u64> = got.iter().copied().collect();
        prop_assert_eq!(set.len(), got.len(), "no duplicates");
        prop_assert!(got.windows(2).all(|w| w[0] < w[1]), "in order");
        prop_assert!(got.len() as u64 + b.a.stats.sdus_discarded >= sizes.len() as u64);
        prop_assert_eq!(b.a.buffer_occupancy(), 0);
        prop_assert_eq!(b.a.vt_a(), b.a.vt_s());
        prop_assert_eq!(b.b.vr_r(), b.a.vt_s());
    }
}

#[test]
fn drop_first_unsent_spares_sdus_already_on_the_air() {
    let mut b = Bearer::new(params());
    for i in 0..3 {
        b.a.offer_sdu(0, sdu(i, 1500));
    }
    b.run(1, &mut |_, _| false); // 12 PDUs: SDU 0 partly segmented
    let victim = b.a.drop_first_unsent().expect("SDU 1 has not started");
    assert_eq!(victim.seq, 1);
    assert_eq!(b.a.buffer_occupancy(), 2);
    b.run(40, &mut |_, _| false);
    let got: Vec<u64> = b.delivered_b.iter().map(|p| p.seq).collect();
    assert_eq!(got, vec![0, 2]);
    assert!(b.a.drop_first_unsent().is_none(), "nothing left unsent");
}

#[test]
fn dequeue_hook_drops_sdus_before_their_first_octet_is_sent() {
    let mut b = Bearer::new(params());
    for i in 0..6 {
        b.a.offer_sdu(0, sdu(i, 1500));
    }
    // Drop every SDU whose transmission would start while 3000 or more octets wait behind it.
    let mut asked = Vec::new();
    for _ in 0..60 {
        let now = b.tti * TTI;
        let pdus =
            b.a.poll_transmit_with(now, TxOpportunity::Pdus(12), &mut |sojourn, queued| {
                asked.push((sojourn, queued));
                queued >= 3000
            });
        if !pdus.is_empty() {
            b.b.on_pdus(pdus);
        }
        let st = b.b.poll_transmit(now, TxOpportunity::Pdus(12));
        b.a.on_pdus(st);
        b.delivered_b.extend(b.b.take_delivered());
        b.tti += 1;
    }
    let got: Vec<u64> = b.delivered_b.iter().map(|p| p.seq).collect();
    // SDU 0 starts with 7500 behind it: dropped; 1 (6000): dropped; 2 (4500), 3 (3000):
    // dropped; 4 (1500) and 5 (0) are sent.
    assert_eq!(got, vec![4, 5]);
    assert_eq!(b.a.stats.sdus_dropped_at_dequeue, 4);
    assert_eq!(b.a.buffer_occupancy(), 0);
    // SDUs 0-4 are asked at t = 0; SDU 5 when SDU 4's last PDU is built (38 PDUs: TTI 3),
    // where it starts by concatenation.
    assert_eq!(
        asked,
        vec![
            (0, 7500),
            (0, 6000),
            (0, 4500),
            (0, 3000),
            (0, 1500),
            (3 * TTI, 0)
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random drops at dequeue under random TTI losses: the rest arrives once, in order, and
    /// nothing dropped at dequeue is ever delivered.
    #[test]
    fn dequeue_drops_keep_delivery_exact(
        seed in any::<u64>(),
        p_loss in 0.0f64..0.4,
        p_drop in 0.0f64..0.6,
        sizes in prop::collection::vec(20u32..1600, 1..50),
    ) {
        let mut rng = RngStream::new(seed, 0, 3);
        let mut drops = RngStream::new(seed, 0, 4);
        // Unlimited MaxDAT, so that dequeue drops are the only losses of SDUs.
        let mut p = params();
        p.max_dat = u32::MAX;
        let mut b = Bearer::new(p);
        for (i, &s) in sizes.iter().enumerate() {
            b.a.offer_sdu(0, sdu(i as u64, s));
        }
        let mut in_flight: Vec<(u64, usize, Vec<Pdu>)> = Vec::new();
        for tti in 0..20_000u64 {
            let now = tti * TTI;
            let (due, rest): (Vec<_>, Vec<_>) = in_flight.drain(..).partition(|(t, _, _)| *t <= tti);
            in_flight = rest;
            for (_, dir, pdus) in due {
                if dir == 0 { b.b.on_pdus(pdus) } else { b.a.on_pdus(pdus) }
            }
            b.delivered_b.extend(b.b.take_delivered());
            let dl = b.a.poll_transmit_with(now, TxOpportunity::Pdus(12), &mut |_, _| drops.bernoulli(p_drop));
            let ul = b.b.poll_transmit(now, TxOpportunity::Pdus(12));
            for (dir, pdus) in [(0, dl), (1, ul)] {
                if !pdus.is_empty() && !rng.bernoulli(p_loss) {
                    in_flight.push((tti + 2, dir, pdus));
                }
            }
            if b.a.is_idle() && b.b.is_idle() && in_flight.is_empty() {
                break;
            }
        }
        let got: Vec<u64> = b.delivered_b.iter().map(|p| p.seq).collect();
        prop_assert!(got.windows(2).all(|w| w[0] < w[1]));
        prop_assert_eq!(
            got.len() as u64 + b.a.stats.sdus_dropped_at_dequeue,
            sizes.len() as u64
        );
        prop_assert_eq!(b.a.buffer_occupancy(), 0);
    }
}
