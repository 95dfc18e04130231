//! The retry schedule: an endpoint's retry policy (roadmap Part 4, with the failure threshold of
//! Part 6, the throttle of Part 9, the circuit breaker of Part 10 and the maximum event age of
//! Part 11), the scripted outcome of
//! an attempt with its optional Retry-After (Part 5), and what one attempt leads to. Values here
//! are range-checked on construction, so the dispatcher can rely on them without re-checking.

use crate::breaker::BreakerPolicy;
use crate::error::Error;
use crate::throttle::Throttle;

/// Largest due time (and `ts` magnitude) that every mainstream JSON reader holds exactly
/// (`op.ts-range`, `retry.beyond-range`).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The brief's schedule, the default policy (Part 1): an event gets at most 6 attempts...
const DEFAULT_ATTEMPTS: u32 = 6;
/// ...and the waits after failures 1 to 5 are 30, 60, 120, 240 and 300, the last repeating. The
/// brief's 300-second cap is simply that repeating last wait.
const DEFAULT_WAITS: [i64; 5] = [30, 60, 120, 240, 300];

/// Bounds of a policy's `attempts` (Part 4).
const ATTEMPTS: std::ops::RangeInclusive<i64> = 1..=100;
/// Bounds of a policy's waits (Part 4): 1 s to 30 days. A zero wait would make a retry due
/// within the same `process` call, breaking `process.once-per-call`.
const WAITS: std::ops::RangeInclusive<i64> = 1..=2_592_000;
/// Bounds of an outcome's `retry_after` (Part 5): 0 s to 30 days.
const RETRY_AFTER: std::ops::RangeInclusive<i64> = 0..=2_592_000;
/// Bounds of a policy's `disable_after` (Part 6): consecutive failures before the endpoint is
/// disabled automatically.
const DISABLE_AFTER: std::ops::RangeInclusive<i64> = 1..=1000;
/// Bounds of a policy's `max_age` (Part 11, `expiry.valid`): 1 s to 365 days, so a deadline
/// (a `ts` plus it) stays far inside an `i64`.
const MAX_AGE: std::ops::RangeInclusive<i64> = 1..=31_536_000;

/// An endpoint's retry policy. It remembers whether `disable_on_gone`, `disable_after`,
/// `throttle`, `breaker` and `max_age` were given at all, because the `policy` query echoes exactly the
/// keys `set_policy` received, an explicit `false` included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    attempts: u32,
    /// Never empty (checked by [`Policy::new`]); the last entry repeats once the list runs out.
    waits: Vec<i64>,
    disable_on_gone: Option<bool>,
    /// Without it the endpoint is never disabled automatically (`auto.policy-key`).
    disable_after: Option<u32>,
    /// Without it the endpoint is never throttled (`throttle.policy-key`).
    throttle: Option<Throttle>,
    /// Without it the endpoint has no circuit breaker (`breaker.policy-key`).
    breaker: Option<BreakerPolicy>,
    /// Without it the endpoint's events never expire (`expiry.policy-key`).
    max_age: Option<i64>,
}

impl Default for Policy {
    /// The brief's schedule; `set_policy` with `null` restores it (`policy.default`).
    fn default() -> Self {
        Policy {
            attempts: DEFAULT_ATTEMPTS,
            waits: DEFAULT_WAITS.to_vec(),
            disable_on_gone: None,
            disable_after: None,
            throttle: None,
            breaker: None,
            max_age: None,
        }
    }
}

impl Policy {
    /// A policy from already type-checked values; any value out of range is `invalid policy`.
    pub fn new(
        attempts: i64,
        waits: Vec<i64>,
        disable_on_gone: Option<bool>,
        disable_after: Option<i64>,
        throttle: Option<Throttle>,
    ) -> Result<Policy, Error> {
        if !ATTEMPTS.contains(&attempts)
            || waits.is_empty()
            || waits.iter().any(|wait| !WAITS.contains(wait))
            || disable_after.is_some_and(|f| !DISABLE_AFTER.contains(&f))
        {
            return Err(Error::InvalidPolicy);
        }
        let disable_after = disable_after
            .map(u32::try_from)
            .transpose()
            .map_err(|_| Error::InvalidPolicy)?;
        Ok(Policy {
            attempts: u32::try_from(attempts).map_err(|_| Error::InvalidPolicy)?,
            waits,
            disable_on_gone,
            disable_after,
            throttle,
            breaker: None,
            max_age: None,
        })
    }

    /// The same policy with Part 10's `breaker` (`None`: the key was absent), already
    /// range-checked by [`BreakerPolicy::new`].
    pub fn with_breaker(self, breaker: Option<BreakerPolicy>) -> Policy {
        Policy { breaker, ..self }
    }

    /// The same policy with Part 11's `max_age` (`None`: the key was absent); a value out of
    /// range is `invalid policy` (`expiry.valid`).
    pub fn with_max_age(self, max_age: Option<i64>) -> Result<Policy, Error> {
        if max_age.is_some_and(|age| !MAX_AGE.contains(&age)) {
            return Err(Error::InvalidPolicy);
        }
        Ok(Policy { max_age, ..self })
    }

    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    pub fn waits(&self) -> &[i64] {
        &self.waits
    }

    /// `disable_on_gone` as given: `None` when the key was absent.
    pub fn disable_on_gone(&self) -> Option<bool> {
        self.disable_on_gone
    }

    /// `disable_after` as given: `None` when the key was absent.
    pub fn disable_after(&self) -> Option<u32> {
        self.disable_after
    }

    /// `throttle` as given: `None` when the key was absent.
    pub fn throttle(&self) -> Option<Throttle> {
        self.throttle
    }

    /// `breaker` as given: `None` when the key was absent.
    pub fn breaker(&self) -> Option<BreakerPolicy> {
        self.breaker
    }

    /// `max_age` as given: `None` when the key was absent.
    pub fn max_age(&self) -> Option<i64> {
        self.max_age
    }

    /// The deadline of an event whose age starts at `ts` under this policy (`expiry.deadline`):
    /// none without `max_age`, and none when it would be after the last `ts` there is, which
    /// no `process` call can reach (`expiry.beyond-range`).
    pub fn deadline_from(&self, ts: i64) -> Option<i64> {
        self.max_age
            .and_then(|age| ts.checked_add(age))
            .filter(|&deadline| deadline <= MAX_SAFE_INTEGER)
    }

    /// Whether an endpoint whose failed attempt has just brought its count of consecutive
    /// failures to `failures` is now disabled as failing (`auto.disable`): F or more, not only
    /// exactly F, since a threshold lowered below the count takes effect at the next failure.
    pub fn disables_at(&self, failures: u64) -> bool {
        self.disable_after
            .is_some_and(|threshold| failures >= u64::from(threshold))
    }

    /// The wait after the `failures`-th failed attempt: `waits[failures - 1]`, the last entry
    /// repeating.
    fn wait_after(&self, failures: u32) -> i64 {
        let index = usize::try_from(failures.saturating_sub(1)).unwrap_or(usize::MAX);
        // `waits` is never empty, so the fallback is unreachable; the longest allowed wait at
        // least keeps a retry in the future.
        self.waits
            .get(index)
            .or(self.waits.last())
            .copied()
            .unwrap_or(*WAITS.end())
    }
}

/// The scripted result of one attempt: an HTTP status (0 for a timeout) and, optionally, the
/// `Retry-After` the endpoint sent with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    status: u16,
    retry_after: Option<i64>,
}

impl Outcome {
    /// A timeout with no Retry-After: what an attempt gets if its script were ever empty.
    pub const TIMEOUT: Outcome = Outcome {
        status: 0,
        retry_after: None,
    };

    /// An outcome from already type-checked values; a status or `retry_after` out of range is
    /// `invalid outcomes`.
    pub fn new(status: i64, retry_after: Option<i64>) -> Result<Outcome, Error> {
        let status_ok = status == 0 || (100..=599).contains(&status);
        let retry_after_ok = retry_after.is_none_or(|r| RETRY_AFTER.contains(&r));
        if !status_ok || !retry_after_ok {
            return Err(Error::InvalidOutcomes);
        }
        Ok(Outcome {
            status: u16::try_from(status).map_err(|_| Error::InvalidOutcomes)?,
            retry_after,
        })
    }

    /// A plain integer status, as the brief's outcomes lists hold.
    #[cfg(test)]
    pub fn plain(status: u16) -> Outcome {
        Outcome {
            status,
            retry_after: None,
        }
    }

    pub fn status(self) -> u16 {
        self.status
    }
}

/// What an attempt leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Delivered,
    /// Still pending, next attempt due at this time.
    RetryAt(i64),
    /// Dead-lettered; `disable_endpoint` when it was a 410 under `disable_on_gone`.
    Dead {
        disable_endpoint: bool,
    },
}

/// Decides what follows attempt number `attempt` (the count including this one), answered with
/// `outcome` in the `process` call at `ts`, under the policy in force at that moment.
pub fn next(policy: &Policy, outcome: Outcome, attempt: u32, ts: i64) -> Next {
    let status = outcome.status;
    if (200..=299).contains(&status) {
        return Next::Delivered;
    }
    if !is_retryable(status) {
        // Permanent whatever attempts remain; only a 410 may also pause the endpoint.
        return Next::Dead {
            disable_endpoint: status == 410 && policy.disable_on_gone == Some(true),
        };
    }
    // `>=` rather than `==`: a policy changed mid-retry may allow fewer attempts than were
    // already made, and the attempt it still gets is then the last (`policy.no-reschedule`).
    if attempt >= policy.attempts {
        return Next::Dead {
            disable_endpoint: false,
        };
    }
    let w = policy.wait_after(attempt);
    let wait = match outcome.retry_after {
        // Honour the endpoint's Retry-After, but within [w, 2w] so that a misbehaving endpoint
        // can neither hurry nor stall its retries (`retry-after.wait`).
        Some(r) if matches!(status, 429 | 503) => r.max(w).min(w.saturating_mul(2)),
        _ => w,
    };
    // A due time past the safe range could never be reached by a valid `ts`, so the event
    // dies now instead of waiting forever (`retry.beyond-range`).
    match ts.checked_add(wait) {
        Some(due) if due <= MAX_SAFE_INTEGER => Next::RetryAt(due),
        _ => Next::Dead {
            disable_endpoint: false,
        },
    }
}

fn is_retryable(status: u16) -> bool {
    matches!(status, 0 | 408 | 429 | 500..=599)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(attempts: i64, waits: &[i64]) -> Policy {
        Policy::new(attempts, waits.to_vec(), None, None, None).expect("a valid test policy")
    }

    fn with_retry_after(status: i64, r: i64) -> Outcome {
        Outcome::new(status, Some(r)).expect("a valid test outcome")
    }

    #[test]
    fn default_waits_double_up_to_the_cap() {
        let waits: Vec<i64> = (1..=7).map(|n| Policy::default().wait_after(n)).collect();
        assert_eq!(waits, [30, 60, 120, 240, 300, 300, 300]);
    }

    #[test]
    fn the_last_wait_repeats_and_may_exceed_300() {
        let p = policy(10, &[5, 3600]);
        let waits: Vec<i64> = (1..=4).map(|n| p.wait_after(n)).collect();
        assert_eq!(waits, [5, 3600, 3600, 3600]);
    }

    #[test]
    fn policy_ranges() {
        assert!(Policy::new(1, vec![1], None, None, None).is_ok());
        assert!(Policy::new(100, vec![2_592_000], Some(false), Some(1000), None).is_ok());
        for (attempts, waits) in [
            (0, vec![30]),
            (101, vec![30]),
            (-1, vec![30]),
            (3, vec![]),
            (3, vec![0]),
            (3, vec![30, 2_592_001]),
            (3, vec![-5]),
        ] {
            assert_eq!(
                Policy::new(attempts, waits.clone(), None, None, None),
                Err(Error::InvalidPolicy),
                "{attempts} {waits:?}"
            );
        }
    }

    #[test]
    fn disable_after_range_and_threshold() {
        assert!(Policy::new(6, vec![30], None, Some(1), None).is_ok());
        for f in [0, -1, 1001, i64::MAX] {
            assert_eq!(
                Policy::new(6, vec![30], None, Some(f), None),
                Err(Error::InvalidPolicy),
                "{f}"
            );
        }
        let p = Policy::new(6, vec![30], None, Some(3), None).expect("valid");
        assert_eq!(p.disable_after(), Some(3));
        assert!(!p.disables_at(0));
        assert!(!p.disables_at(2));
        assert!(p.disables_at(3));
        assert!(p.disables_at(u64::MAX));
        // Without the key, never.
        assert!(!Policy::default().disables_at(u64::MAX));
    }

    #[test]
    fn max_age_range_and_deadlines() {
        let base = || Policy::new(6, vec![30], None, None, None).expect("valid");
        for age in [0, -1, 31_536_001, i64::MAX, i64::MIN] {
            assert_eq!(
                base().with_max_age(Some(age)),
                Err(Error::InvalidPolicy),
                "{age}"
            );
        }
        assert_eq!(Policy::default().max_age(), None);
        assert_eq!(Policy::default().deadline_from(0), None);
        let p = base().with_max_age(Some(1)).expect("valid");
        assert_eq!((p.max_age(), p.deadline_from(-5)), (Some(1), Some(-4)));
        let year = base().with_max_age(Some(31_536_000)).expect("valid");
        assert_eq!(
            year.deadline_from(MAX_SAFE_INTEGER - 31_536_000),
            Some(MAX_SAFE_INTEGER)
        );
        // One second later the deadline would be past every `ts`: never reached.
        assert_eq!(year.deadline_from(MAX_SAFE_INTEGER - 31_535_999), None);
        assert_eq!(year.deadline_from(i64::MAX), None);
        assert_eq!(
            year.deadline_from(-MAX_SAFE_INTEGER),
            Some(-MAX_SAFE_INTEGER + 31_536_000)
        );
    }

    #[test]
    fn outcome_ranges() {
        assert!(Outcome::new(0, None).is_ok());
        assert!(Outcome::new(599, Some(0)).is_ok());
        assert!(Outcome::new(503, Some(2_592_000)).is_ok());
        for (status, r) in [(99, None), (600, None), (-1, None), (503, Some(-1))] {
            assert_eq!(Outcome::new(status, r), Err(Error::InvalidOutcomes));
        }
        assert_eq!(
            Outcome::new(503, Some(2_592_001)),
            Err(Error::InvalidOutcomes)
        );
    }

    #[test]
    fn retry_after_is_clamped_to_w_and_twice_w() {
        let p = Policy::default();
        // The roadmap's example: w = 30 after the first failure.
        assert_eq!(next(&p, with_retry_after(503, 45), 1, 0), Next::RetryAt(45));
        assert_eq!(
            next(&p, with_retry_after(503, 600), 1, 0),
            Next::RetryAt(60)
        );
        assert_eq!(next(&p, with_retry_after(503, 5), 1, 0), Next::RetryAt(30));
        assert_eq!(next(&p, with_retry_after(429, 0), 1, 0), Next::RetryAt(30));
        // Up to 600 s with the default's 300.
        assert_eq!(
            next(&p, with_retry_after(429, 10_000), 5, 100),
            Next::RetryAt(700)
        );
    }

    #[test]
    fn retry_after_is_ignored_off_429_and_503_and_on_the_last_attempt() {
        let p = Policy::default();
        for status in [0, 408, 500, 502, 504] {
            assert_eq!(
                next(&p, with_retry_after(status, 50), 1, 0),
                Next::RetryAt(30),
                "{status}"
            );
        }
        assert_eq!(next(&p, with_retry_after(200, 50), 1, 0), Next::Delivered);
        assert_eq!(
            next(&p, with_retry_after(404, 50), 1, 0),
            Next::Dead {
                disable_endpoint: false
            }
        );
        assert_eq!(
            next(&p, with_retry_after(503, 50), 6, 0),
            Next::Dead {
                disable_endpoint: false
            }
        );
    }

    #[test]
    fn gone_disables_only_under_disable_on_gone() {
        let gone = Outcome::plain(410);
        let dead = |disable_endpoint| Next::Dead { disable_endpoint };
        assert_eq!(next(&Policy::default(), gone, 1, 0), dead(false));
        let off = Policy::new(6, vec![30], Some(false), None, None).expect("valid");
        assert_eq!(next(&off, gone, 1, 0), dead(false));
        let on = Policy::new(6, vec![30], Some(true), None, None).expect("valid");
        assert_eq!(next(&on, gone, 1, 0), dead(true));
        // Other permanent statuses never disable.
        assert_eq!(next(&on, Outcome::plain(404), 1, 0), dead(false));
    }

    #[test]
    fn attempts_beyond_the_policy_die_on_a_retryable_failure() {
        let p = policy(2, &[10]);
        assert_eq!(next(&p, Outcome::plain(500), 1, 0), Next::RetryAt(10));
        for attempt in [2, 3, 6] {
            assert_eq!(
                next(&p, Outcome::plain(500), attempt, 0),
                Next::Dead {
                    disable_endpoint: false
                }
            );
        }
    }

    #[test]
    fn due_times_past_the_safe_range_die() {
        let p = Policy::default();
        let edge = MAX_SAFE_INTEGER - 30;
        assert_eq!(
            next(&p, Outcome::plain(503), 1, edge),
            Next::RetryAt(MAX_SAFE_INTEGER)
        );
        assert_eq!(
            next(&p, Outcome::plain(503), 1, edge + 1),
            Next::Dead {
                disable_endpoint: false
            }
        );
        // The exact sum counts, whatever gave the wait: here Retry-After's 45.
        assert_eq!(
            next(&p, with_retry_after(503, 45), 1, MAX_SAFE_INTEGER - 45),
            Next::RetryAt(MAX_SAFE_INTEGER)
        );
        assert_eq!(
            next(&p, with_retry_after(503, 45), 1, MAX_SAFE_INTEGER - 44),
            Next::Dead {
                disable_endpoint: false
            }
        );
        // Checked, not wrapping, even far outside any valid ts.
        assert_eq!(
            next(&p, Outcome::plain(503), 1, i64::MAX),
            Next::Dead {
                disable_endpoint: false
            }
        );
        // Negative due times are ordinary (`op.ts-any-order`).
        assert_eq!(
            next(&p, Outcome::plain(503), 1, -MAX_SAFE_INTEGER),
            Next::RetryAt(-MAX_SAFE_INTEGER + 30)
        );
    }
}
