//! The Node.js adapter (harness/adapters/node) and the JavaScript example (examples/node): the
//! example passes every case through the adapter, with the steps that depend on number
//! spelling reported as not applicable and everything else compared; a planted bug fails with a
//! file:line diff; an ES module's exception errors its case without losing the process.
//!
//! These need `node` (18 or later), which a fresh machine may lack: `.ci/run` installs it and
//! runs them with `cargo test -- --ignored`.

use crate::common;

use common::{root, text};
use std::process::{Command, Output};

fn check(solution: &std::path::Path, extra: &[&str]) -> Output {
    let command = format!(
        "node {} {}",
        root()
            .join("harness/adapters/node/hookcheck_adapter.mjs")
            .display(),
        solution.display()
    );
    Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(["check", "--color", "never", "--impl", &command])
        .args(extra)
        .current_dir(root())
        .output()
        .expect("hookcheck runs")
}

fn spelling_steps() -> usize {
    common::corpus()
        .iter()
        .map(|c| c.steps.iter().filter(|s| s.spelling).count())
        .sum()
}

#[test]
#[ignore = "needs node: .ci/run installs it and runs ignored tests"]
fn the_javascript_example_passes_with_spelling_steps_not_applicable() {
    let out = check(&root().join("examples/node/dispatcher.js"), &[]);
    let report = text(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    // Every case applies but those for implementations without a part it offers (`without`).
    let cases = common::corpus()
        .iter()
        .filter(|c| c.without.is_empty())
        .count();
    assert!(
        report.contains(&format!("PASSED: {cases} passed, 0 failed, 0 errored")),
        "{report}"
    );
    assert!(spelling_steps() >= 5);
    assert!(
        report.contains(&format!(
            "{} steps left out of the cases that ran",
            spelling_steps()
        )),
        "{report}"
    );
    assert!(report.contains("(javascript v"), "{report}");
}

#[test]
#[ignore = "needs node: .ci/run installs it and runs ignored tests"]
fn a_planted_bug_in_the_javascript_example_fails_with_a_file_and_line() {
    let original =
        std::fs::read_to_string(root().join("examples/node/dispatcher.js")).expect("the example");
    assert!(original.contains("const FIRST_WAIT = 30;"));
    let dir = common::scratch().join(format!("hookcheck-node-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mutant = dir.join("dispatcher.js");
    std::fs::write(
        &mutant,
        original.replace("const FIRST_WAIT = 30;", "const FIRST_WAIT = 60;"),
    )
    .expect("writes");
    let out = check(&mutant, &["--format", "json"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let failed: Vec<&serde_json::Value> =
        events.iter().filter(|e| e["verdict"] == "failed").collect();
    assert!(failed.len() > 10, "{}", failed.len());
    let ticket = failed
        .iter()
        .find(|e| e["name"] == "regressions::ticket-first-retry-a-minute-late")
        .expect("the ticket case fails");
    let message = ticket["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("cases/regressions/brief-part1-complaints.yaml:"),
        "{message}"
    );
    assert!(
        message.contains("+#3 [\"process\",0] => [\"evt-1 #1 500 retry at 60\"]"),
        "{message}"
    );
    // The steps that depend on spelling were still left out, the rest compared.
    let summary = events.last().expect("a summary");
    assert_eq!(summary["steps_not_applicable"], spelling_steps());
}

#[test]
#[ignore = "needs node: .ci/run installs it and runs ignored tests"]
fn an_exception_errors_its_case_and_the_module_keeps_serving() {
    let out = check(&root().join("tests/fakes/throwing.mjs"), &["--jobs", "1"]);
    let report = text(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report.contains("ERROR errors::errors-unknown-operation-names"),
        "{report}"
    );
    assert!(
        report.contains("RangeError: no such thing as Process"),
        "{report}"
    );
    assert!(
        report.contains("throwing.mjs:"),
        "the stack names the module: {report}"
    );
    assert_eq!(report.matches("ERROR ").count(), 1, "{report}");
    // Declared parts: the cases of the other parts are not applicable; everything else passed.
    let declared = [
        hookcheck::case::Part::Retries,
        hookcheck::case::Part::Ordering,
    ];
    let others = common::corpus()
        .iter()
        .filter(|c| !declared.contains(&c.part))
        .count();
    assert!(
        report.contains(&format!(
            " 1 errored, 0 not run, 0 skipped, {others} not applicable"
        )),
        "{report}"
    );
}
