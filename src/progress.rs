//! A live progress line on the terminal for long runs (a grade of many implementations, a fuzz
//! run): one line on stderr, redrawn in place a few times a second and erased at the end. Never
//! in a pipe, a CI log or JSON output: the caller shows it only when stderr is a terminal.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What a run has done so far; updated by the workers, read by the line.
#[derive(Default)]
pub struct Progress {
    pub done: AtomicUsize,
    pub total: AtomicUsize,
    pub failing: AtomicUsize,
    /// Implementations whose every case is done.
    pub finished: AtomicUsize,
    pub implementations: AtomicUsize,
}

impl Progress {
    fn line(&self, started: Instant) -> String {
        let get = |a: &AtomicUsize| a.load(Ordering::Relaxed);
        let mut line = format!("hookcheck: {}/{} cases", get(&self.done), get(&self.total));
        if get(&self.implementations) > 1 {
            line.push_str(&format!(
                ", {} of {} implementations finished",
                get(&self.finished),
                get(&self.implementations)
            ));
        }
        line.push_str(&format!(
            ", {} failing so far, {:.0} s",
            get(&self.failing),
            started.elapsed().as_secs_f64()
        ));
        line
    }
}

/// The line being drawn; dropping it erases the line and stops the drawing.
pub struct Line {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Draws `progress` on stderr until the returned [`Line`] is dropped.
pub fn show(progress: Arc<Progress>) -> Line {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let thread = std::thread::spawn(move || {
        let started = Instant::now();
        // A short run never shows a line at all.
        std::thread::sleep(Duration::from_millis(500));
        while !flag.load(Ordering::Relaxed) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K{}", progress.line(started));
            let _ = err.flush();
            drop(err);
            std::thread::sleep(Duration::from_millis(250));
        }
        let _ = write!(std::io::stderr(), "\r\x1b[K");
    });
    Line {
        stop,
        thread: Some(thread),
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_cases_implementations_and_failures() {
        let p = Progress::default();
        p.done.store(12, Ordering::Relaxed);
        p.total.store(810, Ordering::Relaxed);
        p.failing.store(3, Ordering::Relaxed);
        p.implementations.store(10, Ordering::Relaxed);
        p.finished.store(1, Ordering::Relaxed);
        let line = p.line(Instant::now());
        assert!(
            line.starts_with(
                "hookcheck: 12/810 cases, 1 of 10 implementations finished, 3 failing so far"
            ),
            "{line}"
        );
    }
}
