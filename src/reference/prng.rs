//! The project's own pseudo-random generator (SplitMix64), so that generated workloads and fuzz
//! sequences stay the same for a seed across dependency upgrades and platforms.

#[derive(Clone, Debug)]
pub struct Prng(u64);

impl Prng {
    pub fn new(seed: u64) -> Self {
        Prng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 when `n` is 0); the modulo bias is irrelevant at these sizes.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        let len = u64::try_from(items.len()).unwrap_or(u64::MAX);
        items.get(usize::try_from(self.below(len)).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_first_values_for_seed_zero() {
        // Reference values of SplitMix64 for seed 0, from its published description.
        let mut p = Prng::new(0);
        assert_eq!(p.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(p.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_stays_in_range() {
        let mut p = Prng::new(7);
        assert!((0..1000).all(|_| p.below(3) < 3));
        assert_eq!(p.below(0), 0);
    }
}
