//! Grading many implementations in one run, as a grader runs it: a manifest with a correct
//! submission, one with a planted bug, one that hangs and one that crashes; expectations for an
//! implementer's CI; the markdown report against a golden file. The HTML report is checked in a
//! real browser by `tests/kit/grading_browser.rs`.

use crate::common;

use common::{grader_folder, hookcheck, root, text};
use serde_json::Value;
use std::process::Output;

/// The JSON events of a `--format json` run, in order.
fn events(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

/// `(name, verdict)` of an event's case list, or of the case events, that did not pass.
fn not_passed_in(cases: impl IntoIterator<Item = Value>) -> Vec<(String, String)> {
    cases
        .into_iter()
        // Not applicable is no failure: a case of a part not declared, or for implementations
        // without a part that is declared.
        .filter(|c| c["verdict"] != "passed" && c["verdict"] != "not_applicable")
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_string(),
                c["verdict"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The manifest of `grader_folder` run with `--format json`: its folder, the output, and the
/// JSON event of each implementation by name.
fn grade_folder(test: &str) -> (std::path::PathBuf, Output, Vec<(String, Value)>) {
    let dir = grader_folder(test);
    let out = hookcheck(
        &dir,
        &["check", "--manifest", "grading.toml", "--format", "json"],
    );
    // Events come as each implementation finishes; `index` is the manifest's order.
    let mut found: Vec<Value> = events(&out)
        .into_iter()
        .filter(|v| v["event"] == "implementation")
        .collect();
    found.sort_by_key(|v| v["index"].as_u64());
    let found = found
        .into_iter()
        .map(|v| (v["name"].as_str().unwrap_or_default().to_string(), v))
        .collect();
    (dir, out, found)
}

/// The cases of an implementation whose verdict is not `passed`, with their verdict.
fn not_passed(v: &Value) -> Vec<(String, String)> {
    not_passed_in(v["cases"].as_array().cloned().unwrap_or_default())
}

fn score(v: &Value, scope: &str, part: &str) -> (u64, u64) {
    let s = &v["grade"][scope][part];
    (
        s["passed"].as_u64().unwrap_or(u64::MAX),
        s["total"].as_u64().unwrap_or(u64::MAX),
    )
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_manifest_grades_each_implementation_and_survives_the_faulty_ones() {
    let (dir, out, found) = grade_folder("manifest");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["capped", "good", "hangs", "crashes"]);
    let by = |name: &str| &found.iter().find(|(n, _)| n == name).expect("graded").1;

    // The correct submission passes everything, faulty neighbours notwithstanding.
    // It declares Parts 1 to 5, so the one case for implementations without Part 5 does not
    // apply to it.
    let good = by("good");
    assert_eq!(not_passed(good), []);
    let verdict_of = |v: &Value, name: &str| {
        v["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["name"] == name)
            .map(|c| c["verdict"].clone())
    };
    let without = "errors::errors-outcomes-objects-without-part-5";
    assert_eq!(
        verdict_of(good, without),
        Some(Value::from("not_applicable"))
    );
    assert_eq!(
        good["brief_terms"],
        "Part 1 passed, Part 2 passed, Part 3 passed, Part 4 passed, Part 5 passed, Part 6 \
         passed, Part 7 passed, Part 8 passed, Part 9 passed, Part 10 passed, Part 11 passed"
    );
    for part in hookcheck::case::Part::ALL.map(hookcheck::case::Part::as_str) {
        let (passed, total) = score(good, "full", part);
        assert!(total > 0 && passed == total, "{part}: {passed}/{total}");
    }
    assert_eq!(good["not_implemented"], serde_json::json!([]));

    // Hanging on one case errors that case alone (the 1 s timeout of its manifest entry), and
    // crashing on one case errors that case alone: a new process takes the rest.
    let hangs = by("hangs");
    assert_eq!(verdict_of(hangs, without), Some(Value::from("passed")));
    assert_eq!(
        not_passed(hangs),
        [(
            "ordering::ordering-brief-example".to_string(),
            "errored".to_string()
        )]
    );
    let message = hangs["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["verdict"] == "errored")
        .map(|c| c["message"].to_string())
        .unwrap_or_default();
    assert!(message.contains("no answer within 1 s"), "{message}");
    let (passed, total) = score(hangs, "full", "ordering");
    assert_eq!(passed + 1, total);
    assert!(
        hangs["brief_terms"].as_str().is_some_and(|t| t
            .starts_with("Part 1 passed, Part 2: 1 of ")
            && t.contains("(ordering::ordering-brief-example)")
            && t.ends_with(
                "Part 3 passed, Part 4 not implemented, Part 5 not implemented, Part 6 not \
                     implemented, Part 7 not implemented, Part 8 not implemented, Part 9 not \
                     implemented, Part 10 not implemented, Part 11 not implemented"
            )),
        "{}",
        hangs["brief_terms"]
    );
    assert_eq!(
        not_passed(by("crashes")),
        [(
            "pause::pause-brief-example".to_string(),
            "errored".to_string()
        )]
    );

    // The last wait capped at 240 s: the full schedule (30+60+120+240+300 s before the sixth
    // attempt) is what `schedule-full-run-dies-on-sixth` spells out, so it fails; no case of
    // the errors suite lets an event fail five times, so none of them can.
    let capped = by("capped");
    let failing = not_passed(capped);
    assert!(failing.contains(&(
        "retries::schedule-full-run-dies-on-sixth".to_string(),
        "failed".to_string()
    )));
    assert!(
        failing
            .iter()
            .all(|(name, verdict)| verdict == "failed" && !name.starts_with("errors::")),
        "{failing:?}"
    );
    assert!(
        capped["brief_terms"]
            .as_str()
            .is_some_and(|t| t.starts_with("Part 1: ")),
        "{}",
        capped["brief_terms"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The grade of one implementation in a run of many is its grade checked alone.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_grade_among_many_is_the_grade_alone() {
    let (dir, _, found) = grade_folder("alone");
    let capped = &found.iter().find(|(n, _)| n == "capped").expect("graded").1;
    let adapter = root().join("harness/adapters/python/hookcheck_adapter.py");
    let alone = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &format!(
                "python3 {} submissions/capped/solution.py",
                adapter.display()
            ),
            "--format",
            "json",
        ],
    );
    assert_eq!(alone.status.code(), Some(1));
    let failing_alone = not_passed_in(events(&alone).into_iter().filter(|v| v["event"] == "case"));
    assert!(!failing_alone.is_empty());
    assert_eq!(not_passed(capped), failing_alone);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn the_human_grade_names_every_implementation_and_the_closing_counts() {
    let dir = grader_folder("human");
    let out = hookcheck(&dir, &["check", "--manifest", "grading.toml"]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out);
    for line in [
        "good            Part 1 passed, Part 2 passed, Part 3 passed",
        "hangs           Part 1 passed, Part 2: 1 of ",
        "crashes         Part 1 passed, Part 2 passed, Part 3: 1 of ",
    ] {
        assert!(report.contains(line), "{line}\n{report}");
    }
    let closing = report.lines().last().unwrap_or_default();
    assert!(
        closing.starts_with(
            "FAILED: 4 implementations, 1 pass every case, 3 fail some, 0 could not start"
        ),
        "{closing}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// One implementation's command in `dir`: the capped or the good submission.
fn submission(who: &str) -> String {
    format!(
        "python3 {} submissions/{who}/solution.py",
        root()
            .join("harness/adapters/python/hookcheck_adapter.py")
            .display()
    )
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn expectations_pass_known_failures_report_passes_and_fail_new_failures() {
    let dir = grader_folder("expect");
    let capped = submission("capped");
    // A starting file from the current failures; the failures still fail this run.
    let write = [
        "check",
        "--impl",
        &capped,
        "--write-expectations",
        "known.toml",
    ];
    let wrote = hookcheck(&dir, &write);
    assert_eq!(wrote.status.code(), Some(1), "{}", text(&wrote));
    let known = std::fs::read_to_string(dir.join("known.toml")).unwrap_or_default();
    assert!(known.contains("case = \"retries::schedule-full-run-dies-on-sixth\""));
    let listed = known.matches("[[failure]]").count();
    assert!(listed > 0);
    // It is never overwritten.
    let again = hookcheck(&dir, &write);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));

    // Expected failures: the run passes and says so.
    let expected = hookcheck(
        &dir,
        &["check", "--impl", &capped, "--expect", "known.toml"],
    );
    assert_eq!(expected.status.code(), Some(0), "{}", text(&expected));
    assert!(text(&expected).contains(&format!(
        "expectations: {listed} failed as expected, 0 passed though expected to fail"
    )));

    // Unexpected passes: the correct submission with the same list. Reported, and with
    // --strict the run fails so that the list only shrinks.
    let good = submission("good");
    let lenient = hookcheck(&dir, &["check", "--impl", &good, "--expect", "known.toml"]);
    assert_eq!(lenient.status.code(), Some(0), "{}", text(&lenient));
    assert!(text(&lenient).contains(
        "XPASS retries::schedule-full-run-dies-on-sixth: passes, though expected to fail"
    ));
    let strict = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &good,
            "--expect",
            "known.toml",
            "--strict",
        ],
    );
    assert_eq!(strict.status.code(), Some(1), "{}", text(&strict));
    assert!(
        text(&strict).lines().any(|l| l.starts_with("FAILED: ")),
        "{}",
        text(&strict)
    );

    // A new failure: the list without one of its cases fails the run, naming that case.
    let mut rest: Vec<&str> = known.split("[[failure]]").collect();
    let dropped = rest.remove(1);
    std::fs::write(dir.join("fewer.toml"), rest.join("[[failure]]")).expect("write");
    let name = dropped
        .lines()
        .find_map(|l| l.strip_prefix("case = \""))
        .and_then(|l| l.strip_suffix('"'))
        .unwrap_or_default()
        .to_string();
    let new = hookcheck(
        &dir,
        &["check", "--impl", &capped, "--expect", "fewer.toml"],
    );
    assert_eq!(new.status.code(), Some(1), "{}", text(&new));
    assert!(
        text(&new).contains(&format!("FAIL  {name}")),
        "{}",
        text(&new)
    );

    // JUnit and JSON name expected failures as such.
    let junit = dir.join("junit.xml");
    let json = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &capped,
            "--expect",
            "known.toml",
            "--format",
            "json",
            "--junit",
            &junit.display().to_string(),
        ],
    );
    assert_eq!(json.status.code(), Some(0), "{}", text(&json));
    let verdicts = events(&json);
    let expected_failures = verdicts
        .iter()
        .filter(|v| v["event"] == "case" && v["verdict"] == "expected_failure")
        .count();
    assert_eq!(expected_failures, listed);
    let summary = verdicts
        .iter()
        .find(|v| v["event"] == "summary")
        .cloned()
        .unwrap_or_default();
    assert_eq!(summary["success"], true);
    assert_eq!(summary["total"]["expected_failures"], listed);
    let xml = std::fs::read_to_string(&junit).unwrap_or_default();
    assert_eq!(
        xml.matches("<skipped message=\"expected failure: fails now: step ")
            .count(),
        listed,
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");

    // A run of one part: the listed cases of other parts are left out, not unknown.
    let part = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &capped,
            "--expect",
            "known.toml",
            "--strict",
            "--part",
            "ordering",
        ],
    );
    assert_eq!(part.status.code(), Some(0), "{}", text(&part));
    // A listed case the corpus does not have (renamed, retired): a warning, and with --strict
    // a failed run.
    std::fs::write(
        dir.join("stale.toml"),
        format!("{known}\n[[failure]]\ncase = \"retries::gone\"\nticket = \"T-1\"\n"),
    )
    .expect("write");
    let stale = hookcheck(
        &dir,
        &["check", "--impl", &capped, "--expect", "stale.toml"],
    );
    assert_eq!(stale.status.code(), Some(0), "{}", text(&stale));
    assert!(
        text(&stale)
            .contains("warning: the expectations list `retries::gone`, which is not a case"),
        "{}",
        text(&stale)
    );
    let stale = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &capped,
            "--expect",
            "stale.toml",
            "--strict",
        ],
    );
    assert_eq!(stale.status.code(), Some(1), "{}", text(&stale));

    // A malformed list is a configuration error, not a pass.
    std::fs::write(dir.join("bad.toml"), "[[failure]]\nreason = \"no case\"\n").expect("write");
    let bad = hookcheck(&dir, &["check", "--impl", &capped, "--expect", "bad.toml"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The markdown report of a fixed run, against `tests/golden/grade.md`. Set HOOKCHECK_BLESS=1
/// to rewrite the golden file after a deliberate change, and review the difference.
#[test]
fn the_markdown_report_matches_its_golden_file() {
    let dir = grader_folder("markdown");
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--manifest",
            "grading.toml",
            "--part",
            "ordering",
            "--markdown",
            "grade.md",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let produced = std::fs::read_to_string(dir.join("grade.md")).unwrap_or_default();
    // The provenance line (version, time, command) changes with every run: compared by shape.
    let (produced, provenance) = produced
        .rsplit_once("\n*hookcheck ")
        .map(|(report, line)| (format!("{report}\n"), line.to_string()))
        .unwrap_or((produced.clone(), String::new()));
    assert!(
        provenance.contains("corpus") && provenance.contains("started"),
        "no provenance line: {provenance}"
    );
    let golden = root().join("tests/golden/grade.md");
    if std::env::var_os("HOOKCHECK_BLESS").is_some() {
        std::fs::write(&golden, &produced).expect("bless");
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    if produced != expected {
        panic!(
            "the markdown report differs from {}:\n{}",
            golden.display(),
            similar::TextDiff::from_lines(&expected, &produced)
                .unified_diff()
                .header("golden", "produced")
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
