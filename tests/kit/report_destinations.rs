//! A report never destroys an input: every report flag naming the manifest, the expectations,
//! a case file of `--cases`, the solution being graded, the binary, or a link to any of these is
//! refused before anything runs, and the input is left byte for byte as it was. A FIFO or device
//! destination is refused up front instead of blocking in `open()`. Names that read alike are
//! refused.

use crate::common;

use common::{hookcheck, says};
use std::path::Path;

const CASE: &str = r#"part: retries
cases:
  - id: destination-case
    title: A delivered event
    rules: [retry.wait-schedule]
    origin: regression
    steps:
      - op: [register, 0, a, "https://a.example"]
        expect: true
      - op: [enqueue, 0, a, e1, [200]]
        expect: queued
      - op: [process, 0]
        expect: ["e1 #1 200 delivered"]
"#;

fn grader(name: &str) -> std::path::PathBuf {
    let dir = common::fresh(&format!("destinations-{name}"));
    std::fs::copy(
        common::root().join("examples/python/dispatcher.py"),
        dir.join("sol.py"),
    )
    .expect("solution");
    std::fs::write(
        dir.join("grading.toml"),
        "[[implementation]]\nname = \"sol\"\ncommand = \"sol.py\"\n",
    )
    .expect("manifest");
    std::fs::write(dir.join("known.toml"), "").expect("expectations");
    std::fs::create_dir_all(dir.join("mycases")).expect("cases");
    std::fs::write(dir.join("mycases/one.yaml"), CASE).expect("case");
    std::os::unix::fs::symlink("grading.toml", dir.join("link.html")).expect("link");
    dir
}

fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    ["sol.py", "grading.toml", "known.toml", "mycases/one.yaml"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read(dir.join(f)).expect("input")))
        .collect()
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn no_report_flag_can_overwrite_an_input() {
    let dir = grader("inputs");
    let before = contents(&dir);
    let exe = env!("CARGO_BIN_EXE_hookcheck");
    for (args, what) in [
        (
            vec![
                "check",
                "--manifest",
                "grading.toml",
                "--junit",
                "grading.toml",
            ],
            "the manifest",
        ),
        (
            vec!["check", "--manifest", "grading.toml", "--html", "link.html"],
            "the manifest",
        ),
        (
            vec![
                "check",
                "--impl",
                "sol.py",
                "--expect",
                "known.toml",
                "--html",
                "known.toml",
            ],
            "the expectations file",
        ),
        (
            vec![
                "check",
                "--cases",
                "mycases",
                "--markdown",
                "mycases/one.yaml",
            ],
            "the file of case destination-case",
        ),
        (
            vec!["check", "--impl", "sol.py", "--html", "sol.py"],
            "a file of implementation sol.py",
        ),
        (
            vec!["check", "--impl", "python3 sol.py", "--junit", "./sol.py"],
            "a file of implementation",
        ),
        (vec!["check", "--markdown", exe], "the hookcheck binary"),
    ] {
        let out = hookcheck(&dir, &args);
        says(&out, 2, what);
        says(&out, 2, "would overwrite it");
        assert_eq!(contents(&dir), before, "{args:?} changed an input");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: refused before anything ran"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_fifo_or_a_device_destination_is_refused_at_once() {
    let dir = grader("fifo");
    let fifo = dir.join("report.html");
    let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // Would block in open() for ever if it were opened: the test's own timeout is the proof.
    says(
        &hookcheck(&dir, &["check", "--html", "report.html"]),
        2,
        "FIFO",
    );
    says(
        &hookcheck(&dir, &["check", "--junit", "/dev/null"]),
        2,
        "a device",
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_report_is_written_whole_and_replaces_a_link_instead_of_following_it() {
    let dir = grader("link");
    std::os::unix::fs::symlink("elsewhere.txt", dir.join("dangling.md")).expect("link");
    std::fs::write(dir.join("elsewhere.txt"), "keep").expect("file");
    let out = hookcheck(
        &dir,
        &["check", "--cases", "mycases", "--markdown", "dangling.md"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out));
    assert_eq!(
        std::fs::read_to_string(dir.join("elsewhere.txt"))
            .ok()
            .as_deref(),
        Some("keep")
    );
    let report = std::fs::read_to_string(dir.join("dangling.md")).expect("report");
    assert!(
        report.contains("destination-case") || report.contains("hookcheck"),
        "{report}"
    );
    assert!(
        !std::fs::symlink_metadata(dir.join("dangling.md"))
            .expect("it")
            .file_type()
            .is_symlink()
    );
    let temporary = std::fs::read_dir(&dir)
        .expect("listing")
        .flatten()
        .any(|e| e.file_name().to_string_lossy().contains(".hookcheck-"));
    assert!(!temporary, "no temporary file is left");
    let _ = std::fs::remove_dir_all(dir);
}

/// Folder names that read as one (a zero-width space, a byte order mark, an NFD spelling) cannot
/// stand for two rows of one grade: the run is refused, naming both, escaped.
#[test]
fn names_that_read_alike_are_refused() {
    let dir = common::fresh("destinations-names");
    for who in ["alice", "al\u{200b}ice", "jos\u{e9}", "jose\u{301}"] {
        std::fs::create_dir_all(dir.join("subs").join(who)).expect("folder");
        std::fs::copy(
            common::root().join("examples/python/dispatcher.py"),
            dir.join("subs").join(who).join("solution.py"),
        )
        .expect("solution");
    }
    std::fs::write(
        dir.join("grading.toml"),
        "[[implementation]]\nglob = \"subs/*/solution.py\"\ncommand = \"\\\"$HOOKCHECK_PATH\\\"\"\nname = \"{dir}\"\n",
    )
    .expect("manifest");
    let out = hookcheck(&dir, &["check", "--manifest", "grading.toml"]);
    says(&out, 2, "read alike");
    says(&out, 2, "\\u{200b}");
    let _ = std::fs::remove_dir_all(dir);
}
