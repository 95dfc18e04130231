//! Submissions nobody has read: what they are named, declare, print and start can neither fool the
//! verdict nor touch the grader's machine (issue "Untrusted implementations"). Each test is a
//! reproducer that failed before the fix.

use crate::common;

use common::{hookcheck, peak_rss, root, text};
use hookcheck::fuzz::adhoc_case;
use hookcheck::implementation::{Failure, Implementation, Options, Subprocess};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn folder(test: &str) -> PathBuf {
    common::fresh(&format!("untrusted-{test}"))
}

fn fake() -> String {
    root()
        .join("tests/fakes/fake_impl.py")
        .display()
        .to_string()
}

fn adapter() -> String {
    root()
        .join("harness/adapters/python/hookcheck_adapter.py")
        .display()
        .to_string()
}

/// The JSON lines of a `--format json` run.
fn events(o: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// (case name, its part, verdict), from a one-implementation JSON run.
fn verdicts(o: &std::process::Output) -> Vec<(String, String, String)> {
    let field = |e: &Value, k: &str| e[k].as_str().unwrap_or("").to_string();
    events(o)
        .iter()
        .filter(|e| e["event"] == "case")
        .map(|e| (field(e, "name"), field(e, "part"), field(e, "verdict")))
        .collect()
}

/// The roadmap's parts, which a fake of the brief's three does not offer. Decided by a case's
/// part, never its folder: a roadmap-part case in `cases/regressions/` is one of them.
const ROADMAP_PARTS: [&str; 8] = [
    "policy",
    "retry-after",
    "auto-disable",
    "dead-letters",
    "signatures",
    "throttle",
    "breaker",
    "expiry",
];

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn file_names_with_shell_syntax_are_ordinary_file_names() {
    use std::os::unix::ffi::OsStrExt;
    let dir = folder("names");
    let solution = std::fs::read(root().join("examples/python/dispatcher.py")).expect("example");
    let names: Vec<&[u8]> = vec![
        b"x;touch INJECTED;",
        b"eve$(touch PWNED)",
        b"a b",
        b"it's \"quoted\"",
        b"back`touch TICKED`",
        b"new\nline",
        b"bytes\xff\xfe",
    ];
    for name in &names {
        let folder = dir
            .join("submissions")
            .join(std::ffi::OsStr::from_bytes(name));
        std::fs::create_dir_all(&folder).expect("submission folder");
        std::fs::write(folder.join("solution.py"), &solution).expect("solution");
    }
    let command = format!("python3 {} {{path}}", adapter());
    let each = "submissions/*/solution.py";
    let o = hookcheck(
        &dir,
        &[
            "check", "--impl", &command, "--each", each, "--part", "ordering", "--format", "json",
        ],
    );
    let implementations: Vec<Value> = events(&o)
        .into_iter()
        .filter(|e| e["event"] == "implementation")
        .collect();
    assert_eq!(implementations.len(), names.len(), "{}", text(&o));
    for i in &implementations {
        assert_eq!(i["started"], true, "{i}");
        assert_eq!(i["total"]["failed"], 0, "{i}");
        assert_eq!(i["total"]["errored"], 0, "{i}");
    }
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The same through a manifest's glob.
    std::fs::write(
        dir.join("grading.toml"),
        format!("[[implementation]]\nglob = \"{each}\"\ncommand = \"{command}\"\n"),
    )
    .expect("manifest");
    let o = hookcheck(
        &dir,
        &["check", "--manifest", "grading.toml", "--part", "ordering"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for planted in ["INJECTED", "PWNED", "TICKED"] {
        assert!(!dir.join(planted).exists(), "{planted} was created");
        assert!(!root().join(planted).exists(), "{planted} was created");
    }
    // A placeholder inside single quotes cannot be filled: an error, not a literal.
    let quoted = format!("python3 {} '{{path}}'", adapter());
    let o = hookcheck(&dir, &["check", "--impl", &quoted, "--each", each]);
    common::says(&o, 2, "single quotes");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn an_implementation_that_checks_nothing_does_not_pass() {
    let dir = folder("nothing");
    // A handshake that declares no part.
    let none = format!("FAKE_PARTS= python3 {} none @@", fake());
    let o = hookcheck(&dir, &["check", "--impl", &none]);
    common::says(&o, 1, "nothing was checked");
    // Every case skipped: not a pass, and --allow-skips does not make it one.
    let skips = format!("python3 {} skipped ::", fake());
    for extra in [None, Some("--allow-skips")] {
        let mut args = vec!["check", "--impl", &skips];
        args.extend(extra);
        let o = hookcheck(&dir, &args);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", text(&o));
    }
    // A per-case manifest entry with no part.
    std::fs::write(
        dir.join("m.toml"),
        format!(
            "[[implementation]]\nname = \"empty\"\ncommand = \"python3 {}\"\nper_case = true\nparts = []\n",
            root().join("tests/fakes/per_case.py").display()
        ),
    )
    .expect("manifest");
    let o = hookcheck(&dir, &["check", "--manifest", "m.toml"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(!text(&o).contains("1 pass every case"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_skipped_case_is_not_a_pass_unless_skips_are_allowed() {
    let dir = folder("skips");
    // Skips exactly the cases it would get wrong: the grade must not call it a pass.
    let command = format!("python3 {} skipped ordering-brief-example", fake());
    let o = hookcheck(&dir, &["check", "--impl", &command, "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        verdicts(&o).contains(&(
            "ordering::ordering-brief-example".to_string(),
            "ordering".to_string(),
            "skipped".to_string()
        )),
        "{}",
        text(&o)
    );
    let o = hookcheck(&dir, &["check", "--impl", &command]);
    assert!(text(&o).contains("skipped 1 case"), "{}", text(&o));
    let o = hookcheck(&dir, &["check", "--impl", &command, "--allow-skips"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // In a grade, the skip counts against its part.
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &command,
            "--impl",
            &format!("python3 {} none @@", fake()),
            "--format",
            "json",
        ],
    );
    let skipper = events(&o)
        .into_iter()
        .find(|e| e["event"] == "implementation" && e["command"] == command.as_str())
        .expect("the skipper's row");
    let ordering = &skipper["grade"]["full"]["ordering"];
    assert_eq!(
        ordering["passed"].as_u64().map(|p| p + 1),
        ordering["total"].as_u64(),
        "{skipper}"
    );
    assert!(
        skipper["brief_terms"]
            .as_str()
            .is_some_and(|t| t.contains("ordering-brief-example")),
        "{skipper}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_required_part_that_is_not_declared_fails() {
    let dir = folder("require");
    let command = format!("FAKE_PARTS=retries,ordering python3 {} none @@", fake());
    let o = hookcheck(&dir, &["check", "--impl", &command]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &command,
            "--require-parts",
            "retries,ordering,pause",
        ],
    );
    common::says(&o, 1, "part `pause` is required");
    std::fs::write(
        dir.join("m.toml"),
        format!(
            "[[implementation]]\nname = \"two-parts\"\ncommand = \"{command}\"\nrequire_parts = [\"pause\"]\n"
        ),
    )
    .expect("manifest");
    let o = hookcheck(&dir, &["check", "--manifest", "m.toml"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A crash in one operation (every pause case) errors those cases only: the same grade whatever
/// the number of jobs.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_crash_in_some_cases_gives_the_same_grade_with_any_jobs() {
    let dir = folder("jobs");
    let command = format!("python3 {} crash-hard pause", fake());
    let mut seen = Vec::new();
    for jobs in ["1", "2", "8"] {
        let o = hookcheck(
            &dir,
            &[
                "check", "--impl", &command, "--jobs", jobs, "--format", "json",
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let v = verdicts(&o);
        for (name, part, verdict) in &v {
            // The fake declares the brief's three parts: the roadmap's cases do not apply.
            let expected = if ROADMAP_PARTS.contains(&part.as_str()) {
                "not_applicable"
            } else if name.contains("pause") {
                "errored"
            } else {
                "passed"
            };
            assert_eq!(verdict, expected, "--jobs {jobs}: {name}");
        }
        seen.push(v);
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Far more jobs than cores: capped with a warning, and a correct implementation passes.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn overload_is_not_failure() {
    let dir = folder("overload");
    let solution = std::fs::read(root().join("examples/python/dispatcher.py")).expect("example");
    let mut args = vec!["check".to_string()];
    for who in ["a", "b", "c"] {
        std::fs::create_dir_all(dir.join(who)).expect("folder");
        std::fs::write(dir.join(who).join("solution.py"), &solution).expect("copy");
        args.push("--impl".to_string());
        args.push(format!("python3 {} {who}/solution.py", adapter()));
    }
    args.extend(["--jobs".to_string(), "10000".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = hookcheck(&dir, &args);
    common::says(&o, 0, "--jobs 10000 is more than");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A case that times out among the others and passes when run again alone is a pass, marked
/// slow and counted apart.
#[test]
fn a_timeout_is_confirmed_alone_before_it_counts() {
    let dir = folder("slow");
    let command = format!("python3 {} slow-once ordering-brief-example", fake());
    let o = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args([
            "check",
            "--impl",
            &command,
            "--part",
            "ordering",
            "--timeout",
            "1",
        ])
        .args(["--format", "json"])
        .current_dir(&dir)
        .env("FAKE_MARKER", dir.join("slow-marker"))
        .output()
        .expect("hookcheck runs");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let victim = events(&o)
        .into_iter()
        .find(|e| e["name"] == "ordering::ordering-brief-example")
        .expect("the victim");
    assert_eq!(victim["verdict"], "passed", "{victim}");
    assert_eq!(victim["slow"], true, "{victim}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_answer_is_the_fault_of_its_own_case() {
    let dir = folder("twice");
    for fault in ["twice", "late-twice"] {
        let command = format!("python3 {} {fault} ordering-brief-example", fake());
        let o = hookcheck(
            &dir,
            &[
                "check", "--impl", &command, "--jobs", "1", "--format", "json",
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        for e in events(&o).iter().filter(|e| e["event"] == "case") {
            let name = e["name"].as_str().unwrap_or("");
            if name == "ordering::ordering-brief-example" {
                assert_eq!(e["verdict"], "errored", "{fault}: {e}");
                assert!(
                    e["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("wrote more after its answer")),
                    "{fault}: {e}"
                );
            } else if e["part"]
                .as_str()
                .is_some_and(|p| ROADMAP_PARTS.contains(&p))
            {
                assert_eq!(e["verdict"], "not_applicable", "{fault}: {e}");
            } else {
                assert_eq!(e["verdict"], "passed", "{fault}: {e}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A request far larger than a pipe holds, to a process that stopped reading: a timeout of that
/// case, on time.
#[test]
fn a_request_the_implementation_does_not_read_times_out() {
    let big = "u".repeat(1 << 20);
    let case = adhoc_case("big-request", &[json!(["register", 0, "shop", big])], false);
    let implementation = Subprocess::start(
        &format!("python3 {} stop-reading -", fake()),
        Options {
            timeout: Duration::from_secs(2),
            ..Options::default()
        },
    );
    let started = Instant::now();
    let outcome = implementation.run(&case);
    let took = started.elapsed();
    match outcome {
        Err(Failure::TimedOut { message, .. }) => {
            assert!(message.contains("did not even read"), "{message}")
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

#[test]
fn an_answer_over_the_limit_errors_its_case() {
    let dir = folder("big-answer");
    let command = format!("python3 {} big-results ordering-brief-example", fake());
    let o = hookcheck(&dir, &["check", "--impl", &command, "--format", "json"]);
    let victim = events(&o)
        .into_iter()
        .find(|e| e["name"] == "ordering::ordering-brief-example")
        .expect("the victim");
    assert_eq!(victim["verdict"], "errored", "{victim}");
    assert!(
        victim["message"]
            .as_str()
            .is_some_and(|m| m.contains("answer longer than 1 MiB")),
        "{victim}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// 100 MiB written after the answer, and 1 MiB per result: hookcheck's memory stays small.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn floods_on_stdout_are_bounded() {
    let dir = folder("flood");
    for fault in ["flood-stdout", "big-results"] {
        let command = format!("python3 {} {fault} ordering", fake());
        let (peak, status) = peak_rss(&dir, &["check", "--impl", &command, "--part", "ordering"]);
        assert_eq!(status.code(), Some(1), "{fault}");
        assert!(peak < 64 * 1024, "{fault}: peak RSS {peak} KiB");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The processes whose command line holds `tag`.
fn survivors(tag: &str) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(tag))
        .collect()
}

/// What an implementation starts, in its group or in a session of its own, is gone after a
/// clean run, a timeout, SIGINT and SIGTERM; an interrupted run still prints its report.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn nothing_outlives_a_run() {
    let dir = folder("orphans");
    let marker = dir.join("marker");
    for (how, signal) in [
        ("clean", None),
        ("per-case", None),
        ("timeout", None),
        ("sigint", Some("INT")),
        ("sigterm", Some("TERM")),
    ] {
        let tag = format!("orphan-tag-{how}-{}", std::process::id());
        let fault = if how == "timeout" || signal.is_some() {
            "hang ordering-brief"
        } else {
            "none @@"
        };
        let timeout = if signal.is_some() { "30" } else { "1" };
        let mut args = vec![
            "check".to_string(),
            "--impl".to_string(),
            format!("python3 {} orphans {tag}", fake()),
            "--impl".to_string(),
            format!("python3 {} {fault}", fake()),
            "--part".to_string(),
            "ordering".to_string(),
            "--timeout".to_string(),
            timeout.to_string(),
        ];
        if how == "per-case" {
            args = vec![
                "check".to_string(),
                "--per-case".to_string(),
                "--impl".to_string(),
                format!(
                    "python3 -c 'import subprocess,sys; subprocess.Popen([sys.executable, \"-c\", \"import os,time; os.setsid(); time.sleep(300)\", \"{tag}\"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); import runpy; sys.argv=[\"x\"]; runpy.run_path(\"{}\", run_name=\"__main__\")'",
                    root().join("tests/fakes/per_case.py").display()
                ),
                "--part".to_string(),
                "ordering".to_string(),
            ];
        }
        let child = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
            .args(&args)
            .current_dir(&dir)
            .env("FAKE_MARKER", &marker)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("hookcheck starts");
        if let Some(signal) = signal {
            std::thread::sleep(Duration::from_millis(2500));
            assert!(
                !survivors(&tag).is_empty(),
                "{how}: the orphans should be running before the signal"
            );
            let sent = Command::new("kill")
                .args([format!("-{signal}"), child.id().to_string()])
                .status()
                .expect("kill runs");
            assert!(sent.success());
        }
        let out = child.wait_with_output().expect("hookcheck ends");
        let expected = match signal {
            Some("INT") => 130,
            Some(_) => 143,
            None if how == "timeout" => 1,
            None => 0,
        };
        assert_eq!(out.status.code(), Some(expected), "{how}: {}", text(&out));
        if signal.is_some() {
            let report = text(&out);
            assert!(report.contains("interrupted by"), "{how}: {report}");
            assert!(report.contains("FAILED"), "{how}: {report}");
        }
        std::thread::sleep(Duration::from_millis(200));
        let left = survivors(&tag);
        assert!(left.is_empty(), "{how}: left behind: {left:?}");
    }
    // The setsid child would have written the marker 3 s after it started, had it lived.
    std::thread::sleep(Duration::from_secs(3));
    assert!(!marker.exists(), "an orphan lived on and wrote the marker");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `fuzz` with far more jobs than cores against the reference itself finds nothing: overload
/// is capped, and a timeout would be confirmed alone before it became a finding.
#[test]
fn fuzz_overload_finds_nothing_in_the_reference() {
    let dir = folder("fuzz-overload");
    let serve = format!("{} serve", env!("CARGO_BIN_EXE_hookcheck"));
    let o = hookcheck(
        &dir,
        &[
            "fuzz",
            "--impl",
            &serve,
            "--jobs",
            "10000",
            "--sequences",
            "300",
            "--seed",
            "7",
        ],
    );
    common::says(&o, 0, "--jobs 10000 is more than");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ctrl-C during `fuzz` stops it with what it had: the sequence it cut short is no finding.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn an_interrupted_fuzz_run_reports_no_false_finding() {
    let dir = folder("fuzz-interrupt");
    let command = format!("python3 {} none @@", fake());
    let args = ["fuzz", "--impl", &command, "--seed", "3"];
    let out = common::interrupted(&dir, &args, Duration::from_secs(3));
    let report = text(&out);
    assert_eq!(out.status.code(), Some(130), "{report}");
    assert!(report.contains("interrupted by SIGINT"), "{report}");
    assert!(!report.contains("failing sequences"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}
