//! `disable` and `enable` with replay (`pause.*`): the cost is the endpoint's dead events at
//! most, never its pending events nor the whole dispatcher.

use super::{Dispatcher, Error, Lifecycle, Ts};

impl Dispatcher {
    pub fn disable(&mut self, endpoint_id: &str) -> Result<(), Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        let ep = &mut self.endpoints[endpoint.index()];
        if ep.disabled {
            return Err(Error::AlreadyDisabled);
        }
        // The head's `ready` entry goes stale; `process` drops it.
        ep.disabled = true;
        Ok(())
    }

    pub fn enable(&mut self, ts: Ts, endpoint_id: &str, replay_dead: bool) -> Result<(), Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        let ep = &mut self.endpoints[endpoint.index()];
        if !ep.disabled {
            return Err(Error::NotDisabled);
        }
        ep.disabled = false;
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
                    event.lifecycle = Lifecycle::Pending { due_at: ts };
                }
            }
        }
        ep.enabled_at = ts;
        if replay_dead {
            for key in ep.revive_dead() {
                let event = &mut self.events[key.index()];
                if let Lifecycle::Dead { letter } = event.lifecycle {
                    self.dead_letters.remove(&letter);
                }
                event.attempts = 0;
                event.epoch = ep.epoch;
                event.lifecycle = Lifecycle::Pending { due_at: ts };
            }
        }
        self.schedule_head(endpoint);
        Ok(())
    }
}
