//! What a user is told around the verdicts: where failures come from (brief, clarification,
//! regression), advice that selects what it says when run as written, and cases that never ran
//! counted as not run, never as failing.

use crate::common;

use common::{hookcheck, root, text};
use std::time::Duration;

fn fake(fault: &str, pattern: &str) -> String {
    format!(
        "FAKE_PARTS=retries,ordering,pause python3 {} {fault} {pattern}",
        root().join("tests/fakes/fake_impl.py").display()
    )
}

/// The line of the human summary that starts with `prefix`.
fn line<'a>(report: &'a str, prefix: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?}:\n{report}"))
}

/// Before, failing regression cases were "failing with clarifications", and the advice to run
/// `--origin brief` was given also to a run of regression cases alone, where it selects nothing.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn failing_regression_cases_are_called_regressions_and_the_advice_selects_something() {
    let dir = common::fresh("origins-regressions");
    let command = fake("wrong-count", "ticket-");
    let full = hookcheck(&dir, &["check", "--color", "never", "--impl", &command]);
    let report = text(&full);
    assert_eq!(full.status.code(), Some(1), "{report}");
    let terms = line(&report, "in the brief's terms:");
    assert!(
        terms.ends_with("; and failing beyond the brief: 2 regression cases"),
        "{terms}"
    );
    assert!(!report.contains("clarification"), "{report}");
    let note = line(&report, "every failure is beyond what the brief states");
    assert!(note.contains("2 regression cases"), "{note}");
    assert!(note.contains("`--origin brief`"), "{note}");
    // The advice, run as written, selects the brief's cases, and they pass.
    let advised = hookcheck(
        &dir,
        &[
            "check", "--color", "never", "--impl", &command, "--origin", "brief",
        ],
    );
    assert_eq!(advised.status.code(), Some(0), "{}", text(&advised));
    // A run of the regression cases alone holds no brief case: no advice to select them.
    let only = hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--impl",
            &command,
            "--origin",
            "regression",
        ],
    );
    let report = text(&only);
    assert_eq!(only.status.code(), Some(1), "{report}");
    assert!(!report.contains("--origin brief"), "{report}");
    let terms = line(&report, "in the brief's terms:");
    // Part 1's regression cases ran: not "not checked".
    assert!(
        terms.contains("Part 1: only cases beyond the brief ran (0/2 passed)"),
        "{terms}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, after Ctrl-C the cases that never ran were counted as failing, and the roadmap's
/// parts, which the implementation does not declare, read "Part 4: 27 of 27 cases fail".
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn an_interrupted_run_counts_cases_not_run_apart_and_keeps_undeclared_parts_not_implemented() {
    let dir = common::fresh("origins-interrupted");
    let command = fake("hang", "ordering-brief");
    let args = [
        "check",
        "--color",
        "never",
        "--jobs",
        "1",
        "--timeout",
        "60",
        "--impl",
        &command,
    ];
    let out = common::interrupted(&dir, &args, Duration::from_millis(2500));
    let report = text(&out);
    assert_eq!(out.status.code(), Some(130), "{report}");
    let terms = line(&report, "in the brief's terms:");
    for part in 4..=7 {
        assert!(
            terms.contains(&format!("Part {part} not implemented")),
            "{terms}"
        );
    }
    assert!(!terms.contains("fail"), "nothing failed: {terms}");
    assert!(terms.contains("not run"), "{terms}");
    let summary = line(&report, "FAILED:");
    assert!(summary.contains(" 0 failed, 0 errored,"), "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, a solution whose JSON reader keeps number values only failed the spelling steps with
/// no word of the declaration that leaves them out.
#[test]
fn failures_only_at_spelling_steps_point_at_numbers_values() {
    let dir = common::fresh("origins-spelling");
    // The example answers every part, so the solution declares them all: declaring fewer, it
    // would fail the cases for implementations without them too.
    let example = root().join("examples/python");
    std::fs::write(
        dir.join("values.py"),
        format!(
            "import sys\nsys.path.insert(0, {:?})\n\
             from dispatcher import run as exact, HOOKCHECK_PARTS\n\n\
             def values(v):\n    if isinstance(v, float) and v.is_integer():\n        return int(v)\n\
             \x20   if isinstance(v, list):\n        return [values(x) for x in v]\n\
             \x20   if isinstance(v, dict):\n        return {{k: values(x) for k, x in v.items()}}\n\
             \x20   return v\n\n\
             def run(operations):\n    return exact(values(operations))\n",
            example.display().to_string()
        ),
    )
    .expect("a solution");
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--part",
            "policy",
            "--impl",
            "values.py",
        ],
    );
    let report = text(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    let note = line(
        &report,
        "every failing case first differs at a step that depends on how a number is written",
    );
    assert!(note.contains("`\"numbers\": \"values\"`"), "{note}");
    // The example itself reads spelling: no such note when something else fails.
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--impl",
            &fake("wrong-count", "ticket-"),
        ],
    );
    assert!(
        !text(&out).contains("depends on how a number is written"),
        "{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, a ` #` in a flow list gave "unclosed bracket" with no hint, and lint's count read
/// "0 cases" as if the folder were empty.
#[test]
fn an_unquoted_hash_is_explained_and_lint_counts_files_that_did_not_load() {
    let dir = common::fresh("origins-hash");
    std::fs::write(
        dir.join("a.yaml"),
        "part: retries\ncases:\n  - id: hash-case\n    title: t\n    rules: [retry.wait-schedule]\n\
         \x20   origin: regression\n    steps:\n      - op: [process, 0]\n\
         \x20       expect: [evt-1 #1 500 retry at 30]\n",
    )
    .expect("a case file");
    let out = hookcheck(&dir, &["lint", "--no-builtin", "--cases", "."]);
    let report = text(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(report.contains("./a.yaml:9:"), "{report}");
    assert!(report.contains("` #` starts a YAML comment"), "{report}");
    assert!(
        report.contains("0 cases (1 case file did not load): 1 problem"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
