//! Folder and file names that start with `-` (`-rf`, `--help`) are names: they reach a command,
//! the built-in adapter or the shell as paths (`./-rf/solution.py`), never as options.

use crate::common;

use common::{hookcheck, root, text};
use serde_json::Value;

fn implementations(o: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "implementation")
        .collect()
}

/// Through the built-in adapter, and as the command itself.
#[test]
fn names_that_look_like_options_are_graded_like_any_other() {
    let dir = graded("built-in", &["{path}"]);
    // A solution file given as the command itself.
    let o = hookcheck(
        &dir,
        &["check", "--impl=-rf/solution.py", "--part", "ordering"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Through the adapter named in the command, and in a command that `cd`s to `{dir}`.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn names_that_look_like_options_reach_a_command_s_placeholders_as_names() {
    let adapter = root().join("harness/adapters/python/hookcheck_adapter.py");
    let through_adapter = format!("python3 {} {{path}}", adapter.display());
    let in_its_folder = format!("cd {{dir}} && python3 {} solution.py", adapter.display());
    graded("commands", &[&through_adapter, &in_its_folder]);
}

/// A folder `test` with folders `-rf`, `--help` and `-` holding the Python example, each checked
/// with each of `commands` (`--each */solution.py`): all start and pass.
fn graded(test: &str, commands: &[&str]) -> std::path::PathBuf {
    let dir = common::fresh(&format!("dash-names-{test}"));
    let solution = std::fs::read(root().join("examples/python/dispatcher.py")).expect("example");
    let names = ["-rf", "--help", "-"];
    for name in names {
        std::fs::create_dir_all(dir.join(name)).expect("folder");
        std::fs::write(dir.join(name).join("solution.py"), &solution).expect("solution");
    }
    for &command in commands {
        let o = hookcheck(
            &dir,
            &[
                "check",
                "--impl",
                command,
                "--each",
                "*/solution.py",
                "--part",
                "ordering",
                "--format",
                "json",
            ],
        );
        let found = implementations(&o);
        assert_eq!(found.len(), names.len(), "{command}: {}", text(&o));
        for i in &found {
            assert_eq!(i["started"], true, "{command}: {i}");
            assert_eq!(i["passed"], true, "{command}: {i}");
        }
    }
    dir
}
