//! Grading what the submitters cannot see: `check --hidden DIR` (a grader's own cases, reported
//! apart) and `check --generated N --seed S` (random workloads judged against the reference).
//! A lookup table built from `hookcheck export` passes the public corpus and fails both; the
//! reference and the example solutions pass them.

use crate::common;

use common::{fresh, hookcheck, root, says, text};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// A hidden case worked out by hand from the spec (the brief's worked example with other ids,
/// statuses and a call just before a retry is due): nothing of it is in the public corpus. Its
/// endpoint and event ids are what a report must not give away.
const HIDDEN: &str = r#"part: retries
cases:
  - id: grader-three-attempts
    title: Two retryable failures, then a 204
    rules: [run.sequence, op.shape, enqueue.accept, process.due, outcomes.script, attempt.count,
            classify.retryable, classify.delivered, retry.wait-schedule, retry.due-from-call,
            status.report]
    origin: brief
    steps:
      - op: [register, 0, vault, "https://vault.example/in"]
        expect: true
      - op: [enqueue, 0, vault, secret-7, [500, 502, 204]]
        expect: queued
      - op: [process, 0]
        expect: ["secret-7 #1 500 retry at 30"]
      - op: [process, 29]
        expect: []
      - op: [process, 30]
        expect: ["secret-7 #2 502 retry at 90"]
      - op: [process, 90]
        expect: ["secret-7 #3 204 delivered"]
      - op: [status, 90, secret-7]
        expect: {state: delivered, attempts: 3, next_attempt_at: null}
"#;

/// A folder holding the hidden case file.
fn hidden_folder(dir: &Path) -> PathBuf {
    let hidden = dir.join("hidden").join("grader");
    std::fs::create_dir_all(&hidden).expect("hidden folder");
    std::fs::write(hidden.join("secret.yaml"), HIDDEN).expect("hidden case");
    dir.join("hidden")
}

/// JSON with its object keys sorted, as the lookup table's Python writes its keys.
fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&m[k])))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// `hookcheck export` into `dir/corpus`, its cases turned into the lookup table's JSON, and the
/// command that answers from it.
fn lookup_table(dir: &Path) -> String {
    let out = hookcheck(dir, &["export", "corpus"]);
    assert!(out.status.success(), "{}", text(&out));
    let corpus = hookcheck::corpus::Corpus::load(&dir.join("corpus/cases"));
    assert!(corpus.errors.is_empty(), "{:?}", corpus.errors);
    assert!(corpus.cases.len() > 100, "the whole corpus was exported");
    let (mut by_operations, mut by_name) = (Map::new(), Map::new());
    for c in &corpus.cases {
        let results = Value::Array(c.steps.iter().map(|s| s.expect.clone()).collect());
        let ops = canonical(&Value::Array(c.operations()));
        by_operations.insert(ops.to_string(), results.clone());
        by_name.insert(c.name(), results);
    }
    let table = dir.join("table.json");
    let json = json!({"by_operations": by_operations, "by_name": by_name});
    std::fs::write(&table, json.to_string()).expect("table");
    format!(
        "python3 {} {}",
        root().join("tests/fakes/lookup_table.py").display(),
        table.display()
    )
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_lookup_table_passes_the_public_corpus_and_fails_hidden_and_generated_cases() {
    let dir = fresh("lookup-table");
    let table = lookup_table(&dir);
    let hidden = hidden_folder(&dir);
    let hidden = hidden.to_str().expect("utf-8 path");

    // Memorising the corpus passes it: the public corpus alone cannot tell.
    let public = hookcheck(&dir, &["check", "--impl", &table]);
    says(&public, 0, "PASSED");
    assert!(!text(&public).contains("hidden cases"), "{}", text(&public));

    // A case it never saw fails, reported apart, with its diff on the grader's terminal.
    let out = hookcheck(&dir, &["check", "--impl", &table, "--hidden", hidden]);
    says(&out, 1, "hidden cases: 0 passed, 1 failed");
    let shown = text(&out);
    assert!(shown.contains("-- hidden cases --"), "{shown}");
    assert!(
        shown.contains("FAIL  grader::grader-three-attempts"),
        "{shown}"
    );
    assert!(shown.contains("secret-7 #1 500 retry at 30"), "{shown}");
    // The public cases still all pass: only the hidden one fails the run.
    assert!(shown.contains("FAILED: "), "{shown}");
    assert!(shown.contains(" 0 failed, 0 errored"), "{shown}");

    // Random workloads judged against the reference fail too, each named and shrunk.
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &table,
            "--generated",
            "20",
            "--seed",
            "7",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("-- generated workloads (seed 7) --"),
        "{shown}"
    );
    assert!(shown.contains("generated workloads (seed 7): "), "{shown}");
    assert!(!shown.contains("(seed 7): 20 passed"), "{shown}");
    assert!(shown.contains("FAIL  generated-7-"), "{shown}");
    assert!(shown.contains(", shrunk from "), "{shown}");
    assert!(
        shown.contains("the reference's results are the expectations"),
        "{shown}"
    );
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn the_reference_and_the_python_example_pass_hidden_and_generated_cases() {
    let dir = fresh("hidden-reference");
    let hidden = hidden_folder(&dir);
    let hidden = hidden.to_str().expect("utf-8 path");
    let args = ["--hidden", hidden, "--generated", "40", "--seed", "11"];
    let reference = hookcheck(&dir, &[&["check"][..], &args].concat());
    says(&reference, 0, "hidden cases: 1 passed, 0 failed");
    says(
        &reference,
        0,
        "generated workloads (seed 11): 40 passed, 0 failed",
    );
    // The example solution through the built-in adapter: no false alarm from either.
    let example = root().join("examples/python/dispatcher.py");
    let example = example.to_str().expect("utf-8 path");
    let out = hookcheck(&dir, &[&["check", "--impl", example][..], &args].concat());
    says(&out, 0, "hidden cases: 1 passed, 0 failed");
    says(
        &out,
        0,
        "generated workloads (seed 11): 40 passed, 0 failed",
    );
}

#[test]
#[ignore = "needs node: .ci/run installs it and runs ignored tests"]
fn the_node_example_passes_hidden_and_generated_cases() {
    let dir = fresh("hidden-node");
    let hidden = hidden_folder(&dir);
    let example = root().join("examples/node/dispatcher.js");
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            example.to_str().expect("utf-8 path"),
            "--hidden",
            hidden.to_str().expect("utf-8 path"),
            "--generated",
            "40",
            "--seed",
            "11",
        ],
    );
    says(&out, 0, "hidden cases: 1 passed, 0 failed");
    says(
        &out,
        0,
        "generated workloads (seed 11): 40 passed, 0 failed",
    );
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn report_files_keep_a_hidden_case_to_its_name_unless_the_grader_says_otherwise() {
    let dir = fresh("hidden-reports");
    let table = lookup_table(&dir);
    let hidden = hidden_folder(&dir);
    let hidden = hidden.to_str().expect("utf-8 path");
    let files = ["--markdown", "r.md", "--html", "r.html", "--junit", "r.xml"];
    let run = |detail: &[&str]| {
        let args = [
            &["check", "--impl", &table, "--hidden", hidden][..],
            &files,
            detail,
        ]
        .concat();
        let out = hookcheck(&dir, &args);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        ["r.md", "r.html", "r.xml"].map(|f| {
            let report = std::fs::read_to_string(dir.join(f)).expect("report");
            std::fs::remove_file(dir.join(f)).expect("removed");
            (f, report)
        })
    };
    for (file, report) in run(&[]) {
        assert!(report.contains("grader-three-attempts"), "{file}: {report}");
        for secret in ["secret-7", "vault", "secret.yaml"] {
            assert!(!report.contains(secret), "{file} shows {secret}: {report}");
        }
    }
    for (file, report) in run(&["--hidden-detail", "diff"]) {
        // Markdown shows marks only, for public and hidden cases alike.
        if file != "r.md" {
            assert!(report.contains("secret-7"), "{file}: {report}");
        }
    }
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn json_events_carry_hidden_and_generated_cases_in_groups() {
    let dir = fresh("hidden-json");
    let table = lookup_table(&dir);
    let hidden = hidden_folder(&dir);
    let hidden = hidden.to_str().expect("utf-8 path");
    let args = [
        "--hidden",
        hidden,
        "--generated",
        "10",
        "--seed",
        "3",
        "--format",
        "json",
    ];
    let out = hookcheck(&dir, &[&["check", "--impl", &table][..], &args].concat());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    let start = &events[0];
    assert_eq!(start["hidden"], 1);
    assert_eq!(start["generated"], json!({"workloads": 10, "seed": 3}));
    let hidden_cases: Vec<&Value> = events.iter().filter(|e| e["group"] == "hidden").collect();
    assert_eq!(hidden_cases.len(), 1);
    assert_eq!(hidden_cases[0]["verdict"], "failed");
    assert_eq!(hidden_cases[0]["step"]["index"], 1);
    let generated: Vec<&Value> = events
        .iter()
        .filter(|e| e["group"] == "generated")
        .collect();
    assert!(!generated.is_empty());
    assert!(generated.iter().all(|e| {
        e["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("generated-3-"))
            && e["verdict"] == "failed"
    }));
    let summary = events.last().expect("a summary");
    assert_eq!(summary["success"], false);
    assert_eq!(summary["hidden"]["failed"], 1);
    assert_eq!(summary["generated"]["failed"], generated.len());
    assert_eq!(
        summary["generated"]["passed"].as_u64().unwrap_or(99) + generated.len() as u64,
        10
    );
    // The public cases all passed.
    assert_eq!(summary["total"]["failed"], 0);

    // Many implementations: each `implementation` event counts its own.
    let serve = format!("{} serve", env!("CARGO_BIN_EXE_hookcheck"));
    let both = [&["check", "--impl", &table, "--impl", &serve][..], &args].concat();
    let out = hookcheck(&dir, &both);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let found = common::implementation_events(&out.stdout);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0]["passed"], false);
    assert_eq!(found[0]["hidden"]["failed"], 1);
    assert_eq!(found[1]["passed"], true, "{}", found[1]);
    assert_eq!(found[1]["hidden"]["passed"], 1);
    assert_eq!(found[1]["generated"]["passed"], 10);
    assert!(
        found[0]["apart"]
            .as_array()
            .is_some_and(|a| a.iter().any(|c| c["group"] == "generated"))
    );
}

#[test]
fn many_implementations_get_a_line_each() {
    let dir = fresh("hidden-many");
    let table = lookup_table(&dir);
    let hidden = hidden_folder(&dir);
    let serve = format!("{} serve", env!("CARGO_BIN_EXE_hookcheck"));
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &table,
            "--impl",
            &serve,
            "--hidden",
            hidden.to_str().expect("utf-8 path"),
            "--generated",
            "10",
            "--seed",
            "5",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = text(&out);
    let lines: Vec<&str> = shown
        .lines()
        .filter(|l| l.contains("hidden cases: "))
        .collect();
    assert_eq!(lines.len(), 2, "{shown}");
    assert!(
        lines.iter().any(|l| l.contains("0 passed, 1 failed")),
        "{shown}"
    );
    assert!(
        lines.iter().any(|l| l.contains("1 passed, 0 failed")),
        "{shown}"
    );
    assert!(
        shown.contains("generated workloads (seed 5): 10 passed, 0 failed"),
        "{shown}"
    );
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_hidden_case_is_held_to_lint_and_may_not_take_a_public_id() {
    let dir = fresh("hidden-lint");
    let hidden = dir.join("hidden");
    std::fs::create_dir_all(&hidden).expect("folder");
    // A public case's id, in a file of its own.
    let public = HIDDEN.replace("grader-three-attempts", "brief-worked-example");
    std::fs::write(hidden.join("clash.yaml"), public).expect("case");
    let out = hookcheck(&dir, &["check", "--hidden", "hidden"]);
    says(
        &out,
        2,
        "hidden/clash.yaml:3: hidden case brief-worked-example: id already used by the public case at ",
    );
    says(&out, 2, "cases/retries/worked-example.yaml:5");
    std::fs::remove_file(hidden.join("clash.yaml")).expect("removed");

    let unknown = HIDDEN.replace("rules: [run.sequence,", "rules: [run.sequense,");
    std::fs::write(hidden.join("unknown.yaml"), unknown).expect("case");
    let out = hookcheck(&dir, &["check", "--hidden", "hidden"]);
    says(&out, 2, "the hidden cases do not pass `hookcheck lint`");
    says(
        &out,
        2,
        "hidden/unknown.yaml:3: case grader-three-attempts: cites unknown rule `run.sequense`",
    );

    std::fs::write(hidden.join("unknown.yaml"), "part: retries\ncases: [oops\n").expect("case");
    let out = hookcheck(&dir, &["check", "--hidden", "hidden"]);
    says(&out, 2, "the hidden cases (--hidden hidden) do not load");
    says(&out, 2, "hidden/unknown.yaml:");
    std::fs::remove_file(hidden.join("unknown.yaml")).expect("removed");

    let out = hookcheck(&dir, &["check", "--hidden", "hidden"]);
    says(&out, 2, "--hidden hidden: holds no case");
    let out = hookcheck(&dir, &["check", "--hidden", "missing"]);
    says(&out, 2, "missing");
}

#[test]
fn generated_flags_are_checked_before_anything_runs() {
    let dir = fresh("generated-flags");
    for (args, needle) in [
        (
            &["--generated", "0"][..],
            "--generated is a number of workloads from 1 to 10000, not 0",
        ),
        (&["--generated", "10001"][..], "from 1 to 10000, not 10001"),
        (&["--generated", "18446744073709551616"][..], "--generated"),
        (&["--generated", "-3"][..], "'-3'"),
        (&["--generated", "ten"][..], "invalid value 'ten'"),
        (
            &["--generated", "5", "--seed", "x7"][..],
            "invalid value 'x7'",
        ),
        (&["--generated", "5", "--seed", "-1"][..], "'-1'"),
        (&["--seed", "7"][..], "--generated"),
        (&["--hidden-detail", "diff"][..], "--hidden"),
        (
            &["--hidden", "h", "--hidden-detail", "all"][..],
            "invalid value 'all'",
        ),
    ] {
        let out = hookcheck(&dir, &[&["check"][..], args].concat());
        says(&out, 2, needle);
        assert!(!text(&out).contains("PASSED"), "{args:?}: {}", text(&out));
    }
}

#[test]
fn the_generated_workloads_are_the_seeds_and_only_of_the_declared_parts() {
    let dir = fresh("generated-parts");
    // The Python example declaring the brief's three parts only, to which every roadmap
    // operation is unknown: a workload with one would fail it.
    let fake = format!(
        "FAKE_PARTS=retries,ordering,pause python3 {} crash no-case-has-this-name",
        root().join("tests/fakes/fake_impl.py").display()
    );
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &fake,
            "--generated",
            "60",
            "--seed",
            "9",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let summary: Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .expect("summary");
    assert_eq!(summary["generated"]["passed"], 60, "{summary}");
    // The same generator as `hookcheck fuzz`: the library makes the same workloads for the
    // same seed and parts, none with an operation of Parts 4 to 7; with every part, some have.
    let generator = |parts: &[hookcheck::case::Part]| hookcheck::fuzz::Generator {
        max_ops: hookcheck::fuzz::workloads::MAX_OPS,
        parts: parts.to_vec(),
        brief_only: false,
    };
    let roadmap = |ops: &[Value]| {
        ops.iter().any(|op| {
            ["set_policy", "endpoint", "dead_letter", "recover"]
                .contains(&op[0].as_str().unwrap_or_default())
        })
    };
    let brief = generator(&hookcheck::case::Part::BRIEF);
    let all = generator(&hookcheck::case::Part::ALL);
    assert!((0..60).all(|k| brief.case(9, k) == brief.case(9, k)));
    assert!((0..60).all(|k| !roadmap(&brief.case(9, k))));
    assert!((0..60).any(|k| roadmap(&all.case(9, k))));
}

#[test]
fn a_hostile_folder_name_stays_inert_in_every_report() {
    let dir = fresh("hidden-hostile");
    let table = lookup_table(&dir);
    // The suite is the folder's name: markup, a terminal escape and a quote in it.
    let suite = "<img src=x onerror=alert(1)>\u{1b}[2J\"";
    let folder = dir.join("hidden").join(suite);
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("secret.yaml"), HIDDEN).expect("hidden case");
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &table,
            "--hidden",
            "hidden",
            "--hidden-detail",
            "diff",
            "--html",
            "r.html",
            "--markdown",
            "r.md",
            "--junit",
            "r.xml",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(!text(&out).contains('\u{1b}'), "{}", text(&out));
    assert!(
        text(&out).contains("grader-three-attempts"),
        "{}",
        text(&out)
    );
    for file in ["r.html", "r.md", "r.xml"] {
        let report = std::fs::read_to_string(dir.join(file)).expect("report");
        assert!(report.contains("grader-three-attempts"), "{file}");
        assert!(!report.contains("<img"), "{file}: {report}");
        assert!(!report.contains('\u{1b}'), "{file}");
    }
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_lookup_table_that_skips_what_it_does_not_know_fails_too() {
    let dir = fresh("lookup-skips");
    let table = format!("{} --skip-unknown", lookup_table(&dir));
    let hidden = hidden_folder(&dir);
    let hidden = hidden.to_str().expect("utf-8 path");
    says(&hookcheck(&dir, &["check", "--impl", &table]), 0, "PASSED");
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &table,
            "--hidden",
            hidden,
            "--generated",
            "10",
            "--seed",
            "2",
        ],
    );
    says(&out, 1, "hidden cases: 0 passed, 1 failed (1 skipped)");
    says(&out, 1, "generated workloads (seed 2): 0 passed, 10 failed");
    says(&out, 1, "the implementation skipped it (not in the table)");
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn an_implementation_that_hangs_on_the_workloads_fails_them_in_bounded_time() {
    let dir = fresh("generated-hangs");
    // It answers as the Python example, and hangs on every case whose name says `generated`.
    let hangs = format!(
        "python3 {} hang generated",
        root().join("tests/fakes/fake_impl.py").display()
    );
    let started = std::time::Instant::now();
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &hangs,
            "--timeout",
            "2",
            "--generated",
            "3",
            "--seed",
            "1",
        ],
    );
    says(&out, 1, "generated workloads (seed 1): 0 passed, 3 failed");
    says(&out, 1, "ERROR generated-1-0");
    // Three timeouts among the others, three confirmed alone, one more run of each shrunk one
    // (a timeout is 2 s, which a busy machine starting Python needs): far below a minute,
    // whatever the shrinker tried.
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}
