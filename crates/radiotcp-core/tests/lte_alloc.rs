//! "Nothing per TTI may allocate" (issue 12): a loaded 10-UE cell, once warm, runs thousands
//! of TTIs with only the occasional amortised growth of a vector (a flow's delay samples, the
//! event queue's slab). Counted by a global allocator wrapper, in this test binary only. The
//! probe's spurious-retransmission bookkeeping records each retransmission and timeout (one
//! allocation each, measured); those are per loss, not per TTI, and are allowed for.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

#[path = "common/lte.rs"]
mod common_lte;

use common_lte::{lte, preset};
use radiotcp_core::engine::secs;
use radiotcp_core::node::Node;
use radiotcp_core::sim::Sim;
use radiotcp_core::{topology, RunOptions};

/// Retransmissions and timeouts of every flow so far (the server is host 0).
fn losses(sim: &Sim, flows: u32) -> u64 {
    let Node::Host(server) = sim.node(sim.net().node_of_host(0)) else {
        panic!("host 0 is the server");
    };
    (0..flows)
        .map(|f| {
            let s = &server.sender(f).expect("the server sends every flow").stats;
            s.retransmissions + s.timeouts
        })
        .sum()
}

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn a_warm_cell_allocates_almost_nothing_per_tti() {
    let mut c = preset(10);
    c.simulation.duration_s = 20.0;
    c.simulation.warmup_s = 0.0;
    c.flows.start_jitter_s = 0.0;
    lte(&mut c).buffer.limit_sdus = 200;
    c.validate().unwrap();
    let mut sim = topology::build(&c, 1, 0, &RunOptions::default());
    while sim.step(secs(10.0)) {}
    let before = ALLOCS.load(Ordering::Relaxed);
    let lost_before = losses(&sim, 10);
    let mut events = 0u64;
    while sim.step(secs(15.0)) {
        events += 1;
    }
    let allocs = ALLOCS.load(Ordering::Relaxed) - before;
    let lost = losses(&sim, 10) - lost_before;
    // 5000 TTIs and tens of thousands of packet events: besides one record per loss, a
    // handful of amortised regrowths.
    assert!(events > 20_000, "the cell was not loaded: {events} events");
    assert!(
        allocs < lost + 150,
        "{allocs} allocations in 5 s (5000 TTIs, {events} events, {lost} losses)"
    );
}
