//! Part 9's token bucket (spec section 15, `throttle.*`): a throttle in an endpoint's policy,
//! the bucket it gives the endpoint, and the one record of `process` calls that every bucket
//! reads its time from.
//!
//! Token times are fixed by the set alone (`throttle.clock`): a + k·S. A bucket counts the
//! tokens that came up to its *bucket time* c, the largest `ts` of the anchor and of every
//! `process` call since the set (`throttle.time-back`). Calls that do not touch the endpoint
//! move c too, so the bucket does not follow them one by one: it asks [`Calls`] for the largest
//! `ts` since its set when it is next used, in O(log n), and catches up then. Catching up in one
//! step gives what every step would have: tokens only come between two uses, and the cap
//! applies to a sum of non-negative counts.

use super::{Error, EventKey, MAX_WAIT, TS_LIMIT, Ts};

/// `throttle.valid`: the largest `burst`.
pub const MAX_BURST: u32 = 1_000_000;

/// A policy's `throttle`: B tokens at most, one every S seconds (`throttle.policy-key`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Throttle {
    burst: u32,
    interval: u32,
}

impl Throttle {
    /// B in 1..=1000000 and S in 1..=2592000 (`throttle.policy-key`, `throttle.valid`).
    pub fn new(burst: u32, interval: u32) -> Result<Self, Error> {
        if !(1..=MAX_BURST).contains(&burst) || !(1..=MAX_WAIT).contains(&interval) {
            return Err(Error::InvalidPolicy);
        }
        Ok(Throttle { burst, interval })
    }

    pub fn burst(self) -> u32 {
        self.burst
    }

    pub fn interval(self) -> u32 {
        self.interval
    }
}

/// The `ts` of the `process` calls, kept as the suffix maxima of their sequence: call numbers
/// rising, `ts` falling. In the usual run, where time only goes forward, it holds one entry.
#[derive(Debug, Default)]
pub(crate) struct Calls {
    count: u64,
    maxima: Vec<(u64, Ts)>,
}

impl Calls {
    /// Notes a `process` call at `ts`.
    pub fn record(&mut self, ts: Ts) {
        self.count += 1;
        while self.maxima.last().is_some_and(|&(_, t)| t <= ts) {
            self.maxima.pop();
        }
        self.maxima.push((self.count, ts));
    }

    /// How many calls were noted.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The largest `ts` of the calls noted after the first `before` of them, if any.
    fn max_since(&self, before: u64) -> Option<Ts> {
        let first = self.maxima.partition_point(|&(n, _)| n <= before);
        self.maxima.get(first).map(|&(_, ts)| ts)
    }
}

/// An endpoint's bucket under the throttle of its policy in force (`throttle.bucket`).
#[derive(Debug)]
pub(crate) struct Bucket {
    throttle: Throttle,
    /// a: the `ts` of the `set_policy` that set the throttle.
    anchor: Ts,
    /// n.
    tokens: u32,
    /// c, as of the bucket's last use.
    counted_to: Ts,
    /// The calls made before the set: those after it move c.
    calls_before: u64,
    /// The endpoint's events throttled since their last attempt, enable or `set_policy`
    /// (`throttle.release`): the head, and rarely one a revival put back in front of it.
    pub throttled: Vec<EventKey>,
}

impl Bucket {
    /// A full bucket set at `ts` (`throttle.set`).
    pub fn new(throttle: Throttle, ts: Ts, calls: &Calls) -> Self {
        Bucket {
            throttle,
            anchor: ts,
            tokens: throttle.burst,
            counted_to: ts,
            calls_before: calls.count(),
            throttled: Vec::new(),
        }
    }

    /// Takes a token for an attempt in the current `process` call (already noted in `calls`);
    /// `Err(T)` when there is none, T the next token's time (`throttle.clock`), at most
    /// [`TS_LIMIT`] (`throttle.beyond-range`).
    pub fn take(&mut self, calls: &Calls) -> Result<(), Ts> {
        let now = calls
            .max_since(self.calls_before)
            .map_or(self.counted_to, |ts| ts.max(self.counted_to));
        if now > self.counted_to {
            let came = self.tick(now) - self.tick(self.counted_to);
            let room = i64::from(self.throttle.burst - self.tokens);
            // At most `room` of them fit: the rest came to a full bucket and are lost.
            self.tokens += u32::try_from(came.clamp(0, room)).unwrap_or(0);
            self.counted_to = now;
        }
        if self.tokens > 0 {
            self.tokens -= 1;
            return Ok(());
        }
        let interval = i64::from(self.throttle.interval);
        let next = (self.tick(self.counted_to) + 1)
            .checked_mul(interval)
            .and_then(|t| t.checked_add(self.anchor))
            .map_or(TS_LIMIT, |t| t.min(TS_LIMIT));
        Err(next)
    }

    /// How many token times came in (a, t]: floor((t − a) / S), t being at least a.
    fn tick(&self, t: Ts) -> i64 {
        // Both are valid `ts` values (at most 2^53 in size), so their difference fits.
        (t - self.anchor).div_euclid(i64::from(self.throttle.interval))
    }

    /// Notes that `key` was attempted: it is no longer throttled.
    pub fn attempted(&mut self, key: EventKey) {
        if !self.throttled.is_empty() {
            self.throttled.retain(|k| *k != key);
        }
    }

    /// Notes that `key` was throttled.
    pub fn hold(&mut self, key: EventKey) {
        if !self.throttled.contains(&key) {
            self.throttled.push(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(ts: &[Ts]) -> Calls {
        let mut c = Calls::default();
        ts.iter().for_each(|t| c.record(*t));
        c
    }

    #[test]
    fn the_largest_ts_since_a_call_is_found_among_the_suffix_maxima() {
        let c = calls(&[5, 100, 50, 60, 20]);
        assert_eq!(c.maxima, vec![(2, 100), (4, 60), (5, 20)]);
        assert_eq!(c.max_since(0), Some(100));
        assert_eq!(c.max_since(2), Some(60));
        assert_eq!(c.max_since(3), Some(60));
        assert_eq!(c.max_since(4), Some(20));
        assert_eq!(c.max_since(5), None);
    }

    #[test]
    fn a_bucket_refills_on_the_clock_of_its_set_and_never_beyond_its_burst() {
        let throttle = Throttle::new(2, 10).expect("valid");
        let mut c = Calls::default();
        let mut b = Bucket::new(throttle, 3, &c);
        c.record(3);
        assert_eq!(
            (b.take(&c), b.take(&c), b.take(&c)),
            (Ok(()), Ok(()), Err(13))
        );
        // Tokens at 13, 23, ..., 103: the bucket holds two of them at 105.
        c.record(105);
        assert_eq!(
            (b.take(&c), b.take(&c), b.take(&c)),
            (Ok(()), Ok(()), Err(113))
        );
        // Time going back adds nothing, and the next token is still the one after 105.
        c.record(40);
        assert_eq!(b.take(&c), Err(113));
        c.record(113);
        assert_eq!((b.take(&c), b.take(&c)), (Ok(()), Err(123)));
    }

    #[test]
    fn calls_before_the_set_do_not_move_its_bucket_time() {
        let throttle = Throttle::new(1, 10).expect("valid");
        let mut c = calls(&[100]);
        let mut b = Bucket::new(throttle, 50, &c);
        c.record(60);
        assert_eq!((b.take(&c), b.take(&c)), (Ok(()), Err(70)));
    }

    #[test]
    fn a_next_token_beyond_the_limit_is_the_limit() {
        let throttle = Throttle::new(1, MAX_WAIT).expect("valid");
        let mut c = Calls::default();
        let mut b = Bucket::new(throttle, TS_LIMIT - 5, &c);
        c.record(TS_LIMIT);
        assert_eq!((b.take(&c), b.take(&c)), (Ok(()), Err(TS_LIMIT)));
        let mut b = Bucket::new(throttle, -TS_LIMIT, &c);
        c.record(TS_LIMIT);
        assert_eq!(b.take(&c), Ok(()));
        assert_eq!(b.take(&c), Err(TS_LIMIT));
    }

    #[test]
    fn bounds_of_a_throttle() {
        assert!(Throttle::new(1, 1).is_ok());
        assert!(Throttle::new(MAX_BURST, MAX_WAIT).is_ok());
        for (b, s) in [(0, 1), (1, 0), (MAX_BURST + 1, 1), (1, MAX_WAIT + 1)] {
            assert_eq!(Throttle::new(b, s), Err(Error::InvalidPolicy), "{b} {s}");
        }
    }
}
