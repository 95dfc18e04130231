//! The retry policy of one endpoint (spec section 11, `policy.*`): how many attempts an event
//! gets and how long to wait after each failure. The brief's schedule (`retry.max-attempts`,
//! `retry.wait-schedule`) is the default value, held in a `static` so that an endpoint without a
//! policy of its own costs no allocation.

use super::breaker::Breaker;
use super::throttle::Throttle;
use super::{Error, Ts};
use std::borrow::Cow;

/// `policy.valid`: the most attempts a policy may allow.
pub const MAX_ATTEMPTS: u32 = 100;
/// `policy.valid`: the longest wait a policy may give (30 days).
pub const MAX_WAIT: u32 = 2_592_000;
/// `auto.policy-key`: the largest `disable_after`.
pub const MAX_DISABLE_AFTER: u32 = 1000;
/// `expiry.valid`: the largest `max_age` (365 days).
pub const MAX_AGE: u32 = 31_536_000;

const BRIEF_WAITS: [u32; 5] = [30, 60, 120, 240, 300];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    attempts: u32,
    waits: Cow<'static, [u32]>,
    /// `gone.policy-key`: kept as given (absent, `true` or `false`), because `policy.get`
    /// returns exactly the keys `set_policy` gave.
    disable_on_gone: Option<bool>,
    /// `auto.policy-key`: the threshold of consecutive failures, when given.
    disable_after: Option<u32>,
    /// `throttle.policy-key`: the endpoint's token bucket, when given.
    throttle: Option<Throttle>,
    /// `expiry.policy-key`: the age after which an event dies, when given.
    max_age: Option<u32>,
    /// `breaker.policy-key`: the endpoint's circuit breaker, when given.
    breaker: Option<Breaker>,
}

/// The default policy, shared by every endpoint that has none of its own.
pub static DEFAULT: RetryPolicy = RetryPolicy {
    attempts: 6,
    waits: Cow::Borrowed(&BRIEF_WAITS),
    disable_on_gone: None,
    disable_after: None,
    throttle: None,
    max_age: None,
    breaker: None,
};

impl Default for RetryPolicy {
    /// The brief's policy: 6 attempts, waits of 30, 60, 120, 240, 300 (`policy.default`).
    fn default() -> Self {
        DEFAULT.clone()
    }
}

impl RetryPolicy {
    /// A policy of `attempts` in 1..=100 and a non-empty `waits` list of values in 1..=2592000
    /// (`policy.valid`); `InvalidPolicy` otherwise.
    pub fn new(attempts: u32, waits: Vec<u32>) -> Result<Self, Error> {
        let valid = (1..=MAX_ATTEMPTS).contains(&attempts)
            && !waits.is_empty()
            && waits.iter().all(|w| (1..=MAX_WAIT).contains(w));
        if !valid {
            return Err(Error::InvalidPolicy);
        }
        Ok(RetryPolicy {
            attempts,
            waits: Cow::Owned(waits),
            disable_on_gone: None,
            disable_after: None,
            throttle: None,
            max_age: None,
            breaker: None,
        })
    }

    /// The same policy with `disable_on_gone` given (`gone.policy-key`).
    pub fn with_disable_on_gone(self, flag: bool) -> Self {
        RetryPolicy {
            disable_on_gone: Some(flag),
            ..self
        }
    }

    /// The same policy with `disable_after` given: 1 to 1000 (`auto.policy-key`).
    pub fn with_disable_after(self, threshold: u32) -> Result<Self, Error> {
        if !(1..=MAX_DISABLE_AFTER).contains(&threshold) {
            return Err(Error::InvalidPolicy);
        }
        Ok(RetryPolicy {
            disable_after: Some(threshold),
            ..self
        })
    }

    /// The same policy with a throttle (`throttle.policy-key`, `throttle.valid`).
    pub fn with_throttle(self, burst: u32, interval: u32) -> Result<Self, Error> {
        Ok(RetryPolicy {
            throttle: Some(Throttle::new(burst, interval)?),
            ..self
        })
    }

    /// The same policy with a `max_age`: 1 to [`MAX_AGE`] (`expiry.valid`).
    pub fn with_max_age(self, age: u32) -> Result<Self, Error> {
        if !(1..=MAX_AGE).contains(&age) {
            return Err(Error::InvalidPolicy);
        }
        Ok(RetryPolicy {
            max_age: Some(age),
            ..self
        })
    }

    /// The same policy with a breaker (`breaker.policy-key`, `breaker.valid`).
    pub fn with_breaker(self, breaker: Breaker) -> Self {
        RetryPolicy {
            breaker: Some(breaker),
            ..self
        }
    }

    /// The breaker, when the policy gives one.
    pub fn breaker(&self) -> Option<Breaker> {
        self.breaker
    }

    /// The `max_age`, when the policy gives one (`expiry.policy-key`).
    pub fn max_age(&self) -> Option<u32> {
        self.max_age
    }

    /// The throttle, when the policy gives one.
    pub fn throttle(&self) -> Option<Throttle> {
        self.throttle
    }

    /// The threshold of `auto.disable`, when the policy gives one.
    pub fn disable_after(&self) -> Option<u32> {
        self.disable_after
    }

    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    pub fn waits(&self) -> &[u32] {
        &self.waits
    }

    /// `disable_on_gone` as given, `None` when the policy did not give it.
    pub fn disable_on_gone(&self) -> Option<bool> {
        self.disable_on_gone
    }

    /// Whether a 410 disables the endpoint (`gone.disable`).
    pub fn disables_on_gone(&self) -> bool {
        self.disable_on_gone == Some(true)
    }

    /// The wait after the `failures`-th failed attempt (1-based): `waits[failures - 1]`, the last
    /// entry repeating (`policy.in-force`).
    pub fn wait_after(&self, failures: u32) -> Ts {
        let index = usize::try_from(failures.saturating_sub(1)).unwrap_or(usize::MAX);
        let wait = self
            .waits
            .get(index)
            .or_else(|| self.waits.last())
            .copied()
            .unwrap_or(BRIEF_WAITS[0]);
        Ts::from(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brief_schedule_is_30_60_120_240_300() {
        let p = RetryPolicy::default();
        let waits: Vec<Ts> = (1..=5).map(|k| p.wait_after(k)).collect();
        assert_eq!(waits, vec![30, 60, 120, 240, 300]);
        assert_eq!(p.attempts(), 6);
        assert_eq!(p.disable_on_gone(), None);
    }

    #[test]
    fn last_wait_repeats_for_any_failure_count() {
        let p = RetryPolicy::default();
        assert_eq!(p.wait_after(6), 300);
        assert_eq!(p.wait_after(u32::MAX), 300);
        let p = RetryPolicy::new(3, vec![10]).expect("valid");
        assert_eq!((p.wait_after(1), p.wait_after(2)), (10, 10));
    }

    #[test]
    fn bounds_of_a_policy() {
        assert!(RetryPolicy::new(1, vec![1]).is_ok());
        assert!(RetryPolicy::new(100, vec![MAX_WAIT]).is_ok());
        for (attempts, waits) in [
            (0, vec![30]),
            (101, vec![30]),
            (3, vec![]),
            (3, vec![0]),
            (3, vec![30, MAX_WAIT + 1]),
        ] {
            assert_eq!(
                RetryPolicy::new(attempts, waits.clone()),
                Err(Error::InvalidPolicy),
                "{attempts} {waits:?}"
            );
        }
    }

    #[test]
    fn disable_on_gone_is_kept_as_given() {
        let p = RetryPolicy::new(2, vec![5]).expect("valid");
        assert!(!p.disables_on_gone());
        let off = p.clone().with_disable_on_gone(false);
        assert_eq!(
            (off.disable_on_gone(), off.disables_on_gone()),
            (Some(false), false)
        );
        assert!(p.with_disable_on_gone(true).disables_on_gone());
    }

    #[test]
    fn bounds_of_a_max_age() {
        let p = RetryPolicy::new(2, vec![5]).expect("valid");
        assert_eq!(p.max_age(), None);
        for age in [1, MAX_AGE] {
            assert_eq!(
                p.clone().with_max_age(age).map(|p| p.max_age()),
                Ok(Some(age))
            );
        }
        for age in [0, MAX_AGE + 1, u32::MAX] {
            assert_eq!(
                p.clone().with_max_age(age),
                Err(Error::InvalidPolicy),
                "{age}"
            );
        }
    }
}
