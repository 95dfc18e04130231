//! Flags that mean something only with another: the sandbox's flags are refused when nothing
//! runs sandboxed, `--strict` when there are no expectations; and binds that would undo the
//! sandbox (`/`, a folder holding other submissions) are refused with the reason. All before
//! anything starts, so these need no bwrap.

use crate::common;

use common::{hookcheck, text};
use std::path::{Path, PathBuf};

/// `submissions/{alice,bob}/solution.py` in a folder of its own.
fn folder(test: &str) -> PathBuf {
    let dir = common::fresh(&format!("sandbox-flags-{test}"));
    for who in ["alice", "bob"] {
        std::fs::create_dir_all(dir.join("submissions").join(who)).expect("folder");
        std::fs::write(dir.join("submissions").join(who).join("solution.py"), "").expect("file");
    }
    dir
}

#[track_caller]
fn refused(dir: &Path, args: &[&str], needles: &[&str]) {
    let o = hookcheck(dir, args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    for needle in needles {
        assert!(text(&o).contains(needle), "{args:?}: {}", text(&o));
    }
}

#[test]
fn sandbox_flags_without_a_sandbox_are_a_usage_error() {
    let dir = folder("without");
    let serve = format!("{} serve", env!("CARGO_BIN_EXE_hookcheck"));
    for (flag, value) in [
        ("--sandbox-memory", "512"),
        ("--sandbox-cpu", "10"),
        ("--sandbox-processes", "64"),
        ("--sandbox-bind", "submissions/alice"),
    ] {
        for command in ["check", "fuzz"] {
            refused(
                &dir,
                &[command, "--impl", &serve, flag, value],
                &[flag, "add --sandbox"],
            );
        }
    }
    // The manifest's own `sandbox = true` is what they apply to: no error of this kind there.
    std::fs::write(
        dir.join("grading.toml"),
        format!("[[implementation]]\ncommand = \"{serve}\"\nsandbox = true\n"),
    )
    .expect("manifest");
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--manifest",
            "grading.toml",
            "--sandbox-memory",
            "10",
        ],
    );
    assert!(
        text(&o).contains("--sandbox-memory must be from 64"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_bind_of_the_root_is_refused_with_its_reason() {
    let dir = folder("root");
    for bind in ["/", "/..", "/usr/.."] {
        refused(
            &dir,
            &[
                "check",
                "--sandbox",
                "--impl",
                "true",
                "--sandbox-bind",
                bind,
            ],
            &["--sandbox-bind", "the whole file system"],
        );
    }
}

#[test]
fn a_bind_that_holds_or_lies_in_another_submission_is_refused() {
    let dir = folder("holds");
    std::fs::create_dir_all(dir.join("submissions/bob/venv")).expect("venv");
    std::fs::create_dir_all(dir.join("venv")).expect("venv");
    let each = ["--impl", "python3 adapter.py {path}", "--each"];
    for bind in ["submissions", ".", "submissions/bob/venv"] {
        let mut args = vec!["check", "--sandbox"];
        args.extend(each);
        args.extend(["submissions/*/solution.py", "--sandbox-bind", bind]);
        refused(&dir, &args, &["--sandbox-bind", "refused", "would show"]);
    }
    // A bind beside the submissions is what binds are for: no refusal of this kind.
    let mut args = vec!["check", "--sandbox"];
    args.extend(each);
    args.extend(["submissions/*/solution.py", "--sandbox-bind", "venv"]);
    let o = hookcheck(&dir, &args);
    assert!(!text(&o).contains("refused"), "{}", text(&o));
}

#[test]
fn strict_without_expectations_is_a_usage_error() {
    let dir = folder("strict");
    refused(&dir, &["check", "--strict"], &["--strict", "--expect"]);
    // With an entry's own expectations it applies: the run goes on (and passes).
    std::fs::write(dir.join("known.toml"), "").expect("expectations");
    let serve = format!("{} serve", env!("CARGO_BIN_EXE_hookcheck"));
    std::fs::write(
        dir.join("grading.toml"),
        format!("[[implementation]]\ncommand = \"{serve}\"\nexpect = \"known.toml\"\n"),
    )
    .expect("manifest");
    let o = hookcheck(&dir, &["check", "--manifest", "grading.toml", "--strict"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}
