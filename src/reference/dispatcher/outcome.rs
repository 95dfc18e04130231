//! Scripted HTTP outcomes: the validated `outcomes` list of an event (`outcomes.valid`,
//! `outcomes.script`, and Part 5's objects with `retry_after`, `outcomes.objects`) and the
//! classification of one status (`classify.*`).

use super::Error;

/// How a status code ends one attempt, before the retry policy is consulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Delivered,
    Retryable,
    Permanent,
}

pub fn classify(status: u16) -> Class {
    match status {
        200..=299 => Class::Delivered,
        0 | 408 | 429 | 500..=599 => Class::Retryable,
        _ => Class::Permanent,
    }
}

/// A non-empty list of valid statuses, each with its `retry_after` if it has one; holding one
/// proves the list was validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcomes {
    statuses: Statuses,
    /// The `retry_after` of each entry (`NO_RETRY_AFTER` where none), or `None` when no entry has
    /// one: plain scripts, the brief's, carry nothing more than their statuses.
    retry_after: Option<Box<[u32]>>,
}

/// `outcomes.objects`: the largest `retry_after`, 30 days.
pub const MAX_RETRY_AFTER: i64 = 2_592_000;
/// Marks an entry without `retry_after`; beyond every valid value.
pub(crate) const NO_RETRY_AFTER: u32 = u32::MAX;

impl Outcomes {
    /// Validates a script of entries `(status, retry_after)`: non-empty, each status 0 or in
    /// 100..=599, each `retry_after` in 0..=2592000 (`outcomes.objects`).
    pub fn with_retry_after<I: IntoIterator<Item = (i64, Option<i64>)>>(
        entries: I,
    ) -> Result<Self, Error> {
        let mut waits = Vec::new();
        let mut any = false;
        let statuses = entries.into_iter().map(|(status, retry_after)| {
            let r = match retry_after {
                None => Ok(NO_RETRY_AFTER),
                Some(r @ 0..=MAX_RETRY_AFTER) => {
                    any = true;
                    u32::try_from(r).map_err(|_| Error::InvalidOutcomes)
                }
                Some(_) => Err(Error::InvalidOutcomes),
            };
            waits.push(r);
            status
        });
        let mut outcomes = Outcomes::new(statuses)?;
        let waits = waits.into_iter().collect::<Result<Box<[u32]>, Error>>()?;
        if any {
            outcomes.retry_after = Some(waits);
        }
        Ok(outcomes)
    }

    /// Splits the outcomes into what an event keeps: the statuses of the first `usable` attempts
    /// and their `retry_after` list, if any entry had one.
    pub(crate) fn into_script(self, usable: u32) -> (Script, Option<Box<[u32]>>) {
        let usable = usize::try_from(usable).unwrap_or(usize::MAX);
        let retry_after = self.retry_after.map(|mut list| {
            if list.len() > usable {
                list = list[..usable].into();
            }
            list
        });
        let mut statuses = self.statuses;
        statuses.truncate(usable);
        (Script(statuses), retry_after)
    }

    /// Validates a script of `len` statuses, the first of `list` (the rest zero): what
    /// [`Outcomes::new`] does for the usual short script, which the decoder reads straight
    /// into place. A value out of `u16` comes as `u16::MAX`, which is no status.
    pub(crate) fn short(list: [u16; INLINE], len: usize) -> Result<Self, Error> {
        match list.get(..len) {
            Some(given) if len > 0 && given.iter().all(|&s| is_status(i64::from(s))) => {
                Ok(Outcomes {
                    statuses: Statuses::inline(list, len),
                    retry_after: None,
                })
            }
            _ => Err(Error::InvalidOutcomes),
        }
    }

    /// Validates a script: non-empty, each status 0 or in 100..=599.
    pub fn new<I: IntoIterator<Item = i64>>(statuses: I) -> Result<Self, Error> {
        // A script may be millions of statuses long: past the inline ones they go to a growable
        // list, taken over whole at the end, so no status is copied more than amortised once.
        let (mut inline, mut len, mut long) = ([0u16; INLINE], 0, Vec::new());
        for s in statuses {
            if !is_status(s) {
                return Err(Error::InvalidOutcomes);
            }
            let status = u16::try_from(s).map_err(|_| Error::InvalidOutcomes)?;
            match inline.get_mut(len) {
                Some(slot) => {
                    *slot = status;
                    len += 1;
                }
                None => {
                    if long.is_empty() {
                        long.reserve(2 * INLINE);
                        long.extend_from_slice(&inline);
                    }
                    long.push(status);
                }
            }
        }
        if len == 0 {
            return Err(Error::InvalidOutcomes);
        }
        let list = if long.is_empty() {
            Statuses::from_slice(&inline[..len])
        } else {
            Statuses::Spilled(Box::new(long.into_boxed_slice()))
        };
        Ok(Outcomes {
            statuses: list,
            retry_after: None,
        })
    }
}

/// `outcomes.valid`: a status is 0 or in 100..=599.
fn is_status(s: i64) -> bool {
    matches!(s, 0 | 100..=599)
}

/// A list of statuses that lives inside its owner up to `INLINE` entries, so the usual short
/// script costs no allocation and no pointer chase per attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Statuses {
    Inline {
        len: u8,
        statuses: [u16; INLINE],
    },
    /// Behind a thin pointer, so that the whole list is 16 bytes and an event 56.
    #[allow(clippy::redundant_allocation)]
    Spilled(Box<Box<[u16]>>),
}

/// The most statuses a script keeps inline.
pub(crate) const INLINE: usize = 7;

impl Statuses {
    fn from_slice(list: &[u16]) -> Self {
        match list.len() {
            len @ 0..=INLINE => {
                let mut statuses = [0; INLINE];
                statuses[..len].copy_from_slice(list);
                Statuses::inline(statuses, len)
            }
            _ => Statuses::Spilled(Box::new(list.into())),
        }
    }

    /// The first `len` (at most `INLINE`) of `statuses`, the rest zero.
    fn inline(statuses: [u16; INLINE], len: usize) -> Self {
        Statuses::Inline {
            // At most `INLINE`, so it fits.
            len: u8::try_from(len).unwrap_or(u8::MAX),
            statuses,
        }
    }

    fn as_slice(&self) -> &[u16] {
        match self {
            Statuses::Inline { len, statuses } => &statuses[..usize::from(*len)],
            Statuses::Spilled(list) => list,
        }
    }

    /// Keeps the first `n` entries. In place, and only ever touching a list that is longer:
    /// rebuilt and returned whole, the usual short list was stored in pieces and read back at
    /// once in wider loads, each of which waits for those stores to drain (a store-forwarding
    /// stall), once per enqueue.
    fn truncate(&mut self, n: usize) {
        if let Statuses::Spilled(list) = self
            && list.len() > n
        {
            *self = Statuses::from_slice(&list[..n]);
        } else if let Statuses::Inline { len, statuses } = self
            && usize::from(*len) > n
        {
            // Every policy allows more attempts than a list keeps inline, so this does not
            // happen today; it keeps the list right (the rest zero) all the same.
            *len = u8::try_from(n).unwrap_or(u8::MAX);
            if let Some(rest) = statuses.get_mut(n..) {
                rest.fill(0);
            }
        }
    }
}

/// The part of a script an event can use, as the dispatcher stores it: attempt *n* never exceeds
/// the most attempts any policy allows, so later entries are dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Script(Statuses);

impl Script {
    #[cfg(test)]
    pub fn new(outcomes: Outcomes, max_attempts: u32) -> Self {
        outcomes.into_script(max_attempts).0
    }

    /// The status of attempt `n` (1-based); the last entry repeats (`outcomes.script`).
    pub fn for_attempt(&self, n: u32) -> u16 {
        let list = self.0.as_slice();
        let index = usize::try_from(n.saturating_sub(1)).unwrap_or(usize::MAX);
        list.get(index)
            .or_else(|| list.last())
            .copied()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_scripts_judged_in_place_as_new_judges_them() {
        let mut p = crate::prng::Prng::new(7);
        let values = [0, 1, 99, 100, 200, 429, 599, 600, 65534, u16::MAX];
        for _ in 0..20_000 {
            let len = p.below(INLINE as u64 + 1) as usize;
            let mut list = [0u16; INLINE];
            for slot in &mut list[..len] {
                *slot = values[p.below(values.len() as u64) as usize];
            }
            let by_new = Outcomes::new(list[..len].iter().map(|&s| i64::from(s)));
            assert_eq!(Outcomes::short(list, len), by_new, "{:?}", &list[..len]);
        }
        assert_eq!(
            Outcomes::short([200; INLINE], INLINE + 1),
            Err(Error::InvalidOutcomes)
        );
    }

    #[test]
    fn classes_at_every_boundary() {
        for s in [200, 201, 204, 299] {
            assert_eq!(classify(s), Class::Delivered, "{s}");
        }
        for s in [0, 408, 429, 500, 503, 599] {
            assert_eq!(classify(s), Class::Retryable, "{s}");
        }
        for s in [
            100, 199, 300, 301, 399, 400, 404, 407, 409, 410, 428, 430, 499,
        ] {
            assert_eq!(classify(s), Class::Permanent, "{s}");
        }
    }

    #[test]
    fn validation_bounds() {
        assert!(Outcomes::new([0, 100, 599]).is_ok());
        for bad in [
            vec![],
            vec![1],
            vec![99],
            vec![600],
            vec![-1],
            vec![200, 700],
        ] {
            assert_eq!(
                Outcomes::new(bad.clone()),
                Err(Error::InvalidOutcomes),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn retry_after_is_kept_only_when_given_and_checked() {
        let plain = Outcomes::with_retry_after([(503, None), (200, None)]).expect("valid");
        assert_eq!(plain, Outcomes::new([503, 200]).expect("valid"));
        let with = Outcomes::with_retry_after([
            (503, Some(45)),
            (429, Some(MAX_RETRY_AFTER)),
            (200, None),
        ])
        .expect("valid");
        let (script, ra) = with.into_script(2);
        assert_eq!(script.for_attempt(3), 429);
        assert_eq!(ra.as_deref(), Some(&[45, 2_592_000][..]));
        for bad in [Some(-1), Some(MAX_RETRY_AFTER + 1)] {
            assert_eq!(
                Outcomes::with_retry_after([(503, bad)]),
                Err(Error::InvalidOutcomes)
            );
        }
        assert_eq!(
            Outcomes::with_retry_after([(700, Some(5))]),
            Err(Error::InvalidOutcomes)
        );
    }

    #[test]
    fn last_entry_repeats() {
        let s = Script::new(Outcomes::new([503, 500, 200]).expect("valid"), 6);
        let got: Vec<u16> = (1..=5).map(|n| s.for_attempt(n)).collect();
        assert_eq!(got, vec![503, 500, 200, 200, 200]);
        assert_eq!(s.for_attempt(u32::MAX), 200);
    }

    #[test]
    fn long_scripts_spill_and_keep_only_usable_entries() {
        let long: Vec<i64> = (0..20).map(|i| 500 + i).collect();
        let s = Script::new(Outcomes::new(long.clone()).expect("valid"), 10);
        assert!(matches!(s.0, Statuses::Spilled(ref l) if l.len() == 10));
        assert_eq!(s.for_attempt(10), 509);
        let s = Script::new(Outcomes::new(long).expect("valid"), 6);
        assert!(matches!(s.0, Statuses::Inline { len: 6, .. }));
        assert_eq!((s.for_attempt(6), s.for_attempt(7)), (505, 505));
        let seven: Vec<i64> = (0..7).map(|i| 500 + i).collect();
        let s = Script::new(Outcomes::new(seven).expect("valid"), 100);
        assert!(matches!(s.0, Statuses::Inline { len: 7, .. }));
        assert_eq!(s.for_attempt(8), 506);
        let eight: Vec<i64> = (0..8).map(|i| 500 + i).collect();
        let s = Script::new(Outcomes::new(eight).expect("valid"), 100);
        assert!(matches!(s.0, Statuses::Spilled(ref l) if l.len() == 8));
        assert_eq!(s.for_attempt(9), 507);
        assert_eq!(size_of::<Statuses>(), 16);
    }
}
