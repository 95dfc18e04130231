//! Ctrl-C and SIGTERM during `check` or `fuzz`: every implementation process is killed at once,
//! the cases not yet judged are reported as not run, the report of what ran is printed, and the
//! process exits with 130 (SIGINT) or 143 (SIGTERM). A second signal exits at once, and so does
//! a run that has not ended 10 s after the first.
//!
//! The signals are blocked in every thread and taken by one thread with `sigwait`, so no code runs
//! in a signal handler.

use std::sync::atomic::{AtomicI32, Ordering};

static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// How long after the first signal the report may take before hookcheck exits regardless.
const GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Takes SIGINT and SIGTERM from now on. Call it first thing in `main`, before any other thread
/// starts: threads inherit the blocked mask. Processes started later get the default mask back
/// (the standard library resets it before exec).
pub fn install() {
    // SAFETY: the sigset is initialised by sigemptyset before use; pthread_sigmask only changes
    // this thread's mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    super::reap::adopt_orphans();
    std::thread::spawn(move || {
        loop {
            let mut signal = 0;
            // SAFETY: `set` is a valid, initialised sigset; sigwait writes one int.
            if unsafe { libc::sigwait(&set, &mut signal) } != 0 {
                return;
            }
            let first = SIGNAL.swap(signal, Ordering::SeqCst) == 0;
            super::reap::kill_all();
            if !first {
                std::process::exit(128 + signal);
            }
            // The report of what ran takes well under a second once the implementations are
            // dead. A run stuck where it cannot see the signal (a blocking open, a file system
            // that hangs) still ends: the signal is honoured at every point of a run.
            std::thread::spawn(move || {
                std::thread::sleep(GRACE);
                eprintln!(
                    "hookcheck: still not stopped {} s after the signal; exiting",
                    GRACE.as_secs()
                );
                std::process::exit(128 + signal);
            });
        }
    });
}

/// The signal that interrupted the run, if one did.
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// What a run cut short says of the cases it did not judge.
pub fn reason() -> Option<String> {
    signal().map(|s| {
        let name = if s == libc::SIGINT {
            "SIGINT (Ctrl-C)"
        } else {
            "SIGTERM"
        };
        format!("interrupted by {name}")
    })
}

/// The exit status of an interrupted run: 128 plus the signal number.
pub fn exit_status() -> Option<u8> {
    signal().and_then(|s| u8::try_from(128 + s).ok())
}
