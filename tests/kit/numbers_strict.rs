//! `numbers: values` is the implementation's word: any implementation can declare it and have
//! the steps that depend on number spelling left out. `--numbers strict` lets a grader refuse
//! it, and the grade tells, per implementation, how many steps were left out.

use crate::common;

use common::{hookcheck, root, text};
use hookcheck::case::Part;
use serde_json::Value;
use std::process::{Command, Output};

/// The fake of the brief's parts that declares `numbers: values` and reads numbers as
/// JavaScript does, run with `more` flags in a folder of this test.
fn run_values(test: &str, more: &[&str]) -> Output {
    let dir = common::fresh(&format!("numbers-{test}"));
    let fake = format!(
        "python3 {} none @@",
        root().join("tests/fakes/fake_impl.py").display()
    );
    let mut args = vec!["check", "--impl", &fake];
    args.extend(more);
    let out = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(&args)
        .current_dir(&dir)
        .env("FAKE_NUMBERS", "values")
        .env("NO_COLOR", "1")
        .output()
        .expect("hookcheck runs");
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn events(o: &Output, kind: &str) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == kind)
        .collect()
}

/// The steps marked `spelling` in the cases of the parts the fake declares (the brief's three).
fn spelling_steps() -> u64 {
    let n = common::corpus()
        .iter()
        .filter(|c| Part::BRIEF.contains(&c.part))
        .map(|c| c.steps.iter().filter(|s| s.spelling).count())
        .sum::<usize>();
    assert!(
        n > 0,
        "the brief's cases hold steps that depend on spelling"
    );
    n as u64
}

/// Without the flag the fake passes, its spelling steps left out; with it, those steps are sent
/// and judged, the fake reads `10.0` as `10` and fails them, and the summary says the
/// declaration was refused. Before, there was no way to refuse it.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn numbers_strict_judges_the_steps_a_values_declaration_leaves_out() {
    let lenient = run_values("lenient", &["--format", "json"]);
    let summary = &events(&lenient, "summary")[0];
    assert_eq!(summary["success"], true, "{}", text(&lenient));
    assert_eq!(summary["steps_not_applicable"], spelling_steps());
    assert_eq!(summary["numbers_refused"], false);

    let strict = run_values("strict", &["--format", "json", "--numbers", "strict"]);
    assert_eq!(strict.status.code(), Some(1), "{}", text(&strict));
    let summary = &events(&strict, "summary")[0];
    assert_eq!(summary["steps_not_applicable"], 0, "{summary}");
    assert_eq!(summary["numbers_refused"], true, "{summary}");
    let failed: Vec<Value> = events(&strict, "case")
        .into_iter()
        .filter(|c| c["verdict"] == "failed")
        .collect();
    assert!(!failed.is_empty(), "{}", text(&strict));
    assert!(
        failed.iter().all(|c| c["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("errors::"))),
        "only the cases with spelling steps fail: {failed:?}"
    );

    let human = run_values("human", &["--numbers", "strict"]);
    assert!(
        text(&human).contains("declares `numbers: values`, refused by --numbers strict"),
        "{}",
        text(&human)
    );
}

/// In a grade, each implementation's line starts with the steps left out for it, and its JSON
/// event counts them. Before, the grade said nothing of them.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn the_grade_shows_the_steps_left_out_per_implementation() {
    let reference = format!("{} serve", env!("CARGO_BIN_EXE_hookcheck"));
    let human = run_values("grade", &["--impl", &reference]);
    let steps = spelling_steps();
    let line = String::from_utf8_lossy(&human.stdout)
        .lines()
        .find(|l| l.starts_with("fake_impl.py"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(
        line.contains(&format!(
            "{steps} steps left out (it declares `numbers: values`"
        )),
        "{}",
        text(&human)
    );
    let serve_line = String::from_utf8_lossy(&human.stdout)
        .lines()
        .find(|l| l.contains("serve"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(!serve_line.contains("left out"), "{serve_line}");

    let json = run_values("grade-json", &["--impl", &reference, "--format", "json"]);
    let implementations = common::implementation_events(&json.stdout);
    assert_eq!(implementations.len(), 2, "{}", text(&json));
    assert_eq!(implementations[0]["steps_not_applicable"], steps);
    assert_eq!(implementations[0]["numbers"], "values");
    assert_eq!(implementations[1]["steps_not_applicable"], 0);

    let strict = run_values(
        "grade-strict",
        &["--impl", &reference, "--numbers", "strict"],
    );
    assert!(
        text(&strict).contains("declares `numbers: values`, refused: every step judged"),
        "{}",
        text(&strict)
    );
}

/// `spelling` and `values` are what a per-case implementation declares: refused without
/// `--per-case`, as before; `strict` is the grader's and goes anywhere.
#[test]
fn only_strict_goes_without_per_case() {
    let dir = common::fresh("numbers-flags");
    let out = hookcheck(&dir, &["check", "--numbers", "values"]);
    common::says(
        &out,
        2,
        "--numbers values declares how a --per-case command reads numbers",
    );
    let serve = format!("{} serve --per-case", env!("CARGO_BIN_EXE_hookcheck"));
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--per-case",
            "--numbers",
            "strict",
            "--impl",
            &serve,
            "--part",
            "ordering",
        ],
    );
    common::says(&out, 0, "PASSED");
    let _ = std::fs::remove_dir_all(&dir);
}
