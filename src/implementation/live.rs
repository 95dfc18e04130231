//! The implementation processes alive right now, so that Ctrl-C or SIGTERM can end them all
//! wherever the run is (`reap` kills them), and so that the end-of-run sweep leaves the
//! ones a `Child` still owns for their owner to collect.

use std::sync::Mutex;

static LIVE: Mutex<Vec<(i32, String)>> = Mutex::new(Vec::new());

pub fn register(pid: i32, mark: &str) {
    if let Ok(mut live) = LIVE.lock() {
        live.push((pid, mark.to_string()));
    }
}

pub fn unregister(pid: i32) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|(p, _)| *p != pid);
    }
}

pub fn owned(pid: i32) -> bool {
    LIVE.lock()
        .is_ok_and(|live| live.iter().any(|(p, _)| *p == pid))
}

/// Every live implementation process and its mark.
pub fn all() -> Vec<(i32, String)> {
    LIVE.lock().map(|l| l.clone()).unwrap_or_default()
}
