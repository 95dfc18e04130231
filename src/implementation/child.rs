//! One implementation process: started by `sh -c` in a process group of its own, its stdout read
//! on a thread (line by line, or whole, never more than a cap), its stderr drained into a short
//! tail so a flood can neither block it nor fill our memory, and killed with its whole group.

use super::Sandbox;
use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The longest answer accepted: far beyond any case's results, small enough to hold.
pub const MAX_OUTPUT: usize = 64 << 20;
/// How much of stderr is kept for reports.
pub const STDERR_TAIL: usize = 4 << 10;

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
    TooLong,
    Failed(String),
}

/// Why no answer came.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoAnswer {
    Timeout(Duration),
    Exited { status: String, partial: String },
    TooLong,
    Io(String),
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoAnswer::Timeout(t) => write!(f, "no answer within {}", seconds(*t)),
            NoAnswer::Exited { status, partial } if partial.is_empty() => {
                write!(f, "the implementation exited ({status})")
            }
            NoAnswer::Exited { status, partial } => write!(
                f,
                "the implementation exited ({status}) after writing an unfinished line: {}",
                clip(partial, 200)
            ),
            NoAnswer::TooLong => write!(f, "answer longer than {} MiB", MAX_OUTPUT >> 20),
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

pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

pub struct Child {
    process: std::process::Child,
    stdin: Option<ChildStdin>,
    output: Receiver<Output>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    exited: Option<ExitStatus>,
}

impl Child {
    pub fn spawn(command: &str, sandbox: Option<&Sandbox>, reading: Reading) -> io::Result<Child> {
        let mut process = super::sandbox::command(command, sandbox)
            .map_err(io::Error::other)?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let stdout = process
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout pipe"))?;
        let stderr = process
            .stderr
            .take()
            .ok_or_else(|| io::Error::other("no stderr pipe"))?;
        let (tx, output) = mpsc::channel();
        thread::spawn(move || match reading {
            Reading::Lines => read_lines(stdout, &tx),
            Reading::Whole => read_whole(stdout, &tx),
        });
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let sink = Arc::clone(&tail);
        thread::spawn(move || drain(stderr, &sink));
        Ok(Child {
            stdin: process.stdin.take(),
            process,
            output,
            stderr: tail,
            exited: None,
        })
    }

    /// Writes `text` and a newline. A process that stopped reading gives an error, not a hang
    /// of ours: the write fails once it has exited and its end of the pipe is closed.
    pub fn send(&mut self, text: &str) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("stdin already closed"))?;
        stdin.write_all(text.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line (or, reading whole, all of stdout), waiting at most `timeout`.
    pub fn receive(&mut self, timeout: Duration) -> Result<String, NoAnswer> {
        match self.output.recv_timeout(timeout) {
            Ok(Output::Text(text)) => Ok(text),
            Ok(Output::Closed { partial }) => Err(NoAnswer::Exited {
                status: self.exit_status(),
                partial,
            }),
            Err(RecvTimeoutError::Disconnected) => Err(NoAnswer::Exited {
                status: self.exit_status(),
                partial: String::new(),
            }),
            Ok(Output::TooLong) => Err(NoAnswer::TooLong),
            Ok(Output::Failed(e)) => Err(NoAnswer::Io(e)),
            Err(RecvTimeoutError::Timeout) => Err(NoAnswer::Timeout(timeout)),
        }
    }

    /// Waits up to `timeout` for the process to exit by itself.
    pub fn wait(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.exited {
                return Some(status);
            }
            if let Ok(Some(status)) = self.process.try_wait() {
                self.exited = Some(status);
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }

    fn exit_status(&mut self) -> String {
        // stdout closes a moment before the exit status is ready to collect.
        match self.wait(Duration::from_millis(500)) {
            Some(status) => status.to_string(),
            None => "stdout closed, still running".to_string(),
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

    /// Kills the process and everything it started, and collects it.
    pub fn kill(&mut self) {
        self.stdin = None;
        if self.exited.is_none() {
            // The group id is the shell's pid (process_group(0)); kill(1) reaches the whole group,
            // which std's Child::kill does not.
            let group = format!("-{}", self.process.id());
            let _ = Command::new("kill")
                .args(["-KILL", "--", &group])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = self.process.kill();
            if let Ok(status) = self.process.wait() {
                self.exited = Some(status);
            }
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.kill();
    }
}

fn read_lines(stdout: impl Read, tx: &mpsc::Sender<Output>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut line = Vec::new();
        match read_capped(&mut reader, &mut line, Some(b'\n')) {
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
                let _ = tx.send(too_long_or(e));
                return;
            }
        }
    }
}

fn read_whole(stdout: impl Read, tx: &mpsc::Sender<Output>) {
    let mut reader = BufReader::new(stdout);
    let mut all = Vec::new();
    let _ = tx.send(match read_capped(&mut reader, &mut all, None) {
        Ok(_) => Output::Text(String::from_utf8_lossy(&all).into_owned()),
        Err(e) => too_long_or(e),
    });
}

fn too_long_or(e: io::Error) -> Output {
    if e.kind() == io::ErrorKind::OutOfMemory {
        Output::TooLong
    } else {
        Output::Failed(e.to_string())
    }
}

/// Reads up to and including `until` (or to end of input when `None`) into `out`, never more
/// than `MAX_OUTPUT` bytes. `Ok(true)` when the delimiter was found.
fn read_capped(
    reader: &mut impl BufRead,
    out: &mut Vec<u8>,
    until: Option<u8>,
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
        if out.len() + take > MAX_OUTPUT {
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
