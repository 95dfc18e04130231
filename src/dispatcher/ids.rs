//! Interned ids: every endpoint or event id is stored once, in one text arena, and found again
//! through a hash table of indexes into it. Against a map of boxed strings this saves an
//! allocation and a pointer per id. Ids come from input, so the hash is foldhash with a seed
//! drawn per process: a fixed seed would let crafted ids collide on purpose.

use super::Error;
use foldhash::fast::RandomState;
use hashbrown::HashTable;
use std::hash::BuildHasher;

#[derive(Debug, Default)]
pub(crate) struct Ids {
    text: String,
    /// Where each id ends in `text`: id `i` is `text[ends[i - 1]..ends[i]]`.
    ends: Vec<u32>,
    table: HashTable<u32>,
    hasher: RandomState,
}

impl Ids {
    pub fn get(&self, id: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(id);
        self.table
            .find(hash, |&i| span(&self.text, &self.ends, i) == id)
            .copied()
    }

    /// Adds `id` under the next index: `Ok(None)` when it is there already.
    pub fn insert(&mut self, id: &str) -> Result<Option<u32>, Error> {
        let Ids {
            text,
            ends,
            table,
            hasher,
        } = self;
        let hash = hasher.hash_one(id);
        let entry = table.entry(
            hash,
            |&i| span(text, ends, i) == id,
            |&i| hasher.hash_one(span(text, ends, i)),
        );
        let hashbrown::hash_table::Entry::Vacant(slot) = entry else {
            return Ok(None);
        };
        let index = u32::try_from(ends.len()).map_err(|_| Error::CapacityExceeded)?;
        let end = u32::try_from(text.len() + id.len()).map_err(|_| Error::CapacityExceeded)?;
        text.push_str(id);
        ends.push(end);
        slot.insert(index);
        Ok(Some(index))
    }

    pub fn name(&self, index: u32) -> &str {
        span(&self.text, &self.ends, index)
    }
}

fn span<'a>(text: &'a str, ends: &[u32], index: u32) -> &'a str {
    let i = index as usize;
    let start = match i.checked_sub(1) {
        Some(before) => ends.get(before).copied().unwrap_or(0),
        None => 0,
    };
    let end = ends.get(i).copied().unwrap_or(start);
    text.get(start as usize..end as usize).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_again_and_never_added_twice() {
        let mut ids = Ids::default();
        let names = ["shop", "", "évt-1", "shop2", "sh"];
        for (i, n) in names.iter().enumerate() {
            assert_eq!(ids.insert(n), Ok(Some(i as u32)), "{n}");
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(ids.get(n), Some(i as u32));
            assert_eq!(ids.name(i as u32), *n);
            assert_eq!(ids.insert(n), Ok(None));
        }
        assert_eq!(ids.get("nope"), None);
        // Growing the table rehashes every id from the arena.
        for i in 0..10_000 {
            assert_eq!(ids.insert(&format!("e{i}")).map(|k| k.is_some()), Ok(true));
        }
        assert_eq!(ids.get("e9999"), Some(names.len() as u32 + 9999));
        assert_eq!(ids.name(names.len() as u32 + 42), "e42");
    }
}
