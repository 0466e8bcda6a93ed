//! Property tests over random loss patterns: whatever is lost (data, retransmissions, ACKs),
//! a finite transfer completes with every byte delivered exactly once and in order, the sender
//! never sends new data beyond min(cwnd, rwnd) outside recovery, and cwnd stays >= 1 MSS.

mod common;

use std::collections::HashSet;

use common::{tcp_config, Harness, MSS};
use proptest::prelude::*;
use radiotcp_core::config::TcpVariant;
use radiotcp_core::engine::millis;

const SEGMENTS: u64 = 300;

fn run_transfer(
    variant: TcpVariant,
    delack: u32,
    data_losses: HashSet<(u64, u32)>,
    ack_losses: HashSet<u64>,
    tail: u32,
) -> Harness {
    let mut h = Harness::new(&tcp_config(variant, delack), 20.0);
    h.per_segment = millis(2.0);
    let bytes = SEGMENTS * MSS + tail as u64;
    h.set_app_limit(bytes);
    h.drop_data = Box::new(move |s, n| data_losses.contains(&(s.seq / MSS, n)));
    h.drop_ack = Box::new(move |i, _| ack_losses.contains(&i));
    h.start();
    // Far beyond what any pattern below needs, even with RTO backoff to 60 s.
    h.run_ms(3_600_000.0);
    h
}

fn losses() -> impl Strategy<Value = HashSet<(u64, u32)>> {
    // (segment index, transmission number) pairs: originals and retransmissions alike.
    prop::collection::hash_set((0..SEGMENTS + 1, 1u32..4), 0..40)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn every_byte_delivered_once_in_order(
        newreno in any::<bool>(),
        delack in 1u32..3,
        data_losses in losses(),
        ack_losses in prop::collection::hash_set(0u64..400, 0..40),
        tail in 0u32..1000,
    ) {
        let variant = if newreno { TcpVariant::NewReno } else { TcpVariant::Reno };
        let h = run_transfer(variant, delack, data_losses, ack_losses, tail);
        let bytes = SEGMENTS * MSS + tail as u64;
        // In order: the receiver only ever delivers from RCV.NXT onwards, so the total it
        // delivered equals RCV.NXT; exactly once: that total is the transfer size, no more.
        prop_assert_eq!(h.delivered(), bytes);
        prop_assert_eq!(h.rcv().rcv_nxt(), bytes);
        prop_assert_eq!(h.rcv().ooo_bytes(), 0);
        prop_assert!(h.snd().is_done());
        prop_assert!(h.snd().poll_timeout().is_none(), "timer left running after the last ACK");
        prop_assert!(h.violations.is_empty(), "{:?}", h.violations);
        // No segment is ever sent beyond the application's data.
        prop_assert!(h.sent.iter().all(|(_, s)| s.seq + s.len as u64 <= bytes));
    }

    #[test]
    fn random_iid_loss_transfer_completes(
        seed in any::<u64>(),
        p in 0.0f64..0.3,
    ) {
        // A lossy pipe drawn from a seeded stream: bursts and lost retransmissions happen.
        let mut rng = radiotcp_core::engine::RngStream::new(seed, 0, 0);
        let mut rng2 = radiotcp_core::engine::RngStream::new(seed, 0, 1);
        let mut h = Harness::new(&tcp_config(TcpVariant::NewReno, 2), 20.0);
        h.per_segment = millis(2.0);
        h.set_app_limit(SEGMENTS * MSS);
        h.drop_data = Box::new(move |_, _| rng.bernoulli(p));
        h.drop_ack = Box::new(move |_, _| rng2.bernoulli(p / 2.0));
        h.start();
        h.run_ms(36_000_000.0);
        prop_assert_eq!(h.delivered(), SEGMENTS * MSS);
        prop_assert!(h.snd().is_done());
        prop_assert!(h.violations.is_empty(), "{:?}", h.violations);
    }
}
