//! The roadmap's parts as the kit knows them: an implementation of the brief's three parts gets
//! today's verdict and is shown Parts 4 and 5 as not implemented in every report; a declaration
//! without a part it builds on is refused, naming what is missing, from the handshake, `--parts`
//! and a manifest alike; the new names are accepted wherever a part is named; a case written
//! `without` a part runs only for implementations that do not declare it.
//!
//! The corpus may hold no case of Parts 4 and 5 yet, so a folder of two such cases is added
//! (`--cases`): what an implementation that does not declare them is shown of them is checked on
//! cases that certainly exist.

use crate::common;

use common::{fresh, hookcheck, root, says, text};
use hookcheck::case::Part;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The fake implementation, answering every case as the Python example does; `parts` is what it
/// declares (`FAKE_PARTS`), its default (the brief's three) when `None`.
fn fake(dir: &Path, parts: Option<&str>, args: &[&str]) -> Output {
    let command = format!(
        "python3 {} none no-case-has-this-name",
        root().join("tests/fakes/fake_impl.py").display()
    );
    let mut all = vec!["check", "--impl", &command];
    all.extend_from_slice(args);
    let mut run = std::process::Command::new(env!("CARGO_BIN_EXE_hookcheck"));
    run.args(&all)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("TMPDIR", common::scratch());
    match parts {
        Some(p) => run.env("FAKE_PARTS", p),
        None => run.env_remove("FAKE_PARTS"),
    };
    run.output().expect("hookcheck runs")
}

/// A folder holding one case of Part 4 and one of Part 5, each worked out from the roadmap's own
/// examples (`spec/dispatcher.md`, sections 11 and 12).
fn roadmap_cases(test: &str) -> PathBuf {
    let dir = fresh(&format!("parts-{test}"));
    let cases = dir.join("roadmap");
    std::fs::create_dir_all(&cases).expect("a folder");
    std::fs::write(
        cases.join("policy.yaml"),
        "part: policy\ncases:\n  - id: local-policy-three-attempts\n    title: The roadmap's \
         example of Part 4\n    rules: [policy.set, policy.in-force]\n    origin: clarification\n    \
         steps:\n      - op: [register, 0, shop, \"https://shop.example/hooks\"]\n        expect: \
         true\n      - op: [set_policy, 0, shop, {attempts: 3, waits: [10]}]\n        expect: true\n      \
         - op: [enqueue, 0, shop, evt-1, [500]]\n        expect: queued\n      - op: [process, 0]\n        \
         expect: [\"evt-1 #1 500 retry at 10\"]\n",
    )
    .expect("a policy case");
    std::fs::write(
        cases.join("retry-after.yaml"),
        "part: retry-after\ncases:\n  - id: local-retry-after-45\n    title: The roadmap's \
         example of Part 5\n    rules: [outcomes.objects, retry-after.wait]\n    origin: \
         clarification\n    steps:\n      - op: [register, 0, shop, \"https://shop.example/hooks\"]\n        \
         expect: true\n      - op: [enqueue, 0, shop, evt-1, [{status: 503, retry_after: 45}, 200]]\n        \
         expect: queued\n      - op: [process, 0]\n        expect: [\"evt-1 #1 503 retry at 45\"]\n",
    )
    .expect("a retry-after case");
    dir
}

/// The JSON events of a run, in order.
fn events(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The roadmap's parts built so far: every part after the brief's three.
fn roadmap_parts() -> Vec<&'static str> {
    hookcheck::case::Part::ALL[hookcheck::case::Part::BRIEF.len()..]
        .iter()
        .map(|p| p.as_str())
        .collect()
}

/// How many cases of the part `roadmap_cases` writes.
fn local(part: &str) -> usize {
    usize::from(part == "policy" || part == "retry-after")
}

/// How many built-in cases the part has (`cases/policy/`, `cases/retry-after/`).
fn builtin(part: &str) -> usize {
    common::corpus()
        .iter()
        .filter(|c| c.part.as_str() == part)
        .count()
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn an_implementation_of_the_brief_passes_as_before_and_is_shown_parts_4_and_5_not_implemented() {
    let dir = roadmap_cases("brief");
    // Today's verdict, on the built-in corpus alone.
    let alone = fake(&dir, None, &["--format", "json"]);
    assert_eq!(alone.status.code(), Some(0), "{}", text(&alone));
    let with = fake(
        &dir,
        None,
        &[
            "--cases",
            "roadmap",
            "--format",
            "json",
            "--junit",
            "report.xml",
        ],
    );
    assert_eq!(with.status.code(), Some(0), "{}", text(&with));
    let (alone, with) = (events(&alone), events(&with));
    let summary = |e: &[Value]| e.last().cloned().unwrap_or_default();
    assert_eq!(
        summary(&with)["total"]["passed"],
        summary(&alone)["total"]["passed"],
        "the same cases pass"
    );
    assert_eq!(
        summary(&with)["not_implemented"],
        serde_json::json!(roadmap_parts())
    );
    assert_eq!(
        with[0]["parts"],
        serde_json::json!(["retries", "ordering", "pause"])
    );
    // Every case of Parts 4 and 5 is not applicable, for that reason, and none ran.
    let roadmap: Vec<&Value> = with
        .iter()
        .filter(|e| {
            e["event"] == "case" && roadmap_parts().contains(&e["part"].as_str().unwrap_or(""))
        })
        .collect();
    let builtins: usize = roadmap_parts().iter().map(|p| builtin(p)).sum();
    assert!(
        builtins >= 40,
        "the corpus has cases of the roadmap's parts: {builtins}"
    );
    assert_eq!(
        roadmap.len(),
        2 + builtins,
        "the built-in cases and the two local ones"
    );
    for c in roadmap {
        assert_eq!(c["verdict"], "not_applicable", "{c}");
        assert!(
            c["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("not implemented: the case needs part `")),
            "{c}"
        );
    }
    for part in roadmap_parts() {
        assert_eq!(
            summary(&with)["parts"][part]["not_applicable"],
            local(part) + builtin(part),
            "{part}"
        );
        assert_eq!(summary(&with)["parts"][part]["passed"], 0, "{part}");
    }
    let junit = std::fs::read_to_string(dir.join("report.xml")).unwrap_or_default();
    assert!(
        junit.contains(
            "<testcase name=\"local-policy-three-attempts\" classname=\"hookcheck.roadmap\""
        ) && junit
            .contains("<skipped message=\"not implemented: the case needs part `policy` (Part 4)"),
        "{junit}"
    );

    // The human report: the rows of Parts 4 and 5 say so, and so does the grade.
    let human = fake(&dir, None, &["--cases", "roadmap"]);
    assert_eq!(human.status.code(), Some(0), "{}", text(&human));
    let report = text(&human);
    for part in roadmap_parts() {
        let row = report
            .lines()
            .find(|l| l.starts_with(&format!("{part} ")))
            .unwrap_or_default();
        let count = format!(" {} ", local(part) + builtin(part));
        assert!(
            row.ends_with("not implemented") && row.contains(&count),
            "{part}: {row}\n{report}"
        );
    }
    assert!(
        report.contains(
            "in the brief's terms: Part 1 passed, Part 2 passed, Part 3 passed, Part 4 not \
             implemented, Part 5 not implemented, Part 6 not implemented, Part 7 not implemented"
        ),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_grade_reports_show_a_column_per_part_and_not_implemented() {
    let dir = roadmap_cases("grade");
    let reference = env!("CARGO_BIN_EXE_hookcheck");
    let brief_only = format!(
        "python3 {} none no-case-has-this-name",
        root().join("tests/fakes/fake_impl.py").display()
    );
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &brief_only,
            "--impl",
            &format!("{reference} serve"),
            "--cases",
            "roadmap",
            // Brief cases only: the reference's Parts 4 and 5 may be written after this test.
            "--part",
            "ordering",
            "--markdown",
            "grade.md",
            "--html",
            "grade.html",
            "--format",
            "json",
        ],
    );
    let events = common::implementation_events(&out.stdout);
    assert_eq!(events.len(), 2, "{}", text(&out));
    assert_eq!(
        events[0]["not_implemented"],
        serde_json::json!(roadmap_parts())
    );
    assert_eq!(events[1]["not_implemented"], serde_json::json!([]));
    for event in &events {
        let full = &event["grade"]["full"];
        let names: Vec<&String> = full
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(names, Part::ALL.map(Part::as_str), "{event}");
    }
    let roadmap: Vec<Part> = Part::ALL[Part::BRIEF.len()..].to_vec();
    let not_implemented: Vec<String> = roadmap
        .iter()
        .map(|p| format!("Part {} not implemented", p.number()))
        .collect();
    assert!(
        events[0]["brief_terms"]
            .as_str()
            .is_some_and(|t| t.ends_with(&not_implemented.join(", "))),
        "{}",
        events[0]
    );
    assert_eq!(events[0]["passed"], true);

    let markdown = std::fs::read_to_string(dir.join("grade.md")).unwrap_or_default();
    let numbers: Vec<usize> = Part::ALL.iter().map(|p| p.number()).collect();
    let header = format!(
        "| implementation | verdict | score | brief score | {} | {} | in the brief's terms |",
        numbers
            .iter()
            .map(|n| format!("Part {n}"))
            .collect::<Vec<_>>()
            .join(" | "),
        numbers
            .iter()
            .map(|n| format!("brief {n}"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    assert!(markdown.contains(&header), "{markdown}");
    let fake_row = markdown
        .lines()
        .find(|l| l.starts_with("| fake\\_impl\\.py |"))
        .unwrap_or_default();
    // `| name | verdict | score | brief score | Part 1 | ... | Part 11 | brief 1 | ...`
    let cells: Vec<&str> = fake_row.split('|').map(str::trim).collect();
    let ordering = cells.get(6).copied().unwrap_or_default();
    assert!(ordering.contains('/'), "Part 2 ran: {fake_row}");
    let parts = Part::ALL.len();
    let mut full = vec!["-", ordering, "-"];
    full.extend(roadmap.iter().map(|_| "not implemented"));
    assert_eq!(cells[5..5 + parts], full[..], "{fake_row}");
    let mut brief = vec!["-", ordering, "-"];
    brief.extend(roadmap.iter().map(|_| "-"));
    assert_eq!(cells[5 + parts..5 + 2 * parts], brief[..], "{fake_row}");
    let html = std::fs::read_to_string(dir.join("grade.html")).unwrap_or_default();
    assert_eq!(
        html.matches(">not implemented</td>").count(),
        roadmap.len(),
        "the roadmap's parts of the fake"
    );
    for n in numbers {
        assert!(html.contains(&format!(">Part {n}<span")), "Part {n}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_part_declared_without_one_it_builds_on_is_refused_naming_it() {
    let dir = fresh("parts-refused");
    let missing_policy = "part `retry-after` (Part 5) builds on `policy` (Part 4), which is not \
                          declared: declare it too, or leave `retry-after` out";
    // In the handshake: the implementation cannot start, and the message says why.
    let handshake = fake(&dir, Some("retries,ordering,pause,retry-after"), &[]);
    says(&handshake, 2, &format!("bad hello: {missing_policy}"));
    // From --parts, before anything starts.
    let serve = format!("{} serve --per-case", env!("CARGO_BIN_EXE_hookcheck"));
    let flag = hookcheck(
        &dir,
        &[
            "check",
            "--per-case",
            "--parts",
            "retries,ordering,pause,retry-after",
            "--impl",
            &serve,
        ],
    );
    says(&flag, 2, &format!("--parts: {missing_policy}"));
    let no_pause = hookcheck(
        &dir,
        &[
            "check",
            "--per-case",
            "--parts",
            "retries,ordering,policy",
            "--impl",
            &serve,
        ],
    );
    says(
        &no_pause,
        2,
        "part `policy` (Part 4) builds on `pause` (Part 3), which is not declared",
    );
    // `policy` alone builds on all three of the brief's parts, and is refused naming them.
    let alone = hookcheck(
        &dir,
        &["check", "--per-case", "--parts", "policy", "--impl", &serve],
    );
    says(
        &alone,
        2,
        "builds on `retries` (Part 1), `ordering` (Part 2) and `pause` (Part 3), which are not \
         declared",
    );
    // From a manifest's `parts`.
    std::fs::write(
        dir.join("grading.toml"),
        format!(
            "[[implementation]]\ncommand = \"{serve}\"\nper_case = true\nparts = [\"retries\", \
             \"ordering\", \"pause\", \"retry-after\"]\n"
        ),
    )
    .expect("a manifest");
    let manifest = hookcheck(&dir, &["check", "--manifest", "grading.toml"]);
    says(&manifest, 2, &format!("`parts`: {missing_policy}"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn the_new_part_names_are_accepted_wherever_a_part_is_named() {
    let dir = roadmap_cases("names");
    let serve = format!("{} serve --per-case", env!("CARGO_BIN_EXE_hookcheck"));
    // --parts with policy (and the parts it builds on): accepted, and declared.
    let declared = hookcheck(
        &dir,
        &[
            "check",
            "--per-case",
            "--parts",
            "retries,ordering,pause,policy",
            "--impl",
            &serve,
            "--format",
            "json",
            "schedule",
        ],
    );
    assert_eq!(declared.status.code(), Some(0), "{}", text(&declared));
    assert_eq!(
        events(&declared)[0]["parts"],
        serde_json::json!(["retries", "ordering", "pause", "policy"])
    );
    // --part policy selects the cases of Part 4; --require-parts retry-after makes them count for
    // an implementation that does not declare them.
    let brief_only = format!(
        "python3 {} none no-case-has-this-name",
        root().join("tests/fakes/fake_impl.py").display()
    );
    let only = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &brief_only,
            "--cases",
            "roadmap",
            "--part",
            "policy,retry-after",
            "--require-parts",
            "policy,retry-after",
            "--format",
            "json",
        ],
    );
    assert_eq!(only.status.code(), Some(1), "{}", text(&only));
    let cases: Vec<Value> = events(&only)
        .into_iter()
        .filter(|e| e["event"] == "case")
        .collect();
    assert_eq!(
        cases.len(),
        2 + builtin("policy") + builtin("retry-after"),
        "{}",
        text(&only)
    );
    assert!(
        cases.iter().all(|c| c["verdict"] == "not_run"
            && c["message"]
                .as_str()
                .is_some_and(|m| m.contains("is required"))),
        "{cases:?}"
    );
    // The help lists every part for each flag that takes one.
    let help = hookcheck(&dir, &["check", "--help"]);
    let names = format!("[possible values: {}]", Part::names());
    assert_eq!(text(&help).matches(&names).count(), 3, "{}", text(&help));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_case_without_part_5_runs_only_for_implementations_without_it() {
    let dir = fresh("parts-without");
    let id = "errors-outcomes-objects-without-part-5";
    let verdict = |o: &Output| -> (String, String) {
        let case = events(o)
            .into_iter()
            .find(|e| e["event"] == "case" && e["id"] == id)
            .unwrap_or_default();
        (
            case["verdict"].as_str().unwrap_or_default().to_string(),
            case["message"].as_str().unwrap_or_default().to_string(),
        )
    };
    // The brief's three parts: the case runs, and passes (objects are invalid outcomes).
    let brief = fake(&dir, None, &["--format", "json", id]);
    assert_eq!(brief.status.code(), Some(0), "{}", text(&brief));
    assert_eq!(verdict(&brief), ("passed".to_string(), String::new()));
    // Declaring Part 5 (with what it builds on): not applicable, with the reason.
    let all = Part::names().replace(", ", ",");
    let offers = fake(&dir, Some(&all), &["--format", "json", id]);
    let (word, message) = verdict(&offers);
    assert_eq!(word, "not_applicable", "{}", text(&offers));
    assert_eq!(
        message,
        "not applicable: the case is for implementations without part `retry-after` (Part 5), \
         and this one declares it"
    );
    // Policy alone is not Part 5: the case still runs.
    let policy = fake(
        &dir,
        Some("retries,ordering,pause,policy"),
        &["--format", "json", id],
    );
    assert_eq!(verdict(&policy).0, "passed", "{}", text(&policy));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lint_refuses_a_without_list_that_leaves_no_implementation() {
    let dir = fresh("parts-lint");
    let case = |part: &str, without: &str| {
        format!(
            "part: {part}\ncases:\n  - id: a-{}\n    title: t\n    rules: [outcomes.valid]\n    \
             origin: clarification\n    without: {without}\n    steps:\n      - op: [process, 0]\n        \
             expect: []\n",
            without.replace(['[', ']', ',', ' '], "")
        )
    };
    std::fs::write(dir.join("own.yaml"), case("policy", "[policy]")).expect("a file");
    std::fs::write(dir.join("builds.yaml"), case("retry-after", "[pause]")).expect("a file");
    std::fs::write(
        dir.join("twice.yaml"),
        case("retries", "[retry-after, retry-after]"),
    )
    .expect("a file");
    std::fs::write(
        dir.join("also.yaml"),
        "part: auto-disable\ncases:\n  - id: a-also\n    title: t\n    rules: [auto.count]\n    \
         origin: brief\n    also: [policy]\n    steps:\n      - op: [process, 0]\n        \
         expect: []\n  - id: a-both\n    title: t\n    rules: [auto.count]\n    origin: brief\n    \
         also: [dead-letters]\n    without: [dead-letters]\n    steps:\n      - op: [process, 0]\n        \
         expect: []\n",
    )
    .expect("a file");
    let out = hookcheck(&dir, &["lint", "--no-builtin", "--cases", "."]);
    let report = text(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    for needle in [
        "`without` lists `policy`, the case's own part",
        "`without` lists `pause`, which the case's part `retry-after` builds on",
        "`without` lists `retry-after` twice",
        "`also` lists `policy`, which the case's part `auto-disable` already needs",
        "`also` and `without` both list `dead-letters`: the case would apply to no implementation",
    ] {
        assert!(report.contains(needle), "{needle}\n{report}");
    }
    std::fs::write(dir.join("own.yaml"), case("retries", "[retry-aftr]")).expect("a file");
    let misspelled = hookcheck(&dir, &["lint", "--no-builtin", "--cases", "."]);
    says(
        &misspelled,
        1,
        "unknown part `retry-aftr` in `without`, expected one of retries, ordering, pause, policy, \
         retry-after, auto-disable, dead-letters, signatures, throttle, breaker, expiry: did you \
         mean `retry-after`?",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, `--impl "sol.py --parts ..."` (as the adapters' usage reads) ran the whole string as a
/// shell command ("sol.py: not found"), and `check --per-case --impl sol.py` started the
/// lines-mode adapter for a per-case run.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_solution_file_takes_the_adapters_options_after_it() {
    let dir = common::fresh("parts-after-file");
    std::fs::copy(
        root().join("examples/python/dispatcher.py"),
        dir.join("sol.py"),
    )
    .expect("a solution");
    let three = hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--impl",
            "sol.py --parts retries,ordering,pause",
        ],
    );
    let report = text(&three);
    // Declared three parts: the roadmap's are not implemented, and the one case for
    // implementations without Part 5 fails (the example offers it), with the hint.
    assert_eq!(three.status.code(), Some(1), "{report}");
    assert!(report.contains("Part 4 not implemented"), "{report}");
    assert!(
        report.contains("FAIL  errors::errors-outcomes-objects-without-part-5"),
        "{report}"
    );
    assert!(
        report.contains("a case for implementations without `retry-after` (Part 5)")
            && report.contains("declare the part"),
        "{report}"
    );
    let all = hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--impl",
            "sol.py --name=mine --parts retries,ordering,pause,policy,retry-after,auto-disable,dead-letters,signatures,throttle,breaker,expiry",
        ],
    );
    common::says(&all, 0, "PASSED:");
    assert!(text(&all).contains("mine (python"), "{}", text(&all));
    let per_case = hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--per-case",
            "--part",
            "ordering",
            "--impl",
            "sol.py",
        ],
    );
    common::says(&per_case, 0, "PASSED: 10 passed");
    for (command, needle) in [
        ("sol.py --per-case", "give `check --per-case --impl sol.py`"),
        ("sol.py --verbose", "`--impl \"python3 sol.py --verbose\"`"),
        ("sol.py --parts", "--parts needs a value"),
    ] {
        let out = hookcheck(&dir, &["check", "--impl", command]);
        common::says(&out, 2, needle);
    }
    // A hostile word after the file is an option value, quoted: never run by the shell.
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--impl",
            "sol.py --name $(touch${IFS}PWNED)",
        ],
    );
    assert!(!dir.join("PWNED").exists(), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}
