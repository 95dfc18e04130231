//! From an empty folder, with only the binary: a solution file is checked through the built-in
//! adapter of its language, and the example manifest works wherever it is run from.

use crate::common;

use common::{hookcheck, root, text};

fn empty_folder(test: &str) -> std::path::PathBuf {
    common::fresh(&format!("builtin-{test}"))
}

#[test]
fn a_python_file_is_checked_through_the_built_in_adapter() {
    let dir = empty_folder("python");
    let example = root().join("examples/python/dispatcher.py");
    std::fs::copy(example, dir.join("sol.py")).expect("py");
    let o = hookcheck(&dir, &["check", "--impl", "sol.py"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // fuzz reads its --impl as check does.
    let o = hookcheck(
        &dir,
        &[
            "fuzz",
            "--impl",
            "sol.py",
            "--sequences",
            "100",
            "--seed",
            "1",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = hookcheck(&dir, &["adapter", "node", "vendor"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("vendor/hookcheck_adapter.mjs")).ok(),
        std::fs::read_to_string(root().join("harness/adapters/node/hookcheck_adapter.mjs")).ok()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "needs node: .ci/run installs it and runs ignored tests"]
fn a_javascript_file_and_the_example_manifest_work_from_an_empty_folder() {
    let dir = empty_folder("node");
    let example = root().join("examples/node/dispatcher.js");
    std::fs::copy(example, dir.join("sol.js")).expect("js");
    let o = hookcheck(&dir, &["check", "--impl", "sol.js"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let manifest = root().join("examples/grading/grading.toml");
    let manifest = manifest.to_string_lossy();
    let o = hookcheck(
        &dir,
        &["check", "--manifest", &manifest, "--part", "ordering"],
    );
    common::says(&o, 0, "3 pass every case");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A solution that hangs is asked where before it is killed: the report shows the line.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_hang_in_python_is_reported_with_the_line_it_hung_on() {
    let dir = empty_folder("hang-where");
    std::fs::write(
        dir.join("sol.py"),
        "def process(ts):\n    while True:\n        pass\n\n\
         def run(operations):\n    return [process(op[1]) for op in operations]\n",
    )
    .expect("solution");
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--impl",
            "sol.py",
            "--timeout",
            "1",
            "ordering-brief-example",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let report = text(&o);
    assert!(report.contains("no answer within 1 s"), "{report}");
    // The loop's line, 2 or 3, depends on where the signal finds it.
    assert!(
        report.contains("sol.py\", line 2 in process")
            || report.contains("sol.py\", line 3 in process"),
        "no stack: {report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
