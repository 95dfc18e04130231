//! Interned ids: a hash table finds the index of the event or endpoint an id names, and the id
//! itself is kept as a 12-byte [`Name`] inside that event or endpoint. Short ids, which ids
//! usually are ("evt-123456"), live in their name whole, and only longer ones in a shared text
//! arena: naming an event then reads only the event, which an attempt has at hand, and looking
//! an event up reads the event a status goes on to read anyway. Ids come from input, so the hash
//! is foldhash with a seed drawn per process: a fixed seed would let crafted ids collide on
//! purpose.

use super::Error;
use crate::escape::plain_len;
use foldhash::fast::RandomState;
use hashbrown::HashTable;
use std::hash::{BuildHasher, Hasher};

/// What an id names, holding the id's [`Name`].
pub(crate) trait Named {
    fn name(&self) -> &Name;
}

/// An id as its owner keeps it: `[len, bytes…]` for up to `INLINE` bytes, or `[LONG, 0, 0, 0,
/// start, len]` (little-endian `u32`s) for a span of the text arena; the first byte also says
/// (`ESCAPED`) whether the id has a character JSON escapes, so that writing it out, which
/// `hookcheck run` does for every attempt, is a plain copy for the ids that have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Name([u8; 12]);

/// The longest id kept inline.
const INLINE: usize = 11;
const LONG: u8 = 0x7f;
const ESCAPED: u8 = 0x80;

#[derive(Debug, Default)]
pub(crate) struct Ids {
    /// The text of the ids too long to be inline, one after the other.
    text: String,
    /// (hash, index) of every id. With the hash at hand a growing table never reads an id
    /// back, and a probe reads one only when the whole 32-bit hash matches.
    table: HashTable<(u32, u32)>,
    hasher: RandomState,
}

impl Ids {
    /// The index of the item of `items` named `id`.
    pub fn get<T: Named>(&self, id: &str, items: &[T]) -> Option<u32> {
        let hash = self.hash(id);
        self.index(hash, is(hash, id, &self.text, items))
    }

    /// The index of the item whose id has `id`'s hash, if any: a lookup that compares no id, to
    /// bring the table's lines into the cache ahead of the real one.
    pub fn warm(&self, id: &str) -> Option<u32> {
        let hash = self.hash(id);
        self.index(hash, |&(h, _)| h == hash)
    }

    /// Starts loading the table entries that may be `id`'s: which they are, the control bytes
    /// say, and those stay cached; the entries themselves miss once the table outgrows the
    /// cache. Nothing is read from them here.
    pub fn prefetch_entries(&self, id: &str) {
        let hash = self.hash(id);
        self.table.find(spread(hash), |entry| {
            crate::prefetch::prefetch(Some(entry));
            false
        });
    }

    /// Room for `n` more ids without growing, if it can be had: a hint, like the room for events.
    pub fn reserve(&mut self, n: usize) {
        let _ = self.table.try_reserve(n, |&(h, _)| spread(h));
    }

    /// How many ids the table holds before it grows.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.table.capacity()
    }

    fn index(&self, hash: u32, is: impl FnMut(&(u32, u32)) -> bool) -> Option<u32> {
        self.table.find(spread(hash), is).map(|&(_, i)| i)
    }

    /// Adds `id` as the name of the next item, `items.len()`: returns that index and the name,
    /// which the caller must push with that item; `Ok(None)` when an item has it already.
    pub fn insert<T: Named>(
        &mut self,
        id: &str,
        items: &[T],
    ) -> Result<Option<(u32, Name)>, Error> {
        let hash = self.hash(id);
        let Ids { text, table, .. } = self;
        let entry = table.entry(spread(hash), is(hash, id, text, items), |&(h, _)| spread(h));
        let hashbrown::hash_table::Entry::Vacant(slot) = entry else {
            return Ok(None);
        };
        let index = u32::try_from(items.len()).map_err(|_| Error::CapacityExceeded)?;
        let escaped = if plain_len(id.as_bytes()) < id.len() {
            ESCAPED
        } else {
            0
        };
        // The name is put together in registers and stored whole: built byte by byte on the
        // stack, it was read back as wider words when moved into its event, a load that has
        // to wait for every one of those stores to drain (a store-forwarding stall) once per
        // enqueue.
        let word = if id.len() <= INLINE {
            inline_word(id.as_bytes(), escaped)
        } else {
            let start = u32::try_from(text.len()).map_err(|_| Error::CapacityExceeded)?;
            let len = u32::try_from(id.len()).map_err(|_| Error::CapacityExceeded)?;
            text.push_str(id);
            u128::from(len) << 64 | u128::from(start) << 32 | u128::from(LONG | escaped)
        };
        let mut name = [0; 12];
        name.copy_from_slice(&word.to_le_bytes()[..12]);
        slot.insert((hash, index));
        Ok(Some((index, Name(name))))
    }

    /// The id's UTF-8 bytes, and whether JSON writes them as they are (no byte of theirs is
    /// escaped).
    pub fn json<'a>(&'a self, name: &'a Name) -> (&'a [u8], bool) {
        (bytes(&self.text, name), name.0[0] & ESCAPED == 0)
    }

    pub fn str<'a>(&'a self, name: &'a Name) -> &'a str {
        // Every name was copied whole from a `str`, so this never fails.
        std::str::from_utf8(bytes(&self.text, name)).unwrap_or("")
    }

    /// The high half of the id's 64-bit hash, which is all the table keeps. The bytes are
    /// hashed as they are: hashing a `str` adds a byte to tell it from its neighbours in a
    /// compound key, which costs a round here and tells nothing.
    fn hash(&self, id: &str) -> u32 {
        let mut hasher = self.hasher.build_hasher();
        hasher.write(id.as_bytes());
        (hasher.finish() >> 32) as u32
    }
}

/// The 64-bit hash the table works with, made from the kept 32 bits alone (so that a growing
/// table can rebuild it): the table picks buckets by its low bits and tells entries apart in a
/// bucket group by its top seven, both of which are then the kept hash's.
fn spread(hash: u32) -> u64 {
    u64::from(hash) << 32 | u64::from(hash)
}

/// Whether a table entry is `id`'s, whose hash is `hash`: the text is read only when the hashes
/// agree.
fn is<'a, T: Named>(
    hash: u32,
    id: &'a str,
    text: &'a str,
    items: &'a [T],
) -> impl Fn(&(u32, u32)) -> bool + 'a {
    // A short id is compared as the one word its name would be, which costs no call and no
    // branch on its length; a long one byte by byte.
    let short = (id.len() <= INLINE).then(|| inline_word(id.as_bytes(), 0));
    move |&(h, i)| {
        h == hash
            && match (short, items.get(i as usize)) {
                (Some(word), Some(item)) => word == item.name().word() & !u128::from(ESCAPED),
                (None, Some(item)) => bytes(text, item.name()) == id.as_bytes(),
                (_, None) => false,
            }
    }
}

/// The name of an inline id, as a little-endian word: its length and `flags`, then its bytes.
fn inline_word(id: &[u8], flags: u8) -> u128 {
    // At most `INLINE` bytes, so the length fits below `LONG`.
    short_le(id) << 8 | u128::from(id.len() as u8 | flags)
}

impl Name {
    fn word(&self) -> u128 {
        let mut word = [0; 16];
        word[..12].copy_from_slice(&self.0);
        u128::from_le_bytes(word)
    }
}

/// Up to 16 bytes as a little-endian integer, read by at most two loads that may overlap rather
/// than byte by byte: `bytes[i]` is bits `8i..8i+8`, and the bits above the last byte are zero.
fn short_le(bytes: &[u8]) -> u128 {
    let len = bytes.len();
    let le64 = |at: usize| {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let le32 = |at: usize| {
        let mut word = [0; 4];
        word.copy_from_slice(&bytes[at..at + 4]);
        u32::from_le_bytes(word)
    };
    match len {
        0 => 0,
        1..4 => {
            let (first, mid, last) = (bytes[0], bytes[len / 2], bytes[len - 1]);
            u128::from(first)
                | u128::from(mid) << (8 * (len / 2))
                | u128::from(last) << (8 * (len - 1))
        }
        4..8 => {
            // The second load ends at the last byte; shifted down, the bytes the first one
            // already holds fall off the bottom.
            let high = u64::from(le32(len - 4)) >> (8 * (8 - len));
            u128::from(u64::from(le32(0)) | high << 32)
        }
        8..=16 => {
            let high = le64(len - 8)
                .checked_shr(8 * (16 - len) as u32)
                .unwrap_or(0);
            u128::from(le64(0)) | u128::from(high) << 64
        }
        _ => {
            debug_assert!(false, "an inline id is at most {INLINE} bytes");
            0
        }
    }
}

fn bytes<'a>(text: &'a str, name: &'a Name) -> &'a [u8] {
    let Name([first, inline @ ..]) = name;
    let len = first & !ESCAPED;
    if len != LONG {
        return inline.get(..usize::from(len)).unwrap_or(&[]);
    }
    let [_, _, _, s0, s1, s2, s3, l0, l1, l2, l3] = *inline;
    let start = u32::from_le_bytes([s0, s1, s2, s3]) as usize;
    let len = u32::from_le_bytes([l0, l1, l2, l3]) as usize;
    text.as_bytes().get(start..start + len).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Named for Name {
        fn name(&self) -> &Name {
            self
        }
    }

    #[test]
    fn short_ids_read_as_integers_byte_for_byte() {
        let mut p = crate::prng::Prng::new(11);
        for len in 0..=16 {
            for _ in 0..200 {
                let bytes: Vec<u8> = (0..len).map(|_| p.below(256) as u8).collect();
                let expected = bytes
                    .iter()
                    .enumerate()
                    .fold(0u128, |acc, (i, &b)| acc | u128::from(b) << (8 * i));
                assert_eq!(short_le(&bytes), expected, "{bytes:?}");
            }
        }
    }

    #[test]
    fn ids_are_found_again_and_never_added_twice() {
        let long = "a-rather-long-event-id-with-é-in-it";
        let ids_ = [
            "shop",
            "",
            "évt-1",
            "sh",
            long,
            "elevenbytes",
            "twelve-bytes",
        ];
        let (mut ids, mut names) = (Ids::default(), Vec::new());
        for (i, n) in ids_.iter().enumerate() {
            let (index, name) = ids.insert(n, &names).ok().flatten().expect("new");
            assert_eq!(index, i as u32);
            names.push(name);
        }
        for (i, n) in ids_.iter().enumerate() {
            assert_eq!(ids.get(n, &names), Some(i as u32));
            assert_eq!(ids.str(&names[i]), *n);
            assert_eq!(ids.json(&names[i]), (n.as_bytes(), true));
            assert_eq!(ids.insert(n, &names), Ok(None));
        }
        assert_eq!(ids.get("nope", &names), None);
        // Warming finds what is there (by hash alone) and never changes anything.
        for (i, n) in ids_.iter().enumerate() {
            ids.prefetch_entries(n);
            assert_eq!(ids.warm(n), Some(i as u32));
            assert_eq!(ids.get(n, &names), Some(i as u32));
        }
        ids.prefetch_entries("nope");
        assert_eq!(ids.get("nope", &names), None);
        assert_eq!(ids.get("a-rather-long-event-id-with-é-in-iT", &names), None);
        // Growing the table rebuilds every id's place from its kept hash.
        for i in 0..10_000 {
            let id = if i % 2 == 0 {
                format!("e{i}")
            } else {
                format!("{long}{i}")
            };
            let (_, name) = ids.insert(&id, &names).ok().flatten().expect("new");
            names.push(name);
        }
        let first = ids_.len();
        assert_eq!(ids.get("e9998", &names), Some(first as u32 + 9998));
        assert_eq!(
            ids.get(&format!("{long}9999"), &names),
            Some(first as u32 + 9999)
        );
        assert_eq!(ids.str(&names[first + 42]), "e42");
        assert_eq!(ids.str(&names[first + 43]), format!("{long}43"));
        // Whether an id needs escaping is noted with it, short or long.
        for id in [
            "a\"b",
            "tab\there",
            "a-rather-long-id-with-a-\\-in-it",
            "\u{1f}",
        ] {
            let (_, name) = ids.insert(id, &names).ok().flatten().expect("new");
            names.push(name);
            assert_eq!(ids.json(&name), (id.as_bytes(), false), "{id:?}");
            assert_eq!(ids.get(id, &names), Some(names.len() as u32 - 1));
        }
    }
}
