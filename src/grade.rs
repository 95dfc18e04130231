//! Many implementations, one run: every selected case on every implementation, `jobs` at a
//! time over all of them, each implementation with its own processes, restarts and faults (one
//! that hangs or crashes harms no other's results). What each case gave is kept, so it can be
//! judged in full and against the brief alone, and graded part by part in the brief's terms.

use crate::case::{Case, Origin, Part};
use crate::compare::{Numbers, Scope};
use crate::expect::Expectations;
use crate::fuzz::workloads::{Asked, Judging, Workloads};
use crate::implementation::{Failure, Implementation, Reference, Subprocess};
use crate::manifest::Entry;
use crate::progress::Progress;
use crate::runner::{Ran, Verdict, judge, run};
pub use crate::score::{Beyond, Grade, PARTS, Score};
use crate::score::{applies, passed};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

type Shared = Arc<dyn Implementation + Send + Sync>;

/// An implementation ready to take cases, and what it said of itself.
pub struct Started {
    implementation: Shared,
    pub describe: String,
    pub parts: Vec<Part>,
    pub numbers: Numbers,
    /// It declared `numbers: values` and `--numbers strict` refused it.
    pub numbers_refused: bool,
    /// A problem seen while starting that did not stop it (a handshake that failed once).
    pub warning: Option<String>,
}

/// Starts an entry's implementation; `Err` with one message when it cannot start at all.
pub fn start(entry: &Entry) -> Result<Started, String> {
    let implementation: Shared = match &entry.command {
        None => Arc::new(Reference),
        Some(command) => Arc::new(Subprocess::start_or_give_up(
            command,
            entry.options.clone(),
        )?),
    };
    Ok(Started {
        describe: implementation.describe(),
        parts: implementation.parts(),
        numbers: implementation.numbers(),
        numbers_refused: implementation.numbers_refused(),
        warning: implementation.warning(),
        implementation,
    })
}

/// One implementation's results.
#[derive(Clone)]
pub struct Graded {
    pub entry: Entry,
    /// How it described itself, or why it could not start.
    pub started: Result<StartedInfo, String>,
    /// What each case gave, in the order of the cases.
    pub ran: Vec<Ran>,
    /// The cases that timed out and then passed when run again alone: passes, counted apart.
    pub slow: Vec<bool>,
    /// What each case cost, in the order of the cases; empty when not measured.
    pub costs: Vec<Cost>,
    /// The cases that did not pass in an earlier run and passed when run again
    /// (`--rerun-failed`): passes, reported as flaky; empty when nothing was rerun.
    pub flaky: Vec<bool>,
    /// Its expectations (known failures), if it has some.
    pub expectations: Option<Expectations>,
    /// What the run compares: everything, or what the brief states (`--origin brief`). Every
    /// report judges in it, so they all tell the same verdicts.
    pub scope: Scope,
    /// The run's verdict on it (expectations, `--strict`, `--allow-skips` applied), once known.
    pub passed: bool,
    /// What it gave on the grader's hidden cases and generated workloads, graded apart from
    /// the public corpus (which `ran` covers alone once [`Graded::set_apart`] has run).
    pub apart: Apart,
}

/// An implementation's results apart from the public corpus: cases its author never saw.
#[derive(Clone, Default)]
pub struct Apart {
    /// The grader's hidden cases (`--hidden`), each judged as the public ones are.
    pub hidden: Vec<Outcome>,
    /// The generated workloads (`--generated`), when asked for.
    pub generated: Option<Workloads>,
}

/// A hidden case and what the implementation made of it.
#[derive(Clone)]
pub struct Outcome {
    pub case: Case,
    pub ran: Ran,
    pub verdict: Verdict,
}

impl Apart {
    /// The hidden cases' counts.
    pub fn hidden_tally(&self) -> crate::tally::Tally {
        let mut t = crate::tally::Tally::default();
        self.hidden.iter().for_each(|o| t.add(&o.verdict));
        t
    }

    /// Whether nothing apart fails: no hidden case fails, errors or is not run (nor skipped,
    /// unless `allow_skips`), and every generated workload ran and passed.
    pub fn success(&self, allow_skips: bool) -> bool {
        let t = self.hidden_tally();
        t.failed + t.errored + t.not_run == 0
            && (allow_skips || t.skipped == 0)
            && self.generated.as_ref().is_none_or(Workloads::success)
    }

    /// `hidden cases: X passed, Y failed`, the other counts after when there are any; `None`
    /// without hidden cases.
    pub fn hidden_line(&self) -> Option<String> {
        if self.hidden.is_empty() {
            return None;
        }
        let t = self.hidden_tally();
        let others: Vec<String> = [
            (t.errored, "errored"),
            (t.not_run, "not run"),
            (t.skipped, "skipped"),
            (t.not_applicable, "not applicable"),
            (t.expected_failures, "failed as expected"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        let others = if others.is_empty() {
            String::new()
        } else {
            format!(" ({})", others.join(", "))
        };
        Some(format!(
            "hidden cases: {} passed, {} failed{others}",
            t.passed + t.unexpected_passes,
            t.failed + t.errored + t.not_run + t.skipped
        ))
    }
}

/// What one case cost an implementation: the wall time spent on it (its run alone after a
/// timeout included) and what serving it took beyond one send ([`Effort`](crate::implementation::effort::Effort)).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    pub seconds: f64,
    pub restarts: u32,
    pub retries: u32,
}

impl Cost {
    fn add(&mut self, other: Cost) {
        self.seconds += other.seconds;
        self.restarts = self.restarts.saturating_add(other.restarts);
        self.retries = self.retries.saturating_add(other.retries);
    }
}

impl Graded {
    /// What case `i` cost; nothing when not measured (results read from an older bundle).
    pub fn cost(&self, i: usize) -> Cost {
        self.costs.get(i).copied().unwrap_or_default()
    }

    /// Whether case `i` did not pass in an earlier run and passed when rerun: a flaky pass.
    pub fn flaky_at(&self, i: usize) -> bool {
        self.flaky.get(i).copied().unwrap_or(false)
    }

    /// How long case `i` took, when it was measured.
    pub fn seconds(&self, i: usize) -> Option<f64> {
        self.costs.get(i).map(|c| c.seconds)
    }
}

/// What is kept of a started implementation once its processes are gone.
#[derive(Clone, Debug)]
pub struct StartedInfo {
    pub describe: String,
    pub parts: Vec<Part>,
    pub numbers: Numbers,
    pub numbers_refused: bool,
}

impl Graded {
    pub fn numbers(&self) -> Numbers {
        self.started
            .as_ref()
            .map_or(Numbers::Spelling, |s| s.numbers)
    }

    /// The verdicts in a scope, expectations applied.
    pub fn verdicts(&self, cases: &[Case], scope: Scope) -> Vec<Verdict> {
        let scope = scope.with_numbers(self.numbers());
        let verdicts: Vec<Verdict> = cases
            .iter()
            .zip(&self.ran)
            .map(|(c, r)| judge(c, r, scope))
            .collect();
        match &self.expectations {
            Some(e) => e.apply(cases, verdicts),
            None => verdicts,
        }
    }

    /// Moves the results of the cases from `public` on (the hidden ones, which follow the
    /// public cases in `cases`) into [`Apart::hidden`], judged with the expectations and scope
    /// set; `ran` and `slow` keep the public cases only.
    pub fn set_apart(&mut self, cases: &[Case], public: usize) {
        if cases.len() <= public || self.ran.len() != cases.len() {
            return;
        }
        let verdicts = self.judged(cases);
        let ran = self.ran.split_off(public);
        self.slow.truncate(public);
        self.costs.truncate(public);
        self.apart.hidden = cases[public..]
            .iter()
            .zip(ran)
            .zip(verdicts.into_iter().skip(public))
            .map(|((case, ran), verdict)| Outcome {
                case: case.clone(),
                ran,
                verdict,
            })
            .collect();
    }

    /// The verdicts in the run's scope, expectations applied: what every report shows.
    pub fn judged(&self, cases: &[Case]) -> Vec<Verdict> {
        self.verdicts(cases, self.scope)
    }

    /// Steps left out of the cases that apply to it, because their expectations depend on number
    /// spelling and it declared `numbers: values`.
    pub fn left_out(&self, cases: &[Case]) -> usize {
        self.started.as_ref().map_or(0, |s| {
            crate::runner::spelling_steps_of(&s.parts, s.numbers, cases)
        })
    }

    /// What the grade says first of how it reads numbers, when it matters: the steps left out
    /// (`left_out`, as [`Graded::left_out`] counts them), or a declaration refused.
    pub fn numbers_note(&self, left_out: usize) -> Option<String> {
        if left_out > 0 {
            Some(format!(
                "{} left out (it declares `numbers: values`; --numbers strict judges them)",
                crate::wording::count(left_out, "step", "steps")
            ))
        } else if self.started.as_ref().is_ok_and(|s| s.numbers_refused) {
            Some("declares `numbers: values`, refused: every step judged (--numbers strict)".into())
        } else {
            None
        }
    }

    /// Its line in the brief's terms (after the note on numbers, if any), or why it could not
    /// start.
    pub fn verdict_line(&self, grade: &Grade, left_out: usize) -> String {
        match &self.started {
            Ok(_) => match self.numbers_note(left_out) {
                Some(note) => format!("{note}; {}", grade.in_brief_terms()),
                None => grade.in_brief_terms(),
            },
            Err(e) => format!("could not start: {}", e.lines().next().unwrap_or("")),
        }
    }

    /// Part by part, how many cases passed of those that apply, in full and for the brief's own
    /// cases judged by the brief alone.
    pub fn grade(&self, cases: &[Case]) -> Grade {
        self.grade_from(cases, &self.judged(cases))
    }

    /// As [`Graded::grade`], from the verdicts in the run's scope already judged (`full`).
    pub fn grade_from(&self, cases: &[Case], full: &[Verdict]) -> Grade {
        let brief = self.verdicts(cases, Scope::BRIEF);
        let mut grade = Grade::default();
        if let Ok(info) = &self.started {
            grade.started = true;
            for (p, part) in Part::ALL.iter().enumerate() {
                grade.declared[p] = info.parts.contains(part);
            }
        }
        let required = &self.entry.options.require_parts;
        for (i, case) in cases.iter().enumerate() {
            let p = Part::ALL.iter().position(|p| *p == case.part).unwrap_or(0);
            // A part required and not declared is missing, not unknown: its cases, not run,
            // count as failed.
            if grade.started && !grade.declared[p] && required.contains(&case.part) {
                grade.full[p].total += 1;
                if case.origin == Origin::Brief {
                    grade.brief[p].total += 1;
                    grade.brief_failing[p].push(case.name());
                } else {
                    grade.beyond_brief.add(case.origin);
                }
                continue;
            }
            grade.full[p].count(&full[i]);
            let fails = |v: &Verdict| !passed(v) && applies(v) && !matches!(v, Verdict::NotRun(_));
            if case.origin == Origin::Brief {
                grade.brief[p].count(&brief[i]);
                if fails(&brief[i]) {
                    grade.brief_failing[p].push(case.name());
                } else if fails(&full[i]) {
                    grade.beyond_brief.clarification += 1;
                }
            } else if fails(&full[i]) {
                grade.beyond_brief.add(case.origin);
            }
        }
        // An implementation that could not start failed every case it was given: its score is
        // 0, not unknown. Only a started one's cases that never ran are counted apart.
        if !grade.started {
            for score in grade.full.iter_mut().chain(grade.brief.iter_mut()) {
                score.total += score.not_run;
                score.not_run = 0;
            }
        }
        grade
    }
}

/// What settles an implementation's results once its cases ran: the verdict every report then
/// tells is judged from these.
#[derive(Clone, Copy)]
pub struct Settling<'a> {
    /// Every case run, the public ones first.
    pub cases: &'a [Case],
    /// How many of `cases` are public; the rest are the grader's hidden cases.
    pub public: usize,
    /// What the run compares.
    pub scope: Scope,
    /// The generated workloads asked for (`--generated`), and how they are judged.
    pub generated: Option<(Asked, Judging)>,
    /// Whether a line on the terminal says that the workloads run.
    pub progress: bool,
}

impl Graded {
    /// Sets its expectations and the run's scope, moves its hidden cases' results apart and
    /// runs the generated workloads when asked for: once per implementation, they take time.
    pub fn settle(&mut self, expectations: Option<Expectations>, how: Settling) {
        self.expectations = expectations;
        self.scope = how.scope;
        self.set_apart(how.cases, how.public);
        if let Some((asked, judging)) = how.generated {
            self.run_generated(asked, judging, how.progress);
        }
    }

    /// Runs the generated workloads on its implementation, once its cases ran; one that could
    /// not start runs none.
    fn run_generated(&mut self, asked: Asked, judging: Judging, progress: bool) {
        // The run's progress line is gone by now: one line of its own while the workloads run.
        if progress {
            eprint!(
                "\r\x1b[Khookcheck: {} generated workloads on {}…",
                asked.count,
                crate::inert::terminal_line(&crate::inert::clip(&self.entry.name, 60))
            );
        }
        let interrupted = crate::implementation::interrupt::reason();
        let not_run = |why: String| Workloads {
            asked,
            run: 0,
            failures: Vec::new(),
            stopped: Some(why),
        };
        self.apart.generated = Some(match (&self.started, interrupted) {
            // After Ctrl-C nothing more starts: every workload is not run.
            (Ok(_), Some(why)) => not_run(why),
            (Ok(_), None) => generate(&self.entry, asked, judging),
            (Err(_), _) => not_run("the implementation could not start".to_string()),
        });
        if progress {
            eprint!("\r\x1b[K");
        }
    }
}

/// Runs the generated workloads on a fresh start of `entry`'s implementation, then ends its
/// processes. One that cannot start runs none: every workload is reported not run.
pub fn generate(entry: &Entry, asked: Asked, judging: Judging) -> Workloads {
    match start(entry) {
        Ok(started) => {
            let workloads =
                crate::fuzz::workloads::run(started.implementation.as_ref(), asked, judging);
            // A late fault (a second answer) is not told apart here: the workload already ran.
            let _ = started.implementation.finish();
            workloads
        }
        Err(why) => Workloads {
            asked,
            run: 0,
            failures: Vec::new(),
            stopped: Some(format!(
                "could not start: {}",
                why.lines().next().unwrap_or("")
            )),
        },
    }
}

/// Where one implementation stands during the run.
struct Slot {
    entry: Entry,
    started: OnceLock<Result<StartedInfo, String>>,
    live: Mutex<Option<Shared>>,
    remaining: AtomicUsize,
    ran: Mutex<Vec<Option<Ran>>>,
    costs: Mutex<Vec<Cost>>,
}

impl Slot {
    fn new(entry: Entry, cases: usize, started: Option<Started>) -> Slot {
        let slot = Slot {
            entry,
            started: OnceLock::new(),
            live: Mutex::new(None),
            remaining: AtomicUsize::new(cases),
            ran: Mutex::new(vec![None; cases]),
            costs: Mutex::new(vec![Cost::default(); cases]),
        };
        if let Some(s) = started {
            slot.keep(s);
        }
        slot
    }

    fn keep(&self, s: Started) {
        let _ = self.started.set(Ok(self.hold(s)));
    }

    /// Holds the processes of a started implementation; returns what is kept of it after.
    fn hold(&self, s: Started) -> StartedInfo {
        if let Ok(mut live) = self.live.lock() {
            *live = Some(s.implementation);
        }
        StartedInfo {
            describe: s.describe,
            parts: s.parts,
            numbers: s.numbers,
            numbers_refused: s.numbers_refused,
        }
    }

    /// The implementation, started on first use; `Err` when it cannot start.
    fn implementation(&self) -> Result<Shared, String> {
        self.started
            .get_or_init(|| start(&self.entry).map(|s| self.hold(s)))
            .clone()?;
        self.live
            .lock()
            .ok()
            .and_then(|l| l.clone())
            .ok_or_else(|| "the implementation was stopped".to_string())
    }

    /// Runs one case: not applicable for a part not declared, unless the part is required.
    fn run(&self, case: &Case) -> Ran {
        let implementation = match self.implementation() {
            Ok(implementation) => implementation,
            Err(e) => return Ran::Failed(Failure::NotRun(e)),
        };
        let required = &self.entry.options.require_parts;
        if required.contains(&case.part) && !implementation.parts().contains(&case.part) {
            return Ran::Failed(Failure::NotRun(format!(
                "part `{}` is required (--require-parts) and the implementation does not \
                 declare it",
                case.part.as_str()
            )));
        }
        run(implementation.as_ref(), case)
    }

    /// Runs one case as [`Slot::run`] does, and what it cost.
    fn measured(&self, case: &Case) -> (Ran, Cost) {
        crate::implementation::effort::take();
        let began = std::time::Instant::now();
        let ran = self.run(case);
        let effort = crate::implementation::effort::take();
        let cost = Cost {
            seconds: began.elapsed().as_secs_f64(),
            restarts: effort.restarts,
            retries: effort.retries,
        };
        (ran, cost)
    }

    fn add_cost(&self, case: usize, cost: Cost) {
        if let Ok(mut all) = self.costs.lock()
            && let Some(slot) = all.get_mut(case)
        {
            slot.add(cost);
        }
    }

    fn record(&self, case: usize, ran: Ran) {
        if let Ok(mut all) = self.ran.lock()
            && let Some(slot) = all.get_mut(case)
        {
            *slot = Some(ran);
        }
    }

    /// Records a case's result; after its last case the implementation's processes stop, and
    /// `true` says so.
    fn done(&self, cases: &[Case], case: usize, ran: Ran, cost: Cost) -> bool {
        self.record(case, ran);
        self.add_cost(case, cost);
        let last = self.remaining.fetch_sub(1, Ordering::SeqCst) == 1;
        if last {
            let live = self.live.lock().ok().and_then(|mut l| l.take());
            if let Some(implementation) = live {
                self.blame(cases, implementation.finish());
            }
        }
        last
    }

    /// Faults found after a case was answered replace its results.
    fn blame(&self, cases: &[Case], late: Vec<(String, Failure)>) {
        for (name, failure) in late {
            if let Some(i) = cases.iter().position(|c| c.name() == name) {
                self.record(i, Ran::Failed(failure));
            }
        }
    }

    /// What the slot holds, as results: a case never recorded counts as not run.
    fn graded(&self, slow: Vec<bool>) -> Graded {
        let ran = self.ran.lock().map_or_else(
            |_| Vec::new(),
            |ran| {
                ran.iter()
                    .map(|r| {
                        r.clone()
                            .unwrap_or(Ran::Failed(Failure::NotRun("not run".into())))
                    })
                    .collect()
            },
        );
        Graded {
            entry: self.entry.clone(),
            started: self
                .started
                .get()
                .cloned()
                .unwrap_or(Err("no case was run".to_string())),
            ran,
            slow,
            costs: self.costs.lock().map_or_else(|_| Vec::new(), |c| c.clone()),
            flaky: Vec::new(),
            expectations: None,
            scope: Scope::FULL,
            passed: false,
            apart: Apart::default(),
        }
    }

    fn get(&self, case: usize) -> Option<Ran> {
        self.ran
            .lock()
            .ok()
            .and_then(|r| r.get(case).cloned().flatten())
    }

    /// The cases that timed out.
    fn timed_out(&self) -> Vec<usize> {
        self.ran.lock().map_or_else(
            |_| Vec::new(),
            |ran| {
                ran.iter()
                    .enumerate()
                    .filter(|(_, r)| matches!(r, Some(Ran::Failed(Failure::TimedOut { .. }))))
                    .map(|(i, _)| i)
                    .collect()
            },
        )
    }
}

/// How many timeouts of one implementation, confirmed in a row when run alone, show that it
/// hangs: its other timeouts are then not run again (each would cost a whole timeout).
const CONFIRMED_HANGS: usize = 3;

/// Runs every case on every entry with `jobs` workers. An entry may come started already
/// (the caller printed its handshake); the others start on first use. Cases are taken one
/// implementation after the other, so at most `jobs` implementations have processes at once.
/// A case that timed out is run once more, alone, once all the others are done: overload is not
/// failure, and a pass the second time is a pass marked slow.
pub fn run_all(entries: Vec<(Entry, Option<Started>)>, cases: &[Case], jobs: usize) -> Vec<Graded> {
    run_all_with(entries, cases, jobs, &Progress::default())
}

/// As [`run_all`], counting what is done in `progress` as it goes.
pub fn run_all_with(
    entries: Vec<(Entry, Option<Started>)>,
    cases: &[Case],
    jobs: usize,
    progress: &Progress,
) -> Vec<Graded> {
    run_all_streaming(entries, cases, jobs, progress, &|_, _| {})
}

/// As [`run_all_with`], also handing each implementation's results to `finished` (with its
/// index among `entries`) once they are final, while the others run on: at its last case when
/// none of its cases timed out, else after its timeouts were run again alone at the end. Called
/// once per implementation, from the worker threads; expectations and scope are the caller's.
pub fn run_all_streaming(
    entries: Vec<(Entry, Option<Started>)>,
    cases: &[Case],
    jobs: usize,
    progress: &Progress,
    finished: &(dyn Fn(usize, Graded) + Sync),
) -> Vec<Graded> {
    let slots: Vec<Slot> = entries
        .into_iter()
        .map(|(entry, started)| Slot::new(entry, cases.len(), started))
        .collect();
    let total = slots.len() * cases.len();
    progress.total.store(total, Ordering::Relaxed);
    progress
        .implementations
        .store(slots.len(), Ordering::Relaxed);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(total.max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= total {
                        break;
                    }
                    let (slot, case) = (&slots[i / cases.len()], i % cases.len());
                    let (ran, cost) = slot.measured(&cases[case]);
                    if !judge(&cases[case], &ran, Scope::FULL).is_success() {
                        progress.failing.fetch_add(1, Ordering::Relaxed);
                    }
                    progress.done.fetch_add(1, Ordering::Relaxed);
                    if slot.done(cases, case, ran, cost) {
                        progress.finished.fetch_add(1, Ordering::Relaxed);
                        // Its timeouts are run again at the end, which may change their verdicts.
                        if slot.timed_out().is_empty() {
                            finished(i / cases.len(), slot.graded(vec![false; cases.len()]));
                        }
                    }
                }
            });
        }
    });
    slots
        .iter()
        .enumerate()
        .map(|(i, slot)| {
            if slot.timed_out().is_empty() {
                return slot.graded(vec![false; cases.len()]);
            }
            let graded = slot.graded(rerun_alone(slot, cases));
            finished(i, graded.clone());
            graded
        })
        .collect()
}

/// Runs the slot's timed-out cases again, one at a time, on a fresh start of the
/// implementation; returns which cases passed that way (slow).
fn rerun_alone(slot: &Slot, cases: &[Case]) -> Vec<bool> {
    let mut slow = vec![false; cases.len()];
    let timed_out = slot.timed_out();
    if timed_out.is_empty() || crate::implementation::interrupt::reason().is_some() {
        return slow;
    }
    let Ok(started) = start(&slot.entry) else {
        return slow;
    };
    let rerun = Slot::new(slot.entry.clone(), cases.len(), Some(started));
    let mut hangs = 0;
    for &i in &timed_out {
        if crate::implementation::interrupt::reason().is_some() {
            break;
        }
        if hangs >= CONFIRMED_HANGS {
            if let Some(Ran::Failed(Failure::TimedOut { message, detail })) = slot.get(i) {
                slot.record(
                    i,
                    Ran::Failed(Failure::Errored {
                        message: format!(
                            "{message} (not run again alone: {CONFIRMED_HANGS} other timeouts \
                             of this implementation were confirmed that way)"
                        ),
                        detail,
                    }),
                );
            }
            continue;
        }
        let (ran, mut cost) = rerun.measured(&cases[i]);
        cost.retries = cost.retries.saturating_add(1);
        slot.add_cost(i, cost);
        match ran {
            Ran::Failed(Failure::TimedOut { message, detail }) => {
                hangs += 1;
                slot.record(
                    i,
                    Ran::Failed(Failure::Errored {
                        message: format!("{message}, also when run again alone"),
                        detail,
                    }),
                );
            }
            ran => {
                hangs = 0;
                slow[i] = matches!(ran, Ran::Results(_));
                slot.record(i, ran);
            }
        }
    }
    if let Some(implementation) = rerun.live.lock().ok().and_then(|mut l| l.take()) {
        slot.blame(cases, implementation.finish());
    }
    slow
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Corpus;

    #[test]
    fn the_reference_and_a_dead_command_are_graded_side_by_side() {
        let cases: Vec<Case> = Corpus::builtin().cases;
        let dead = Entry {
            name: "dead".into(),
            command: Some("exit 3".into()),
            ..Entry::reference()
        };
        let graded = run_all(vec![(Entry::reference(), None), (dead, None)], &cases, 2);
        let reference = graded[0].grade(&cases);
        assert!(reference.all_passed(), "{reference:?}");
        // Every part passed; one the corpus holds no brief case of yet is not checked.
        let expected: Vec<String> = Part::ALL
            .iter()
            .map(|p| {
                let any = cases
                    .iter()
                    .any(|c| c.part == *p && c.origin == Origin::Brief);
                let word = if any { "passed" } else { "not checked" };
                format!("Part {} {word}", p.number())
            })
            .collect();
        assert!(expected[0].ends_with("passed") && expected.len() == PARTS);
        assert_eq!(reference.in_brief_terms(), expected.join(", "));
        assert_eq!(reference.declared, [true; PARTS]);
        let brief_retries = cases
            .iter()
            .filter(|c| c.part == Part::Retries && c.origin == Origin::Brief)
            // A case for implementations without a part the reference offers does not count.
            .filter(|c| c.inapplicable(&Part::ALL).is_none())
            .count();
        assert_eq!(reference.brief[0].total, brief_retries);
        assert!(reference.full[0].total > reference.brief[0].total);
        assert!(
            graded[1]
                .started
                .as_ref()
                .is_err_and(|e| e.contains("exit status: 3"))
        );
        let verdicts = graded[1].verdicts(&cases, Scope::FULL);
        assert!(
            verdicts
                .iter()
                .all(|v| matches!(v, Verdict::NotRun(m) if m.contains("cannot start")))
        );
        assert_eq!(graded[1].grade(&cases).full[2].passed, 0);
    }

    #[test]
    fn each_implementation_is_handed_over_once_with_its_final_results() {
        let cases: Vec<Case> = Corpus::builtin().cases.into_iter().take(6).collect();
        let dead = Entry {
            name: "dead".into(),
            command: Some("exit 3".into()),
            ..Entry::reference()
        };
        let seen = Mutex::new(Vec::new());
        let graded = run_all_streaming(
            vec![(Entry::reference(), None), (dead, None)],
            &cases,
            2,
            &Progress::default(),
            &|i, g| {
                seen.lock()
                    .expect("not poisoned")
                    .push((i, g.ran, g.started.is_ok()))
            },
        );
        let mut seen = seen.into_inner().expect("not poisoned");
        seen.sort_by_key(|(i, _, _)| *i);
        assert_eq!(seen.len(), 2, "one hand-over per implementation");
        for ((i, ran, started), g) in seen.iter().zip(&graded) {
            assert_eq!(
                ran, &g.ran,
                "implementation {i}: what was streamed is what is returned"
            );
            assert_eq!(*started, g.started.is_ok());
        }
        assert!(seen[0].2 && !seen[1].2);
    }
}
