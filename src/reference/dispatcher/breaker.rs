//! Part 10's circuit breaker (spec section 18, `breaker.*`): a breaker in an endpoint's policy
//! and the state it gives the endpoint. Scheduled, not polled: an open breaker holds the time it
//! opens until, and is half-open for any `ts` at or after it (`breaker.states`), so nothing runs
//! when that time comes; the heads it held are in the ready heap at that time already.

use super::{Error, EventKey, MAX_WAIT, TS_LIMIT, Ts};
use std::collections::VecDeque;

/// `breaker.valid`: the largest `failures` and `probes`.
pub const MAX_FAILURES: u32 = 1000;
pub const MAX_PROBES: u32 = 100;

/// A policy's `breaker`: F failures within W seconds open it for O seconds; P probes in a row
/// close it (`breaker.policy-key`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Breaker {
    failures: u32,
    window: u32,
    open_for: u32,
    probes: u32,
}

impl Breaker {
    /// F in 1..=1000, W and O in 1..=2592000, P in 1..=100 (`breaker.valid`).
    pub fn new(failures: u32, window: u32, open_for: u32, probes: u32) -> Result<Self, Error> {
        let valid = (1..=MAX_FAILURES).contains(&failures)
            && (1..=MAX_WAIT).contains(&window)
            && (1..=MAX_WAIT).contains(&open_for)
            && (1..=MAX_PROBES).contains(&probes);
        if !valid {
            return Err(Error::InvalidPolicy);
        }
        Ok(Breaker {
            failures,
            window,
            open_for,
            probes,
        })
    }

    pub fn failures(self) -> u32 {
        self.failures
    }

    pub fn window(self) -> u32 {
        self.window
    }

    pub fn open_for(self) -> u32 {
        self.open_for
    }

    pub fn probes(self) -> u32 {
        self.probes
    }
}

/// What `endpoint` shows of a breaker (`breaker.report`, `breaker.report-time`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakerState {
    Closed,
    Open(Ts),
    HalfOpen,
}

impl BreakerState {
    /// The state's name in `endpoint`'s report.
    pub fn as_str(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open(_) => "open",
            BreakerState::HalfOpen => "half-open",
        }
    }

    /// Until when it is open, while it is.
    pub fn until(self) -> Option<Ts> {
        match self {
            BreakerState::Open(until) => Some(until),
            _ => None,
        }
    }
}

#[derive(Debug)]
enum Mode {
    /// The times of the failures counted (`breaker.window`), the last F of them, oldest first.
    Closed(VecDeque<Ts>),
    /// Half-open for any `ts` at or after it; past the last valid `ts` when `ts` + O is
    /// (`breaker.beyond-range`), so that no call finds it half-open.
    Open(Ts),
    /// Half-open from the time it was open until (still open for a `ts` before it,
    /// `breaker.states`), with the successful probes in a row so far.
    HalfOpen(Ts, u32),
}

/// An endpoint's breaker under its policy in force.
#[derive(Debug)]
pub(crate) struct Circuit {
    breaker: Breaker,
    mode: Mode,
    /// The events it held since they were last due otherwise (`breaker.set`): those a new
    /// policy releases.
    pub held: Vec<EventKey>,
}

impl Circuit {
    /// A new breaker, closed with no failures counted (`breaker.set`).
    pub fn new(breaker: Breaker) -> Self {
        Circuit {
            breaker,
            mode: Mode::Closed(VecDeque::new()),
            held: Vec::new(),
        }
    }

    /// The state at `ts`.
    pub fn state(&self, ts: Ts) -> BreakerState {
        match self.mode {
            Mode::Closed(_) => BreakerState::Closed,
            Mode::Open(until) | Mode::HalfOpen(until, _) if ts < until => {
                BreakerState::Open(until.min(TS_LIMIT))
            }
            Mode::Open(_) | Mode::HalfOpen(..) => BreakerState::HalfOpen,
        }
    }

    /// When a head picked at `ts` is held: until the time the breaker is open until.
    pub fn holds_until(&self, ts: Ts) -> Option<Ts> {
        match self.state(ts) {
            BreakerState::Open(until) => Some(until),
            _ => None,
        }
    }

    /// A head held until then (`breaker.held`).
    pub fn hold(&mut self, key: EventKey) {
        if !self.held.contains(&key) {
            self.held.push(key);
        }
    }

    /// The breaker after an attempt made at `ts` (`breaker.open`, `breaker.window`,
    /// `breaker.half-open`, `breaker.close`).
    pub fn attempted(&mut self, key: EventKey, ts: Ts, failed: bool) {
        self.held.retain(|k| *k != key);
        let half_open = self.state(ts) == BreakerState::HalfOpen;
        let breaker = self.breaker;
        // Kept unclamped (`breaker.beyond-range`): `ts` is within ±(2^53 − 1) and O within 30
        // days, so the sum fits.
        let reopen = || Mode::Open(ts.saturating_add(Ts::from(breaker.open_for)));
        self.mode = match (&mut self.mode, failed) {
            (_, true) if half_open => reopen(),
            (Mode::Closed(times), true) => {
                times.push_back(ts);
                if times.len() > breaker.failures as usize {
                    times.pop_front();
                }
                let full = times.len() == breaker.failures as usize;
                // The F-th most recent failure, the current one first.
                if full
                    && times
                        .front()
                        .is_some_and(|t| ts.saturating_sub(*t) < Ts::from(breaker.window))
                {
                    reopen()
                } else {
                    return;
                }
            }
            (_, false) if half_open => {
                let (until, successes) = match self.mode {
                    Mode::HalfOpen(until, n) => (until, n + 1),
                    Mode::Open(until) => (until, 1),
                    Mode::Closed(_) => return,
                };
                if successes >= breaker.probes {
                    Mode::Closed(VecDeque::new())
                } else {
                    Mode::HalfOpen(until, successes)
                }
            }
            _ => return,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circuit(f: u32, w: u32, o: u32, p: u32) -> Circuit {
        Circuit::new(Breaker::new(f, w, o, p).expect("valid"))
    }

    #[test]
    fn bounds_of_a_breaker() {
        assert!(Breaker::new(1, 1, 1, 1).is_ok());
        assert!(Breaker::new(MAX_FAILURES, MAX_WAIT, MAX_WAIT, MAX_PROBES).is_ok());
        for (f, w, o, p) in [
            (0, 1, 1, 1),
            (MAX_FAILURES + 1, 1, 1, 1),
            (1, 0, 1, 1),
            (1, MAX_WAIT + 1, 1, 1),
            (1, 1, 0, 1),
            (1, 1, MAX_WAIT + 1, 1),
            (1, 1, 1, 0),
            (1, 1, 1, MAX_PROBES + 1),
        ] {
            assert_eq!(Breaker::new(f, w, o, p), Err(Error::InvalidPolicy));
        }
    }

    #[test]
    fn the_window_ends_at_the_failure_and_excludes_its_start() {
        let key = EventKey(0);
        let mut c = circuit(2, 60, 100, 1);
        c.attempted(key, 0, true);
        assert_eq!(c.state(0), BreakerState::Closed);
        // 60 s after the first: outside the window (ts − t < W fails).
        c.attempted(key, 60, true);
        assert_eq!(c.state(60), BreakerState::Closed);
        // 59 s after the second: open until 119 + 100.
        c.attempted(key, 119, true);
        assert_eq!(c.state(119), BreakerState::Open(219));
        assert_eq!(c.holds_until(218), Some(219));
        assert_eq!(c.state(219), BreakerState::HalfOpen);
    }

    #[test]
    fn probes_close_it_and_a_failed_probe_reopens_it() {
        let key = EventKey(0);
        let mut c = circuit(1, 10, 50, 2);
        c.attempted(key, 0, true);
        assert_eq!(c.state(10), BreakerState::Open(50));
        c.attempted(key, 50, false);
        assert_eq!(c.state(50), BreakerState::HalfOpen);
        c.attempted(key, 51, true);
        assert_eq!(c.state(51), BreakerState::Open(101));
        c.attempted(key, 101, false);
        // Time going back before T after a probe: open again, the probe still counted.
        assert_eq!(c.state(100), BreakerState::Open(101));
        c.attempted(key, 101, false);
        assert_eq!(c.state(101), BreakerState::Closed);
        // The failures of before are forgotten, and with F = 1 the next one opens it again.
        c.attempted(key, 102, true);
        assert_eq!(c.state(102), BreakerState::Open(152));
    }

    #[test]
    fn open_until_stops_at_the_end_of_time() {
        let mut c = circuit(1, 10, 50, 1);
        c.attempted(EventKey(0), TS_LIMIT - 1, true);
        assert_eq!(c.holds_until(TS_LIMIT - 1), Some(TS_LIMIT));
        // No `ts` reaches its real time: still open at the last one.
        assert_eq!(c.state(TS_LIMIT), BreakerState::Open(TS_LIMIT));
        assert_eq!(c.holds_until(TS_LIMIT), Some(TS_LIMIT));
    }
}
