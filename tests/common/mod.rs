//! Shared by the integration tests (the modules of tests/kit): the package root, the corpus,
//! and commands that run Python files through the adapter.

use hookcheck::case::Case;
use hookcheck::corpus::Corpus;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every case of `cases/`; a corpus that does not load fails the test.
pub fn corpus() -> Vec<Case> {
    let corpus = Corpus::load(&root().join("cases"));
    assert!(corpus.errors.is_empty(), "{:?}", corpus.errors);
    corpus.cases
}

/// The command that serves the Python file `file` (relative to the package) through the adapter.
pub fn python_impl(file: &str) -> String {
    format!(
        "python3 {} {}",
        root()
            .join("harness/adapters/python/hookcheck_adapter.py")
            .display(),
        root().join(file).display()
    )
}

/// A grader's folder: `submissions/{good,capped}/solution.py` and `grading.toml`, which adds
/// an implementation that hangs on one ordering case and one that crashes on one pause case.
/// `capped` is the example with the last wait capped at 240 s instead of 300 s.
#[track_caller]
pub fn grader_folder(test: &str) -> std::path::PathBuf {
    let dir = scratch().join(format!(
        "hookcheck-grading-{}-{test}-{}",
        caller(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let original =
        std::fs::read_to_string(root().join("examples/python/dispatcher.py")).unwrap_or_default();
    let capped = original.replace(
        "\"waits\": [30, 60, 120, 240, 300]}",
        "\"waits\": [30, 60, 120, 240, 240]}",
    );
    assert_ne!(capped, original, "the bug is planted");
    for (who, source) in [("good", &original), ("capped", &capped)] {
        let folder = dir.join("submissions").join(who);
        std::fs::create_dir_all(&folder).expect("folder");
        std::fs::write(folder.join("solution.py"), source).expect("solution");
    }
    let adapter = root().join("harness/adapters/python/hookcheck_adapter.py");
    let fake = root().join("tests/fakes/fake_impl.py");
    let manifest = format!(
        r#"
[[implementation]]
glob = "submissions/*/solution.py"
command = "python3 {adapter} {{path}}"

[[implementation]]
name = "hangs"
command = "python3 {fake} hang ordering-brief-example"
timeout = 1

[[implementation]]
name = "crashes"
command = "python3 {fake} crash pause-brief-example"
"#,
        adapter = adapter.display(),
        fake = fake.display()
    );
    std::fs::write(dir.join("grading.toml"), manifest).expect("manifest");
    dir
}

/// Runs the hookcheck binary in `dir`, colour off.
pub fn hookcheck(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        // Its own scratch files (the built-in adapters it writes out) stay in the target folder.
        .env("TMPDIR", scratch())
        .output()
        .expect("hookcheck runs")
}

/// What a process wrote, stdout then stderr.
pub fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// Chromium's command: `$CHROMIUM`, else the first of Debian's and others' names found.
pub fn chromium() -> String {
    if let Ok(c) = std::env::var("CHROMIUM") {
        return c;
    }
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if found {
            return name.to_string();
        }
    }
    panic!("no chromium: install it (apt-get install chromium) or set CHROMIUM");
}

/// Runs the hookcheck binary in `dir` with its output thrown away, and samples its highest
/// resident memory (`VmHWM`, KiB) while it runs: a bound on memory, measured from outside.
pub fn peak_rss(dir: &Path, args: &[&str]) -> (u64, std::process::ExitStatus) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("hookcheck starts");
    let mut peak = 0;
    loop {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
        let hwm = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0);
        peak = peak.max(hwm);
        if let Ok(Some(status)) = child.try_wait() {
            return (peak, status);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Where a test makes its folders: cargo's scratch folder for integration tests, inside the
/// target folder, so `cargo test` writes nothing outside `CARGO_TARGET_DIR`.
pub fn scratch() -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The file of the test that called: every test of tests/kit shares one process, so the
/// folders named after a test and the process are named after its file as well.
#[track_caller]
fn caller() -> String {
    let file = Path::new(std::panic::Location::caller().file());
    file.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// A new, empty folder of this test process for `name` (in the calling test's file), in
/// [`scratch`].
#[track_caller]
pub fn fresh(name: &str) -> std::path::PathBuf {
    let dir = scratch().join(format!(
        "hookcheck-{}-{name}-{}",
        caller(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// The `implementation` events of a `--format json` run over many implementations, in the order
/// of the command line or manifest (`index`): they are written as each one finishes.
pub fn implementation_events(stdout: &[u8]) -> Vec<serde_json::Value> {
    let mut events: Vec<serde_json::Value> = String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v["event"] == "implementation")
        .collect();
    events.sort_by_key(|v| v["index"].as_u64());
    events
}

/// Headless Chromium on `url` with its own profile folder: `what` is `--dump-dom` or
/// `--screenshot=FILE`; returns what it printed (the DOM for `--dump-dom`).
pub fn headless(profile: &Path, url: &str, what: &str, size: &str) -> String {
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--window-size={size}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(what)
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The run ended with `code` and its output says `needle`; both shown when not.
#[track_caller]
pub fn says(o: &Output, code: i32, needle: &str) {
    assert_eq!(o.status.code(), Some(code), "{}", text(o));
    assert!(text(o).contains(needle), "{}", text(o));
}

/// This repository's `cargo test --test conformance` binary, which cargo built beside the test
/// that asks.
pub fn conformance_harness() -> PathBuf {
    let deps = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(PathBuf::from))
        .expect("the tests' folder");
    std::fs::read_dir(&deps)
        .expect("deps")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("conformance-"))
                && p.extension().is_none()
        })
        // Another crate's `conformance` test (examples/rust, built into the same folder by CI)
        // has the same name: this repository's lists its corpus checks.
        .filter(|p| {
            std::process::Command::new(p)
                .arg("--list")
                .current_dir(root())
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("corpus::sound"))
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("the conformance harness is built (cargo test builds every test target)")
}

/// `hookcheck ARGS` in `dir`, sent SIGINT after `after`, as a user pressing Ctrl-C: what it
/// printed and how it ended.
pub fn interrupted(dir: &Path, args: &[&str], after: std::time::Duration) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("hookcheck starts");
    std::thread::sleep(after);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    child.wait_with_output().expect("hookcheck ends")
}
