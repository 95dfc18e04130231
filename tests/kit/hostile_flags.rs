//! Careless or hostile flags, manifests and report paths: a clear error before anything runs, no
//! panic, no lost report, nothing silently ignored (issue "Hostile files, inputs and flags").

use crate::common;

use common::{hookcheck, root, text};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn folder(test: &str) -> PathBuf {
    common::fresh(&format!("flags-{test}"))
}

fn fake(args: &str) -> String {
    format!(
        "python3 {} {args}",
        root().join("tests/fakes/fake_impl.py").display()
    )
}

/// A usage or configuration error: exit 2, no panic (101), and the message says `needle`.
#[track_caller]
fn refused(dir: &std::path::Path, args: &[&str], needle: &str) {
    let o = hookcheck(dir, args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    assert!(text(&o).contains(needle), "{args:?}: {}", text(&o));
    assert!(!text(&o).contains("panicked"), "{args:?}: {}", text(&o));
}

#[test]
fn durations_out_of_range_are_refused_with_the_range() {
    let dir = folder("durations");
    let serve = format!("{} serve", env!("CARGO_BIN_EXE_hookcheck"));
    for (args, needle) in [
        (
            vec!["check", "--timeout", "1e20"],
            "--timeout is a number of seconds from 0.01 to 86400",
        ),
        (
            vec!["check", "--timeout", "1e19", "--per-case", "--impl", "x"],
            "from 0.01 to 86400",
        ),
        (vec!["check", "--timeout", "-1"], "not -1"),
        (vec!["check", "--timeout", "1e-300"], "from 0.01"),
        (vec!["check", "--timeout", "NaN"], "--timeout"),
        (
            vec!["fuzz", "--impl", &serve, "--time", "1e20"],
            "--time is a number of seconds",
        ),
        (
            vec!["fuzz", "--impl", &serve, "--shrink-time", "1e20"],
            "--shrink-time",
        ),
        (
            vec!["fuzz", "--impl", &serve, "--shrink-time", "1e19"],
            "--shrink-time",
        ),
        (vec!["check", "--jobs", "0"], "--jobs is at least 1"),
        (vec!["check", "--max-answer", "0"], "--max-answer"),
    ] {
        refused(&dir, &args, needle);
    }
    std::fs::write(
        dir.join("m.toml"),
        "[[implementation]]\ncommand = \"x\"\ntimeout = 1e20\n",
    )
    .expect("manifest");
    refused(
        &dir,
        &["check", "--manifest", "m.toml"],
        "timeout is a number of seconds",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn report_destinations_are_checked_before_the_run() {
    let dir = folder("destinations");
    let hang = fake("hang ::");
    for (args, needle) in [
        (
            vec!["--junit", "missing/r.xml"],
            "the folder missing does not exist",
        ),
        (
            vec!["--markdown", "missing/r.md"],
            "the folder missing does not exist",
        ),
        (vec!["--html", "."], "is a folder"),
        (
            vec!["--write-expectations", "exists.toml"],
            "never overwritten",
        ),
        (
            vec!["--write-expectations", "x.toml", "--junit", "./x.toml"],
            "both name",
        ),
    ] {
        std::fs::write(dir.join("exists.toml"), "# reviewed\n").expect("file");
        let started = Instant::now();
        let mut all = vec!["check", "--impl", &hang];
        all.extend(args);
        refused(&dir, &all, needle);
        // Nothing ran: the hanging implementation would have taken a timeout per case.
        assert!(started.elapsed() < Duration::from_secs(5), "{all:?} ran");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("exists.toml"))
            .ok()
            .as_deref(),
        Some("# reviewed\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A report that cannot be written after the run loses neither the others nor the human report.
#[test]
fn a_report_that_cannot_be_written_loses_no_other() {
    let dir = folder("unwritable");
    let o = hookcheck(
        &dir,
        &[
            "check",
            "ordering::",
            "--junit",
            "/proc/self/hookcheck-report.xml",
            "--markdown",
            "grade.md",
            "--html",
            "grade.html",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("PASSED"),
        "the human report: {}",
        text(&o)
    );
    assert!(
        text(&o).contains("cannot write /proc/self/hookcheck-report.xml"),
        "{}",
        text(&o)
    );
    assert!(dir.join("grade.md").exists() && dir.join("grade.html").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nothing_given_is_silently_ignored() {
    let dir = folder("ignored");
    std::fs::create_dir_all(dir.join("subs/a")).expect("folder");
    std::fs::write(dir.join("subs/a/solution.py"), "").expect("file");
    refused(
        &dir,
        &["check", "--each", "subs/*/solution.py"],
        "needs an --impl command with {path}",
    );
    refused(
        &dir,
        &[
            "check",
            "--impl",
            "python3 x.py",
            "--each",
            "subs/*/solution.py",
        ],
        "needs an --impl command",
    );
    refused(&dir, &["check", "--impl", "  "], "--impl is empty");
    refused(&dir, &["check", "--parts", "retries"], "--per-case");
    refused(&dir, &["check", "--numbers", "values"], "--per-case");
    std::fs::write(
        dir.join("lines.toml"),
        "[[implementation]]\ncommand = \"python3 a.py\"\nparts = [\"retries\"]\n",
    )
    .expect("manifest");
    refused(
        &dir,
        &["check", "--manifest", "lines.toml"],
        "`parts` applies to a `per_case = true` entry only",
    );
    std::fs::write(
        dir.join("numbers.toml"),
        "[[implementation]]\ncommand = \"python3 a.py\"\nnumbers = \"values\"\n",
    )
    .expect("manifest");
    refused(
        &dir,
        &["check", "--manifest", "numbers.toml"],
        "`numbers` applies",
    );
    std::fs::write(dir.join("known.toml"), "").expect("expectations");
    std::fs::write(
        dir.join("expect.toml"),
        "[[implementation]]\nname = \"a\"\ncommand = \"python3 a.py\"\nexpect = \"known.toml\"\n",
    )
    .expect("manifest");
    refused(
        &dir,
        &[
            "check",
            "--manifest",
            "expect.toml",
            "--expect",
            "known.toml",
        ],
        "keep one",
    );
    std::fs::write(
        dir.join("named.toml"),
        "[[implementation]]\nname = \"a.py\"\ncommand = \"python3 b.py\"\n",
    )
    .expect("manifest");
    refused(
        &dir,
        &[
            "check",
            "--manifest",
            "named.toml",
            "--impl",
            "python3 a.py",
        ],
        "two implementations are named `a.py`",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fuzz_out_must_be_a_folder_and_is_checked_first() {
    let dir = folder("fuzz-out");
    std::fs::write(dir.join("exists.yaml"), "").expect("file");
    let serve = format!("{} serve", env!("CARGO_BIN_EXE_hookcheck"));
    refused(
        &dir,
        &["fuzz", "--impl", &serve, "--out", "exists.yaml"],
        "--out exists.yaml: is not a folder",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--time 3` against an implementation that hangs on every sequence: the search stops within
/// about one sequence's timeout of the bound, not after a whole batch of timeouts (54 s before).
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn fuzz_honours_its_time_bound() {
    let dir = folder("fuzz-time");
    let hang = fake("hang fuzz");
    let started = Instant::now();
    let o = hookcheck(
        &dir,
        &[
            "fuzz",
            "--impl",
            &hang,
            "--time",
            "3",
            "--timeout",
            "1",
            "--shrink-time",
            "1",
            "--seed",
            "1",
        ],
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}: {}",
        started.elapsed(),
        text(&o)
    );
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_seq_that_is_not_a_whole_number_is_named() {
    let dir = folder("float-seq");
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &fake("float-seq ordering-brief-example"),
            "ordering::",
        ],
    );
    common::says(&o, 1, "`seq` must be a whole number, not 1.0");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Local cases are linted where they run: each problem `lint` reports stops `check` with its
/// file and line, and an unreviewed recording runs only with `--allow-unreviewed`.
#[test]
fn local_cases_are_linted_by_check() {
    let dir = folder("lint-in-check");
    let case = |id: &str, rules: &str, origin: &str, extra: &str| {
        format!(
            "part: ordering\ncases:\n  - id: {id}\n    title: t\n    rules: [{rules}]\n    \
             origin: {origin}\n{extra}    steps:\n      - op: [register, 0, shop, \"u\"]\n        \
             expect: true\n"
        )
    };
    for (name, content, needle) in [
        (
            "unknown-rule",
            case("local-unknown-rule", "no.such-rule", "brief", ""),
            "no.such-rule",
        ),
        (
            "upper-case",
            case(
                "Local-Upper",
                "run.sequence",
                "regression",
                "    ticket: T-1\n",
            ),
            "Local-Upper",
        ),
        (
            "brief-cites-clarification",
            case("local-brief-clar", "register.duplicate", "brief", ""),
            "register.duplicate",
        ),
        (
            "unreviewed",
            case(
                "local-unreviewed",
                "run.sequence",
                "regression",
                "    ticket: T-2\n    recorded: unreviewed\n",
            ),
            "not yet reviewed",
        ),
    ] {
        let cases = dir.join(name);
        std::fs::create_dir_all(cases.join("mine")).expect("folder");
        std::fs::write(cases.join("mine/local.yaml"), content).expect("case file");
        let folder = cases.to_string_lossy().into_owned();
        let o = hookcheck(&dir, &["check", "--cases", &folder, "--no-builtin"]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", text(&o));
        assert!(text(&o).contains(needle), "{name}: {}", text(&o));
        assert!(
            text(&o).contains("local.yaml:"),
            "{name}: no file:line: {}",
            text(&o)
        );
    }
    let unreviewed = dir.join("unreviewed").to_string_lossy().into_owned();
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--cases",
            &unreviewed,
            "--no-builtin",
            "--allow-unreviewed",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// One grade mixes a lines-mode implementation and a per-case one; a per-case program given as a
/// lines-mode one is told to try `--per-case`; and the grade shows why it could not start.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn modes_mix_and_a_stdin_reader_is_told_about_per_case() {
    let dir = folder("modes");
    let per_case = format!(
        "python3 {}",
        root().join("tests/fakes/per_case.py").display()
    );
    let lines = fake("none @@");
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &lines,
            "--impl-per-case",
            &per_case,
            "ordering::",
        ],
    );
    common::says(&o, 0, "2 pass every case");
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            &lines,
            "--impl",
            &per_case,
            "--timeout",
            "1",
            "ordering::",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let report = text(&o);
    assert!(report.contains("could not start: `"), "{report}");
    assert!(report.contains("try --per-case"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A manifest or an expectations file that is a device or a FIFO is refused at once, naming
/// what it is (`/dev/zero` was read until memory ran out, a FIFO hung).
#[test]
fn manifests_and_expectations_are_read_bounded() {
    let dir = folder("bounded-files");
    let fifo = dir.join("fifo.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let fifo = fifo.to_string_lossy().into_owned();
    for (flag, path, needle) in [
        ("--manifest", "/dev/zero", "a device, not a regular file"),
        ("--expect", "/dev/zero", "a device, not a regular file"),
        (
            "--manifest",
            fifo.as_str(),
            "a FIFO (named pipe), not a regular file",
        ),
        (
            "--expect",
            fifo.as_str(),
            "a FIFO (named pipe), not a regular file",
        ),
    ] {
        refused(&dir, &["check", flag, path], needle);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
