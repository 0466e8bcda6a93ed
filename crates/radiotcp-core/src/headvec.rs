//! A FIFO kept as a vector read from a head index, for queues whose items leave from the
//! front in the order they came and are read as one slice: the event queue's lanes
//! (`engine.rs`) and a TCP sender's RTT records (`tcp/sender.rs`).
//!
//! A ring (`VecDeque`) pays its wrap-around arithmetic on every push and pop; here a push
//! appends and a pop moves the index. Emptied, the vector starts again at 0; one that never
//! empties moves its live items to the front once half of it (and at least `SPENT` items) is
//! spent, a copy per item at most. The spent items cost memory only.

/// Items from `head` on are live, oldest first; `SPENT` is the least spent front reclaimed.
#[derive(Debug, Clone)]
pub(crate) struct HeadVec<T, const SPENT: usize> {
    items: Vec<T>,
    head: usize,
}

impl<T, const SPENT: usize> Default for HeadVec<T, SPENT> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            head: 0,
        }
    }
}

impl<T: Copy, const SPENT: usize> HeadVec<T, SPENT> {
    /// The live items, oldest first.
    #[inline]
    pub(crate) fn live(&self) -> &[T] {
        &self.items[self.head..]
    }

    #[inline]
    pub(crate) fn live_mut(&mut self) -> &mut [T] {
        &mut self.items[self.head..]
    }

    /// The oldest live item (what `live().first()` is, with one bounds check).
    #[inline]
    pub(crate) fn first(&self) -> Option<&T> {
        self.items.get(self.head)
    }

    /// The newest item (what `live().last()` is: a vector with no live item is empty).
    #[inline]
    pub(crate) fn last(&self) -> Option<&T> {
        self.items.last()
    }

    /// Items stored, the spent front's included (what the vector holds in memory).
    #[cfg(test)]
    pub(crate) fn stored(&self) -> usize {
        self.items.len()
    }

    /// The spent front's length: where the live items start.
    #[cfg(test)]
    pub(crate) fn head(&self) -> usize {
        self.head
    }

    /// Append `item`, the newest.
    #[inline]
    pub(crate) fn push(&mut self, item: T) {
        self.items.push(item);
    }

    /// Drop the `n` oldest items (`n` at most the live ones).
    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        self.head += n;
        let len = self.items.len();
        debug_assert!(self.head <= len, "more items consumed than live");
        if self.head == len {
            self.items.clear();
            self.head = 0;
        } else if self.head >= SPENT && 2 * self.head >= len {
            self.items.copy_within(self.head.., 0);
            self.items.truncate(len - self.head);
            self.head = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HeadVec;

    /// The vector reads like the queue it stands for: items leave from the front in the
    /// order they came, whatever the mix of pushes and drops, across every reclaiming of the
    /// spent front (queues below and above `SPENT`).
    #[test]
    fn a_head_vec_is_a_queue() {
        let mut log: HeadVec<(u64, u64, bool), 32> = HeadVec::default();
        let mut model = std::collections::VecDeque::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = 0u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let window = if (x >> 40) % 2 == 0 { 5 } else { 90 };
            if model.len() < window && (x & 3 != 0 || model.is_empty()) {
                next += 1;
                let r = (next, next * 7, x & 8 != 0);
                log.push(r);
                model.push_back(r);
            } else {
                let n = ((x >> 8) as usize % 3).min(model.len());
                log.consume(n);
                model.drain(..n);
            }
            let live = log.live();
            assert_eq!(live.len(), model.len());
            assert!(live.iter().zip(&model).all(|(a, b)| a == b));
            assert_eq!(log.first(), model.front());
            assert_eq!(log.last(), model.back());
            assert!(log.head <= 32usize.max(log.items.len() / 2 + 1));
        }
    }
}
