//! One implementation process: started by `sh -c` in a process group of its own and marked (see
//! `reap`), fed by a writer thread so that a process that stops reading costs a timeout, not a
//! hang, its stdout read on a thread (line by line, or whole, never more than a cap, and never more
//! than a couple of lines ahead, so a flood blocks the writer instead of filling our memory), its
//! stderr drained into a short tail, and killed with everything it started.

use super::Sandbox;
use super::{live, reap};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ChildStdin, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The longest answer accepted by default (`--max-answer`): far beyond any case's results.
pub const MAX_ANSWER: usize = 1 << 20;
/// How much of stderr is kept for reports.
pub const STDERR_TAIL: usize = 4 << 10;
/// Lines read ahead of the one being waited for: enough to see an extra answer, too few to hold
/// a flood.
const READ_AHEAD: usize = 2;
/// How often a process waited for is looked at (whether it exited).
const WATCH: Duration = Duration::from_millis(20);
/// How long after its exit a process's last output may take to be read.
const AFTER_EXIT: Duration = Duration::from_millis(200);

/// How stdout is read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// One message per line (the lines protocol).
    Lines,
    /// Everything up to end of output (per-case mode).
    Whole,
}

enum Output {
    Text(String),
    /// End of output with an unterminated line (lines mode) or nothing read yet.
    Closed {
        partial: String,
    },
    TooLong(usize),
    Failed(String),
}

/// When a case's time is up: its request must be written and its answer read by then.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    at: Instant,
    timeout: Duration,
}

impl Deadline {
    pub fn after(timeout: Duration) -> Deadline {
        let now = Instant::now();
        // A timeout beyond what the clock can add (flags are bounded, a library caller may not
        // be) is a day: nothing a case does takes longer.
        let at = now
            .checked_add(timeout)
            .or_else(|| now.checked_add(Duration::from_secs(86_400)))
            .unwrap_or(now);
        Deadline { at, timeout }
    }

    pub fn left(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }
}

/// Why no answer came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoAnswer {
    /// The time ran out while waiting for the answer, or (`writing`) while the request was still
    /// being written because the process did not read it.
    Timeout {
        timeout: Duration,
        writing: bool,
    },
    Exited {
        status: String,
        partial: String,
    },
    /// The process exited, but stdout stays open: a process it started holds it.
    ExitedHolding {
        status: String,
    },
    /// Stdout reached its end while the process still runs: it closed it.
    ClosedOutput,
    /// The time ran out, and stdout is held only by processes that wait for a child (a shell or
    /// a launcher that started the implementation, which closed it): who holds it, with the verb
    /// (`` `sh` (pid 12), waiting for its child, holds ``).
    ClosedBehind {
        timeout: Duration,
        holders: String,
    },
    TooLong(usize),
    Io(String),
}

impl NoAnswer {
    pub fn is_timeout(&self) -> bool {
        // Seen only once the time ran out, and read from the outside: run once more, alone, as a
        // timeout is, before it counts.
        matches!(
            self,
            NoAnswer::Timeout { .. } | NoAnswer::ClosedBehind { .. }
        )
    }

    /// The process is gone, or no longer listens or speaks, since its previous answer.
    pub fn is_gone(&self) -> bool {
        matches!(
            self,
            NoAnswer::Exited { .. }
                | NoAnswer::ExitedHolding { .. }
                | NoAnswer::ClosedOutput
                | NoAnswer::Io(_)
        )
    }
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoAnswer::Timeout {
                timeout,
                writing: false,
            } => write!(f, "no answer within {}", seconds(*timeout)),
            NoAnswer::Timeout {
                timeout,
                writing: true,
            } => write!(
                f,
                "no answer within {}: the implementation did not even read the whole case",
                seconds(*timeout)
            ),
            NoAnswer::Exited { status, partial } if partial.is_empty() => {
                write!(f, "the implementation exited ({status})")
            }
            NoAnswer::Exited { status, partial } => write!(
                f,
                "the implementation exited ({status}) after writing an unfinished line: {}",
                clip(partial, 200)
            ),
            NoAnswer::ExitedHolding { status } => write!(
                f,
                "the implementation exited ({status}), but a process it started keeps its stdout \
                 open"
            ),
            NoAnswer::ClosedOutput => {
                f.write_str("the implementation closed its output (stdout) and is still running")
            }
            NoAnswer::ClosedBehind { timeout, holders } => write!(
                f,
                "no answer within {}: the implementation closed its output (stdout) and is still \
                 running; only {holders} it open",
                seconds(*timeout)
            ),
            NoAnswer::TooLong(limit) => write!(
                f,
                "answer longer than {} (--max-answer raises the limit)",
                bytes(*limit)
            ),
            NoAnswer::Io(e) => write!(f, "cannot talk to the implementation: {e}"),
        }
    }
}

pub fn seconds(t: Duration) -> String {
    let s = t.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

fn bytes(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} bytes")
    }
}

pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// What is on stdout between two cases.
pub enum Leftover {
    Nothing,
    /// A line the implementation wrote after its answer.
    Line(String),
    /// Stdout is closed: the process exited (or closed it) after its answer.
    Closed,
}

pub struct Child {
    process: std::process::Child,
    pid: i32,
    mark: String,
    /// Requests for the writer thread; dropping it closes the process's stdin.
    requests: Option<Sender<Vec<u8>>>,
    written: Receiver<io::Result<()>>,
    output: Receiver<Output>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    exited: Option<ExitStatus>,
    collected: bool,
    /// The inode of the stdout pipe, to tell which processes hold it.
    stdout_pipe: Option<u64>,
    /// The sandbox's limits, to name them when they ended the process.
    limits: Option<Sandbox>,
}

impl Child {
    /// Starts `command` with `sh -c`, in `sandbox` if there is one; `vars` are set in its
    /// environment (the values of `{path}` and friends, which the command refers to as variables
    /// and never as pasted text).
    pub fn spawn(
        command: &str,
        vars: &[(String, OsString)],
        sandbox: Option<&Sandbox>,
        dir: Option<&std::path::Path>,
        reading: Reading,
        max_answer: usize,
    ) -> io::Result<Child> {
        if let Some(why) = super::interrupt::reason() {
            return Err(io::Error::other(why));
        }
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let mark = format!(
            "{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        reap::adopt_orphans();
        let mut env = vars.to_vec();
        env.push((reap::MARK.to_string(), OsString::from(&mark)));
        // A check leaves no `__pycache__` in a submission's folder (or in this repository).
        env.push(("PYTHONDONTWRITEBYTECODE".to_string(), OsString::from("1")));
        let mut started =
            super::sandbox::command(command, sandbox, &env, dir).map_err(io::Error::other)?;
        started
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut process = reap::spawn(started)?;
        let pid = i32::try_from(process.id()).unwrap_or(0);
        live::register(pid, &mark);
        let pipes = (
            process.stdin.take(),
            process.stdout.take(),
            process.stderr.take(),
        );
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            reap::kill_tree(pid, &mark);
            let _ = process.wait();
            live::unregister(pid);
            return Err(io::Error::other("no pipes to the implementation"));
        };
        let stdout_pipe = std::fs::metadata(format!("/proc/self/fd/{}", stdout.as_raw_fd()))
            .ok()
            .map(|m| m.ino());
        let (tx, output) = mpsc::sync_channel(READ_AHEAD);
        thread::spawn(move || match reading {
            Reading::Lines => read_lines(stdout, &tx, max_answer),
            Reading::Whole => read_whole(stdout, &tx, max_answer),
        });
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let sink = Arc::clone(&tail);
        thread::spawn(move || drain(stderr, &sink));
        let (requests, to_write) = mpsc::channel();
        let (done, written) = mpsc::channel();
        thread::spawn(move || write_requests(stdin, &to_write, &done));
        Ok(Child {
            process,
            pid,
            mark,
            requests: Some(requests),
            written,
            output,
            stderr: tail,
            exited: None,
            collected: false,
            stdout_pipe,
            limits: sandbox.cloned(),
        })
    }

    /// Writes `text` and a newline by the deadline. A process that does not read it is a timeout
    /// (the writer thread stays blocked until the process is killed); one that exited, an error.
    pub fn send(&mut self, text: &str, deadline: Deadline) -> Result<(), NoAnswer> {
        let closed = || NoAnswer::Io("its stdin is closed".to_string());
        let requests = self.requests.as_ref().ok_or_else(closed)?;
        let mut line = Vec::with_capacity(text.len() + 1);
        line.extend_from_slice(text.as_bytes());
        line.push(b'\n');
        requests.send(line).map_err(|_| closed())?;
        match self.written.recv_timeout(deadline.left()) {
            Ok(Ok(())) => Ok(()),
            // An exiting process closes its stdin a moment before it can be seen to have exited.
            Ok(Err(e))
                if e.kind() == io::ErrorKind::BrokenPipe
                    && self.wait(Duration::from_millis(100)).is_none() =>
            {
                Err(NoAnswer::Io(
                    "it closed its input (stdin) and is still running".to_string(),
                ))
            }
            Ok(Err(e)) => Err(NoAnswer::Io(format!("cannot send the case: {e}"))),
            Err(RecvTimeoutError::Timeout) => Err(NoAnswer::Timeout {
                timeout: deadline.timeout,
                writing: true,
            }),
            Err(RecvTimeoutError::Disconnected) => Err(closed()),
        }
    }

    /// Closes the process's stdin once what was sent is written.
    pub fn close_stdin(&mut self) {
        self.requests = None;
    }

    /// The next line (or, reading whole, all of stdout), waiting until the deadline. While it
    /// waits it watches the process: one that exited while stdout stays open (a process it started
    /// holds it) is told apart from one that is still working.
    pub fn receive(&mut self, deadline: Deadline) -> Result<String, NoAnswer> {
        let mut exited_at: Option<Instant> = None;
        loop {
            let slice = deadline.left().min(WATCH);
            let got = match self.output.recv_timeout(slice) {
                Err(RecvTimeoutError::Timeout) => None,
                other => Some(other),
            };
            match got {
                Some(Ok(Output::Text(text))) => return Ok(text),
                Some(Ok(Output::Closed { partial })) => return Err(self.closed(partial)),
                Some(Err(_)) => return Err(self.closed(String::new())),
                Some(Ok(Output::TooLong(limit))) => return Err(NoAnswer::TooLong(limit)),
                Some(Ok(Output::Failed(e))) => return Err(NoAnswer::Io(e)),
                None => {}
            }
            if deadline.left().is_zero() {
                return Err(self.out_of_time(deadline));
            }
            if exited_at.is_none() && self.exited_now().is_some() {
                exited_at = Some(Instant::now());
            }
            // What it wrote before it exited is in the pipe: a moment for it to be read.
            if exited_at.is_some_and(|t| t.elapsed() >= AFTER_EXIT)
                && let Some(status) = self.exited_now()
            {
                self.exited = Some(status);
                return Err(NoAnswer::ExitedHolding {
                    status: self.describe_exit(status),
                });
            }
        }
    }

    /// Stdout reached its end: the process exited, or it closed stdout and runs on.
    fn closed(&mut self, partial: String) -> NoAnswer {
        // stdout closes a moment before the exit status is ready to collect; on a loaded
        // machine that moment passed half a second, and once (six shards and a whole run at
        // once on two cores) two seconds, and the same exit was then reported as a process
        // still running. Only an implementation that closes stdout and runs on waits the whole
        // time, once.
        match self.wait(Duration::from_secs(5)) {
            Some(status) => NoAnswer::Exited {
                status: self.describe_exit(status),
                partial,
            },
            None if partial.is_empty() => NoAnswer::ClosedOutput,
            None => NoAnswer::Exited {
                status: "stdout closed, still running".to_string(),
                partial,
            },
        }
    }

    /// The time ran out. If stdout is held only by processes waiting for a child (the shell or
    /// launcher that started the implementation), the implementation closed it.
    fn out_of_time(&self, deadline: Deadline) -> NoAnswer {
        let holders = self.stdout_pipe.and_then(|pipe| {
            reap::only_waiting_hold(self.pid, &self.mark, pipe, self.limits.is_some())
        });
        match holders {
            Some(holders) => NoAnswer::ClosedBehind {
                timeout: deadline.timeout,
                holders,
            },
            None => NoAnswer::Timeout {
                timeout: deadline.timeout,
                writing: false,
            },
        }
    }

    /// The exit status, and the sandbox's limit that ended the process when one did: the CPU
    /// limit sends SIGXCPU (a shell or bwrap between passes it on as exit status 128 + 24); the
    /// memory limit makes allocations fail, which the process reports on stderr as it dies.
    pub fn describe_exit(&self, status: ExitStatus) -> String {
        let Some(limits) = &self.limits else {
            return status.to_string();
        };
        let xcpu =
            status.signal() == Some(libc::SIGXCPU) || status.code() == Some(128 + libc::SIGXCPU);
        if xcpu {
            let passed_on = if status.code().is_some() {
                ", which is 128 + SIGXCPU"
            } else {
                ""
            };
            return format!(
                "{status}{passed_on}: killed by the CPU limit of {} s of CPU time per process \
                 (--sandbox-cpu)",
                limits.cpu_seconds
            );
        }
        if !status.success() && out_of_memory(&self.stderr_tail()) {
            return format!(
                "{status}: out of memory under the memory limit of {} MiB of address space per \
                 process (--sandbox-memory), as its stderr says",
                limits.memory_mib
            );
        }
        status.to_string()
    }

    /// What the process wrote since its last answer, without waiting.
    pub fn leftover(&mut self) -> Leftover {
        match self.output.try_recv() {
            Err(TryRecvError::Empty) => Leftover::Nothing,
            Ok(Output::Text(line)) => Leftover::Line(line),
            Ok(Output::Closed { partial }) if !partial.is_empty() => Leftover::Line(partial),
            Ok(Output::TooLong(limit)) => {
                Leftover::Line(format!("(a line longer than {})", bytes(limit)))
            }
            Ok(Output::Closed { .. } | Output::Failed(_)) | Err(TryRecvError::Disconnected) => {
                Leftover::Closed
            }
        }
    }

    /// Waits up to `timeout` for the process to exit by itself. It is not collected (its pid
    /// stays reserved, so killing its group later cannot reach a stranger).
    pub fn wait(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Deadline::after(timeout);
        loop {
            if let Some(status) = self.exited.or_else(|| self.exited_now()) {
                self.exited = Some(status);
                return Some(status);
            }
            if deadline.left().is_zero() {
                return None;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }

    /// The exit status if the process has exited, leaving it to be collected.
    fn exited_now(&self) -> Option<ExitStatus> {
        if self.pid <= 0 {
            return None;
        }
        // SAFETY: waitid fills the zeroed siginfo_t it is given; WNOWAIT leaves the child
        // collectable, WNOHANG never blocks.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            if libc::waitid(libc::P_PID, self.pid as libc::id_t, &mut info, flags) != 0 {
                return None;
            }
            if info.si_pid() == 0 {
                return None;
            }
            let status = info.si_status();
            Some(if info.si_code == libc::CLD_EXITED {
                ExitStatus::from_raw((status & 0xff) << 8)
            } else {
                ExitStatus::from_raw(status & 0x7f)
            })
        }
    }

    /// The last lines the process wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        // Give the drain thread a moment to collect what a dying process wrote last.
        thread::sleep(Duration::from_millis(20));
        let tail = self
            .stderr
            .lock()
            .map(|t| t.iter().copied().collect::<Vec<u8>>());
        String::from_utf8_lossy(&tail.unwrap_or_default())
            .trim_end()
            .to_string()
    }

    /// Asks a process that ran out of time where it is: SIGUSR1 to its group (the built-in
    /// Python adapter answers with its stack on stderr; for others the kill that follows comes a
    /// moment early), then a moment for the answer to reach the stderr tail.
    pub fn ask_where(&mut self) {
        if self.collected || self.exited_now().is_some() {
            return;
        }
        // SAFETY: killpg only sends a signal to the process group we started.
        unsafe {
            libc::killpg(self.pid, libc::SIGUSR1);
        }
        thread::sleep(Duration::from_millis(300));
    }

    /// Kills the process and everything it started (whether it exited or not: what it started
    /// may live on), and collects it.
    pub fn kill(&mut self) {
        self.requests = None;
        if self.collected {
            return;
        }
        reap::kill_tree(self.pid, &self.mark);
        if let Ok(status) = self.process.wait() {
            self.exited.get_or_insert(status);
        }
        self.collected = true;
        live::unregister(self.pid);
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Whether a stderr tail says the process ran out of memory, in the words of the usual runtimes:
/// Python, C's `strerror`, C++, Rust, Go, Node and the JVM.
fn out_of_memory(stderr: &str) -> bool {
    let tail = stderr.to_ascii_lowercase();
    [
        "memoryerror",
        "out of memory",
        "outofmemory",
        "cannot allocate memory",
        "bad_alloc",
        "memory allocation of",
    ]
    .iter()
    .any(|words| tail.contains(words))
}

fn write_requests(
    mut stdin: ChildStdin,
    requests: &Receiver<Vec<u8>>,
    done: &Sender<io::Result<()>>,
) {
    for line in requests {
        let result = stdin.write_all(&line).and_then(|()| stdin.flush());
        let failed = result.is_err();
        if done.send(result).is_err() || failed {
            return;
        }
    }
}

fn read_lines(stdout: impl Read, tx: &SyncSender<Output>, max: usize) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut line = Vec::new();
        match read_capped(&mut reader, &mut line, Some(b'\n'), max) {
            Ok(true) => {
                line.pop();
                if tx
                    .send(Output::Text(String::from_utf8_lossy(&line).into_owned()))
                    .is_err()
                {
                    return;
                }
            }
            Ok(false) => {
                let partial = String::from_utf8_lossy(&line).into_owned();
                let _ = tx.send(Output::Closed { partial });
                return;
            }
            Err(e) => {
                let _ = tx.send(too_long_or(e, max));
                return;
            }
        }
    }
}

fn read_whole(stdout: impl Read, tx: &SyncSender<Output>, max: usize) {
    let mut reader = BufReader::new(stdout);
    let mut all = Vec::new();
    let _ = tx.send(match read_capped(&mut reader, &mut all, None, max) {
        Ok(_) => Output::Text(String::from_utf8_lossy(&all).into_owned()),
        Err(e) => too_long_or(e, max),
    });
}

fn too_long_or(e: io::Error, max: usize) -> Output {
    if e.kind() == io::ErrorKind::OutOfMemory {
        Output::TooLong(max)
    } else {
        Output::Failed(e.to_string())
    }
}

/// Reads up to and including `until` (or to end of input when `None`) into `out`, never more
/// than `max` bytes. `Ok(true)` when the delimiter was found.
fn read_capped(
    reader: &mut impl BufRead,
    out: &mut Vec<u8>,
    until: Option<u8>,
    max: usize,
) -> io::Result<bool> {
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(false);
        }
        let (take, found) = match until.and_then(|d| buf.iter().position(|&b| b == d)) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if out.len().saturating_add(take) > max {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                "output too long",
            ));
        }
        out.extend_from_slice(&buf[..take]);
        reader.consume(take);
        if found {
            return Ok(true);
        }
    }
}

fn drain(mut stderr: impl Read, tail: &Mutex<VecDeque<u8>>) {
    let mut chunk = [0u8; 8192];
    while let Ok(n) = stderr.read(&mut chunk) {
        if n == 0 {
            return;
        }
        if let Ok(mut t) = tail.lock() {
            t.extend(&chunk[..n]);
            let excess = t.len().saturating_sub(STDERR_TAIL);
            t.drain(..excess);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_at_the_extremes_neither_overflows_nor_passes_at_once() {
        let far = Deadline::after(Duration::MAX);
        assert!(far.left() > Duration::from_secs(3600));
        assert_eq!(far.timeout, Duration::MAX);
        let now = Deadline::after(Duration::ZERO);
        assert_eq!(now.left(), Duration::ZERO);
    }
}
