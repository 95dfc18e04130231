//! One meaning of "brief": a solution that follows the brief and decides every clarification
//! differently (tests/fakes/clarification_variant.py) gets the same verdict every way in: the
//! CLI with `--origin brief` and each report it writes, this repository's `cargo test` with
//! `HOOKCHECK_ORIGIN=brief`, and the Rust library harness's `brief_only()`.

use crate::common;

use common::{hookcheck, python_impl, root, text};
use hookcheck::conformance::Suite;
use libtest_mimic::Arguments;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn folder(test: &str) -> PathBuf {
    common::fresh(&format!("scope-{test}"))
}

fn variant() -> String {
    python_impl("tests/fakes/clarification_variant.py")
}

/// How many of the corpus's cases the brief states, in the parts the variant implements (the
/// brief's three; the roadmap's are not implemented there).
fn brief_cases() -> usize {
    common::corpus()
        .iter()
        .filter(|c| {
            c.origin == hookcheck::case::Origin::Brief
                && hookcheck::case::Part::BRIEF.contains(&c.part)
        })
        .count()
}

#[test]
fn the_cli_and_every_report_agree_on_the_brief_only_verdict() {
    let dir = folder("cli");
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--origin",
            "brief",
            "--impl",
            &variant(),
            "--format",
            "json",
            "--junit",
            "r.xml",
            "--markdown",
            "r.md",
            "--html",
            "r.html",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let passed = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "case" && e["verdict"] == "passed")
        .count();
    assert_eq!(passed, brief_cases());
    let junit = std::fs::read_to_string(dir.join("r.xml")).expect("junit");
    assert!(!junit.contains("<failure"), "{junit}");
    let markdown = std::fs::read_to_string(dir.join("r.md")).expect("markdown");
    assert!(!markdown.contains("| ✗ |"), "{markdown}");
    assert!(markdown.contains("Part 1 passed"), "{markdown}");
    let html = std::fs::read_to_string(dir.join("r.html")).expect("html");
    assert!(
        !html.contains("data-verdict=\"failed\""),
        "the HTML judged in full"
    );
    // The same solution judged in full fails, in every report.
    let o = hookcheck(
        &dir,
        &["check", "--impl", &variant(), "--markdown", "full.md"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let markdown = std::fs::read_to_string(dir.join("full.md")).expect("markdown");
    assert!(markdown.contains("| ✗ |"), "{markdown}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Rust library harness, with a `run` that asks the Python variant (one process per case).
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn the_library_harness_brief_only_runs_what_the_cli_runs() {
    let run = |operations: &[Value]| -> Vec<Value> {
        let mut child = Command::new("python3")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .arg("-c")
            .arg(
                "import json, sys; sys.path.insert(0, sys.argv[1]); \
                 import clarification_variant as v; \
                 print(json.dumps(v.run(json.load(sys.stdin))))",
            )
            .arg(root().join("tests/fakes"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(Value::Array(operations.to_vec()).to_string().as_bytes());
        }
        let out = child.wait_with_output().expect("python3 ends");
        serde_json::from_slice(&out.stdout).unwrap_or_default()
    };
    // The inner runs' own "test result" lines go to a file, not into this test's output.
    let log = common::scratch().join(format!("hookcheck-scope-{}.log", std::process::id()));
    let args = Arguments {
        test_threads: Some(2),
        quiet: true,
        logfile: Some(log.display().to_string()),
        ..Arguments::default()
    };
    let brief = libtest_mimic::run(&args, Suite::new(run).brief_only().trials());
    assert_eq!(brief.num_failed, 0, "{brief:?}");
    // The cases plus `corpus::load`.
    assert_eq!(brief.num_passed as usize, brief_cases() + 1, "{brief:?}");
    let full = libtest_mimic::run(&args, Suite::new(run).trials());
    assert!(full.num_failed > 0, "{full:?}");
    let _ = std::fs::remove_file(&log);
}

/// This repository's `cargo test --test conformance` (the harness binary cargo built beside this
/// test) with `HOOKCHECK_IMPL` and `HOOKCHECK_ORIGIN=brief`.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn cargo_test_with_hookcheck_origin_brief_runs_what_the_cli_runs() {
    let harness = common::conformance_harness();
    let run = |origin: &str| {
        Command::new(&harness)
            .args(["--test-threads", "2"])
            .current_dir(root())
            .env("HOOKCHECK_IMPL", variant())
            .env("HOOKCHECK_ORIGIN", origin)
            .output()
            .expect("the harness runs")
    };
    let o = run("brief");
    assert!(o.status.success(), "{}", text(&o));
    // The brief's cases and the three corpus checks pass; every other case is ignored.
    let summary = format!("test result: ok. {} passed; 0 failed", brief_cases() + 3);
    assert!(text(&o).contains(&summary), "{}", text(&o));
    let o = run("");
    assert!(
        !o.status.success(),
        "the full run should fail: {}",
        text(&o)
    );
    // A solution file, as `--impl` takes it, runs through the built-in adapter.
    let o = Command::new(&harness)
        .args(["--test-threads", "2"])
        .current_dir(root())
        .env("HOOKCHECK_IMPL", "examples/python/dispatcher.py")
        .env("TMPDIR", common::scratch())
        .output()
        .expect("the harness runs");
    assert!(o.status.success(), "{}", text(&o));
}

/// Before, `cargo test --test conformance` had no way to declare a per-case command's parts or
/// number reading: HOOKCHECK_PARTS was ignored and the roadmap's cases were all ignored.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn cargo_test_declares_a_per_case_commands_parts_and_numbers() {
    let harness = common::conformance_harness();
    let command = format!(
        "python3 {} {} --per-case",
        root()
            .join("harness/adapters/python/hookcheck_adapter.py")
            .display(),
        root().join("examples/python/dispatcher.py").display()
    );
    let run = |vars: &[(&str, &str)]| {
        let mut c = Command::new(&harness);
        // The cases for implementations without Parts 5 and 6 are the example's to fail: it
        // answers every part, and the declaration below leaves those two out.
        c.args(["--test-threads", "2", "policy::policy-", "--skip=-without-"])
            .current_dir(root())
            .env("HOOKCHECK_IMPL", &command)
            .env("TMPDIR", common::scratch());
        for (k, v) in vars {
            c.env(k, v);
        }
        c.output().expect("the harness runs")
    };
    let policy_cases = common::corpus()
        .iter()
        .filter(|c| c.part == hookcheck::case::Part::Policy && c.id.starts_with("policy-"))
        .filter(|c| c.without.is_empty() && c.also.is_empty())
        .count();
    let o = run(&[
        ("HOOKCHECK_PER_CASE", "1"),
        ("HOOKCHECK_PARTS", "retries,ordering,pause,policy"),
        ("HOOKCHECK_NUMBERS", "spelling"),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let passed = format!("test result: ok. {policy_cases} passed; 0 failed");
    assert!(text(&o).contains(&passed), "{passed}: {}", text(&o));
    // In lines mode the handshake declares them: refused, never ignored.
    let o = run(&[("HOOKCHECK_PARTS", "retries")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("set HOOKCHECK_PER_CASE=1 too"),
        "{}",
        text(&o)
    );
    let o = run(&[("HOOKCHECK_PER_CASE", "1"), ("HOOKCHECK_PARTS", "policy")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = run(&[
        ("HOOKCHECK_PER_CASE", "1"),
        ("HOOKCHECK_NUMBERS", "\u{1b}[2Jdigits"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!text(&o).contains('\u{1b}'), "{}", text(&o));
}
