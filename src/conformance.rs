//! The corpus as a Rust implementation's own tests: hand hookcheck your `run` (the brief's JSON
//! contract) and every case becomes a libtest-mimic trial of your `cargo test`, run in process,
//! failing with the same file:line diff as `hookcheck check`.
//!
//! In the implementation's `Cargo.toml`:
//!
//! ```toml
//! [dev-dependencies]
//! hookcheck = { path = "../hookcheck" }   # or a git or registry source
//!
//! [[test]]
//! name = "conformance"
//! harness = false
//! ```
//!
//! and `tests/conformance.rs`:
//!
//! ```no_run
//! # mod my_dispatcher { pub fn run(_: &[serde_json::Value]) -> Vec<serde_json::Value> { vec![] } }
//! fn main() -> std::process::ExitCode {
//!     hookcheck::conformance::Suite::new(my_dispatcher::run).run()
//! }
//! ```
//!
//! `cargo test --test conformance -- ordering::` runs the ordering cases; `--list` lists them.
//! Cases of parts not declared ([`Suite::parts`]; the brief's three by default) are listed as
//! ignored; a case for implementations without a part that is declared (its `without` list) is
//! ignored when it runs, with the reason.

use crate::case::Case;
use crate::corpus::{Corpus, Sources, problems};
use crate::grade::{Graded, StartedInfo};
use crate::implementation::{Failure, Implementation};
use crate::report::about_plain;
use crate::runner::{Ran, Selection, Verdict, judge, run};
// What the builder takes, here for `use hookcheck::conformance::{Numbers, Part, Suite}`.
pub use crate::case::Part;
pub use crate::compare::Numbers;
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

type RunFn = dyn Fn(&[Value]) -> Vec<Value> + Send + Sync;

/// An implementation of the brief's `run(operations)` in this process.
pub struct InProcess {
    run: Arc<RunFn>,
    name: String,
    parts: Vec<Part>,
    numbers: Numbers,
}

impl InProcess {
    /// An implementation of the brief's three parts (what one that declares nothing offers).
    pub fn new(name: &str, run: impl Fn(&[Value]) -> Vec<Value> + Send + Sync + 'static) -> Self {
        InProcess {
            run: Arc::new(run),
            name: name.to_string(),
            parts: Part::BRIEF.to_vec(),
            numbers: Numbers::Spelling,
        }
    }

    /// The same, offering `parts` instead.
    pub fn with_parts(mut self, parts: &[Part]) -> Self {
        self.parts = parts.to_vec();
        self
    }
}

impl Implementation for InProcess {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn parts(&self) -> Vec<Part> {
        self.parts.clone()
    }

    fn numbers(&self) -> Numbers {
        self.numbers
    }

    /// A panic in `run` errors the case (with the panic's message), as an exception does for an
    /// implementation in another language; the other cases go on.
    fn run(&self, case: &Case) -> Result<Vec<Value>, Failure> {
        let operations = case.operations();
        let run = Arc::clone(&self.run);
        let results = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&operations)))
            .map_err(|payload| Failure::Errored {
            message: format!("run panicked: {}", panic_message(payload.as_ref())),
            detail: String::new(),
        })?;
        if results.len() != operations.len() {
            return Err(Failure::Errored {
                message: format!(
                    "{} results for {} operations",
                    results.len(),
                    operations.len()
                ),
                detail: String::new(),
            });
        }
        Ok(results)
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic without a message)".to_string())
}

/// The cases to run on one implementation, as libtest-mimic trials.
pub struct Suite {
    implementation: InProcess,
    sources: Sources,
    selection: Selection,
}

impl Suite {
    /// Every built-in case against `run`, which offers the brief's three parts unless
    /// [`Suite::parts`] says otherwise.
    pub fn new(run: impl Fn(&[Value]) -> Vec<Value> + Send + Sync + 'static) -> Suite {
        Suite {
            implementation: InProcess::new("the implementation under test", run),
            sources: Sources::default(),
            selection: Selection::default(),
        }
    }

    /// The parts implemented (the brief's three by default); cases of the others are ignored.
    /// A part without one it builds on (`RetryAfter` without `Policy`) is refused: the trials
    /// are then one failing trial that says what is missing.
    pub fn parts(mut self, parts: &[Part]) -> Suite {
        self.implementation.parts = parts.to_vec();
        self
    }

    /// How `run`'s caller reads numbers: [`Numbers::Values`] leaves out the steps whose
    /// expectations depend on number spelling (serde_json keeps spelling with the
    /// `arbitrary_precision` feature).
    pub fn numbers(mut self, numbers: Numbers) -> Suite {
        self.implementation.numbers = numbers;
        self
    }

    /// Adds a folder of one's own case files (`spec/case-format.md`), checked like the corpus.
    pub fn cases(mut self, folder: impl Into<PathBuf>) -> Suite {
        self.sources.folders.push(folder.into());
        self
    }

    /// Runs only the `cases` folders, not the built-in corpus.
    pub fn without_builtin(mut self) -> Suite {
        self.sources.builtin = false;
        self
    }

    /// Only what the brief states, exactly as `hookcheck check --origin brief`: the brief's own
    /// cases run (the others are listed as ignored), and steps whose results a clarification
    /// fixes are not compared.
    pub fn brief_only(mut self) -> Suite {
        self.selection = Selection::brief();
        self
    }

    /// One trial per case, `<suite>::<id>`, and one (`corpus::load`) that fails if a case file
    /// does not load or breaks the corpus's rules.
    pub fn trials(self) -> Vec<Trial> {
        self.recorded_trials(&Arc::new(Mutex::new(Vec::new())))
    }

    /// The trials, each also keeping what its case gave in `ran`, for the grade at the end.
    fn recorded_trials(self, ran: &Recorded) -> Vec<Trial> {
        let corpus = Corpus::gather(&self.sources);
        let implementation = Arc::new(self.implementation);
        let selection = self.selection;
        let scope = selection.scope();
        let mut found: Vec<String> = corpus.errors.iter().map(ToString::to_string).collect();
        found.extend(problems(&corpus.cases, &crate::spec::rules()));
        let mut trials = vec![Trial::test("corpus::load", move || {
            if found.is_empty() {
                Ok(())
            } else {
                Err(found.join("\n").into())
            }
        })];
        let parts = implementation.parts();
        // A declaration that does not hold together is refused, as `hookcheck check` refuses it:
        // no case is run on it.
        if let Err(why) = Part::check_declared(&parts) {
            trials.push(Trial::test("suite::parts", move || {
                Err(format!("Suite::parts: {why}").into())
            }));
            return trials;
        }
        trials.extend(corpus.cases.into_iter().map(|case| {
            let applicable = parts.contains(&case.part) && selection.matches(&case);
            let implementation = Arc::clone(&implementation);
            let record = Arc::clone(ran);
            Trial::ignorable_test(case.name(), move || {
                let outcome = run(implementation.as_ref(), &case);
                let verdict = judge(
                    &case,
                    &outcome,
                    scope.with_numbers(implementation.numbers()),
                );
                let about = matches!(verdict, Verdict::Failed(_) | Verdict::Errored(_))
                    .then(|| about_plain(&case));
                if let Ok(mut kept) = record.lock() {
                    kept.push((case, outcome));
                }
                completion(verdict).map_err(|failed| match about {
                    // Where the case comes from and what it checks, as `hookcheck check` says.
                    Some(about) => {
                        format!("{about}{}", failed.message().unwrap_or("(no report)")).into()
                    }
                    None => failed,
                })
            })
            .with_ignored_flag(!applicable)
        }));
        trials
    }

    /// Runs the trials with the test binary's arguments (`--list`, filters, `--exact`...), then
    /// prints the grade of the cases that ran in the brief's terms, as `hookcheck check` ends.
    pub fn run(self) -> ExitCode {
        let ran: Recorded = Arc::new(Mutex::new(Vec::new()));
        let describe = self.implementation.describe();
        let declared = self.implementation.parts();
        let numbers = self.implementation.numbers();
        let scope = self.selection.scope();
        let conclusion = libtest_mimic::run(&Arguments::from_args(), self.recorded_trials(&ran));
        let mut kept = ran
            .lock()
            .map(|mut k| std::mem::take(&mut *k))
            .unwrap_or_default();
        if !kept.is_empty() {
            kept.sort_by_key(|(case, _)| case.name());
            let (cases, ran): (Vec<Case>, Vec<Ran>) = kept.into_iter().unzip();
            let graded = Graded {
                entry: crate::manifest::Entry {
                    name: describe.clone(),
                    ..crate::manifest::Entry::reference()
                },
                started: Ok(StartedInfo {
                    describe,
                    parts: declared,
                    numbers,
                    numbers_refused: false,
                }),
                slow: vec![false; cases.len()],
                costs: Vec::new(),
                flaky: Vec::new(),
                ran,
                expectations: None,
                scope,
                passed: conclusion.num_failed == 0,
                apart: Default::default(),
            };
            let grade = graded.grade(&cases);
            println!(
                "in the brief's terms ({} cases that ran): {}",
                cases.len(),
                grade.in_brief_terms()
            );
        }
        conclusion.exit_code()
    }
}

/// What each case that ran gave, kept by its trial.
type Recorded = Arc<Mutex<Vec<(Case, Ran)>>>;

/// A verdict as a trial's result: the failure report, or why the case errored.
pub fn outcome(verdict: Verdict) -> Result<(), Failed> {
    completion(verdict).map(|_| ())
}

/// A verdict as the result of an ignorable trial: as [`outcome`], and a case that turned out
/// not to apply (a part the implementation declares is in its `without` list) is ignored with
/// the reason, so the test run shows why it did not count.
pub fn completion(verdict: Verdict) -> Result<Completion, Failed> {
    match verdict {
        Verdict::NotApplicable(why) => Ok(Completion::ignored_with(why)),
        Verdict::Passed
        | Verdict::Skipped(_)
        | Verdict::ExpectedFailure { .. }
        | Verdict::UnexpectedPass { .. } => Ok(Completion::Completed),
        Verdict::Failed(report) => Err(report.into()),
        Verdict::Errored(message) | Verdict::NotRun(message) => Err(message.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Scope;
    use crate::runner::check;

    fn case(id: &str) -> Case {
        Corpus::builtin()
            .cases
            .into_iter()
            .find(|c| c.id == id)
            .expect("a built-in case")
    }

    #[test]
    fn one_trial_per_case_and_the_reference_passes_them() {
        let corpus = Corpus::builtin();
        let trials = Suite::new(crate::ops::run).trials();
        assert_eq!(trials.len(), corpus.cases.len() + 1);
        assert_eq!(trials[1].name(), corpus.cases[0].name());
        let reference = InProcess::new("reference", crate::ops::run).with_parts(&Part::ALL);
        for c in &corpus.cases {
            assert!(
                outcome(check(&reference, c, Scope::FULL)).is_ok(),
                "{}",
                c.name()
            );
        }
    }

    #[test]
    fn a_wrong_run_fails_with_the_diff_and_a_panic_errors_its_case() {
        // A 60-second first wait instead of 30.
        let late = InProcess::new("late", |ops: &[Value]| {
            let text = Value::Array(crate::ops::run(ops)).to_string();
            match serde_json::from_str::<Value>(&text.replace("retry at 30\"", "retry at 60\"")) {
                Ok(Value::Array(results)) => results,
                _ => Vec::new(),
            }
        });
        let failed = outcome(check(
            &late,
            &case("ticket-first-retry-a-minute-late"),
            Scope::FULL,
        ));
        let report = failed
            .err()
            .and_then(|f| f.message().map(str::to_string))
            .unwrap_or_default();
        assert!(
            report.starts_with("cases/regressions/brief-part1-complaints.yaml:")
                && report.contains("+#3 "),
            "{report}"
        );
        let panicking = InProcess::new("panicking", |ops: &[Value]| {
            assert!(!ops.iter().any(|o| o[0] == "frobnicate"), "frobnicate!");
            crate::ops::run(ops)
        });
        match check(
            &panicking,
            &case("errors-unknown-name-wins-over-arguments"),
            Scope::FULL,
        ) {
            Verdict::Errored(m) => assert!(m.contains("run panicked: frobnicate!"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            check(
                &panicking,
                &case("ticket-first-retry-a-minute-late"),
                Scope::FULL
            ),
            Verdict::Passed
        );
        let short = InProcess::new("short", |ops: &[Value]| crate::ops::run(&ops[1..]));
        assert!(matches!(
            check(&short, &case("ticket-first-retry-a-minute-late"), Scope::FULL),
            Verdict::Errored(m) if m.contains("results for")
        ));
    }

    /// Runs the one trial named `name` of `trials`, as `cargo test -- --exact name` would.
    fn run_one(trials: Vec<Trial>, name: &str) -> libtest_mimic::Conclusion {
        let args = Arguments {
            filter: Some(name.to_string()),
            exact: true,
            quiet: true,
            test_threads: Some(1),
            ..Arguments::default()
        };
        libtest_mimic::run(&args, trials)
    }

    #[test]
    #[ignore = "slow: .ci/run runs it with --ignored"]
    fn a_case_without_a_declared_part_is_ignored_with_the_reason_and_run_otherwise() {
        let name = "errors::errors-outcomes-objects-without-part-5";
        // Stands for an implementation of the brief: what it answers is what the case expects.
        let expected: Vec<Value> = case("errors-outcomes-objects-without-part-5")
            .steps
            .iter()
            .map(|s| s.expect.clone())
            .collect();
        let answers = expected.clone();
        let brief = Suite::new(move |_: &[Value]| answers.clone());
        let ran = run_one(brief.trials(), name);
        assert_eq!((ran.num_passed, ran.num_ignored), (1, 0));
        // Offering Part 5, the same implementation is not sent the case: ignored, not passed.
        let all = Suite::new(move |_: &[Value]| expected.clone()).parts(&Part::ALL);
        let ignored = run_one(all.trials(), name);
        assert_eq!((ignored.num_passed, ignored.num_ignored), (0, 1));
        assert_eq!(ignored.num_failed, 0);
        // The reason the trial is ignored with.
        let reference = InProcess::new("reference", crate::ops::run).with_parts(&Part::ALL);
        match completion(check(
            &reference,
            &case("errors-outcomes-objects-without-part-5"),
            Scope::FULL,
        )) {
            Ok(Completion::Ignored {
                reason: Some(reason),
            }) => assert!(
                reason.contains("without part `retry-after` (Part 5)"),
                "{reason}"
            ),
            _ => panic!("not ignored with a reason"),
        }
    }

    #[test]
    fn a_declaration_without_a_part_it_builds_on_is_one_failing_trial() {
        let trials = Suite::new(crate::ops::run)
            .parts(&[Part::Retries, Part::RetryAfter])
            .trials();
        let names: Vec<&str> = trials.iter().map(Trial::name).collect();
        // Not run here: a failing trial's report would read as a failure of this test.
        assert_eq!(names, ["corpus::load", "suite::parts"]);
    }

    #[test]
    fn undeclared_parts_are_ignored_and_values_skip_spelling_steps() {
        let trials = Suite::new(crate::ops::run).parts(&[Part::Retries]).trials();
        let ignored = trials.iter().filter(|t| t.has_ignored_flag()).count();
        let not_retries = Corpus::builtin()
            .cases
            .iter()
            .filter(|c| c.part != Part::Retries)
            .count();
        assert_eq!(ignored, not_retries);
        // The reference sees spelling; told it reads values, it is still right on the rest.
        let mut values = InProcess::new("values", crate::ops::run);
        values.numbers = Numbers::Values;
        let c = case("errors-ts-bool-and-whole-floats");
        assert!(c.steps.iter().any(|s| s.spelling));
        assert_eq!(check(&values, &c, Scope::FULL), Verdict::Passed);
    }
}
