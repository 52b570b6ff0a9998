//! Named, seeded random streams.
//!
//! Every mechanism that draws random numbers asks for its own stream by name ("start/g1/3",
//! "aqm/R2->R3", "loss/4"...). A stream's seed is a hash of the run seed and the name, so
//! turning one mechanism on or off never shifts another's draws: common random numbers for
//! fair comparisons. The generator is xoshiro256++ seeded through SplitMix64, written out
//! here so results do not depend on any crate's version.

/// One independent stream of pseudo-random numbers.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a, stable across platforms and Rust versions (unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl Rng {
    pub fn from_seed(seed: u64) -> Rng {
        let mut x = seed;
        let s = [splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x), splitmix64(&mut x)];
        Rng { s }
    }

    /// The stream called `name` for the run seeded with `seed`.
    pub fn stream(seed: u64, name: &str) -> Rng {
        Rng::from_seed(seed ^ fnv1a(name.as_bytes()).rotate_left(17))
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so the logarithm is finite.
        -mean * (1.0 - self.uniform()).ln()
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "start/g1");
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::stream(7, "start/g1");
        let b: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        assert_eq!(a, b);
        let mut other = Rng::stream(7, "aqm/R1");
        assert_ne!(a[0], other.next_u64());
        let mut seed8 = Rng::stream(8, "start/g1");
        assert_ne!(a[0], seed8.next_u64());
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = Rng::from_seed(1);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
        let mut r = Rng::from_seed(2);
        let mean: f64 = (0..n).map(|_| r.exponential(2.5)).sum::<f64>() / n as f64;
        assert!((mean - 2.5).abs() < 0.05, "{mean}");
    }
}
