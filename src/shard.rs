//! Shards: `--shard K/N` splits a run's work into N parts without any coordination between the
//! machines that run them. Each shard is computed from the run's own items (its implementations,
//! or with `--shard-by case` its cases, after the filters), so every item falls in exactly one
//! shard whatever N is, and the shards' bundles merge into the whole run.

use std::fmt;

/// How items are dealt to shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Contiguous runs of items, sizes differing by one at most: no shard is empty while there
    /// are at least as many items as shards.
    Slice,
    /// By a stable hash of the item's name: an item stays in its shard when others are added or
    /// removed, and a shard may be empty.
    Hash,
}

/// What is split between the shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum By {
    /// Each implementation runs in one shard only, on every case.
    #[default]
    Implementation,
    /// Every implementation runs in every shard, each on its share of the cases.
    Case,
}

impl By {
    pub fn as_str(self) -> &'static str {
        match self {
            By::Implementation => "implementation",
            By::Case => "case",
        }
    }

    pub fn parse(text: &str) -> Option<By> {
        match text {
            "implementation" => Some(By::Implementation),
            "case" => Some(By::Case),
            _ => None,
        }
    }
}

/// Shard `index` of `count` (1-based, as written on the command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
    pub method: Method,
}

/// The most shards a run may be split into: far more than any CI matrix holds.
pub const MAX_SHARDS: usize = 65_536;

impl Shard {
    /// `K/N`, `slice:K/N` or `hash:K/N`, with 1 <= K <= N <= [`MAX_SHARDS`].
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (method, rest) = match text.split_once(':') {
            Some(("slice", rest)) => (Method::Slice, rest),
            Some(("hash", rest)) => (Method::Hash, rest),
            Some((other, _)) => {
                return Err(format!(
                    "`{other}` is not a way to shard: use K/N, slice:K/N or hash:K/N"
                ));
            }
            None => (Method::Slice, text),
        };
        let usage = || format!("`{text}` is not a shard: use K/N with 1 <= K <= N, such as 2/4");
        let (k, n) = rest.split_once('/').ok_or_else(usage)?;
        let number = |s: &str| -> Option<usize> {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
        };
        let (index, count) = (number(k).ok_or_else(usage)?, number(n).ok_or_else(usage)?);
        if count == 0 || index == 0 || index > count {
            return Err(usage());
        }
        if count > MAX_SHARDS {
            return Err(format!(
                "`{text}`: at most {MAX_SHARDS} shards (a run is split for machines, not items)"
            ));
        }
        Ok(Shard {
            index,
            count,
            method,
        })
    }

    /// Whether the item at `position` of `total` (0-based, in the run's order), named `name`,
    /// falls in this shard.
    pub fn keeps(&self, position: usize, total: usize, name: &str) -> bool {
        self.of(position, total, name) == self.index
    }

    /// The shard (1-based) the item at `position` of `total`, named `name`, falls in.
    pub fn of(&self, position: usize, total: usize, name: &str) -> usize {
        match self.method {
            // Widened so that position × count cannot overflow for any run that fits in memory.
            Method::Slice => {
                let slot = (position as u128 * self.count as u128) / total.max(1) as u128;
                usize::try_from(slot).unwrap_or(self.count - 1) + 1
            }
            Method::Hash => {
                let slot = fnv1a(name) % self.count as u64;
                usize::try_from(slot).unwrap_or(0) + 1
            }
        }
    }

    pub fn method_str(&self) -> &'static str {
        match self.method {
            Method::Slice => "slice",
            Method::Hash => "hash",
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}/{}", self.method_str(), self.index, self.count)
    }
}

/// FNV-1a, 64 bits: the same on every machine and version, which a stateless split needs.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_in_exactly_one_shard_for_any_count() {
        for method in [Method::Slice, Method::Hash] {
            for total in [1usize, 2, 3, 7, 50] {
                for count in 1..=8 {
                    let mut seen = vec![0; total];
                    for index in 1..=count {
                        let shard = Shard {
                            index,
                            count,
                            method,
                        };
                        for (p, n) in seen.iter_mut().enumerate() {
                            if shard.keeps(p, total, &format!("impl-{p}")) {
                                *n += 1;
                            }
                        }
                    }
                    assert!(seen.iter().all(|n| *n == 1), "{method:?} {total} {count}");
                }
            }
        }
    }

    #[test]
    fn slices_are_contiguous_and_none_is_empty_while_items_suffice() {
        let total = 10;
        for count in 1..=total {
            let shards: Vec<usize> = (0..total)
                .map(|p| {
                    Shard {
                        index: 1,
                        count,
                        method: Method::Slice,
                    }
                    .of(p, total, "")
                })
                .collect();
            assert!(shards.windows(2).all(|w| w[0] <= w[1]), "{shards:?}");
            for k in 1..=count {
                assert!(shards.contains(&k), "shard {k}/{count} empty: {shards:?}");
            }
        }
    }

    #[test]
    fn shards_are_parsed_and_nonsense_is_refused_with_the_form_to_use() {
        assert_eq!(
            Shard::parse("2/4"),
            Ok(Shard {
                index: 2,
                count: 4,
                method: Method::Slice
            })
        );
        assert_eq!(Shard::parse("hash:1/1").map(|s| s.method), Ok(Method::Hash));
        for bad in [
            "0/4",
            "5/4",
            "1/0",
            "/4",
            "1/",
            "a/b",
            "-1/4",
            "+1/4",
            "1/4/5",
            "x:1/2",
            "",
            "1/99999999999999999999999",
        ] {
            let e = Shard::parse(bad).expect_err(bad);
            assert!(e.contains("K/N"), "{bad}: {e}");
        }
        assert!(Shard::parse("1/65537").is_err_and(|e| e.contains("at most")));
    }
}
