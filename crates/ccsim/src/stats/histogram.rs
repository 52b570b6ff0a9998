//! A log-linear histogram of non-negative integers (queueing delays in nanoseconds, queue
//! lengths in packets) for percentiles and distributions in the report.
//!
//! Values below [`SUB`] have a bin each; above, every power of two is split into [`SUB`]
//! bins of equal width, so a bin is at most 1/32 of its lower edge wide (a percentile read
//! from it is off by at most about 3%). A histogram holds the bins from the smallest value it
//! has seen to the largest: one that has seen nothing holds no memory, one whose values all
//! fall in one bin (a fast link's queue that holds one packet at a time) holds one, and one
//! that has seen delays from a microsecond to a second holds about 500.

/// Bins per power of two, and the values below it that have a bin each.
pub const SUB: u64 = 32;
const SUB_BITS: u32 = SUB.trailing_zeros();

/// Weights (counts, or nanoseconds spent at a value) by bins of value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogHistogram {
    /// The bin `bins[0]` counts (bins below it have seen nothing).
    first: usize,
    bins: Vec<u64>,
}

/// The bin of `v`.
pub fn bin_of(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let top = 63 - v.leading_zeros(); // >= SUB_BITS
    let shift = top - SUB_BITS;
    let sub = (v >> shift) - SUB; // 0..SUB
    ((shift as u64 + 1) * SUB + sub) as usize
}

/// A run of additions to one bin of a [`LogHistogram`], summed where its owner keeps it until a
/// value falls in another bin (or [`fold`](Self::fold)): a queue keeps its runs beside what
/// every packet that waits touches, and the histogram, elsewhere in memory, is reached only
/// when the bin changes (at a network's scale, each histogram reached is a cache miss).
/// The histogram lacks the run's weight until it is folded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinRun {
    /// The run's bin, [`BinRun::NONE`] when there is no run.
    bin: usize,
    weight: u64,
}

impl Default for BinRun {
    fn default() -> Self {
        BinRun { bin: Self::NONE, weight: 0 }
    }
}

impl BinRun {
    /// No bin: no run.
    const NONE: usize = usize::MAX;

    /// Adds `weight` at `value`: to the run if `value` falls in its bin, else the run goes to
    /// `hist` and a new one starts.
    #[inline]
    pub fn add(&mut self, hist: &mut LogHistogram, value: u64, weight: u64) {
        let i = bin_of(value);
        if i == self.bin {
            self.weight += weight;
            return;
        }
        self.fold(hist);
        *self = BinRun { bin: i, weight };
    }

    /// The run goes to `hist` (before `hist` is read).
    #[inline]
    pub fn fold(&mut self, hist: &mut LogHistogram) {
        if self.bin != Self::NONE {
            hist.add_to_bin(self.bin, self.weight);
            *self = BinRun::default();
        }
    }
}

/// The values bin `i` holds: `lo..=hi`.
pub fn bin_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, i);
    }
    let shift = i / SUB - 1;
    let lo = (SUB + i % SUB) << shift;
    (lo, lo + ((1u64 << shift) - 1))
}

impl LogHistogram {
    /// Adds `weight` at `value`.
    #[inline]
    pub fn add(&mut self, value: u64, weight: u64) {
        self.add_to_bin(bin_of(value), weight);
    }

    /// Adds `weight` in bin `i` (of [`bin_of`]).
    #[inline]
    pub fn add_to_bin(&mut self, i: usize, weight: u64) {
        match i.checked_sub(self.first).and_then(|j| self.bins.get_mut(j)) {
            Some(bin) => *bin += weight,
            None => self.grow_to_add(i, weight),
        }
    }

    /// [`add`](Self::add) outside the bins held: rare (a new smallest or largest value), so
    /// kept out of the callers' code.
    #[cold]
    #[inline(never)]
    fn grow_to_add(&mut self, i: usize, weight: u64) {
        if self.bins.is_empty() {
            self.first = i;
            self.bins.push(0);
        } else if i < self.first {
            self.bins.splice(0..0, std::iter::repeat_n(0, self.first - i));
            self.first = i;
        } else {
            self.bins.resize(i - self.first + 1, 0);
        }
        self.bins[i - self.first] += weight;
    }

    /// The total weight.
    pub fn total(&self) -> u64 {
        self.bins.iter().sum()
    }

    /// Forgets everything (the start of a measurement period).
    pub fn clear(&mut self) {
        self.bins.iter_mut().for_each(|b| *b = 0);
    }

    /// The bins with weight: `(lo, hi, weight)`, ascending.
    pub fn bins(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.bins.iter().enumerate().filter(|(_, w)| **w > 0).map(|(j, w)| {
            let (lo, hi) = bin_range(self.first + j);
            (lo, hi, *w)
        })
    }

    /// The `q`-quantile (0 < q <= 1) of the values, with `zeros` more weight at 0 than the
    /// bins hold: the smallest bin whose cumulative weight reaches `q` of the total, taken at
    /// its midpoint (exact for the single-value bins below [`SUB`]); 0 with no weight.
    pub fn quantile(&self, q: f64, zeros: u64) -> f64 {
        let total = self.total() + zeros;
        if total == 0 {
            return 0.0;
        }
        let want = (q * total as f64).ceil().max(1.0) as u64;
        let mut seen = zeros;
        if seen >= want {
            return 0.0;
        }
        for (j, w) in self.bins.iter().enumerate() {
            seen += w;
            if seen >= want {
                let (lo, hi) = bin_range(self.first + j);
                return (lo as f64 + hi as f64) / 2.0;
            }
        }
        let (lo, hi) = bin_range(self.first + self.bins.len() - 1);
        (lo as f64 + hi as f64) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_tile_the_values_and_are_at_most_a_32nd_of_their_start_wide() {
        let mut next = 0u64;
        for i in 0..=bin_of(u64::MAX) {
            let (lo, hi) = bin_range(i);
            assert_eq!(lo, next, "bin {i}");
            assert!(hi >= lo);
            if lo >= SUB {
                assert!((hi - lo + 1) * SUB <= lo, "bin {i}: {lo}..={hi}");
            }
            assert_eq!(bin_of(lo), i);
            assert_eq!(bin_of(hi), i);
            next = hi.wrapping_add(1);
        }
        assert_eq!(next, 0, "the last bin ends at u64::MAX");
        assert_eq!(bin_of(u64::MAX), bin_of(1 << 63) + SUB as usize - 1);
    }

    #[test]
    fn quantiles_of_hand_made_weights() {
        let mut h = LogHistogram::default();
        assert_eq!(h.quantile(0.5, 0), 0.0);
        // 1..=10, one each: exact bins.
        for v in 1..=10 {
            h.add(v, 1);
        }
        assert_eq!(h.quantile(0.5, 0), 5.0);
        assert_eq!(h.quantile(0.95, 0), 10.0);
        assert_eq!(h.quantile(1.0, 0), 10.0);
        // Ten zeros more: the median is 0.
        assert_eq!(h.quantile(0.5, 10), 0.0);
        assert_eq!(h.quantile(0.55, 10), 1.0);
        // A large value lands in a bin whose midpoint is within 2% of it.
        let mut h = LogHistogram::default();
        h.add(1_000_000, 3);
        let m = h.quantile(0.99, 0);
        assert!((m / 1e6 - 1.0).abs() < 0.02, "{m}");
        assert_eq!(h.total(), 3);
        assert_eq!(h.bins().count(), 1);
        h.clear();
        assert_eq!(h.total(), 0);
    }

    /// Runs folded into a histogram give the bins of the same additions made directly,
    /// whichever order the values come in; the histogram lacks a run until it is folded.
    #[test]
    fn runs_fold_to_the_bins_of_direct_additions() {
        let values = [5u64, 5, 5, 40, 41, 5, 1_000, 1_000, 8_320, 8_330, 5];
        let mut direct = LogHistogram::default();
        let (mut folded, mut run) = (LogHistogram::default(), BinRun::default());
        for (k, &v) in values.iter().enumerate() {
            direct.add(v, k as u64 + 1);
            run.add(&mut folded, v, k as u64 + 1);
        }
        assert_eq!(folded.total() + 11, direct.total(), "the last run (5, weight 11) is not yet in");
        run.fold(&mut folded);
        assert_eq!(folded.bins().collect::<Vec<_>>(), direct.bins().collect::<Vec<_>>());
        run.fold(&mut folded);
        assert_eq!(folded.total(), direct.total(), "a second fold adds nothing");
    }

    /// The bins held span the values seen, whichever order they come in: a smaller value
    /// after larger ones adds bins below, and the weights stay with their values.
    #[test]
    fn holds_only_the_span_of_the_values_seen() {
        let mut h = LogHistogram::default();
        h.add(8_320, 2);
        assert_eq!(h.bins.len(), 1);
        h.add(8_330, 1);
        assert_eq!((h.bins.len(), h.total()), (1, 3), "the same bin");
        h.add(100, 5);
        h.add(1_000_000, 1);
        assert_eq!(h.bins.len(), bin_of(1_000_000) - bin_of(100) + 1);
        let bins: Vec<_> = h.bins().map(|(lo, hi, w)| (bin_of(lo), bin_of(hi), w)).collect();
        assert_eq!(bins, [(bin_of(100), bin_of(100), 5), (bin_of(8_320), bin_of(8_320), 3), (bin_of(1_000_000), bin_of(1_000_000), 1)]);
        assert_eq!(h.quantile(0.5, 0), 100.5, "5 of 9 at 100 (its bin holds 100 and 101)");
        assert_eq!(h.quantile(0.6, 0), {
            let (lo, hi) = bin_range(bin_of(8_320));
            (lo + hi) as f64 / 2.0
        });
    }
}
