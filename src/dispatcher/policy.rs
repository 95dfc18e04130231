//! The retry policy: how many attempts an event gets and how long to wait after each failure
//! (spec rules `retry.max-attempts`, `retry.wait-schedule`).

use super::Ts;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    max_attempts: u32,
    first_wait: Ts,
    max_wait: Ts,
}

impl Default for RetryPolicy {
    /// The brief's policy: 6 attempts, waits of 30, 60, 120, 240, 300.
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 6,
            first_wait: 30,
            max_wait: 300,
        }
    }
}

impl RetryPolicy {
    /// A custom policy; `None` unless at least one attempt is allowed and
    /// `0 < first_wait <= max_wait` (a zero wait would allow two attempts in one process call).
    pub fn new(max_attempts: u32, first_wait: Ts, max_wait: Ts) -> Option<Self> {
        (max_attempts >= 1 && first_wait >= 1 && first_wait <= max_wait).then_some(RetryPolicy {
            max_attempts,
            first_wait,
            max_wait,
        })
    }

    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The wait after the `failures`-th failed attempt (1-based): doubling from `first_wait`,
    /// never above `max_wait`.
    pub fn wait_after(&self, failures: u32) -> Ts {
        let doublings = failures.saturating_sub(1);
        // Past 62 doublings any positive first_wait is beyond every cap an i64 can hold.
        if doublings >= 62 {
            return self.max_wait;
        }
        self.first_wait
            .saturating_mul(1i64 << doublings)
            .min(self.max_wait)
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
        assert_eq!(p.max_attempts(), 6);
    }

    #[test]
    fn wait_stays_capped_for_huge_failure_counts() {
        let p = RetryPolicy::default();
        assert_eq!(p.wait_after(6), 300);
        assert_eq!(p.wait_after(63), 300);
        assert_eq!(p.wait_after(u32::MAX), 300);
    }

    #[test]
    fn invalid_policies_are_rejected() {
        assert!(RetryPolicy::new(0, 30, 300).is_none());
        assert!(RetryPolicy::new(3, 0, 300).is_none());
        assert!(RetryPolicy::new(3, 60, 30).is_none());
        assert_eq!(
            RetryPolicy::new(3, 10, 15).map(|p| p.wait_after(2)),
            Some(15)
        );
    }
}
