//! The planted bugs of `harness/mutation/` still apply: each is a list of text edits on the
//! reference or the Python example, and an edit whose text the code no longer holds would make
//! the mutation scripts stop at that bug. Planting them (a build or a whole check per bug) is
//! left to the scripts; here only their edits are matched against the sources.

use crate::common::root;
use std::process::Command;

fn check(script: &str) {
    let out = Command::new("python3")
        .arg(root().join("harness/mutation").join(script))
        .arg("--check")
        .current_dir(root())
        .output()
        .expect("python3 runs");
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{script}:\n{said}");
    assert!(
        said.starts_with("all ") && said.contains(" bugs apply"),
        "{said}"
    );
}

#[test]
fn every_planted_bug_of_the_reference_still_applies() {
    check("planted_bugs.py");
}

#[test]
fn every_planted_bug_of_the_python_example_still_applies() {
    check("python_bugs.py");
}
