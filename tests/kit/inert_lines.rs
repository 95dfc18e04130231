//! Every line hookcheck writes to the terminal itself shows the user's text inert: case-file
//! names in `lint`, an expectations entry that is not a case, a path in an error, a line
//! `serve` ignores. Terminal escapes and bidi overrides appear as `\x1b`, `\u{202e}`.

use crate::common;

use common::{hookcheck, text};
use std::io::Write;
use std::process::{Command, Stdio};

const ESCAPE: &str = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}";

#[track_caller]
fn inert(o: &std::process::Output) {
    let all = text(o);
    assert!(!all.contains('\u{1b}'), "{all:?}");
    assert!(!all.contains('\u{202e}'), "{all:?}");
    assert!(all.contains("\\x1b") || all.contains("\\u{1b}"), "{all:?}");
}

#[test]
fn lint_shows_case_file_names_inert() {
    let dir = common::fresh("inert-lint");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).expect("folder");
    std::fs::write(cases.join(format!("{ESCAPE}.yaml")), "part: [unclosed").expect("case");
    std::fs::write(cases.join(format!("{ESCAPE}.YAML")), "").expect("case");
    let o = hookcheck(&dir, &["lint", "--no-builtin", "--cases", "cases"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    inert(&o);
}

#[test]
fn an_expectations_entry_that_is_not_a_case_is_shown_inert() {
    let dir = common::fresh("inert-expect");
    std::fs::write(
        dir.join("known.toml"),
        "[[failure]]\ncase = \"\\u001b[2J\\u202eretries::gone\"\nreason = \"x\"\n",
    )
    .expect("expectations");
    let serve = format!("{} serve", env!("CARGO_BIN_EXE_hookcheck"));
    let o = hookcheck(&dir, &["check", "--impl", &serve, "--expect", "known.toml"]);
    assert!(text(&o).contains("which is not a case"), "{}", text(&o));
    inert(&o);
}

#[test]
fn paths_in_errors_and_ignored_lines_are_inert() {
    let dir = common::fresh("inert-errors");
    inert(&hookcheck(&dir, &["run", ESCAPE]));
    inert(&hookcheck(
        &dir,
        &["check", "--no-builtin", "--cases", ESCAPE],
    ));
    let mut serve = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    if let Some(mut stdin) = serve.stdin.take() {
        stdin
            .write_all(b"\"\\u001b[2J\\u202e\"\n")
            .expect("written");
    }
    inert(&serve.wait_with_output().expect("serve ends"));
}
