//! The sender's SACK scoreboard (RFC 6675 §3-4): which octets above SND.UNA the receiver has
//! reported in SACK blocks (RFC 2018), and the queries of the conservative SACK-based loss
//! recovery built on it: `IsLost`, `SetPipe` and the pieces of `NextSeg`.
//!
//! Sequence numbers are the sender's 64-bit byte offsets; ranges are half-open [start, end).
//! The RFC's inclusive "highest octet" values (HighRxt, HighData) are kept here as one past
//! that octet, like the sender's `high_tx`.

/// Duplicate-ACK threshold (RFC 6675 §2, RFC 5681 §3.2).
pub const DUP_THRESH: u64 = 3;

/// SACKed ranges above SND.UNA: sorted, disjoint and never adjacent (merged on insert), so a
/// flight with k holes holds k blocks.
#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    blocks: Vec<(u64, u64)>,
    /// Octets in `blocks`.
    sacked: u64,
}

impl Scoreboard {
    /// Octets SACKed above SND.UNA.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The SACKed ranges, lowest first.
    pub fn blocks(&self) -> &[(u64, u64)] {
        &self.blocks
    }

    /// One past the highest SACKed octet ("the highest octet covered by any received SACK",
    /// RFC 6675 §4 NextSeg rule 1.b).
    pub fn high_sacked(&self) -> Option<u64> {
        self.blocks.last().map(|b| b.1)
    }

    /// RFC 6675 `Update()`: record the SACK blocks of an ACK that acknowledges up to `una`,
    /// clipped to [una, high_tx) (a block outside it is stale or bogus). Returns the octets
    /// newly SACKed.
    pub fn update(
        &mut self,
        una: u64,
        high_tx: u64,
        blocks: impl Iterator<Item = (u64, u64)>,
    ) -> u64 {
        let before = self.sacked;
        for (s, e) in blocks {
            let (s, e) = (s.max(una), e.min(high_tx));
            if s < e {
                self.insert(s, e);
            }
        }
        self.sacked - before
    }

    fn insert(&mut self, s: u64, e: u64) {
        // Most blocks an ACK carries extend the highest SACKed range (the newest arrivals
        // are above every hole) or are known already: settle those without the searches
        // and moves of the general case.
        match self.blocks.last_mut() {
            Some(last) if s > last.1 => {
                self.blocks.push((s, e));
                self.sacked += e - s;
                return;
            }
            Some(last) if s >= last.0 => {
                if e > last.1 {
                    self.sacked += e - last.1;
                    last.1 = e;
                }
                return;
            }
            None => {
                self.blocks.push((s, e));
                self.sacked += e - s;
                return;
            }
            _ => {}
        }
        // The first block that ends at or after s, and the first that starts after e: the
        // blocks between them overlap or touch [s, e) and merge with it.
        let lo = self.blocks.partition_point(|b| b.1 < s);
        if let Some(&(bs, be)) = self.blocks.get(lo) {
            if bs <= s && e <= be {
                return; // already SACKed
            }
        }
        let hi = lo + self.blocks[lo..].partition_point(|b| b.0 <= e);
        if lo < hi {
            let s = s.min(self.blocks[lo].0);
            let e = e.max(self.blocks[hi - 1].1);
            let merged: u64 = self.blocks[lo..hi].iter().map(|b| b.1 - b.0).sum();
            self.sacked = self.sacked - merged + (e - s);
            self.blocks[lo] = (s, e);
            self.blocks.drain(lo + 1..hi);
        } else {
            self.blocks.insert(lo, (s, e));
            self.sacked += e - s;
        }
    }

    /// SND.UNA moved to `una`: forget what it covers.
    pub fn advance(&mut self, una: u64) {
        let gone = self.blocks.partition_point(|b| b.1 <= una);
        for b in self.blocks.drain(..gone) {
            self.sacked -= b.1 - b.0;
        }
        if let Some(first) = self.blocks.first_mut() {
            if first.0 < una {
                self.sacked -= una - first.0;
                first.0 = una;
            }
        }
    }

    pub fn clear(&mut self) {
        self.blocks.clear();
        self.sacked = 0;
    }

    /// Whether `seq` has been SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.blocks.partition_point(|b| b.1 <= seq);
        self.blocks.get(i).is_some_and(|b| b.0 <= seq)
    }

    /// The first octet at or above `seq` that is not SACKed.
    pub fn next_unsacked(&self, seq: u64) -> u64 {
        let i = self.blocks.partition_point(|b| b.1 <= seq);
        match self.blocks.get(i) {
            Some(&(s, e)) if s <= seq => e,
            _ => seq,
        }
    }

    /// The start of the first SACKed range above `seq`, if any (a retransmission starting at
    /// an unSACKed `seq` must stop there).
    pub fn next_sacked_start(&self, seq: u64) -> Option<u64> {
        let i = self.blocks.partition_point(|b| b.1 <= seq);
        self.blocks.get(i).map(|b| b.0.max(seq))
    }

    /// Octets of [a, b) that are not SACKed.
    pub fn unsacked_in(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            return 0;
        }
        let mut covered = 0;
        let i = self.blocks.partition_point(|x| x.1 <= a);
        for &(s, e) in &self.blocks[i..] {
            if s >= b {
                break;
            }
            covered += e.min(b) - s.max(a);
        }
        (b - a) - covered
    }

    /// Octets SACKed below `b`. Every SACKed octet lies above SND.UNA (`update` clips the
    /// blocks, `advance` trims them), so from SND.UNA this is [`Self::unsacked_in`]'s
    /// complement without its search: the walk starts at the lowest block.
    pub fn sacked_below(&self, b: u64) -> u64 {
        let mut covered = 0;
        for &(s, e) in &self.blocks {
            if s >= b {
                break;
            }
            covered += e.min(b) - s;
        }
        covered
    }

    /// RFC 6675 `IsLost()`, for a whole flight at once: every unSACKed octet below the
    /// returned point is lost. `IsLost(seq)` is true when more than (DupThresh - 1) * SMSS
    /// octets above `seq` are SACKed, or DupThresh discontiguous SACKed sequences lie above
    /// it. Both counts only grow as `seq` falls, so the lost octets are those below the
    /// start of the SACKed range where, counting down from the top, either count is first
    /// reached. Returns 0 (nothing lost) when neither is reached.
    pub fn lost_below(&self, mss: u64) -> u64 {
        self.lost_split(mss).0
    }

    /// [`Self::lost_below`], with the octets SACKed at or above the returned point (all of
    /// them when it is 0): the count that walk sums on its way down, which `SetPipe()` needs
    /// too.
    pub fn lost_split(&self, mss: u64) -> (u64, u64) {
        let limit = (DUP_THRESH - 1) * mss;
        let mut octets = 0;
        let mut segments = 0;
        for &(s, e) in self.blocks.iter().rev() {
            octets += e - s;
            if octets > limit {
                return (s, octets);
            }
            // A range of SACKed octets counts as the segments it holds (at least one):
            // segment boundaries fall every SMSS from 0 for a bulk sender. Below the octet
            // limit the range holds at most 2 SMSS, so that is one or two, without a
            // division.
            segments += if e - s > mss { 2 } else { 1 };
            if segments >= DUP_THRESH {
                return (s, octets);
            }
        }
        (0, self.sacked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The scoreboard agrees with an octet-by-octet model under any sequence of SACK
        /// blocks and cumulative ACKs: canonical blocks, the SACKed count, the octets
        /// `lost_split` reports above its point, and those SACKed below any point.
        #[test]
        fn scoreboard_matches_an_octetwise_model(
            steps in prop::collection::vec((0u64..60, 1u64..12, 0u64..4), 0..80),
        ) {
            const TOP: u64 = 64;
            let mut sb = Scoreboard::default();
            let mut held = [false; TOP as usize];
            let mut una = 0;
            for (s, len, step) in steps {
                if step == 0 {
                    una = una.max(s);
                    sb.advance(una);
                } else {
                    sb.update(una, TOP, [(s, s + len)].into_iter());
                    for b in &mut held[s as usize..(s + len).min(TOP) as usize] {
                        *b = true;
                    }
                }
                for b in &mut held[..una as usize] {
                    *b = false;
                }
                let sacked = held.iter().filter(|&&b| b).count() as u64;
                prop_assert_eq!(sb.sacked_bytes(), sacked);
                let blocks = sb.blocks();
                prop_assert!(blocks.windows(2).all(|w| w[0].1 < w[1].0));
                for &(bs, be) in blocks {
                    prop_assert!(una <= bs && bs < be && be <= TOP);
                    prop_assert!(held[bs as usize..be as usize].iter().all(|&b| b));
                }
                let (lost, above) = sb.lost_split(4);
                let model = held[lost as usize..].iter().filter(|&&b| b).count() as u64;
                prop_assert_eq!(above, model);
                prop_assert_eq!(lost, sb.lost_below(4));
                for b in una..=TOP {
                    let below = held[..b as usize].iter().filter(|&&x| x).count() as u64;
                    prop_assert_eq!(sb.sacked_below(b), below);
                    prop_assert_eq!(sb.unsacked_in(una, b), (b - una) - below);
                }
            }
        }
    }

    const MSS: u64 = 1000;

    fn board(blocks: &[(u64, u64)]) -> Scoreboard {
        let mut sb = Scoreboard::default();
        sb.update(0, u64::MAX, blocks.iter().copied());
        sb
    }

    #[test]
    fn blocks_merge_when_they_overlap_or_touch() {
        let mut sb = board(&[(3000, 4000), (5000, 6000)]);
        assert_eq!(sb.sacked_bytes(), 2000);
        // Touching on both sides: one block.
        assert_eq!(sb.update(0, u64::MAX, [(4000, 5000)].into_iter()), 1000);
        assert_eq!(sb.blocks(), &[(3000, 6000)]);
        // Already known: nothing new.
        assert_eq!(sb.update(0, u64::MAX, [(3500, 4500)].into_iter()), 0);
        // Spanning several and beyond.
        sb.update(0, u64::MAX, [(8000, 9000), (1000, 2000)].into_iter());
        assert_eq!(sb.update(0, u64::MAX, [(1500, 8500)].into_iter()), 3000);
        assert_eq!(sb.blocks(), &[(1000, 9000)]);
        assert_eq!(sb.sacked_bytes(), 8000);
    }

    #[test]
    fn blocks_are_clipped_to_the_outstanding_window() {
        let mut sb = Scoreboard::default();
        assert_eq!(
            sb.update(2000, 5000, [(1000, 3000), (4000, 9000)].into_iter()),
            2000
        );
        assert_eq!(sb.blocks(), &[(2000, 3000), (4000, 5000)]);
    }

    #[test]
    fn advancing_una_forgets_what_it_covers() {
        let mut sb = board(&[(2000, 3000), (4000, 6000)]);
        sb.advance(5000);
        assert_eq!(sb.blocks(), &[(5000, 6000)]);
        assert_eq!(sb.sacked_bytes(), 1000);
        sb.advance(7000);
        assert!(sb.is_empty());
        assert_eq!(sb.sacked_bytes(), 0);
    }

    #[test]
    fn queries() {
        let sb = board(&[(2000, 3000), (4000, 6000)]);
        assert!(!sb.is_sacked(1999) && sb.is_sacked(2000) && !sb.is_sacked(3000));
        assert_eq!(sb.next_unsacked(2500), 3000);
        assert_eq!(sb.next_unsacked(3000), 3000);
        assert_eq!(sb.next_unsacked(4000), 6000);
        assert_eq!(sb.next_sacked_start(3000), Some(4000));
        assert_eq!(sb.next_sacked_start(6000), None);
        assert_eq!(sb.unsacked_in(0, 7000), 4000);
        assert_eq!(sb.unsacked_in(2500, 4500), 1000);
        assert_eq!(sb.high_sacked(), Some(6000));
    }

    #[test]
    fn is_lost_needs_more_than_two_segments_sacked_above() {
        // One and two SACKed segments above a hole: not lost yet (RFC 6675 IsLost).
        assert_eq!(board(&[(1000, 2000)]).lost_below(MSS), 0);
        assert_eq!(board(&[(1000, 3000)]).lost_below(MSS), 0);
        // Three segments above the hole at 0: octets below 1000 are lost.
        assert_eq!(board(&[(1000, 4000)]).lost_below(MSS), 1000);
        // Holes at 0, 2000 and 4000, segments SACKed at 1000, 3000 and 5000: the hole at 0
        // has three discontiguous SACKed segments above it, the one at 2000 only two.
        let sb = board(&[(1000, 2000), (3000, 4000), (5000, 6000)]);
        assert_eq!(sb.lost_below(MSS), 1000);
        // A runt (the last segment of a finite transfer) still counts as a segment.
        let sb = board(&[(1000, 2000), (3000, 4000), (5000, 5100)]);
        assert_eq!(sb.lost_below(MSS), 1000);
    }
}
