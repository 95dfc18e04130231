//! `disable` and `enable` with replay (`pause.*`), and `recover` (`recover.*`): the cost is the
//! endpoint's dead events revived, never its pending events nor the whole dispatcher.

use super::endpoint::DisableReason;
use super::{Dispatcher, EndpointKey, Error, EventKey, Lifecycle, Ts, is_dead_as};

impl Dispatcher {
    pub fn disable(&mut self, endpoint_id: &str) -> Result<(), Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        let ep = &mut self.endpoints[endpoint.index()];
        if ep.is_disabled() {
            return Err(Error::AlreadyDisabled);
        }
        // The head's `ready` entry goes stale; `process` drops it.
        ep.disabled = Some(DisableReason::Manual);
        Ok(())
    }

    pub fn enable(&mut self, ts: Ts, endpoint_id: &str, replay_dead: bool) -> Result<(), Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        let ep = &mut self.endpoints[endpoint.index()];
        if !ep.is_disabled() {
            return Err(Error::NotDisabled);
        }
        ep.disabled = None;
        ep.consecutive_failures = 0;
        // Every pending event is due at `ts` now, the throttled ones too (`throttle.pause`).
        if let Some(bucket) = ep.bucket.as_deref_mut() {
            bucket.throttled.clear();
        }
        if let Some(circuit) = ep.circuit.as_deref_mut() {
            circuit.held.clear();
        }
        // Every pending event becomes due at `ts` (`pause.enable-due`): a new epoch makes every
        // due time set before it stale. After 2^32 enables the epoch would come round to an old
        // one, so then (and only then) the due times are reset one by one.
        match ep.epoch.checked_add(1) {
            Some(epoch) => ep.epoch = epoch,
            None => {
                ep.epoch = 0;
                for key in &ep.pending {
                    let event = &mut self.events[key.index()];
                    event.epoch = 0;
                    event.set_lifecycle(Lifecycle::Pending { due_at: ts });
                }
            }
        }
        ep.enabled_at = ts;
        if replay_dead {
            self.revive(ts, endpoint, Ts::MIN);
        }
        self.schedule_head(endpoint);
        Ok(())
    }

    /// `recover.revive`: the endpoint's events that died at or after `since`, revived as a
    /// replay revives them; returns how many. Only they change (`recover.unchanged-rest`).
    pub fn recover(&mut self, ts: Ts, endpoint_id: &str, since: Ts) -> Result<usize, Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        let revived = self.revive(ts, endpoint, since);
        if revived > 0 {
            // A revived event may now be the head, in front of one waiting for its retry.
            self.schedule_head(endpoint);
        }
        Ok(revived)
    }

    /// Revives the endpoint's events that died at or after `since` (`pause.replay`): pending,
    /// no attempts, due at `ts`, back in enqueue order, out of the dead letters.
    fn revive(&mut self, ts: Ts, endpoint: EndpointKey, since: Ts) -> usize {
        let ep = &mut self.endpoints[endpoint.index()];
        let mut keys: Vec<EventKey> = Vec::new();
        for key in ep.exhume(since) {
            let event = &mut self.events[key.index()];
            event.attempts = 0;
            event.epoch = ep.epoch;
            event.set_lifecycle(Lifecycle::Pending { due_at: ts });
            keys.push(key);
        }
        let count = keys.len();
        let events = &self.events;
        ep.forget_dead(count, |letter, key| is_dead_as(events, letter, key));
        self.dead_letters
            .forget(count, |letter, (key, _)| is_dead_as(events, letter, key));
        for &key in &keys {
            self.signed_forget(key);
            // `expiry.revive`: a fresh age, under the policy in force now.
            self.start_age(key, ts);
        }
        self.endpoints[endpoint.index()].revive(keys);
        count
    }
}
