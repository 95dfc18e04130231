//! `disable` and `enable` with replay (`pause.*`): the cost is the endpoint's own pending and dead
//! events, never the whole dispatcher.

use super::{Dispatcher, Error, Lifecycle, Ts};

impl Dispatcher {
    pub fn disable(&mut self, endpoint_id: &str) -> Result<(), Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        let ep = &mut self.endpoints[endpoint.index()];
        if ep.disabled {
            return Err(Error::AlreadyDisabled);
        }
        ep.disabled = true;
        if let Some(head) = ep.head()
            && let Some(due_at) = self.events[head.index()].due_at()
        {
            self.ready.remove(&(due_at, head));
        }
        Ok(())
    }

    pub fn enable(&mut self, ts: Ts, endpoint_id: &str, replay_dead: bool) -> Result<(), Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        let ep = &mut self.endpoints[endpoint.index()];
        if !ep.disabled {
            return Err(Error::NotDisabled);
        }
        ep.disabled = false;
        if replay_dead {
            for key in ep.revive_dead() {
                let event = &mut self.events[key.index()];
                if let Lifecycle::Dead { letter } = event.lifecycle {
                    self.dead_letters.remove(&letter);
                }
                event.attempts = 0;
            }
        }
        for key in &ep.pending {
            self.events[key.index()].lifecycle = Lifecycle::Pending { due_at: ts };
        }
        self.schedule_head(endpoint);
        Ok(())
    }
}
