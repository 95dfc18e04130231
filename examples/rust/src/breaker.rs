//! The circuit breaker per endpoint (roadmap Part 10): the breaker a policy may carry and the
//! state it gives an endpoint. Closed, it counts the endpoint's failures; F of them within W
//! seconds open it for O seconds, during which the endpoint's heads are held instead of
//! attempted; then it is half-open, each attempt a probe, until a failed probe opens it again or
//! P successful probes in a row close it. Open becomes half-open by time alone
//! (`breaker.states`, `breaker.states-time`), so nothing runs at T: the state is read against the
//! `ts` of whoever asks.

use std::collections::VecDeque;
use std::ops::RangeInclusive;

use crate::error::Error;
use crate::schedule::MAX_SAFE_INTEGER;

/// Bounds of a breaker's `failures` (`breaker.valid`), as Part 6's `disable_after`.
const FAILURES: RangeInclusive<i64> = 1..=1000;
/// Bounds of a breaker's `window` and `open_for` in seconds (`breaker.valid`): 1 s to 30 days.
const SECONDS: RangeInclusive<i64> = 1..=2_592_000;
/// Bounds of a breaker's `probes` (`breaker.valid`).
const PROBES: RangeInclusive<i64> = 1..=100;

/// A policy's `"breaker": {"failures": F, "window": W, "open_for": O, "probes": P}`,
/// range-checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerPolicy {
    failures: u32,
    window: i64,
    open_for: i64,
    probes: u32,
}

impl BreakerPolicy {
    /// A breaker from already type-checked values; any out of range is `invalid policy`.
    pub fn new(
        failures: i64,
        window: i64,
        open_for: i64,
        probes: i64,
    ) -> Result<BreakerPolicy, Error> {
        if !FAILURES.contains(&failures)
            || !SECONDS.contains(&window)
            || !SECONDS.contains(&open_for)
            || !PROBES.contains(&probes)
        {
            return Err(Error::InvalidPolicy);
        }
        Ok(BreakerPolicy {
            failures: u32::try_from(failures).map_err(|_| Error::InvalidPolicy)?,
            window,
            open_for,
            probes: u32::try_from(probes).map_err(|_| Error::InvalidPolicy)?,
        })
    }

    pub fn failures(self) -> u32 {
        self.failures
    }

    pub fn window(self) -> i64 {
        self.window
    }

    pub fn open_for(self) -> i64 {
        self.open_for
    }

    pub fn probes(self) -> u32 {
        self.probes
    }
}

/// What `endpoint` shows of a breaker at a given `ts` (`breaker.report`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Closed,
    Open { until: i64 },
    HalfOpen,
}

impl Shown {
    pub fn as_str(self) -> &'static str {
        match self {
            Shown::Closed => "closed",
            Shown::Open { .. } => "open",
            Shown::HalfOpen => "half-open",
        }
    }

    /// `until`: T while open, `None` otherwise.
    pub fn until(self) -> Option<i64> {
        match self {
            Shown::Open { until } => Some(until),
            Shown::Closed | Shown::HalfOpen => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// The times of the failures since the set or the last close, in operation order, the
    /// last F only: the F-th most recent is all that decides (`breaker.window`).
    Closed { failures: VecDeque<i64> },
    /// Opened until `until`, the failure's `ts` plus O: open for every `ts` before it, half-open
    /// for every `ts` at or after it, with `successes` probes delivered in a row so far (fewer
    /// than P), which stay counted if `ts` goes back (`breaker.states-time`). `until` is kept
    /// as it is, even past the last `ts` there is: such a breaker is open at every `ts`
    /// (`breaker.beyond-range`); only what is shown of it is clamped.
    Opened { until: i64, successes: u32 },
}

/// An endpoint's breaker: its numbers and its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breaker {
    policy: BreakerPolicy,
    state: State,
}

impl Breaker {
    /// A new closed breaker with no failures counted (`breaker.set`).
    pub fn new(policy: BreakerPolicy) -> Breaker {
        Breaker {
            policy,
            state: State::Closed {
                failures: VecDeque::new(),
            },
        }
    }

    /// `Some(T)` when a head of the endpoint picked at `ts` is not attempted but held until T
    /// (`breaker.held`), T clamped to the last `ts` there is (`breaker.beyond-range`), so not
    /// later than `ts` only for a call at that very `ts`; `None` when it is attempted (closed,
    /// or half-open and the attempt a probe).
    pub fn held_until(&self, ts: i64) -> Option<i64> {
        match self.shown(ts) {
            Shown::Open { until } => Some(until),
            Shown::Closed | Shown::HalfOpen => None,
        }
    }

    /// The state as of `ts` (`breaker.states-time`, `breaker.report-time`).
    pub fn shown(&self, ts: i64) -> Shown {
        match self.state {
            State::Closed { .. } => Shown::Closed,
            State::Opened { until, .. } if ts < until => Shown::Open {
                until: until.min(MAX_SAFE_INTEGER),
            },
            State::Opened { .. } => Shown::HalfOpen,
        }
    }

    /// Counts an attempt of the endpoint made at `ts`, one that [`Breaker::held_until`] let
    /// through: `delivered` or a failure.
    pub fn record(&mut self, delivered: bool, ts: i64) {
        match &mut self.state {
            // Successes change nothing while closed (`breaker.window`).
            State::Closed { .. } if delivered => {}
            State::Closed { failures } => {
                let f = usize::try_from(self.policy.failures).unwrap_or(usize::MAX);
                if failures.len() >= f {
                    failures.pop_front();
                }
                failures.push_back(ts);
                // The F-th most recent failure, this one the first, within (ts − W, ts]
                // measured back from this one. Both times are valid `ts` values, so the
                // difference cannot overflow; saturating all the same.
                let opens = failures.len() >= f
                    && failures
                        .front()
                        .is_some_and(|&t| ts.saturating_sub(t) < self.policy.window);
                if opens {
                    self.open(ts);
                }
            }
            // Let through only at or after T: the breaker is half-open and this is a probe
            // (`breaker.probes`). A failed one opens it again (`breaker.half-open`).
            State::Opened { .. } if !delivered => self.open(ts),
            State::Opened { successes, .. } => {
                *successes = successes.saturating_add(1);
                if *successes >= self.policy.probes {
                    // Closing forgets every failure counted so far (`breaker.close`).
                    self.state = State::Closed {
                        failures: VecDeque::new(),
                    };
                }
            }
        }
    }

    /// Opens the breaker until `ts` + O, no probe made (`breaker.open`, `breaker.half-open`).
    /// The failures counted are dropped: only a close leads back to counting, and it forgets
    /// them (`breaker.close`). The sum stays far inside an `i64` for any valid `ts`; saturating
    /// all the same, which keeps it past the last `ts`.
    fn open(&mut self, ts: i64) {
        self.state = State::Opened {
            until: ts.saturating_add(self.policy.open_for),
            successes: 0,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breaker(failures: i64, window: i64, open_for: i64, probes: i64) -> Breaker {
        Breaker::new(BreakerPolicy::new(failures, window, open_for, probes).expect("valid"))
    }

    #[test]
    fn breaker_ranges() {
        assert!(BreakerPolicy::new(1, 1, 1, 1).is_ok());
        assert!(BreakerPolicy::new(1000, 2_592_000, 2_592_000, 100).is_ok());
        for (f, w, o, p) in [
            (0, 1, 1, 1),
            (1001, 1, 1, 1),
            (1, 0, 1, 1),
            (1, 2_592_001, 1, 1),
            (1, 1, 0, 1),
            (1, 1, 2_592_001, 1),
            (1, 1, 1, 0),
            (1, 1, 1, 101),
            (-1, 1, 1, 1),
            (i64::MAX, 1, 1, 1),
        ] {
            assert_eq!(
                BreakerPolicy::new(f, w, o, p),
                Err(Error::InvalidPolicy),
                "{f} {w} {o} {p}"
            );
        }
    }

    #[test]
    fn f_failures_within_the_window_open_it() {
        let mut b = breaker(3, 10, 50, 1);
        b.record(false, 0);
        b.record(true, 1);
        b.record(false, 5);
        assert_eq!(b.shown(5), Shown::Closed);
        // The third-most-recent failure, at 0, is exactly W before: no longer counted.
        b.record(false, 10);
        assert_eq!(b.shown(10), Shown::Closed);
        // Now it is the one at 5: 14 − 5 < 10.
        b.record(false, 14);
        assert_eq!(b.shown(14), Shown::Open { until: 64 });
        assert_eq!(b.held_until(63), Some(64));
        assert_eq!(b.held_until(64), None);
        assert_eq!(b.shown(64), Shown::HalfOpen);
    }

    #[test]
    fn probes_close_it_or_a_failed_probe_reopens_it() {
        let mut b = breaker(1, 10, 50, 2);
        b.record(false, 0);
        assert_eq!(b.shown(0), Shown::Open { until: 50 });
        b.record(true, 50);
        assert_eq!(b.shown(50), Shown::HalfOpen);
        b.record(false, 51);
        assert_eq!(b.shown(51), Shown::Open { until: 101 });
        b.record(true, 101);
        b.record(true, 102);
        assert_eq!(b.shown(102), Shown::Closed);
        // Closed, successes change nothing and one failure opens it again (F = 1).
        b.record(true, 103);
        b.record(false, 104);
        assert_eq!(b.shown(104), Shown::Open { until: 154 });
    }

    #[test]
    fn time_going_back_before_t_finds_it_open_and_keeps_the_successes() {
        let mut b = breaker(1, 10, 50, 3);
        b.record(false, 0);
        b.record(true, 50);
        b.record(true, 60);
        assert_eq!(b.shown(49), Shown::Open { until: 50 });
        assert_eq!(b.held_until(49), Some(50));
        assert_eq!(b.shown(50), Shown::HalfOpen);
        // The third success in a row closes it, the two before still counted.
        b.record(true, 55);
        assert_eq!(b.shown(0), Shown::Closed);
    }

    #[test]
    fn closing_forgets_the_failures() {
        let mut b = breaker(2, 100, 10, 1);
        b.record(false, 0);
        b.record(false, 1);
        assert_eq!(b.shown(1), Shown::Open { until: 11 });
        b.record(true, 11);
        assert_eq!(b.shown(11), Shown::Closed);
        b.record(false, 12);
        assert_eq!(b.shown(12), Shown::Closed);
        b.record(false, 13);
        assert_eq!(b.shown(13), Shown::Open { until: 23 });
    }

    #[test]
    fn time_going_back_still_counts_within_the_window() {
        let mut b = breaker(2, 10, 10, 1);
        b.record(false, 100);
        // 50 − 100 < 10: within the window measured back from this failure.
        b.record(false, 50);
        assert_eq!(b.shown(50), Shown::Open { until: 60 });
    }

    #[test]
    fn open_past_the_last_ts_is_open_at_every_ts() {
        let mut b = breaker(1, 10, 100, 1);
        b.record(false, MAX_SAFE_INTEGER - 5);
        let open = Shown::Open {
            until: MAX_SAFE_INTEGER,
        };
        assert_eq!(b.shown(MAX_SAFE_INTEGER - 5), open);
        assert_eq!(b.shown(MAX_SAFE_INTEGER), open);
        assert_eq!(b.held_until(MAX_SAFE_INTEGER), Some(MAX_SAFE_INTEGER));
        // Opened at the last ts itself: the same.
        let mut b = breaker(1, 10, 1, 1);
        b.record(false, MAX_SAFE_INTEGER);
        assert_eq!(b.held_until(MAX_SAFE_INTEGER), Some(MAX_SAFE_INTEGER));
        // Exactly at the limit is an ordinary T: half-open there.
        let mut b = breaker(1, 10, 5, 1);
        b.record(false, MAX_SAFE_INTEGER - 5);
        assert_eq!(b.held_until(MAX_SAFE_INTEGER - 1), Some(MAX_SAFE_INTEGER));
        assert_eq!(b.held_until(MAX_SAFE_INTEGER), None);
        assert_eq!(b.shown(MAX_SAFE_INTEGER), Shown::HalfOpen);
    }
}
