//! What serving one case cost beyond a single send to a running process: processes started
//! again to replace one lost to a fault, and sends of the case again. Counted on the thread
//! that serves the case (a case is served on one thread from start to answer), so concurrent
//! cases of one implementation never mix their counts.

use std::cell::Cell;

/// Restarts and retries of one case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Effort {
    /// Processes started while serving it to replace one lost to a fault (killed after a
    /// fault, or found exited when it was to take the case).
    pub restarts: u32,
    /// Times it was sent again: to a fresh process after the one it went to had exited, or
    /// once more alone after a timeout.
    pub retries: u32,
}

thread_local! {
    static HERE: Cell<Effort> = const { Cell::new(Effort { restarts: 0, retries: 0 }) };
}

/// Counts a restart for the case this thread serves.
pub(crate) fn restarted() {
    HERE.with(|e| {
        let mut now = e.get();
        now.restarts = now.restarts.saturating_add(1);
        e.set(now);
    });
}

/// Counts a retry for the case this thread serves.
pub(crate) fn retried() {
    HERE.with(|e| {
        let mut now = e.get();
        now.retries = now.retries.saturating_add(1);
        e.set(now);
    });
}

/// What this thread counted since the last call, and a fresh count for the next case.
pub fn take() -> Effort {
    HERE.with(|e| e.replace(Effort::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_per_thread_and_taken_once() {
        take();
        restarted();
        retried();
        retried();
        let other = std::thread::spawn(|| {
            restarted();
            take()
        })
        .join()
        .unwrap_or_default();
        assert_eq!(
            other,
            Effort {
                restarts: 1,
                retries: 0
            }
        );
        assert_eq!(
            take(),
            Effort {
                restarts: 1,
                retries: 2
            }
        );
        assert_eq!(take(), Effort::default());
    }
}
