//! `hookcheck check` as a user runs it: exit statuses, the failure report of a buggy Python
//! solution, and the machine-readable outputs.

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::Output;

use common::text;

/// hookcheck run in this package's folder.
fn hookcheck(args: &[&str]) -> Output {
    common::hookcheck(common::root(), args)
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn reference_passes_and_usage_errors_exit_2() {
    let ok = hookcheck(&["check"]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    let closing = text(&ok).lines().last().unwrap_or_default().to_string();
    // The reference offers every part: only the cases for implementations without one of them
    // (`without`) do not apply to it.
    let without = common::corpus()
        .iter()
        .filter(|c| !c.without.is_empty())
        .count();
    assert!(
        without > 0,
        "errors::errors-outcomes-objects-without-part-5 at least"
    );
    assert!(
        closing.starts_with("PASSED: ")
            && closing.contains(&format!(
                " passed, 0 failed, 0 errored, 0 not run, 0 skipped, {without} not applicable ("
            )),
        "{closing}"
    );
    assert_eq!(hookcheck(&["check", "no-such-case"]).status.code(), Some(2));
    assert_eq!(
        hookcheck(&["check", "--origin", "folklore"]).status.code(),
        Some(2)
    );
    assert_eq!(
        hookcheck(&["check", "--cases", "/nonexistent"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn buggy_python_solution_gets_exactly_its_cases_with_file_and_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let original =
        std::fs::read_to_string(root.join("examples/python/dispatcher.py")).unwrap_or_default();
    // The bug of the brief's first complaint: the first wait is a minute.
    let buggy = original.replace(
        "\"waits\": [30, 60, 120, 240, 300]}",
        "\"waits\": [60, 60, 120, 240, 300]}",
    );
    assert_ne!(buggy, original);
    let dir = common::scratch().join(format!("hookcheck-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_default();
    let solution = dir.join("mysolution.py");
    std::fs::write(&solution, buggy).unwrap_or_default();
    let command = format!(
        "python3 harness/adapters/python/hookcheck_adapter.py {}",
        solution.display()
    );
    let out = hookcheck(&["check", "--impl", &command, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect();
    assert_eq!(
        events.first().map(|e| e["event"].clone()),
        Some(Value::from("start"))
    );
    assert_eq!(
        events.last().map(|e| e["event"].clone()),
        Some(Value::from("summary"))
    );
    let failed: Vec<&Value> = events.iter().filter(|e| e["verdict"] == "failed").collect();
    // Every case with a retryable failure followed by a retry sees it; the worked example too.
    assert!(failed.len() >= 20, "{} failed", failed.len());
    assert!(
        failed
            .iter()
            .any(|e| e["name"] == "regressions::ticket-first-retry-a-minute-late")
    );
    // Cases without any retry are untouched.
    for name in [
        "retries::classify-permanent-statuses",
        "ordering::ordering-ties-across-endpoints",
    ] {
        assert!(
            events
                .iter()
                .any(|e| e["name"] == name && e["verdict"] == "passed"),
            "{name}"
        );
    }
    let human = hookcheck(&["check", "--impl", &command, "ticket-first-retry"]);
    let report = text(&human);
    // The report points at the third step of the case, the first whose result differs.
    let line = common::corpus()
        .iter()
        .find(|c| c.id == "ticket-first-retry-a-minute-late")
        .map_or(0, |c| c.steps[2].line);
    assert!(
        report.contains(&format!(
            "cases/regressions/brief-part1-complaints.yaml:{line}: regressions::ticket-first-retry-a-minute-late"
        )),
        "{report}"
    );
    assert!(
        report.contains("-#3 [\"process\",0] => [\"evt-1 #1 500 retry at 30\"]"),
        "{report}"
    );
    assert!(
        report.contains("+#3 [\"process\",0] => [\"evt-1 #1 500 retry at 60\"]"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn junit_report_lists_every_case() {
    let path = common::scratch().join(format!("hookcheck-junit-{}.xml", std::process::id()));
    let path_text = path.display().to_string();
    let out = hookcheck(&["check", "--junit", &path_text, "--part", "ordering"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let xml = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(xml.starts_with("<?xml"), "{xml}");
    let ordering = common::corpus()
        .iter()
        .filter(|c| c.part == hookcheck::case::Part::Ordering)
        .count();
    assert_eq!(xml.matches("<testcase ").count(), ordering, "{xml}");
    let _ = std::fs::remove_file(&path);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn record_writes_an_unreviewed_case_that_lint_rejects_until_reviewed() {
    let dir = common::scratch().join(format!("hookcheck-record-{}", std::process::id()));
    let cases = dir.join("cases");
    std::fs::create_dir_all(cases.join("regressions")).unwrap_or_default();
    let ops = dir.join("ticket.json");
    std::fs::write(
        &ops,
        r#"[["register",0,"shop","u"],["enqueue",0,"shop","e",[500,200]],["process",0]]"#,
    )
    .unwrap_or_default();
    let file = cases.join("regressions").join("t.yaml");
    let (ops_arg, file_arg) = (ops.display().to_string(), file.display().to_string());
    let out = hookcheck(&[
        "record",
        "--id",
        "ticket-9",
        "--ticket",
        "SUP-9",
        "--rule",
        "retry.wait-schedule",
        "--out",
        &file_arg,
        &ops_arg,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let written = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(written.contains("recorded: unreviewed"), "{written}");
    assert!(
        written.contains(r#"expect: ["e #1 500 retry at 30"]"#),
        "{written}"
    );
    // Never overwrites.
    let again = hookcheck(&[
        "record", "--id", "ticket-9", "--ticket", "SUP-9", "--out", &file_arg, &ops_arg,
    ]);
    assert_eq!(again.status.code(), Some(2));
    let cases_arg = cases.display().to_string();
    let lint = hookcheck(&["lint", "--cases", &cases_arg]);
    common::says(
        &lint,
        1,
        "t.yaml:5: case ticket-9: recorded from the reference",
    );
    std::fs::write(
        &file,
        written.replace("recorded: unreviewed", "recorded: reviewed"),
    )
    .unwrap_or_default();
    let lint = hookcheck(&["lint", "--cases", &cases_arg]);
    assert_eq!(lint.status.code(), Some(0), "{}", text(&lint));
    assert_eq!(hookcheck(&["lint"]).status.code(), Some(0));
    assert_eq!(
        hookcheck(&["record", "--id", "Bad Id", "--ticket", "x", &ops_arg])
            .status
            .code(),
        Some(2)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_implementation_that_cannot_start_stops_the_run_with_one_message() {
    let fake = format!(
        "python3 {} exit-at-start x",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fakes/fake_impl.py")
            .display()
    );
    for (command, per_case, status, said) in [
        (
            "no-such-command-hookcheck",
            false,
            "exit status: 127",
            "not found",
        ),
        (
            "no-such-command-hookcheck",
            true,
            "exit status: 127",
            "not found",
        ),
        (
            fake.as_str(),
            false,
            "exit status: 3",
            "fake: refusing to start",
        ),
    ] {
        let mut args = vec!["check", "--impl", command];
        if per_case {
            args.push("--per-case");
        }
        let out = hookcheck(&args);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(2), "{command}: {stdout}{stderr}");
        assert_eq!(stderr.matches("cannot start").count(), 1, "{stderr}");
        assert!(stderr.contains(command), "{stderr}");
        assert!(
            stderr.contains(status) && stderr.contains(said),
            "{command}: {stderr}"
        );
        assert!(
            !stdout.contains("ERROR") && !stdout.contains("FAIL"),
            "{stdout}"
        );
    }
}
