//! Dead letters by their number in the order of deaths (`dead.list`): numbers only grow, so a
//! death is appended to a sorted list, and a revival (which can take any of them) leaves a
//! tombstone, found by binary search. The list is compacted once tombstones are half of it, so
//! it stays within twice what is live. Cheaper than an ordered map for what deaths mostly are:
//! appends, and lists read in order.

#[derive(Debug)]
pub(crate) struct Letters<V> {
    /// Sorted by number; a letter taken out has `GONE` set in its number, which keeps the order
    /// and costs no room.
    items: Vec<(u64, V)>,
    removed: usize,
}

/// Letter numbers count deaths, which never come near 2^63.
const GONE: u64 = 1 << 63;

impl<V> Default for Letters<V> {
    fn default() -> Self {
        Letters {
            items: Vec::new(),
            removed: 0,
        }
    }
}

impl<V: Copy> Letters<V> {
    /// Adds the letter `number`, which is greater than every number added before.
    pub fn push(&mut self, number: u64, value: V) {
        debug_assert!(number < GONE);
        debug_assert!(self.items.last().is_none_or(|(n, _)| n & !GONE < number));
        self.items.push((number, value));
    }

    /// Where the letter `number` is or was.
    fn find(&self, number: u64) -> Option<usize> {
        self.items
            .binary_search_by_key(&number, |(n, _)| n & !GONE)
            .ok()
    }

    pub fn get(&self, number: u64) -> Option<V> {
        let (n, v) = self.items.get(self.find(number)?)?;
        (n & GONE == 0).then_some(*v)
    }

    /// Takes the letter `number` out, if it is there.
    pub fn remove(&mut self, number: u64) {
        let Some(at) = self.find(number) else {
            return;
        };
        if let Some((n, _)) = self.items.get_mut(at)
            && *n & GONE == 0
        {
            *n |= GONE;
            self.removed += 1;
        }
        if self.removed * 2 > self.items.len() {
            self.items.retain(|(n, _)| n & GONE == 0);
            self.removed = 0;
        }
    }

    /// Takes every letter out.
    pub fn clear(&mut self) {
        self.items.clear();
        self.removed = 0;
    }

    /// The letters left, by number.
    pub fn values(&self) -> impl Iterator<Item = V> + '_ {
        self.items
            .iter()
            .filter(|(n, _)| n & GONE == 0)
            .map(|(_, v)| *v)
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.items.len() == self.removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::Prng;
    use std::collections::BTreeMap;

    #[test]
    fn letters_behave_as_an_ordered_map_of_growing_numbers() {
        let mut p = Prng::new(5);
        let (mut letters, mut map) = (Letters::default(), BTreeMap::new());
        let mut next = 0u64;
        for step in 0..50_000u32 {
            match p.below(10) {
                0..=4 => {
                    next += 1 + p.below(3);
                    letters.push(next, step);
                    map.insert(next, step);
                }
                5..=8 => {
                    let number = p.below(next + 2);
                    letters.remove(number);
                    map.remove(&number);
                }
                _ if p.chance(2) => {
                    letters.clear();
                    map.clear();
                }
                _ => {}
            }
            let number = p.below(next + 2);
            assert_eq!(letters.get(number), map.get(&number).copied());
            assert_eq!(letters.is_empty(), map.is_empty());
            assert!(letters.removed * 2 <= letters.items.len().max(1));
        }
        assert!(letters.values().eq(map.values().copied()));
    }
}
