//! Interned ids: every endpoint or event id is stored once and found again through a hash table
//! of indexes. Naming an id by its index reads one 16-byte record: short ids, which ids usually
//! are ("evt-123456"), live in it whole, and only longer ones in a shared text arena. Ids come
//! from input, so the hash is foldhash with a seed drawn per process: a fixed seed would let
//! crafted ids collide on purpose.

use super::Error;
use foldhash::fast::RandomState;
use hashbrown::HashTable;
use std::hash::BuildHasher;

#[derive(Debug, Default)]
pub(crate) struct Ids {
    /// Id `i` is `names[i]`.
    names: Vec<Name>,
    /// The text of the ids too long to be inline, one after the other.
    text: String,
    /// (hash, index) of every id. With the hash at hand a growing table never reads an id
    /// back, and a probe reads one only when the whole 32-bit hash matches.
    table: HashTable<(u32, u32)>,
    hasher: RandomState,
}

/// The longest id kept inline.
const INLINE: usize = 14;

/// One id: 16 bytes either way.
#[derive(Clone, Copy, Debug)]
enum Name {
    Inline { len: u8, bytes: [u8; INLINE] },
    Arena { start: u32, len: u32 },
}

impl Ids {
    pub fn get(&self, id: &str) -> Option<u32> {
        let hash = self.hash(id);
        self.table
            .find(spread(hash), |&(h, i)| {
                h == hash && bytes(&self.names, &self.text, i) == id.as_bytes()
            })
            .map(|&(_, i)| i)
    }

    /// Adds `id` under the next index: `Ok(None)` when it is there already.
    pub fn insert(&mut self, id: &str) -> Result<Option<u32>, Error> {
        let hash = self.hash(id);
        let Ids {
            names, text, table, ..
        } = self;
        let entry = table.entry(
            spread(hash),
            |&(h, i)| h == hash && bytes(names, text, i) == id.as_bytes(),
            |&(h, _)| spread(h),
        );
        let hashbrown::hash_table::Entry::Vacant(slot) = entry else {
            return Ok(None);
        };
        let index = u32::try_from(names.len()).map_err(|_| Error::CapacityExceeded)?;
        let name = if id.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..id.len()].copy_from_slice(id.as_bytes());
            Name::Inline {
                len: u8::try_from(id.len()).map_err(|_| Error::CapacityExceeded)?,
                bytes,
            }
        } else {
            let start = u32::try_from(text.len()).map_err(|_| Error::CapacityExceeded)?;
            let len = u32::try_from(id.len()).map_err(|_| Error::CapacityExceeded)?;
            text.push_str(id);
            Name::Arena { start, len }
        };
        names.push(name);
        slot.insert((hash, index));
        Ok(Some(index))
    }

    pub fn name(&self, index: u32) -> &str {
        // Every name was copied whole from a `str`, so this never fails.
        std::str::from_utf8(self.bytes(index)).unwrap_or("")
    }

    /// The id's UTF-8 bytes, for callers that write them out as they are: `name` checks them
    /// again, which costs more than reading them.
    pub fn bytes(&self, index: u32) -> &[u8] {
        bytes(&self.names, &self.text, index)
    }

    /// The high half of the id's 64-bit hash, which is all the table keeps.
    fn hash(&self, id: &str) -> u32 {
        (self.hasher.hash_one(id) >> 32) as u32
    }
}

/// The 64-bit hash the table works with, made from the kept 32 bits alone (so that a growing
/// table can rebuild it): the table picks buckets by its low bits and tells entries apart in a
/// bucket group by its top seven, both of which are then the kept hash's.
fn spread(hash: u32) -> u64 {
    u64::from(hash) << 32 | u64::from(hash)
}

fn bytes<'a>(names: &'a [Name], text: &'a str, index: u32) -> &'a [u8] {
    match names.get(index as usize) {
        Some(Name::Inline { len, bytes }) => bytes.get(..usize::from(*len)).unwrap_or(&[]),
        Some(&Name::Arena { start, len }) => text
            .as_bytes()
            .get(start as usize..start as usize + len as usize)
            .unwrap_or(&[]),
        None => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_again_and_never_added_twice() {
        let long = "a-rather-long-event-id-with-é-in-it";
        let names = [
            "shop",
            "",
            "évt-1",
            "shop2",
            "sh",
            long,
            "fourteen-bytes",
            "fifteen-bytes!!",
        ];
        let mut ids = Ids::default();
        for (i, n) in names.iter().enumerate() {
            assert_eq!(ids.insert(n), Ok(Some(i as u32)), "{n}");
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(ids.get(n), Some(i as u32));
            assert_eq!(ids.name(i as u32), *n);
            assert_eq!(ids.insert(n), Ok(None));
        }
        assert_eq!(ids.get("nope"), None);
        assert_eq!(ids.get("a-rather-long-event-id-with-é-in-iT"), None);
        // Growing the table rebuilds every id's place from its kept hash.
        for i in 0..10_000 {
            let id = if i % 2 == 0 {
                format!("e{i}")
            } else {
                format!("{long}{i}")
            };
            assert_eq!(ids.insert(&id).map(|k| k.is_some()), Ok(true));
        }
        let first = names.len() as u32;
        assert_eq!(ids.get("e9998"), Some(first + 9998));
        assert_eq!(ids.get(&format!("{long}9999")), Some(first + 9999));
        assert_eq!(ids.name(first + 42), "e42");
        assert_eq!(ids.name(first + 43), format!("{long}43"));
        assert_eq!(std::mem::size_of::<Name>(), 16);
    }
}
