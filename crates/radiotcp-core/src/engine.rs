//! Discrete-event engine: integer time, the event queue, supersedable timers and RNG streams.
//!
//! Nothing here is global: a scenario owns its queue and its streams, so runs can execute in
//! parallel threads or processes and still be bit-for-bit reproducible.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand_core::Rng;
use rand_pcg::Pcg64;

use crate::headvec::HeadVec;

/// Simulation time in integer nanoseconds. Floating-point time would make event order depend on
/// rounding; u64 ns covers 584 years.
pub type Time = u64;

pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// Seconds (as configured) to ticks, rounded to the nearest nanosecond.
#[inline]
pub fn secs(s: f64) -> Time {
    (s * NS_PER_S as f64).round() as Time
}

/// Milliseconds (as configured) to ticks, rounded to the nearest nanosecond.
#[inline]
pub fn millis(ms: f64) -> Time {
    (ms * NS_PER_MS as f64).round() as Time
}

#[inline]
pub fn to_secs(t: Time) -> f64 {
    t as f64 / NS_PER_S as f64
}

#[inline]
pub fn to_millis(t: Time) -> f64 {
    t as f64 / NS_PER_MS as f64
}

/// Serialisation time of `bytes` at `rate_bps`, rounded up so a link never runs faster than
/// configured.
/// Mean of `n` waits summing to `total` ns, in ms; 0 when nothing waited.
pub fn mean_wait_ms(total: u128, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        total as f64 / n as f64 / NS_PER_MS as f64
    }
}

#[inline]
pub fn tx_time(bytes: u32, rate_bps: f64) -> Time {
    ((bytes as f64 * 8.0 * NS_PER_S as f64) / rate_bps).ceil() as Time
}

/// Bits of a heap key's low word that hold the event's slot in the slab, or the event itself
/// (the rest hold the insertion sequence). 2^40 events may be scheduled in a run.
const SLOT_BITS: u32 = 24;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;
/// Set in a key whose low bits are the event itself ([`Packed`]) rather than a slab slot.
const PACKED_FLAG: u64 = 1 << (SLOT_BITS - 1);
/// Set in a packed event's key that heads its lane or waits in it ([`EventQueue`]).
const LANE_FLAG: u64 = 1 << (SLOT_BITS - 2);
/// Bits of a packed event.
pub const PACKED_BITS: u32 = SLOT_BITS - 2;
const PAYLOAD_MASK: u64 = LANE_FLAG - 1;
/// Bits of a slab slot: 2^23 events may be pending at once.
const SLOT_LIMIT: u64 = PACKED_FLAG - 1;
/// The number of keys in the heaps from which events enter lanes. In a heap of a few dozen
/// keys a sift takes a few levels, and a lane's bookkeeping costs more than it saves: the
/// wired presets, whose heap holds ten to twenty keys, took 6 to 9 % more instructions with
/// every arrival in a lane.
const LANE_MIN_HEAP: usize = 64;
/// Events due this far ahead or more wait in the far heap ([`EventQueue`]). 50 ms rather than
/// 20 since the sets are sorted arrays: the wired presets' access link (its 25 ms arrivals and
/// 31 ms ends of sending a segment at 384 kb/s) then schedules into the near array, its 100 ms
/// link and the timers into the far one, where at 20 ms all of them shared the far array and a
/// push moved every earlier key (5.4 moves per push with 1 flow, 6.5 with 4, and a loop exit
/// whose trip count varies more with 4 flows).
const FAR_AHEAD: Time = 50 * NS_PER_MS;
/// Events that wait in the slab (nodes' timers and steps) due this far ahead or more wait in
/// the far set, rather than [`FAR_AHEAD`]: 50 ms put the NR cell's 40 ms delayed-ACK timers
/// (one pending per UE, popped seldom: a restart leaves the pending event in place) in the near
/// set with the internet link's ends of serialisation and lane heads, which made it a heap of
/// 40 keys on average that every pop and lane step sifted through. With the timers far, the
/// near set holds 5 keys on average (the link's events and the cell's next slot), a sorted
/// array: NR 60 UEs 1390 -> 1282 instructions per event (7.8 % fewer); LTE, wired, UMTS and
/// IS-707 0.1 to 0.7 % fewer. 20 ms keeps a node's steps near (an LTE TTI 1 ms ahead, a UMTS
/// TTI 10 ms; at 5 ms the UMTS 4-flow run took 0.1 % more instructions).
const PARKED_FAR_AHEAD: Time = 20 * NS_PER_MS;

/// An event that may travel inside its heap key: `pack` gives it in [`PACKED_BITS`] bits, or
/// None for one that waits in the slab. The wired path's events (a link direction's end of
/// serialisation and in-order arrival) fit, so that most events never touch the slab: its
/// write, the take of a 48-byte event and the free list were a fifth of an event's trip
/// through the queue.
pub trait Packed: Sized {
    fn pack(&self) -> Option<u32> {
        None
    }

    /// The event `pack` gave `bits` for.
    fn unpack(bits: u32) -> Self {
        unreachable!("no event of this type is packed (bits {bits:#x})")
    }

    /// The lane of the packed event `bits`, if it is one of a series that comes in time
    /// order from one source (a link direction's arrivals: a constant delay after ends of
    /// serialisation that come in order). See [`EventQueue`]: the queue keeps only a lane's
    /// earliest event in its heap.
    fn lane(bits: u32) -> Option<usize> {
        let _ = bits;
        None
    }
}

/// Events ordered by (time, insertion sequence).
///
/// The heap holds 16-byte keys, `time << 64 | seq << 24 | low`, where `low` is the event
/// itself ([`Packed`], with [`PACKED_FLAG`]) or its slot in a slab where it waits: sifting
/// moves keys, not 48-byte events, and one `u128` comparison orders by time then sequence
/// (the low bits never decide: sequences are unique). The pop order is exactly that of a heap
/// of (time, seq, event) entries.
///
/// Lanes keep that order with a smaller heap. A packed event with a [`Packed::lane`], whose
/// key is later than every key already in its lane, waits in the lane (a FIFO of keys) and
/// only each lane's head sits in the heap; when a head pops, the next key of its lane takes
/// its place in the heap, with the key (and so the sequence) it was given when scheduled.
/// Every pending event is in the heap or behind a lane head that precedes it, so the earliest
/// one is in the heap and the pop order is that of one heap. An event earlier than its lane's
/// last key (a variable delay letting a packet overtake) goes to the heap, as does every event
/// while the heaps are small ([`LANE_MIN_HEAP`]). The NR 60-UE cell's 1 Gb/s, 20 ms internet
/// link has some 1,500 arrivals pending: in lanes, they leave the heap to the timers and the
/// lane heads, and every push and pop sifts through fewer levels (5 % fewer instructions in
/// that run, 3 % in the LTE one).
///
/// Two heaps, near and far, keep the keys that are not behind a lane head: an event due
/// [`FAR_AHEAD`] or more after it is scheduled goes to the far one, and a pop takes the
/// earlier of the two tops (one more comparison). Most events are due within a few ms (ends of
/// serialisation, the cell's slots, a short link's arrivals); retransmission and delayed-ACK
/// timers (the NR 60-UE run's heap held some 180 of them, the senders' 0.65 s ahead on
/// average) and long links' arrivals are not. In one heap, each pop sifted the key moved to
/// the root (one of those timers, from the bottom row) down through all of them; apart, the
/// near heap is a few levels deep (4 to 7 % fewer instructions on the wired, NR and LTE
/// presets). Of 10, 20, 30, 50 and 200 ms, 20 ms was the best on the NR 60-UE run (with 10)
/// and within 2 % of the best on the wired one (30) while both were heaps. Each of the two is
/// a sorted array while it holds a few keys and a heap beyond ([`Keys`]); with the arrays,
/// 50 ms is 5 to 6 % faster than 20 on the wired presets (150 ms no better) and the same on
/// the NR run ([`FAR_AHEAD`]). An event that waits in the slab (a node's timer or step) goes
/// far from [`PARKED_FAR_AHEAD`], 20 ms, so that timers do not crowd the near set.
pub struct EventQueue<E> {
    /// Near: keys due within [`FAR_AHEAD`] of their scheduling ([`PARKED_FAR_AHEAD`] for
    /// events in the slab).
    near: Keys,
    far: Keys,
    lanes: Vec<Lane>,
    slab: Vec<Option<E>>,
    free: Vec<u32>,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E: Packed> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Packed> EventQueue<E> {
    pub fn new() -> Self {
        Self {
            near: Keys::new(),
            far: Keys::new(),
            lanes: Vec::new(),
            slab: Vec::with_capacity(1024),
            free: Vec::with_capacity(1024),
            next_seq: 0,
            now: 0,
            popped: 0,
        }
    }

    /// Current time: the time of the last event popped.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at absolute time `at`. Scheduling in the past is a logic error, and
    /// checked in release builds too: a past event is popped next and runs the clock backwards,
    /// which once went unnoticed (the UMTS node's ACK-control timer) and skewed results.
    /// Always inlined: out of line (LLVM's choice at `#[inline]`), each event was built in a
    /// temporary and copied into the slab, 2 % of the wired path's instructions.
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: E) {
        assert!(at >= self.now, "event scheduled in the past");
        // Earlier than NONE's time, which ends the scan of a push ([`Keys::insert_new`]).
        assert!(at < Time::MAX, "event scheduled at Time::MAX");
        let seq = self.next_seq;
        self.next_seq += 1;
        // Below 2^40 - 1 rather than 2^40, so that no key is NONE.
        assert!(
            seq < (1 << (64 - SLOT_BITS)) - 1,
            "more than 2^40 events scheduled"
        );
        let high = (at as u128) << 64 | (seq << SLOT_BITS) as u128;
        let key = match event.pack() {
            Some(bits) => {
                debug_assert!((bits as u64) <= PAYLOAD_MASK, "a packed event too wide");
                let key = high | (PACKED_FLAG | bits as u64) as u128;
                // The heaps' size first: below the threshold (the wired presets), that is
                // the one test an event pays.
                match E::lane(bits).filter(|_| self.near.len() + self.far.len() >= LANE_MIN_HEAP) {
                    Some(l) => match self.enter_lane(l, key) {
                        Some(k) => k,
                        None => return,
                    },
                    None => key,
                }
            }
            None => {
                let key = high | self.park(event) as u128;
                if at - self.now >= PARKED_FAR_AHEAD {
                    self.far.push(key);
                } else {
                    self.near.push(key);
                }
                return;
            }
        };
        if at - self.now >= FAR_AHEAD {
            self.far.push(key);
        } else {
            self.near.push(key);
        }
    }

    /// Put the packed event `key` in lane `l` if it is later than the lane's last key: None
    /// if it waits behind the head, else the key to push to the heap (flagged if it heads
    /// the lane; as it is if it overtakes the lane, which it does not enter).
    #[inline(always)]
    fn enter_lane(&mut self, l: usize, key: u128) -> Option<u128> {
        if l >= self.lanes.len() {
            self.lanes.resize_with(l + 1, Lane::default);
        }
        let lane = &mut self.lanes[l];
        let key_in_lane = key | LANE_FLAG as u128;
        match lane.keys.last() {
            None => {
                lane.keys.push(key_in_lane);
                Some(key_in_lane)
            }
            Some(&last) if key_in_lane > last => {
                lane.keys.push(key_in_lane);
                None
            }
            Some(_) => Some(key),
        }
    }

    /// Put an event that does not pack in a free slab slot: its slot.
    #[inline]
    fn park(&mut self, event: E) -> u64 {
        match self.free.pop() {
            Some(i) => {
                // A free slot holds None (pop_until took its event): nothing to drop, so
                // skip the drop glue an assignment would call for every event.
                let old = self.slab[i as usize].replace(event);
                debug_assert!(old.is_none(), "a free slab slot held an event");
                std::mem::forget(old);
                i as u64
            }
            None => {
                self.slab.push(Some(event));
                let i = self.slab.len() as u64 - 1;
                assert!(i <= SLOT_LIMIT, "more than 2^23 events pending");
                i
            }
        }
    }

    /// Take the earliest event if it is not later than `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        self.pop_raw(until).map(|(t, p)| (t, p.event()))
    }

    /// [`EventQueue::pop_until`], with a packed event left as its bits: a loop that
    /// dispatches on [`Popped`] handles the packed ones (a link's events) without building
    /// the event, which, merged with the slab's in one value, went through memory (the wired
    /// path's events took 7 instructions more each that way).
    #[inline]
    pub fn pop_raw(&mut self, until: Time) -> Option<(Time, Popped<E>)> {
        // The earlier of the two firsts (an empty set's is NONE, later than any key).
        let (n, f) = (self.near.first(), self.far.first());
        let far = f < n;
        let key = if far { f } else { n };
        let time = (key >> 64) as Time;
        if time > until || key == NONE {
            return None;
        }
        let keys = if far { &mut self.far } else { &mut self.near };
        let low = key as u64 & SLOT_MASK;
        let event = if low & PACKED_FLAG != 0 {
            let bits = (low & PAYLOAD_MASK) as u32;
            let next = if low & LANE_FLAG != 0 {
                E::lane(bits).and_then(|l| self.lanes[l].leave(key))
            } else {
                None
            };
            match next {
                // The lane's next key takes the head's place: one sift down, where a pop
                // and a push sift twice.
                Some(k) => keys.replace_first(k),
                None => keys.pop_first(),
            }
            Popped::Packed(bits)
        } else {
            keys.pop_first();
            let slot = low as u32;
            let event = self.slab[slot as usize]
                .take()
                .expect("a pending event's slot is full");
            self.free.push(slot);
            Popped::Parked(event)
        };
        self.now = time;
        self.popped += 1;
        Some((time, event))
    }

    /// The time of the earliest pending event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        let first = self.near.first().min(self.far.first());
        (first != NONE).then_some((first >> 64) as Time)
    }

    /// Events taken off the queue so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        let behind: usize = self
            .lanes
            .iter()
            .map(|l| l.keys.live().len().saturating_sub(1))
            .sum();
        self.near.len() + self.far.len() + behind
    }

    pub fn is_empty(&self) -> bool {
        self.near.len() + self.far.len() == 0
    }
}

/// What [`Keys::first`] gives for an empty set: later than every key, since a key's low word
/// is below 2^64 - 1 (its sequence is below 2^40 - 1, asserted in [`EventQueue::schedule`]).
const NONE: u128 = u128::MAX;
/// The slots of a [`Keys`]'s sorted array, [`NONE`] included (a power of two, for the binary
/// search): it holds one key fewer, and one more moves them to its heap.
const SORTED_CAP: usize = 32;
/// The keys at which a [`Keys`] in its heap moves them back to its sorted array: half of
/// [`SORTED_CAP`], so that a set near the limit does not move at every push and pop.
const SORTED_BACK: usize = SORTED_CAP / 2;

/// A set of keys taken earliest first: a sorted array while it holds fewer than
/// [`SORTED_CAP`] keys, a binary heap beyond.
///
/// The wired presets keep 8 to 16 keys in the far set (a long link's arrivals, then the
/// timers), where a heap's pop sifts down through children chosen by comparisons that branch
/// on the keys, and the branch predictor misses some of them at every level: with 4 flows the
/// heaps' sifts took two fifths of the run's missed branches (callgrind `--branch-sim`). In
/// the array, kept descending, a pop takes the last key and branches on nothing; a push moves
/// the earlier keys (the pending arrivals, a few) up by one from the end until a later one,
/// and misses at most the loop's exit. Wired 4 flows, 3.72 -> 2.76 missed branches and 392 ->
/// 378 instructions per event, 12 % less wall time; 1 flow, 2.82 -> 2.84 and 381 -> 367, 2 to
/// 3 %. The NR and LTE cells' far sets hold some 200 keys (a long link's lane heads and the
/// timers), where a heap's log n beats moving n/2 keys, so past [`SORTED_CAP`] keys the set
/// is a heap.
///
/// Tried, slower: finding the place by a binary search without branches and moving the keys
/// by a copy (`copy_within`, or one of a fixed 8 or 16 keys): fewer missed branches (wired 1
/// flow 1.9 per event), but 40 to 70 % more wall time on the wired presets, most likely as
/// the copy's vector loads span keys just written as two 8-byte halves, which defeats
/// store-to-load forwarding; the scan's moves are key by key. Also slower (5 to 11 %): the
/// keys ascending from a moving head, a push scanning from the latest (over the timers).
///
/// A push compares times only ([`Keys::insert_new`]), since a new key's sequence is the
/// latest: wired 600 s, 1 flow 424.6 -> 411.3 instructions per event, 4 flows 428.8 -> 412.6.
struct Keys {
    /// Descending from [`NONE`] at 0 (which ends the scan of a push) to the earliest key at
    /// `len - 1`.
    sorted: [u128; SORTED_CAP],
    len: usize,
    heap: BinaryHeap<Reverse<u128>>,
    in_heap: bool,
    /// The earliest key ([`NONE`] if none), kept up to date by every change: a pop reads
    /// each set's first key in one load, where the array's took the length's load, then the
    /// key's at an address computed from it (and a test of the mode). The comparison of the
    /// two firsts, which chooses the set and so reveals the next event, then resolves a few
    /// cycles earlier; with several flows the branch predictor misses it often (the next
    /// event's set follows no pattern), and each miss costs less. Wired 600 s, wall -3 %
    /// (1 and 4 flows) for 5 more instructions per event.
    head: u128,
}

impl Keys {
    fn new() -> Self {
        let mut sorted = [0; SORTED_CAP];
        sorted[0] = NONE;
        Self {
            sorted,
            len: 1,
            heap: BinaryHeap::with_capacity(1024),
            in_heap: false,
            head: NONE,
        }
    }

    fn len(&self) -> usize {
        self.len - 1 + self.heap.len()
    }

    /// The earliest key, or [`NONE`] if the set is empty.
    #[inline(always)]
    fn first(&self) -> u128 {
        debug_assert_eq!(self.head, self.find_first());
        self.head
    }

    /// The earliest key, looked up.
    #[inline(always)]
    fn find_first(&self) -> u128 {
        if self.in_heap {
            self.heap.peek().map_or(NONE, |r| r.0)
        } else {
            self.sorted[self.len - 1]
        }
    }

    /// Add `key`, a new one: its sequence is the latest, as [`EventQueue::schedule`] gives
    /// each key it pushes a new one.
    #[inline(always)]
    fn push(&mut self, key: u128) {
        if self.in_heap {
            self.heap.push(Reverse(key));
        } else if self.len == SORTED_CAP {
            self.enter_heap();
            self.heap.push(Reverse(key));
        } else {
            self.insert_new(key);
        }
        self.head = self.head.min(key);
    }

    /// Put `key`, a new one (its sequence later than every key's in the set), in the sorted
    /// array, which has room.
    ///
    /// A new key is later than every key of its time, so it goes before (at a lower index
    /// than) the first key of a later time, and the scan compares times only: one 64-bit
    /// comparison per key passed, where the `u128` one took a second load and a subtraction
    /// with borrow. NONE at 0 ends the scan (no event is due at `Time::MAX`, asserted in
    /// [`EventQueue::schedule`]), so the index needs no bounds check either: 7 instructions
    /// per key passed rather than 11, and the wired presets pass 2.4 keys per push on
    /// average (their far sets 5 to 8).
    #[inline(always)]
    fn insert_new(&mut self, key: u128) {
        let time = (key >> 64) as u64;
        debug_assert!(time < Time::MAX);
        debug_assert!(self.len < SORTED_CAP && self.sorted[0] == NONE);
        debug_assert!(self.sorted[1..self.len]
            .iter()
            .all(|&k| (k as u64) >> SLOT_BITS < (key as u64) >> SLOT_BITS));
        // SAFETY: len < SORTED_CAP (push's test), and the scan stops at 1 at the latest, at
        // NONE, whose time (Time::MAX) is later than `time`: every access is in the array.
        unsafe {
            let mut p = self.sorted.as_mut_ptr().add(self.len);
            while (*p.sub(1) >> 64) as u64 <= time {
                *p = *p.sub(1);
                p = p.sub(1);
            }
            *p = key;
        }
        self.len += 1;
    }

    /// Put `key` in the sorted array, which has room: any key, such as a lane's next one
    /// ([`Keys::replace_first`]), whose sequence may be earlier than some in the set.
    #[inline(always)]
    fn insert(&mut self, key: u128) {
        // From the end, the earlier keys move up by one until a later one (NONE at worst).
        let mut at = self.len;
        while self.sorted[at - 1] < key {
            self.sorted[at] = self.sorted[at - 1];
            at -= 1;
        }
        self.sorted[at] = key;
        self.len += 1;
    }

    /// Drop the earliest key (there is one).
    #[inline(always)]
    fn pop_first(&mut self) {
        if self.in_heap {
            self.heap.pop();
            if self.heap.len() <= SORTED_BACK {
                self.leave_heap();
            }
        } else {
            debug_assert!(self.len > 1, "no key to pop");
            self.len -= 1;
        }
        self.head = self.find_first();
    }

    /// Replace the earliest key (there is one) by `key`, which is later.
    #[inline(always)]
    fn replace_first(&mut self, key: u128) {
        if self.in_heap {
            // One sift down, where a pop and a push sift twice.
            if let Some(mut top) = self.heap.peek_mut() {
                *top = Reverse(key);
            }
        } else {
            self.len -= 1;
            self.insert(key);
        }
        self.head = self.find_first();
    }

    /// Move the sorted array's keys to the heap.
    #[cold]
    fn enter_heap(&mut self) {
        let keys = &self.sorted[1..self.len];
        self.heap.extend(keys.iter().map(|&k| Reverse(k)));
        self.len = 1;
        self.in_heap = true;
    }

    /// Move the heap's keys back to the sorted array, keeping the heap's allocation.
    #[cold]
    fn leave_heap(&mut self) {
        let mut keys = std::mem::take(&mut self.heap).into_vec();
        // Ascending `Reverse` keys: descending keys, as the array keeps them.
        keys.sort_unstable();
        for (slot, k) in self.sorted[1..].iter_mut().zip(&keys) {
            *slot = k.0;
        }
        self.len = 1 + keys.len();
        keys.clear();
        self.heap = BinaryHeap::from(keys);
        self.in_heap = false;
    }
}

/// An event taken off the queue ([`EventQueue::pop_raw`]): one that travelled in its key, as
/// the bits [`Packed::pack`] gave, or one that waited in the slab.
pub enum Popped<E> {
    Packed(u32),
    Parked(E),
}

impl<E: Packed> Popped<E> {
    /// The event itself.
    #[inline(always)]
    pub fn event(self) -> E {
        match self {
            Popped::Packed(bits) => E::unpack(bits),
            Popped::Parked(e) => e,
        }
    }
}

/// The spent keys a lane keeps before it moves its live ones to the front ([`Lane`]). With
/// 1,024, the NR 60-UE run's internet link, whose lane holds some 1,500 arrivals and never
/// empties, copied its live keys every 1,500 arrivals (0.4 % of the run's instructions);
/// the spent keys cost memory only (16 octets each).
const LANE_SPENT: usize = 8192;

/// The keys of a lane's events in order: the head (in the heap too), then the ones behind
/// it. A vector read from an index rather than a ring ([`HeadVec`]), whose spent front is
/// reclaimed from [`LANE_SPENT`] keys.
#[derive(Default)]
struct Lane {
    keys: HeadVec<u128, LANE_SPENT>,
}

impl Lane {
    /// The head `key` popped: the key that takes its place in the heap, if any.
    #[inline(always)]
    fn leave(&mut self, key: u128) -> Option<u128> {
        debug_assert_eq!(self.keys.first(), Some(&key), "not the lane's head");
        self.keys.consume(1);
        self.keys.first().copied()
    }
}

/// Bookkeeping for one entity timer whose deadline moves often (an RTO restarted on every ACK).
///
/// Protocol entities keep their deadlines as data (`poll_timeout`); the scenario keeps at most
/// one live event per slot. A later deadline never pushes a new event: the pending one fires,
/// sees the deadline has moved, and re-arms. An earlier deadline pushes a new event and bumps
/// the generation, so the superseded event is recognised as stale when it pops. The heap thus
/// holds at most one stale event per earlier-deadline change, and none per restart.
#[derive(Debug, Default, Clone)]
pub struct TimerSlot {
    generation: u32,
    armed: Option<Time>,
}

impl TimerSlot {
    /// Make sure an event fires at or before `deadline`. Returns the generation to put in a new
    /// event when one must be scheduled at `deadline`, or `None` if the pending one suffices.
    #[inline]
    pub fn arm(&mut self, deadline: Time) -> Option<u32> {
        if let Some(a) = self.armed {
            if a <= deadline {
                return None;
            }
        }
        self.generation = self.generation.wrapping_add(1);
        self.armed = Some(deadline);
        Some(self.generation)
    }

    /// Keep the slot's event in step with an entity's `poll_timeout()`: schedule
    /// `event(generation)` at the deadline when the pending event would fire too late.
    /// Always inlined: every ACK and every data arrival keeps a slot in step, and out of line
    /// (LLVM's choice for some callers) it cost a call and a frame each time.
    #[inline(always)]
    pub fn sync<E: Packed>(
        &mut self,
        q: &mut EventQueue<E>,
        deadline: Option<Time>,
        event: impl FnOnce(u32) -> E,
    ) {
        if let Some(d) = deadline {
            if let Some(generation) = self.arm(d) {
                q.schedule(d, event(generation));
            }
        }
    }

    /// The deadline of the slot's live event, if one is pending.
    pub fn armed(&self) -> Option<Time> {
        self.armed
    }

    /// An event with `generation` fired. True if it is the live event (then the slot is idle
    /// until armed again), false if it was superseded.
    #[inline]
    pub fn fire(&mut self, generation: u32) -> bool {
        if generation != self.generation || self.armed.is_none() {
            return false;
        }
        self.armed = None;
        true
    }
}

/// SplitMix64 finaliser: a bijective mixer, used only to spread (seed, run, stream) into
/// well-separated generator states.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Random streams are keyed by (kind of entity, index, sub-stream): a flow's start jitter, a
/// link direction's losses, a radio node's channels. Keys are fixed per entity, so adding an
/// entity never shifts another's draws, and any number of entities fits.
pub mod stream {
    /// Who draws from a stream.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Kind {
        /// Flow `index`: start jitter.
        Flow,
        /// Link `index`, sub-stream = direction (0 data, 1 ACK): random loss.
        Link,
        /// UMTS access node `index`: sub 0 downlink channel, 1 uplink channel, 2 the buffer
        /// discipline (RED, PIE).
        Umts,
        /// IS-707 RLP access node `index`: sub 0 forward channel, 1 reverse channel.
        Rlp,
        /// Link `index`, sub-stream = direction: the variable delay process.
        LinkDelay,
    }

    /// The stream id of `(kind, index, sub)`. The kinds above keep the numbering of radiotcp
    /// 0.2 (a base per kind, 1e6 apart, below 5e6) so that results stay comparable across
    /// versions; kinds added later (the LTE cell's UEs) take [`wide`] keys.
    #[inline]
    pub fn id(kind: Kind, index: u64, sub: u64) -> u64 {
        debug_assert!(index < 100_000 && sub < 3, "legacy stream keys are bounded");
        match kind {
            Kind::Flow => index + sub,
            Kind::Link => 1_000_000 + 2 * index + sub,
            Kind::Umts => 2_000_000 + 3 * index + sub,
            Kind::Rlp => 3_000_000 + 2 * index + sub,
            Kind::LinkDelay => 4_000_000 + 2 * index + sub,
        }
    }

    // The wide-key codes ([`wide`]), all of them here: a new kind takes the next one.
    /// The LTE cell's drop (`node::lte`).
    pub const LTE_CELL: u16 = 1;
    /// Each LTE UE's own streams (fading, HARQ decoding, ...; `node::lte`).
    pub const LTE_UE: u16 = 2;
    /// Flow `index`'s TCP sender clock (the ns-2 estimator's tick phase).
    pub const TCP_CLOCK: u16 = 3;

    /// The key of a kind added after 0.2: `code << 48 | index << 8 | sub`, for codes
    /// 1..=65535 (one per kind, listed in [`Kind`]). It fits 2^40 entities (UEs, cells) of 256
    /// sub-streams each and never meets a 0.2 key, which are all below 2^48.
    #[inline]
    pub fn wide(code: u16, index: u64, sub: u8) -> u64 {
        assert!(code >= 1, "code 0 is the range of the 0.2 keys");
        assert!(index < 1 << 40, "at most 2^40 entities per kind");
        (code as u64) << 48 | index << 8 | sub as u64
    }
}

/// A random stream owned by one entity, derived from (seed, run index, stream id) with a PCG
/// generator (PCG-XSL-RR 128/64). Different run indices or stream ids give independent
/// sequences; the same triple always gives the same sequence.
#[derive(Clone, Debug)]
pub struct RngStream {
    rng: Pcg64,
}

impl RngStream {
    pub fn new(seed: u64, run_index: u64, stream_id: u64) -> Self {
        let a = mix64(seed ^ mix64(run_index ^ mix64(stream_id)));
        let b = mix64(a ^ 0xD1B5_4A32_D192_ED03);
        let c = mix64(stream_id.wrapping_add(0xA076_1D64_78BD_642F) ^ mix64(seed));
        let d = mix64(run_index ^ c);
        let state = ((a as u128) << 64) | b as u128;
        let increment = ((c as u128) << 64) | d as u128;
        Self {
            rng: Pcg64::new(state, increment),
        }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform in [0, 1) with 53 random bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`; draws nothing when `p == 0` so an unused loss model does not
    /// consume the stream.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Packed for char {}
    impl Packed for u64 {}

    #[test]
    fn stream_keys_never_collide() {
        use super::stream::{id, wide, Kind};
        use std::collections::HashSet;
        let mut seen = HashSet::new();
        // The 0.2 kinds over their whole range of sub-streams, for a few hundred entities.
        for kind in [Kind::Link, Kind::Umts, Kind::Rlp, Kind::LinkDelay] {
            for index in 0..300 {
                for sub in 0..3 {
                    if !(kind != Kind::Umts && sub == 2) {
                        assert!(seen.insert(id(kind, index, sub)), "{kind:?} {index} {sub}");
                    }
                }
            }
        }
        for index in 0..300 {
            assert!(seen.insert(id(Kind::Flow, index, 0)));
        }
        // Wide keys: two kinds, many entities, every sub-stream.
        for code in [stream::LTE_CELL, stream::LTE_UE, stream::TCP_CLOCK] {
            for index in [0, 1, 255, 256, 100_000, (1 << 40) - 1] {
                for sub in [0, 1, 255] {
                    assert!(seen.insert(wide(code, index, sub)), "{code} {index} {sub}");
                }
            }
        }
    }

    #[test]
    fn interleaved_schedules_and_pops_match_a_sorted_reference() {
        // Slots are reused as events leave; the order must stay (time, insertion sequence).
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64)> = Vec::new();
        let mut rng = RngStream::new(1, 0, 0);
        let mut next = 0u64;
        let mut now = 0;
        for round in 0..2000 {
            for _ in 0..(1 + (rng.uniform() * 4.0) as u64) {
                let at = now + (rng.uniform() * 50.0) as Time;
                q.schedule(at, next);
                reference.push((at, next));
                next += 1;
            }
            if round % 3 != 0 {
                reference.sort();
                let (t, id) = reference.remove(0);
                assert_eq!(q.pop_until(Time::MAX), Some((t, id)));
                now = t;
            }
        }
        reference.sort();
        for (t, id) in reference {
            assert_eq!(q.pop_until(Time::MAX), Some((t, id)));
        }
        assert!(q.is_empty());
    }

    /// Even values travel in the key, odd ones in the slab.
    #[derive(Debug, PartialEq)]
    struct Half(u32);

    impl Packed for Half {
        fn pack(&self) -> Option<u32> {
            (self.0 % 2 == 0).then_some(self.0)
        }

        fn unpack(bits: u32) -> Self {
            Half(bits)
        }
    }

    #[test]
    fn packed_and_parked_events_share_one_order() {
        let mut q = EventQueue::new();
        for (i, at) in [7u64, 3, 7, 3, 5, 7, 3].into_iter().enumerate() {
            q.schedule(at, Half(i as u32));
        }
        let order: Vec<u32> =
            std::iter::from_fn(|| q.pop_until(u64::MAX).map(|e| e.1 .0)).collect();
        assert_eq!(order, vec![1, 3, 6, 4, 0, 2, 5]);
    }

    /// Event `id`, in lane `bits & 7` when that is not 0 (lane 0 is unused).
    #[derive(Debug, PartialEq)]
    struct Laned(u32);

    impl Packed for Laned {
        fn pack(&self) -> Option<u32> {
            Some(self.0)
        }

        fn unpack(bits: u32) -> Self {
            Laned(bits)
        }

        fn lane(bits: u32) -> Option<usize> {
            Some((bits & 7) as usize).filter(|&l| l != 0)
        }
    }

    #[test]
    fn lanes_keep_the_order_of_one_heap() {
        // Lane events mostly in time order with some overtaking (a variable delay), among
        // enough others that the heap passes LANE_MIN_HEAP and lanes fill and empty.
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64, u32)> = Vec::new();
        let mut rng = RngStream::new(7, 0, 0);
        let mut last = [0 as Time; 8];
        let (mut next, mut seq, mut now) = (0u32, 0u64, 0);
        let mut laned = 0;
        for round in 0..20_000 {
            for _ in 0..(1 + (rng.uniform() * 3.0) as u64) {
                let lane = (rng.uniform() * 8.0) as u32;
                let at = if lane == 0 {
                    now + (rng.uniform() * 400.0) as Time
                } else if rng.uniform() < 0.1 {
                    now + (rng.uniform() * 100.0) as Time
                } else {
                    last[lane as usize] =
                        last[lane as usize].max(now) + (rng.uniform() * 3.0) as Time;
                    last[lane as usize]
                };
                let id = (next << 3 | lane) & ((1 << PACKED_BITS) - 1);
                next += 1;
                q.schedule(at, Laned(id));
                reference.push((at, seq, id));
                seq += 1;
            }
            laned = laned.max(q.lanes.iter().map(|l| l.keys.stored()).sum::<usize>());
            if round % 5 != 0 {
                reference.sort();
                let (t, _, id) = reference.remove(0);
                assert_eq!(q.pop_until(Time::MAX), Some((t, Laned(id))));
                now = t;
            }
            assert_eq!(q.len(), reference.len());
        }
        assert!(laned > 100, "lanes were used ({laned} keys at most)");
        reference.sort();
        for (t, _, id) in reference {
            assert_eq!(q.pop_until(Time::MAX), Some((t, Laned(id))));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn a_lane_that_never_empties_keeps_its_order_when_it_moves_its_keys() {
        // A few hundred keys live at any time, far more than LANE_SPENT over the lane's life.
        let mut lane = Lane::default();
        for k in 0..300u128 {
            lane.keys.push(k);
        }
        for head in 0..4 * LANE_SPENT as u128 {
            // The key 300 places behind the head: as many live as at the start.
            lane.keys.push(head + 300);
            assert_eq!(lane.leave(head), Some(head + 1));
            assert!(
                lane.keys.stored() <= 2 * LANE_SPENT + 301,
                "spent keys are dropped"
            );
        }
        assert!(
            lane.keys.head() < LANE_SPENT,
            "the live keys moved to the front"
        );
    }

    #[test]
    fn near_and_far_events_share_one_order() {
        // Due from now to 100 ms ahead, either side of PARKED_FAR_AHEAD (these events wait
        // in the slab), with equal times too.
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64)> = Vec::new();
        let mut rng = RngStream::new(3, 0, 0);
        let (mut next, mut now) = (0u64, 0);
        for round in 0..5000 {
            for _ in 0..(1 + (rng.uniform() * 3.0) as u64) {
                let ahead = (rng.uniform() * 10.0) as Time * 10 * NS_PER_MS;
                let at = now + ahead + (rng.uniform() * 3.0) as Time;
                q.schedule(at, next);
                reference.push((at, next));
                next += 1;
            }
            if round % 4 != 0 {
                reference.sort();
                let (t, id) = reference.remove(0);
                assert_eq!(q.peek_time(), Some(t));
                assert_eq!(q.pop_until(Time::MAX), Some((t, id)));
                now = t;
            }
        }
        assert!(q.far.len() > 0 && q.near.len() > 0);
        reference.sort();
        for (t, id) in reference {
            assert_eq!(q.pop_until(Time::MAX), Some((t, id)));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn keys_keep_their_order_in_the_array_the_heap_and_the_moves_between() {
        // Sizes that climb past SORTED_CAP and fall below SORTED_BACK again, several times,
        // with pops and replacements of the first key by a later one, against a sorted set.
        // A push is a new key (the latest sequence); a replacement is either a new key or, as
        // a lane's next key is, one whose sequence was taken before later pushes (`waiting`).
        let mut keys = Keys::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut waiting = std::collections::VecDeque::new();
        let mut rng = RngStream::new(11, 0, 0);
        let (mut next, mut now) = (0u128, 0u128);
        let (mut entered, mut left, mut older) = (0, 0, 0);
        for round in 0..40_000 {
            let in_heap = keys.in_heap;
            // Waves: 400 rounds that grow the set, 400 that shrink it.
            let grow = round / 400 % 2 == 0;
            let r = rng.uniform();
            if reference.is_empty() || (grow && r < 0.6) || (!grow && r < 0.2) {
                // Times from now on, equal ones among them; the sequence breaks ties.
                let key = (now + (rng.uniform() * 40.0) as u128) << 64 | next << SLOT_BITS;
                next += 1;
                if rng.uniform() < 0.2 {
                    waiting.push_back(key);
                } else {
                    keys.push(key);
                    reference.insert(key);
                }
            } else if r < 0.85 {
                let first = reference.pop_first().unwrap();
                assert_eq!(keys.first(), first);
                keys.pop_first();
                now = first >> 64;
            } else {
                let first = reference.pop_first().unwrap();
                assert_eq!(keys.first(), first);
                let later = match waiting.pop_front() {
                    Some(k) if k > first && rng.uniform() < 0.5 => {
                        older += 1;
                        k
                    }
                    _ => {
                        next += 1;
                        (now + 1 + (rng.uniform() * 40.0) as u128) << 64 | (next - 1) << SLOT_BITS
                    }
                };
                keys.replace_first(later);
                reference.insert(later);
                now = first >> 64;
            }
            entered += (!in_heap && keys.in_heap) as u32;
            left += (in_heap && !keys.in_heap) as u32;
            assert_eq!(keys.len(), reference.len());
            assert_eq!(keys.first(), reference.first().copied().unwrap_or(NONE));
        }
        assert!(
            entered >= 5 && left >= 5,
            "moves: {entered} to the heap, {left} back"
        );
        assert!(older > 100, "{older} replacements by an older sequence");
        while let Some(first) = reference.pop_first() {
            assert_eq!(keys.first(), first);
            keys.pop_first();
        }
        assert_eq!((keys.len(), keys.first()), (0, NONE));
    }

    #[test]
    #[should_panic(expected = "event scheduled at Time::MAX")]
    fn an_event_at_the_end_of_time_is_refused() {
        let mut q = EventQueue::new();
        q.schedule(Time::MAX - 1, 1);
        q.schedule(Time::MAX, 2);
    }

    #[test]
    fn events_pop_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(5, 'a');
        q.schedule(3, 'b');
        q.schedule(5, 'c');
        q.schedule(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop_until(u64::MAX).map(|e| e.1)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.popped(), 4);
        assert_eq!(q.now(), 5);
    }

    #[test]
    fn pop_until_stops_at_horizon() {
        let mut q = EventQueue::new();
        q.schedule(10, 1);
        q.schedule(20, 2);
        assert_eq!(q.pop_until(15), Some((10, 1)));
        assert_eq!(q.pop_until(15), None);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn timer_later_deadline_reuses_pending_event() {
        let mut t = TimerSlot::default();
        let g = t.arm(100).expect("first arm schedules");
        assert_eq!(t.arm(200), None, "a later deadline needs no new event");
        assert_eq!(t.arm(100), None);
        assert!(t.fire(g));
        assert!(!t.fire(g), "a fired slot is idle");
    }

    #[test]
    fn timer_earlier_deadline_supersedes() {
        let mut t = TimerSlot::default();
        let g1 = t.arm(100).unwrap();
        let g2 = t.arm(50).expect("earlier deadline schedules a new event");
        assert_ne!(g1, g2);
        assert!(t.fire(g2));
        assert!(!t.fire(g1), "the superseded event is stale");
    }

    #[test]
    fn rng_streams_are_reproducible_and_distinct() {
        let draw = |s, r, i| {
            let mut g = RngStream::new(s, r, i);
            (0..4).map(|_| g.next_u64()).collect::<Vec<_>>()
        };
        assert_eq!(draw(1, 0, 7), draw(1, 0, 7));
        assert_ne!(draw(1, 0, 7), draw(1, 1, 7));
        assert_ne!(draw(1, 0, 7), draw(1, 0, 8));
        assert_ne!(draw(1, 0, 7), draw(2, 0, 7));
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut g = RngStream::new(42, 0, 0);
        let n = 100_000;
        let mean = (0..n).map(|_| g.uniform()).sum::<f64>() / n as f64;
        // Standard error of the mean is 1/sqrt(12 n) ~ 0.0009; 5 sigma.
        assert!((mean - 0.5).abs() < 0.0046, "mean {mean}");
    }
}
