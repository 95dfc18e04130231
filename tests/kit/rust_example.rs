//! examples/rust through hookcheck's library harness (`hookcheck::conformance`): a planted bug
//! fails the example's own `cargo test` with the file:line diff of `hookcheck check`. (CI runs
//! the example as it is, which passes.) This runs cargo, offline, on a copy of the crate.

use crate::common;

use common::root;
use std::path::Path;
use std::process::Command;

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("readable").flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" {
            continue;
        }
        if path.is_dir() {
            copy(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).expect("copies");
        }
    }
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_planted_bug_fails_the_examples_own_tests_with_a_file_and_line() {
    let dir = common::scratch().join(format!("hookcheck-rust-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(&root().join("examples/rust"), &dir);
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    let path_dependency = format!(
        "hookcheck = {{ path = {:?} }}",
        root().display().to_string()
    );
    std::fs::write(
        &manifest,
        text.replace("hookcheck = { path = \"../..\" }", &path_dependency),
    )
    .expect("writes");
    // The first wait of the default policy (the brief's schedule), 60 s instead of 30.
    let source = dir.join("src/schedule.rs");
    let code = std::fs::read_to_string(&source).expect("source");
    let schedule = "const DEFAULT_WAITS: [i64; 5] = [30, 60, 120, 240, 300];";
    assert!(code.contains(schedule), "the example changed");
    std::fs::write(
        &source,
        code.replace(
            schedule,
            "const DEFAULT_WAITS: [i64; 5] = [60, 60, 120, 240, 300];",
        ),
    )
    .expect("plants the bug");
    let out = Command::new(env!("CARGO"))
        .args([
            "test",
            "--offline",
            "--quiet",
            "--test",
            "conformance",
            "--manifest-path",
        ])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", target_dir().join("rust-example"))
        .output()
        .expect("cargo runs");
    let _ = std::fs::remove_dir_all(&dir);
    let report =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{report}");
    assert!(
        report.contains("---- regressions::ticket-first-retry-a-minute-late ----"),
        "{report}"
    );
    // Labelled as `hookcheck check` labels it, and graded in the brief's terms at the end.
    assert!(
        report.contains("a regression case (a support ticket turned into a case)")
            && report.contains("retry.wait-schedule (brief): "),
        "{report}"
    );
    assert!(
        report.contains("in the brief's terms (") && report.contains("Part 1: "),
        "{report}"
    );
    assert!(
        report.contains("cases/regressions/brief-part1-complaints.yaml:")
            && report.contains("+#3 [\"process\",0] => [\"evt-1 #1 500 retry at 60\"]"),
        "{report}"
    );
    // Cases that never retry still pass.
    assert!(
        !report.contains("---- ordering::ordering-ties-across-endpoints ----"),
        "{report}"
    );
}

/// The target folder this test was built into (`<target>/debug/deps/<test>`): `CARGO_TARGET_DIR`
/// is honoured wherever it points, and nothing is written into the repository's own `target/`
/// when it points elsewhere.
fn target_dir() -> std::path::PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(std::path::Path::to_path_buf))
        .unwrap_or_else(|| root().join("target"))
}

/// CI builds the example `--locked`: a dependency added to hookcheck must reach the example's
/// lock file too, and this says so before CI does.
#[test]
fn the_examples_lock_file_is_current_with_hookcheck_s_dependencies() {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--locked", "--offline", "--manifest-path"])
        .arg(root().join("examples/rust/Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "examples/rust/Cargo.lock is stale: run `cargo update -p hookcheck --manifest-path \
         examples/rust/Cargo.toml`\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
