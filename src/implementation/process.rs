//! Implementations in other processes (`spec/protocol.md`): a pool of long-lived processes that
//! speak the lines protocol, or one process per case. Every fault errors that case (and only that
//! case), kills the process and lets the next case start a new one; only an implementation that
//! keeps failing to start is given up on.

use super::child::{Child, Deadline, Leftover, NoAnswer, Reading, clip};
use super::{Failure, Implementation, Sandbox};
use crate::case::{Case, Part};
use crate::compare::Numbers;
use serde_json::{Value, json};
use std::ffi::OsString;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

pub use super::child::MAX_ANSWER;

pub const PROTOCOL: u64 = 1;

#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// How long one case (or the handshake) may take, writing the request included.
    pub timeout: Duration,
    /// How many starts in a row may fail (the process does not start, or fails its handshake)
    /// before the remaining cases are not run. Faults while serving a case do not count: they
    /// error that case only.
    pub max_restarts: usize,
    /// Per-case mode: a process per case, no handshake.
    pub per_case: bool,
    /// The parts an implementation declares in per-case mode (lines mode takes them from the
    /// handshake): the brief's three unless `--parts` says otherwise.
    pub parts: Vec<Part>,
    /// Parts the implementation must declare: a case of a required part it does not declare
    /// fails instead of being not applicable (`--require-parts`, for graders).
    pub require_parts: Vec<Part>,
    /// How a per-case implementation's JSON reader sees numbers (lines mode: the handshake).
    pub numbers: Numbers,
    /// `--numbers strict`: a declaration of `numbers: values` is refused, and every step is
    /// sent and judged, those whose expectations depend on number spelling included.
    pub strict_numbers: bool,
    /// The longest answer, in bytes, to one case; a longer one errors the case.
    pub max_answer: usize,
    /// Environment variables set for the command: the values of the placeholders `{path}`,
    /// `{dir}` and `{stem}`, which the command names as variables (see `manifest`).
    pub vars: Vec<(String, OsString)>,
    /// Run each process in a sandbox (`--sandbox`); `None` runs it as is.
    pub sandbox: Option<Sandbox>,
    /// The folder the command runs in (a manifest's own folder); `None` is the current one.
    pub dir: Option<std::path::PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: Duration::from_secs(5),
            max_restarts: 3,
            per_case: false,
            // What an implementation that declares nothing offers: the brief, as before the
            // roadmap's parts existed.
            parts: Part::BRIEF.to_vec(),
            require_parts: Vec::new(),
            numbers: Numbers::Spelling,
            strict_numbers: false,
            max_answer: MAX_ANSWER,
            vars: Vec::new(),
            sandbox: None,
            dir: None,
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
    /// `"where": "SIGUSR1"`: on SIGUSR1 it prints where it is to stderr (asked before a kill for
    /// a timeout). Opt-in, because SIGUSR1 means other things elsewhere (Node starts its
    /// debugger on it).
    pub tells_where: bool,
}

struct Session {
    child: Child,
    /// The handshake's `"where": "SIGUSR1"`.
    tells_where: bool,
    next_seq: u64,
    /// The case this process answered last: what it writes after that answer is that case's
    /// fault.
    last_case: Option<String>,
}

pub struct Subprocess {
    command: String,
    options: Options,
    hello: Option<Hello>,
    /// Why the first handshake failed, with the stderr tail.
    startup_error: Option<String>,
    idle: Mutex<Vec<Session>>,
    /// Starts that failed in a row; a start that succeeds resets it.
    failed_starts: AtomicUsize,
    /// Processes lost to a fault (killed after one, or found exited) and not yet replaced: the
    /// next start replaces one, and is counted as a restart of the case it serves.
    lost: AtomicUsize,
    /// Faults seen after a case was answered (a second answer, stray output), by case name.
    late: Mutex<Vec<(String, Failure)>>,
}

/// A fault of the implementation while serving one case.
struct Fault {
    message: String,
    /// The time ran out: such a case is run once more, alone, before it counts.
    timeout: bool,
    /// The process was gone before it could have read the case (it exited or closed its stdin
    /// after its previous answer).
    gone: bool,
}

impl Fault {
    fn new(message: String) -> Fault {
        Fault {
            message,
            timeout: false,
            gone: false,
        }
    }
}

impl From<NoAnswer> for Fault {
    fn from(e: NoAnswer) -> Self {
        Fault {
            timeout: e.is_timeout(),
            gone: e.is_gone(),
            message: e.to_string(),
        }
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
            failed_starts: AtomicUsize::new(0),
            lost: AtomicUsize::new(0),
            late: Mutex::new(Vec::new()),
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
            implementation.startup_error =
                Some(format!("{}\n{}", fault.message, stderr_block(&stderr)));
        }
        implementation
    }

    fn child(&self, reading: Reading) -> Result<Child, (Fault, String)> {
        Child::spawn(
            &self.command,
            &self.options.vars,
            self.options.sandbox.as_ref(),
            self.options.dir.as_deref(),
            reading,
            self.options.max_answer,
        )
        .map_err(|e| {
            (
                Fault::new(format!("cannot start `{}`: {e}", self.command)),
                String::new(),
            )
        })
    }

    /// Per-case mode has no handshake: an empty run (`[]` in, `[]` out) shows the command starts
    /// and speaks the mode, whatever the cases hold.
    fn probe(&self) -> Result<(), (Fault, String)> {
        let mut child = self.child(Reading::Whole)?;
        let outcome = match per_case_run(&mut child, &[], self.options.timeout) {
            Ok(results) if results.is_empty() => Ok(()),
            Ok(results) => Err(Fault::new(format!(
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
                "the implementation cannot start: `{command}` failed twice before any case \
                 ran\n{e}{}",
                memory_hint(e, second.options.sandbox.as_ref())
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

    /// A new process, greeted. Counts towards the failed starts in a row, or resets them.
    fn spawn(&self) -> Result<(Session, Hello), (Fault, String)> {
        let started = self.child(Reading::Lines).and_then(|mut child| {
            match handshake(&mut child, self.options.timeout) {
                Ok(hello) => Ok((
                    Session {
                        child,
                        tells_where: hello.tells_where,
                        next_seq: 1,
                        last_case: None,
                    },
                    hello,
                )),
                Err(mut fault) => {
                    child.kill();
                    if fault.timeout {
                        // The usual cause: a program that reads one case until end of input.
                        fault.message.push_str(
                            " to the handshake (spec/protocol.md); a program that reads one \
                             case's operations from stdin until end of input and prints the \
                             results is a per-case implementation: try --per-case, or \
                             --impl-per-case for one of several",
                        );
                    }
                    Err((fault, child.stderr_tail()))
                }
            }
        });
        match &started {
            Ok(_) => self.failed_starts.store(0, Ordering::SeqCst),
            Err(_) => {
                self.failed_starts.fetch_add(1, Ordering::SeqCst);
            }
        }
        started
    }

    fn give_back(&self, session: Session) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(session);
        }
    }

    /// An idle process with nothing left on its stdout. One that wrote after its answer is
    /// killed, and that is a fault of the case it answered; one that exited since is dropped.
    fn take(&self) -> Option<Session> {
        loop {
            let mut session = self.idle.lock().ok().and_then(|mut idle| idle.pop())?;
            match session.child.leftover() {
                Leftover::Nothing => return Some(session),
                Leftover::Line(line) => {
                    self.lose(&mut session);
                    self.late_fault(&session, &line);
                }
                Leftover::Closed => self.lose(&mut session),
            }
        }
    }

    /// Kills a process of the pool lost to a fault; the start that replaces it is a restart.
    fn lose(&self, session: &mut Session) {
        session.child.kill();
        self.lost.fetch_add(1, Ordering::SeqCst);
    }

    /// A new process for a case: a restart when it replaces one lost.
    fn spawn_for_case(&self) -> Result<(Session, Hello), (Fault, String)> {
        if self
            .lost
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            super::effort::restarted();
        }
        self.spawn()
    }

    fn late_fault(&self, session: &Session, line: &str) {
        let Some(case) = &session.last_case else {
            return;
        };
        let failure = Failure::Errored {
            message: format!(
                "the implementation wrote more after its answer to this case: {}",
                clip(line, 300)
            ),
            detail: stderr_block(&session.child.stderr_tail()),
        };
        if let Ok(mut late) = self.late.lock() {
            // The first fault a case is blamed for is the one reported.
            if !late.iter().any(|(c, _)| c == case) {
                late.push((case.clone(), failure));
            }
        }
    }

    fn over_cap(&self) -> Option<Failure> {
        let failed = self.failed_starts.load(Ordering::SeqCst);
        (failed > self.options.max_restarts).then(|| {
            Failure::NotRun(format!(
                "the implementation failed to start {failed} times in a row, more than \
                 --max-restarts {}",
                self.options.max_restarts
            ))
        })
    }

    fn errored(&self, fault: Fault, stderr: String) -> Failure {
        let detail = stderr_block(&stderr);
        if fault.timeout {
            Failure::TimedOut {
                message: fault.message,
                detail,
            }
        } else {
            Failure::Errored {
                message: fault.message,
                detail,
            }
        }
    }

    fn run_lines(&self, case: &Case) -> Result<Vec<Value>, Failure> {
        // A process that served an earlier case and is gone by the time this one is sent (it
        // exited after its answer) says nothing about this case: it gets one fresh process.
        for attempt in 0..2 {
            if let Some(not_run) = self.over_cap() {
                return Err(not_run);
            }
            let (mut session, reused) = match self.take() {
                Some(s) => (s, true),
                None => match self.spawn_for_case() {
                    Ok((s, _)) => (s, false),
                    Err((fault, tail)) => return Err(self.errored(fault, tail)),
                },
            };
            let seq = session.next_seq;
            session.next_seq += 1;
            match self.exchange(&mut session, case, seq) {
                Ok(answer) => {
                    session.last_case = Some(case.name());
                    self.give_back(session);
                    return answer;
                }
                Err(fault) if fault.gone && reused && attempt == 0 => {
                    self.lose(&mut session);
                    super::effort::retried();
                }
                Err(fault) => {
                    if fault.timeout && session.tells_where {
                        session.child.ask_where();
                    }
                    self.lose(&mut session);
                    return Err(self.errored(fault, session.child.stderr_tail()));
                }
            }
        }
        Err(Failure::NotRun(
            "no process could take the case".to_string(),
        ))
    }

    /// Sends one case and reads its answer; `Err` is a fault of the process, `Ok(Err)` a case it
    /// declined or failed by its own account. A late line of the case before (its `seq`) is that
    /// case's fault, and this case waits on for its own answer.
    fn exchange(
        &self,
        session: &mut Session,
        case: &Case,
        seq: u64,
    ) -> Result<Result<Vec<Value>, Failure>, Fault> {
        let deadline = Deadline::after(self.options.timeout);
        let request = json!({"type": "run", "seq": seq, "case": case.name(),
                             "operations": case.operations()});
        session.child.send(&request.to_string(), deadline)?;
        let (line, v) = loop {
            let line = session.child.receive(deadline)?;
            let v = parse_object(&line)?;
            match v.get("seq").and_then(Value::as_u64) {
                Some(s) if s == seq => break (line, v),
                Some(s) if s < seq && session.last_case.is_some() => {
                    self.late_fault(session, &line);
                }
                Some(s) => {
                    return Err(Fault::new(format!(
                        "answer for seq {s}, expected seq {seq}"
                    )));
                }
                None => {
                    let why = match v.get("seq") {
                        Some(other) => format!("`seq` must be a whole number, not {other}"),
                        None => "answer without seq".to_string(),
                    };
                    return Err(Fault::new(format!("{why}: {}", clip(&line, 300))));
                }
            }
        };
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match v.get("type").and_then(Value::as_str) {
            Some("results") => {
                let results = v
                    .get("results")
                    .and_then(Value::as_array)
                    .ok_or_else(|| Fault::new("`results` must be a list".to_string()))?;
                check_count(results, case)?;
                Ok(Ok(results.clone()))
            }
            Some("skipped") => Ok(Err(Failure::Skipped(text("reason")))),
            Some("errored") => Ok(Err(Failure::Errored {
                message: format!("the implementation reported an error: {}", text("message")),
                detail: text("traceback"),
            })),
            _ => Err(Fault::new(format!(
                "answer of unknown type: {}",
                clip(&line, 300)
            ))),
        }
    }

    fn run_per_case(&self, case: &Case) -> Result<Vec<Value>, Failure> {
        if let Some(not_run) = self.over_cap() {
            return Err(not_run);
        }
        // In per-case mode every case is a start; only a command that cannot be started at all
        // counts as a failed start.
        let mut child = match self.child(Reading::Whole) {
            Ok(child) => {
                self.failed_starts.store(0, Ordering::SeqCst);
                child
            }
            Err((fault, tail)) => {
                self.failed_starts.fetch_add(1, Ordering::SeqCst);
                return Err(self.errored(fault, tail));
            }
        };
        let outcome = per_case(&mut child, case, self.options.timeout);
        child.kill();
        outcome.map_err(|fault| self.errored(fault, child.stderr_tail()))
    }

    /// Stops every idle process: what one wrote after its last answer is that case's fault, one
    /// that does not exit within a second of `stop` is killed, and whatever any of them started
    /// is killed too.
    fn stop(&self) {
        let sessions: Vec<Session> = self
            .idle
            .lock()
            .map(|mut i| i.drain(..).collect())
            .unwrap_or_default();
        let mut stopping = Vec::new();
        for mut s in sessions {
            match s.child.leftover() {
                Leftover::Line(line) => {
                    s.child.kill();
                    self.late_fault(&s, &line);
                }
                Leftover::Closed => s.child.kill(),
                Leftover::Nothing => {
                    let deadline = Deadline::after(Duration::from_millis(200));
                    let _ = s.child.send(r#"{"type":"stop"}"#, deadline);
                    s.child.close_stdin();
                    stopping.push(s);
                }
            }
        }
        let deadline = Deadline::after(Duration::from_secs(1));
        for mut s in stopping {
            let _ = s.child.wait(deadline.left());
            if let Leftover::Line(line) = s.child.leftover() {
                self.late_fault(&s, &line);
            }
            s.child.kill();
        }
    }
}

impl Implementation for Subprocess {
    fn describe(&self) -> String {
        match &self.hello {
            // Whatever the handshake claims, a description is one readable line.
            Some(h) => {
                let field = |text: &str| crate::inert::clip(text, 1_000).into_owned();
                format!(
                    "{} ({} {}) via `{}`",
                    field(&h.name),
                    field(&h.language),
                    field(&h.version),
                    self.command
                )
            }
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
        if self.options.strict_numbers {
            Numbers::Spelling
        } else {
            self.declared_numbers()
        }
    }

    fn numbers_refused(&self) -> bool {
        self.options.strict_numbers && self.declared_numbers() == Numbers::Values
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

    fn finish(&self) -> Vec<(String, Failure)> {
        self.stop();
        self.late
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default()
    }
}

impl Subprocess {
    /// How it says its JSON reader sees numbers: the handshake, or the options in per-case mode.
    fn declared_numbers(&self) -> Numbers {
        match (&self.hello, self.options.per_case) {
            (Some(h), false) => h.numbers,
            _ => self.options.numbers,
        }
    }
}

impl Drop for Subprocess {
    fn drop(&mut self) {
        self.stop();
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
    let deadline = Deadline::after(timeout);
    // A process that exits at once closes its stdin before the hello arrives; its exit (read
    // below) says more than the failed write.
    let _ = child.send(
        &json!({"type": "hello", "protocol": PROTOCOL}).to_string(),
        deadline,
    );
    let line = child.receive(deadline)?;
    let v = parse_object(&line)?;
    let bad = |why: &str| Fault::new(format!("bad hello: {why}: {}", clip(&line, 300)));
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
                .ok_or_else(|| bad(&format!("unknown part {p} (parts are {})", Part::names())))
        })
        .collect::<Result<Vec<Part>, Fault>>()?;
    // Refused as an unknown part is: an implementation cannot offer a part without the parts
    // it builds on.
    Part::check_declared(&parts).map_err(|why| bad(&why))?;
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
        tells_where: v
            .get("where")
            .and_then(Value::as_str)
            .is_some_and(|w| w.eq_ignore_ascii_case("sigusr1")),
    })
}

fn per_case(child: &mut Child, case: &Case, timeout: Duration) -> Result<Vec<Value>, Fault> {
    let results = per_case_run(child, &case.operations(), timeout)?;
    check_count(&results, case)?;
    Ok(results)
}

/// One run in per-case mode: the operations on stdin, the results array from stdout.
fn per_case_run(child: &mut Child, ops: &[Value], timeout: Duration) -> Result<Vec<Value>, Fault> {
    let deadline = Deadline::after(timeout);
    let input = Value::Array(ops.to_vec()).to_string();
    // A process that exits without reading its input is judged by its output, not by the
    // failed write; one that neither reads nor exits has run out of time.
    if let Err(e) = child.send(&input, deadline)
        && e.is_timeout()
    {
        return Err(e.into());
    }
    child.close_stdin();
    let out = child.receive(deadline)?;
    if let Some(status) = child.wait(deadline.left())
        && !status.success()
    {
        return Err(Fault::new(format!(
            "the implementation exited ({})",
            child.describe_exit(status)
        )));
    }
    let results: Value = serde_json::from_str(&out).map_err(|e| {
        Fault::new(format!(
            "output is not JSON: {e}: {}",
            clip(out.trim(), 300)
        ))
    })?;
    match results {
        Value::Array(results) => Ok(results),
        _ => Err(Fault::new(format!(
            "output is not a JSON array: {}",
            clip(out.trim(), 300)
        ))),
    }
}

fn check_count(results: &[Value], case: &Case) -> Result<(), Fault> {
    if results.len() == case.steps.len() {
        Ok(())
    } else {
        Err(Fault::new(format!(
            "{} results for {} operations",
            results.len(),
            case.steps.len()
        )))
    }
}

fn parse_object(line: &str) -> Result<Value, Fault> {
    match serde_json::from_str::<Value>(line) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(Fault::new(format!(
            "answer is not a JSON object: {}",
            clip(line, 300)
        ))),
        Err(e) => Err(Fault::new(format!(
            "answer is not JSON ({e}): {}",
            clip(line, 300)
        ))),
    }
}

/// A runtime that reserves its memory at start (a JVM's heap, V8's) fails under the sandbox's
/// address-space limit before it can speak, often saying so on stdout, where the handshake reads:
/// the start error then names the limit and the flag that raises it.
fn memory_hint(error: &str, sandbox: Option<&super::sandbox::Sandbox>) -> String {
    let Some(sandbox) = sandbox else {
        return String::new();
    };
    let lower = error.to_ascii_lowercase();
    let signs = [
        "initialization of vm",
        "could not reserve",
        "reserve enough space",
        "out of memory",
        "cannot allocate memory",
        "memoryerror",
        "heap",
        "mmap",
    ];
    if !signs.iter().any(|s| lower.contains(s)) {
        return String::new();
    }
    format!(
        "\nunder --sandbox each process has {} MiB of address space (--sandbox-memory): a runtime \
         that reserves more at start (a JVM's heap, say) fails before its handshake; give a \
         larger --sandbox-memory (e.g. 8192) or a smaller heap (java -Xmx512m)",
        sandbox.memory_mib
    )
}
