//! Implementations in other processes (`spec/protocol.md`): a pool of long-lived processes that
//! speak the lines protocol, or one process per case. Every fault errors that case, kills the
//! process and lets the next case start a new one, until the restart cap.

use super::child::{Child, NoAnswer, Reading, clip};
use super::{Failure, Implementation, Sandbox};
use crate::case::{Case, Part};
use crate::compare::Numbers;
use serde_json::{Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

pub const PROTOCOL: u64 = 1;

#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// How long one case (or the handshake) may take.
    pub timeout: Duration,
    /// How many processes may be killed for faults before the rest of the cases are not run.
    pub max_restarts: usize,
    /// Per-case mode: a process per case, no handshake.
    pub per_case: bool,
    /// The parts an implementation declares in per-case mode (lines mode takes them from the
    /// handshake).
    pub parts: Vec<Part>,
    /// How a per-case implementation's JSON reader sees numbers (lines mode: the handshake).
    pub numbers: Numbers,
    /// Run each process in a sandbox (`--sandbox`); `None` runs it as is.
    pub sandbox: Option<Sandbox>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: Duration::from_secs(5),
            max_restarts: 10,
            per_case: false,
            parts: Part::ALL.to_vec(),
            numbers: Numbers::Spelling,
            sandbox: None,
        }
    }
}

/// What an implementation says of itself in the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub name: String,
    pub language: String,
    pub version: String,
    pub parts: Vec<Part>,
    /// `"numbers": "values"` when its JSON reader sees only number values.
    pub numbers: Numbers,
}

struct Session {
    child: Child,
    next_seq: u64,
}

pub struct Subprocess {
    command: String,
    options: Options,
    hello: Option<Hello>,
    /// Why the first handshake failed, with the stderr tail.
    startup_error: Option<String>,
    idle: Mutex<Vec<Session>>,
    restarts: AtomicUsize,
}

/// A fault of the implementation while serving one case.
struct Fault(String);

impl From<NoAnswer> for Fault {
    fn from(e: NoAnswer) -> Self {
        Fault(e.to_string())
    }
}

impl Subprocess {
    /// Prepares the implementation: in lines mode, starts one process for the handshake so the
    /// declared parts are known; in per-case mode, tries one empty run. A failure is not fatal
    /// here (see [`Subprocess::startup_error`]): the caller decides whether to try again.
    pub fn start(command: &str, options: Options) -> Subprocess {
        let mut implementation = Subprocess {
            command: command.to_string(),
            options,
            hello: None,
            startup_error: None,
            idle: Mutex::new(Vec::new()),
            restarts: AtomicUsize::new(0),
        };
        let started = if implementation.options.per_case {
            implementation.probe()
        } else {
            implementation.spawn().map(|(session, hello)| {
                implementation.hello = Some(hello);
                implementation.give_back(session);
            })
        };
        if let Err((fault, stderr)) = started {
            implementation.startup_error = Some(format!("{}\n{}", fault.0, stderr_block(&stderr)));
        }
        implementation
    }

    /// Per-case mode has no handshake: an empty run (`[]` in, `[]` out) shows the command starts
    /// and speaks the mode, whatever the cases hold.
    fn probe(&self) -> Result<(), (Fault, String)> {
        let mut child = Child::spawn(&self.command, self.options.sandbox.as_ref(), Reading::Whole)
            .map_err(|e| {
                (
                    Fault(format!("cannot start `{}`: {e}", self.command)),
                    String::new(),
                )
            })?;
        let outcome = match per_case_run(&mut child, &[], self.options.timeout) {
            Ok(results) if results.is_empty() => Ok(()),
            Ok(results) => Err(Fault(format!(
                "an empty run gave {} results, not none",
                results.len()
            ))),
            Err(fault) => Err(fault),
        };
        child.kill();
        outcome.map_err(|fault| (fault, child.stderr_tail()))
    }

    /// Starts the implementation, and once more if that fails: `Err` when it fails twice
    /// before any case ran, with one message naming the command, what went wrong (its exit
    /// status, say) and the last lines of its stderr. Nothing can be checked then.
    pub fn start_or_give_up(command: &str, options: Options) -> Result<Subprocess, String> {
        let first = Subprocess::start(command, options.clone());
        if first.startup_error.is_none() {
            return Ok(first);
        }
        drop(first);
        let second = Subprocess::start(command, options);
        match &second.startup_error {
            None => Ok(second),
            Some(e) => Err(format!(
                "the implementation cannot start: `{command}` failed twice before any case ran\n{e}"
            )),
        }
    }

    /// Why the implementation could not be started and greeted, if it could not.
    pub fn startup_error(&self) -> Option<&str> {
        self.startup_error.as_deref()
    }

    pub fn hello(&self) -> Option<&Hello> {
        self.hello.as_ref()
    }

    fn spawn(&self) -> Result<(Session, Hello), (Fault, String)> {
        let mut child = Child::spawn(&self.command, self.options.sandbox.as_ref(), Reading::Lines)
            .map_err(|e| {
                (
                    Fault(format!("cannot start `{}`: {e}", self.command)),
                    String::new(),
                )
            })?;
        match handshake(&mut child, self.options.timeout) {
            Ok(hello) => Ok((Session { child, next_seq: 1 }, hello)),
            Err(fault) => {
                child.kill();
                Err((fault, child.stderr_tail()))
            }
        }
    }

    fn give_back(&self, session: Session) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(session);
        }
    }

    fn take(&self) -> Option<Session> {
        self.idle.lock().ok().and_then(|mut idle| idle.pop())
    }

    fn over_cap(&self) -> Option<Failure> {
        let restarts = self.restarts.load(Ordering::SeqCst);
        (restarts > self.options.max_restarts).then(|| {
            Failure::NotRun(format!(
                "the implementation failed {restarts} times, more than --max-restarts {}",
                self.options.max_restarts
            ))
        })
    }

    fn errored(&self, fault: Fault, stderr: String) -> Failure {
        self.restarts.fetch_add(1, Ordering::SeqCst);
        Failure::Errored {
            message: fault.0,
            detail: stderr_block(&stderr),
        }
    }

    fn run_lines(&self, case: &Case) -> Result<Vec<Value>, Failure> {
        if let Some(not_run) = self.over_cap() {
            return Err(not_run);
        }
        let mut session = match self.take() {
            Some(s) => s,
            None => self
                .spawn()
                .map(|(s, _)| s)
                .map_err(|(f, tail)| self.errored(f, tail))?,
        };
        let seq = session.next_seq;
        session.next_seq += 1;
        match exchange(&mut session.child, case, seq, self.options.timeout) {
            Ok(answer) => {
                self.give_back(session);
                answer
            }
            Err(fault) => {
                session.child.kill();
                Err(self.errored(fault, session.child.stderr_tail()))
            }
        }
    }

    fn run_per_case(&self, case: &Case) -> Result<Vec<Value>, Failure> {
        if let Some(not_run) = self.over_cap() {
            return Err(not_run);
        }
        let mut child = Child::spawn(&self.command, self.options.sandbox.as_ref(), Reading::Whole)
            .map_err(|e| {
                self.errored(
                    Fault(format!("cannot start `{}`: {e}", self.command)),
                    String::new(),
                )
            })?;
        let outcome = per_case(&mut child, case, self.options.timeout);
        child.kill();
        outcome.map_err(|fault| self.errored(fault, child.stderr_tail()))
    }
}

impl Implementation for Subprocess {
    fn describe(&self) -> String {
        match &self.hello {
            Some(h) => format!(
                "{} ({} {}) via `{}`",
                h.name, h.language, h.version, self.command
            ),
            None => format!("`{}`", self.command),
        }
    }

    fn parts(&self) -> Vec<Part> {
        match (&self.hello, self.options.per_case) {
            (Some(h), false) => h.parts.clone(),
            // No handshake (per-case mode, or it failed): every case is tried, and a failed
            // handshake is then reported on each.
            _ => self.options.parts.clone(),
        }
    }

    fn numbers(&self) -> Numbers {
        match (&self.hello, self.options.per_case) {
            (Some(h), false) => h.numbers,
            _ => self.options.numbers,
        }
    }

    fn warning(&self) -> Option<String> {
        let what = if self.options.per_case {
            "an empty run"
        } else {
            "the handshake"
        };
        self.startup_error
            .as_ref()
            .map(|e| format!("the implementation did not complete {what}: {e}"))
    }

    fn run(&self, case: &Case) -> Result<Vec<Value>, Failure> {
        if self.options.per_case {
            self.run_per_case(case)
        } else {
            self.run_lines(case)
        }
    }
}

impl Drop for Subprocess {
    fn drop(&mut self) {
        let sessions: Vec<Session> = self
            .idle
            .lock()
            .map(|mut i| i.drain(..).collect())
            .unwrap_or_default();
        for mut s in sessions {
            let _ = s.child.send(r#"{"type":"stop"}"#);
            s.child.close_stdin();
            if s.child.wait(Duration::from_secs(1)).is_none() {
                s.child.kill();
            }
        }
    }
}

fn stderr_block(stderr: &str) -> String {
    if stderr.is_empty() {
        "(nothing on stderr)".to_string()
    } else {
        format!("last lines of stderr:\n{stderr}")
    }
}

fn handshake(child: &mut Child, timeout: Duration) -> Result<Hello, Fault> {
    // A process that exits at once closes its stdin before the hello arrives; its exit (read
    // below) says more than the failed write.
    let _ = child.send(&json!({"type": "hello", "protocol": PROTOCOL}).to_string());
    let line = child.receive(timeout)?;
    let v = parse_object(&line)?;
    let bad = |why: &str| Fault(format!("bad hello: {why}: {}", clip(&line, 300)));
    if v.get("type").and_then(Value::as_str) != Some("hello") {
        return Err(bad("expected {\"type\": \"hello\", ...}"));
    }
    if v.get("protocol").and_then(Value::as_u64) != Some(PROTOCOL) {
        return Err(bad("protocol must be 1"));
    }
    let parts = v
        .get("parts")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("parts must be a list"))?
        .iter()
        .map(|p| {
            p.as_str()
                .and_then(Part::parse)
                .ok_or_else(|| bad("unknown part"))
        })
        .collect::<Result<Vec<Part>, Fault>>()?;
    let numbers = match v.get("numbers") {
        None => Numbers::Spelling,
        Some(n) => n
            .as_str()
            .and_then(Numbers::parse)
            .ok_or_else(|| bad("numbers must be \"spelling\" or \"values\""))?,
    };
    let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
    Ok(Hello {
        name: text("name"),
        language: text("language"),
        version: text("version"),
        parts,
        numbers,
    })
}

/// Sends one case and reads its answer; `Err` is a fault of the process, `Ok(Err)` a case it
/// declined or failed by its own account.
fn exchange(
    child: &mut Child,
    case: &Case,
    seq: u64,
    timeout: Duration,
) -> Result<Result<Vec<Value>, Failure>, Fault> {
    let request =
        json!({"type": "run", "seq": seq, "case": case.name(), "operations": case.operations()});
    child
        .send(&request.to_string())
        .map_err(|e| Fault(format!("cannot send the case: {e}")))?;
    let line = child.receive(timeout)?;
    let v = parse_object(&line)?;
    match v.get("seq").and_then(Value::as_u64) {
        Some(s) if s == seq => {}
        Some(s) => return Err(Fault(format!("answer for seq {s}, expected seq {seq}"))),
        None => return Err(Fault(format!("answer without seq: {}", clip(&line, 300)))),
    }
    let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match v.get("type").and_then(Value::as_str) {
        Some("results") => {
            let results = v
                .get("results")
                .and_then(Value::as_array)
                .ok_or_else(|| Fault("`results` must be a list".to_string()))?;
            check_count(results, case)?;
            Ok(Ok(results.clone()))
        }
        Some("skipped") => Ok(Err(Failure::Skipped(text("reason")))),
        Some("errored") => Ok(Err(Failure::Errored {
            message: format!("the implementation reported an error: {}", text("message")),
            detail: text("traceback"),
        })),
        _ => Err(Fault(format!(
            "answer of unknown type: {}",
            clip(&line, 300)
        ))),
    }
}

fn per_case(child: &mut Child, case: &Case, timeout: Duration) -> Result<Vec<Value>, Fault> {
    let results = per_case_run(child, &case.operations(), timeout)?;
    check_count(&results, case)?;
    Ok(results)
}

/// One run in per-case mode: the operations on stdin, the results array from stdout.
fn per_case_run(child: &mut Child, ops: &[Value], timeout: Duration) -> Result<Vec<Value>, Fault> {
    let input = Value::Array(ops.to_vec()).to_string();
    // A process that exits without reading its input is judged by its output, not by the
    // failed write.
    let _ = child.send(&input);
    child.close_stdin();
    let out = child.receive(timeout)?;
    if let Some(status) = child.wait(timeout)
        && !status.success()
    {
        return Err(Fault(format!("the implementation exited ({status})")));
    }
    let results: Value = serde_json::from_str(&out).map_err(|e| {
        Fault(format!(
            "output is not JSON: {e}: {}",
            clip(out.trim(), 300)
        ))
    })?;
    match results {
        Value::Array(results) => Ok(results),
        _ => Err(Fault(format!(
            "output is not a JSON array: {}",
            clip(out.trim(), 300)
        ))),
    }
}

fn check_count(results: &[Value], case: &Case) -> Result<(), Fault> {
    if results.len() == case.steps.len() {
        Ok(())
    } else {
        Err(Fault(format!(
            "{} results for {} operations",
            results.len(),
            case.steps.len()
        )))
    }
}

fn parse_object(line: &str) -> Result<Value, Fault> {
    match serde_json::from_str::<Value>(line) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(Fault(format!(
            "answer is not a JSON object: {}",
            clip(line, 300)
        ))),
        Err(e) => Err(Fault(format!(
            "answer is not JSON ({e}): {}",
            clip(line, 300)
        ))),
    }
}
