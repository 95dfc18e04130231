//! `hookcheck fuzz` finds a bug the corpus misses (tests/fakes/subtle_bug.py: replay renumbers
//! revived events), shrinks it to a handful of operations, and the case file it writes fails that
//! implementation and passes the reference; the same seed gives the same result whatever --jobs.

use crate::common;

use hookcheck::case;
use hookcheck::compare::Scope;
use hookcheck::fuzz::{FuzzOptions, Report, fuzz};
use hookcheck::implementation::{Options, Reference, Subprocess};
use hookcheck::runner::{Verdict, check};
use std::time::Duration;

fn buggy() -> Subprocess {
    Subprocess::start(
        &common::python_impl("tests/fakes/subtle_bug.py"),
        Options::default(),
    )
}

fn run(jobs: usize) -> Report {
    let opts = FuzzOptions {
        seed: 3,
        cases: 30_000,
        max_ops: 40,
        time: None,
        jobs,
        shrink_time: Duration::from_secs(30),
        findings: 2,
        brief_only: false,
    };
    fuzz(&buggy(), &opts, &|_, _, _| {})
}

#[test]
fn finds_shrinks_and_writes_a_case_that_fails_the_bug() {
    let report = run(2);
    let finding = report.finding.expect("the subtle bug is found");
    assert!(
        finding.shrunk.len() <= 10,
        "shrunk to {} operations: {:?}",
        finding.shrunk.len(),
        finding.shrunk
    );
    let dir = common::scratch().join(format!("hookcheck-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("fuzz")).unwrap_or_default();
    let path = dir.join("fuzz").join("found.yaml");
    std::fs::write(&path, finding.case_file(3, "subtle_bug.py")).unwrap_or_default();
    let cases = case::load(&path, "fuzz").expect("the written case file loads");
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].recorded, Some(case::Recorded::Unreviewed));
    assert_eq!(check(&Reference, &cases[0], Scope::FULL), Verdict::Passed);
    assert!(matches!(
        check(&buggy(), &cases[0], Scope::FULL),
        Verdict::Failed(_)
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn same_seed_same_finding_whatever_the_jobs() {
    let one = run(1);
    let two = run(2);
    let (a, b) = (
        one.finding.expect("found with 1 job"),
        two.finding.expect("found with 2 jobs"),
    );
    assert_eq!(a.index, b.index);
    assert_eq!(a.original, b.original);
    assert_eq!(a.shrunk, b.shrunk);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn brief_mode_ignores_clarifications_but_not_brief_bugs() {
    let opts = |brief_only| FuzzOptions {
        seed: 1,
        cases: 3_000,
        max_ops: 40,
        time: None,
        jobs: 2,
        shrink_time: Duration::from_secs(30),
        findings: 1,
        brief_only,
    };
    let variant = || {
        Subprocess::start(
            &common::python_impl("tests/fakes/clarification_variant.py"),
            Options::default(),
        )
    };
    // Decides every clarification differently: nothing to report in brief mode...
    let brief = fuzz(&variant(), &opts(true), &|_, _, _| {});
    assert!(brief.finding.is_none(), "{}", brief.human(1, "variant"));
    assert_eq!(brief.cases_run, 3_000);
    // ...and quickly caught in full mode.
    assert!(
        fuzz(&variant(), &opts(false), &|_, _, _| {})
            .finding
            .is_some()
    );
    // A bug against the brief itself is still found in brief mode.
    let mut long = opts(true);
    long.seed = 3;
    long.cases = 30_000;
    let found = fuzz(&buggy(), &long, &|_, _, _| {})
        .finding
        .expect("found in brief mode");
    assert!(
        found
            .case_file(3, "subtle_bug.py")
            .contains("clarified: pause.results")
    );
}
