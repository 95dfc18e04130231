//! Throttling per endpoint (roadmap Part 9): the throttle a policy may carry, the token bucket it
//! gives an endpoint, and the dispatcher-wide record of `process` calls that the buckets count
//! their tokens from. Tokens come at fixed times a + k·S from the `set_policy` that set the
//! throttle (`throttle.clock`), so a bucket can be brought up to date lazily, only when one of
//! its endpoint's heads is picked, instead of at every `process` call.

use crate::error::Error;
use crate::schedule::MAX_SAFE_INTEGER;

/// Bounds of a throttle's `burst` (`throttle.valid`).
const BURST: std::ops::RangeInclusive<i64> = 1..=1_000_000;
/// Bounds of a throttle's `interval` in seconds (`throttle.valid`): 1 s to 30 days.
const INTERVAL: std::ops::RangeInclusive<i64> = 1..=2_592_000;

/// A policy's `"throttle": {"burst": B, "interval": S}`, range-checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throttle {
    burst: u32,
    interval: i64,
}

impl Throttle {
    /// A throttle from already type-checked values; either out of range is `invalid policy`.
    pub fn new(burst: i64, interval: i64) -> Result<Throttle, Error> {
        if !BURST.contains(&burst) || !INTERVAL.contains(&interval) {
            return Err(Error::InvalidPolicy);
        }
        Ok(Throttle {
            burst: u32::try_from(burst).map_err(|_| Error::InvalidPolicy)?,
            interval,
        })
    }

    pub fn burst(self) -> u32 {
        self.burst
    }

    pub fn interval(self) -> i64 {
        self.interval
    }
}

/// Index of a `process` call in operation order, counting from 0.
type CallNo = u64;

/// The `ts` of every `process` call so far, kept as the suffix maxima only: entries by call
/// number with strictly decreasing `ts`, so the largest `ts` of the calls from any call number on
/// is the first entry at or after it (a binary search). Each call is pushed once and popped at
/// most once, so keeping it costs O(1) amortized per call.
#[derive(Debug, Default)]
pub struct ProcessCalls {
    calls: CallNo,
    maxima: Vec<(CallNo, i64)>,
}

impl ProcessCalls {
    /// Records a `process` call at `ts`.
    pub fn push(&mut self, ts: i64) {
        while self.maxima.last().is_some_and(|&(_, last)| last <= ts) {
            self.maxima.pop();
        }
        self.maxima.push((self.calls, ts));
        self.calls = self.calls.saturating_add(1);
    }

    /// The number the next call will get: calls from it on are the ones made after now.
    pub fn next_call(&self) -> CallNo {
        self.calls
    }

    /// The largest `ts` of the calls numbered `from` or later, if any.
    fn max_since(&self, from: CallNo) -> Option<i64> {
        let at = self.maxima.partition_point(|&(call, _)| call < from);
        self.maxima.get(at).map(|&(_, ts)| ts)
    }
}

/// An endpoint's token bucket, in `throttle.clock`'s numbers: B and S from the throttle, the
/// anchor a, the tokens n and the bucket time c.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket {
    burst: u64,
    interval: i64,
    anchor: i64,
    tokens: u64,
    /// c: the tokens whose times are at or before it have been counted.
    time: i64,
    /// The first `process` call after the set; c is the largest of the anchor and the `ts` of
    /// the calls from it on (`throttle.time-back`).
    since: CallNo,
}

impl Bucket {
    /// A full bucket anchored at the `set_policy`'s `ts` (`throttle.set`).
    pub fn new(throttle: Throttle, ts: i64, calls: &ProcessCalls) -> Bucket {
        Bucket {
            burst: u64::from(throttle.burst),
            interval: throttle.interval,
            anchor: ts,
            tokens: u64::from(throttle.burst),
            time: ts,
            since: calls.next_call(),
        }
    }

    /// Takes a token for an attempt in the current `process` call, already pushed to `calls`:
    /// `Ok(())` if there was one, else `Err(T)`, when the next token comes (clamped to the last
    /// `ts` there is, `throttle.beyond-range`).
    pub fn take(&mut self, calls: &ProcessCalls) -> Result<(), i64> {
        self.catch_up(calls);
        if self.tokens == 0 {
            return Err(self.next_token());
        }
        self.tokens -= 1;
        Ok(())
    }

    /// Counts the tokens whose times lie in (c, c'], c' the bucket time now; none when `ts` went
    /// back. Doing it once for several calls is the same as doing it call by call, as no token
    /// was taken in between and the counts are never negative: the cap commutes with the sum.
    fn catch_up(&mut self, calls: &ProcessCalls) {
        let Some(latest) = calls.max_since(self.since) else {
            return;
        };
        if latest <= self.time {
            return;
        }
        let added = self.tokens_by(latest) - self.tokens_by(self.time);
        // `added` (never negative, `latest` being later) may be ~2^54 after a long idle time:
        // compared with the room left before it is added.
        let room = self.burst - self.tokens;
        self.tokens += u64::try_from(added).unwrap_or(0).min(room);
        self.time = latest;
    }

    /// floor((t − a) / S): the number of token times in (a, t]. `t − a` is at most 2^54 in
    /// magnitude for any valid `ts` and never negative here, c being at least a.
    fn tokens_by(&self, t: i64) -> i64 {
        (t - self.anchor).div_euclid(self.interval)
    }

    /// T = a + (floor((c − a) / S) + 1) · S, at most 2^53 − 1. Within i64: T ≤ c + S.
    fn next_token(&self) -> i64 {
        let next = self.anchor + (self.tokens_by(self.time) + 1) * self.interval;
        next.min(MAX_SAFE_INTEGER)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_maxima_answer_the_largest_ts_since_any_call() {
        let mut calls = ProcessCalls::default();
        let ts = [5, 30, 2, 30, -7, 11, 4];
        for &t in &ts {
            calls.push(t);
        }
        for from in 0..=ts.len() {
            let want = ts[from..].iter().copied().max();
            assert_eq!(calls.max_since(from as CallNo), want, "from {from}");
        }
    }

    #[test]
    fn tokens_come_on_the_set_clock_capped_at_the_burst() {
        let mut calls = ProcessCalls::default();
        let throttle = Throttle::new(1, 10).expect("valid");
        let mut bucket = Bucket::new(throttle, 3, &calls);
        calls.push(3);
        assert_eq!(bucket.take(&calls), Ok(()));
        calls.push(4);
        assert_eq!(bucket.take(&calls), Err(13));
        calls.push(47);
        assert_eq!(bucket.take(&calls), Ok(()));
        assert_eq!(bucket.take(&calls), Err(53));
        // ts going back adds nothing and keeps T after the bucket time.
        calls.push(20);
        assert_eq!(bucket.take(&calls), Err(53));
    }

    #[test]
    fn the_next_token_is_clamped_to_the_last_ts() {
        let mut calls = ProcessCalls::default();
        let throttle = Throttle::new(1, 10).expect("valid");
        let mut bucket = Bucket::new(throttle, -MAX_SAFE_INTEGER, &calls);
        calls.push(MAX_SAFE_INTEGER);
        assert_eq!(bucket.take(&calls), Ok(()));
        assert_eq!(bucket.take(&calls), Err(MAX_SAFE_INTEGER));
    }

    #[test]
    fn throttle_ranges() {
        assert!(Throttle::new(1, 1).is_ok());
        assert!(Throttle::new(1_000_000, 2_592_000).is_ok());
        for (burst, interval) in [(0, 1), (1, 0), (-1, 1), (1_000_001, 1), (1, 2_592_001)] {
            assert_eq!(
                Throttle::new(burst, interval),
                Err(Error::InvalidPolicy),
                "{burst} {interval}"
            );
        }
    }
}
