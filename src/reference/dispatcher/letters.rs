//! Dead letters by their number in the order of deaths (`dead.list`): numbers only grow, so a
//! death is appended to a sorted list. A revival does not search the list: the revived event's
//! own lifecycle no longer names the letter, which makes its entry stale, and the caller only
//! says how many went stale. Reading skips stale entries, and the list is compacted once they
//! are half of it, so it stays within twice what is live. A revival used to find its entry by
//! binary search, which at a million events missed the cache on nearly every step and was a
//! sixth of the applying thread's time.

#[derive(Debug)]
pub(crate) struct Letters<V> {
    /// Sorted by number, stale entries among them.
    items: Vec<(u64, V)>,
    stale: usize,
}

impl<V> Default for Letters<V> {
    fn default() -> Self {
        Letters {
            items: Vec::new(),
            stale: 0,
        }
    }
}

impl<V: Copy> Letters<V> {
    /// Adds the letter `number`, which is greater than every number added before.
    pub fn push(&mut self, number: u64, value: V) {
        debug_assert!(self.items.last().is_none_or(|(n, _)| *n < number));
        self.items.push((number, value));
    }

    /// The value of the letter `number`, live or stale: the caller knows which.
    pub fn get(&self, number: u64) -> Option<V> {
        let at = self.items.binary_search_by_key(&number, |(n, _)| *n).ok()?;
        self.items.get(at).map(|(_, v)| *v)
    }

    /// Notes that `count` more letters went stale (their events were revived); `live` tells a
    /// live entry from a stale one, and must already say so of those `count`.
    pub fn forget(&mut self, count: usize, live: impl Fn(u64, V) -> bool) {
        self.stale += count;
        if self.stale * 2 > self.items.len() {
            self.items.retain(|&(n, v)| live(n, v));
            self.stale = 0;
        }
    }

    /// Takes every letter out.
    pub fn clear(&mut self) {
        self.items.clear();
        self.stale = 0;
    }

    /// The live letters, by number.
    pub fn values(&self, live: impl Fn(u64, V) -> bool) -> impl Iterator<Item = V> {
        self.items
            .iter()
            .filter(move |&&(n, v)| live(n, v))
            .map(|(_, v)| *v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::Prng;
    use std::collections::BTreeMap;

    /// Values are item numbers; `current[v]` is the letter item `v` is dead under, as an
    /// event's lifecycle says it.
    #[test]
    fn letters_behave_as_an_ordered_map_of_growing_numbers() {
        let mut p = Prng::new(5);
        let (mut letters, mut map) = (Letters::default(), BTreeMap::new());
        let mut current: Vec<Option<u64>> = vec![None; 64];
        let mut next = 0u64;
        for _ in 0..50_000u32 {
            let item = p.below(64) as usize;
            match p.below(10) {
                // A death: only of an item not dead already, as only a pending event dies.
                0..=4 if current[item].is_none() => {
                    next += 1 + p.below(3);
                    letters.push(next, item);
                    map.insert(next, item);
                    current[item] = Some(next);
                }
                // A revival of up to three dead items at once.
                5..=8 => {
                    let revived: Vec<usize> = (0..=p.below(3))
                        .map(|_| p.below(64) as usize)
                        .filter(|&v| current[v].take().is_some_and(|n| map.remove(&n).is_some()))
                        .collect();
                    letters.forget(revived.len(), |n, v| current[v] == Some(n));
                }
                9 if p.chance(5) => {
                    letters.clear();
                    map.clear();
                    current.fill(None);
                }
                _ => {}
            }
            let live = |n: u64, v: usize| current[v] == Some(n);
            if let Some((&n, &v)) = map.iter().nth(p.below(map.len() as u64 + 1) as usize) {
                assert_eq!(letters.get(n), Some(v));
            }
            assert!(letters.values(live).eq(map.values().copied()));
            assert_eq!(letters.stale, letters.items.len() - map.len());
            assert!(letters.stale * 2 <= letters.items.len().max(1));
        }
    }
}
