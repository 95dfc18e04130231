//! Every command in the `sh` blocks of the README and of the guide it links to (`spec/guide/`)
//! is run here as written, so that none can go stale:
//! `hookcheck ...` and `cargo run --release -- ...` run this build's `hookcheck`, in a folder
//! that holds the files the README names (`mysolution.py` is the example Python solution,
//! `submissions/*/solution.py` two copies of it, `grading.toml` a manifest of it, and `~` a home
//! of its own with `~/grading/hidden` and `~/.venvs/grading`). A command must exit 0. A command
//! this test cannot run is a failure naming its line, unless it is one of [`RUN_ELSEWHERE`].
//! Commands that need Node or bubblewrap, or take minutes in a debug build (`fuzz`), run in a
//! test of their own; the others take tens of seconds together: both tests are ignored, and
//! `.ci/run` runs them with `--ignored` after installing what the first needs.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Commands run by something else than this test, and what runs them.
const RUN_ELSEWHERE: &[(&str, &str)] = &[
    ("cargo test", "it is the command that runs this test"),
    (
        "cargo test -- --ignored",
        "`.ci/run` runs it, after installing what the ignored tests need",
    ),
    (
        "cargo install --path .",
        "it installs into the user's cargo folder; `hookcheck` commands run the same program",
    ),
];

/// One command of the README or the guide: where it starts, and its text with continuations
/// joined.
#[derive(Debug)]
struct Shown {
    file: String,
    line: usize,
    text: String,
}

/// The README and the guide's pages, as paths from the project's root.
fn documents() -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(common::root().join("spec/guide"))
        .expect("spec/guide")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("spec/guide/{name}"))
        .collect();
    pages.sort();
    pages.insert(0, "README.md".to_string());
    pages
}

/// The commands of every document's `sh` blocks; comments and blank lines are left out.
fn shown() -> Vec<Shown> {
    documents().iter().flat_map(|d| shown_in(d)).collect()
}

/// The commands of one document's `sh` blocks.
fn shown_in(file: &str) -> Vec<Shown> {
    let readme = std::fs::read_to_string(common::root().join(file)).expect("a document");
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending: Option<Shown> = None;
    for (i, line) in readme.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && matches!(trimmed, "```sh" | "```bash" | "```shell");
            continue;
        }
        if !in_sh {
            continue;
        }
        let (text, continues) = match trimmed.strip_suffix('\\') {
            Some(head) => (head.trim_end(), true),
            None => (trimmed, false),
        };
        let mut current = match pending.take() {
            Some(mut p) => {
                p.text.push(' ');
                p.text.push_str(text);
                p
            }
            None if text.is_empty() || text.starts_with('#') => continue,
            None => Shown {
                file: file.to_string(),
                line: i + 1,
                text: text.to_string(),
            },
        };
        if continues {
            pending = Some(current);
        } else {
            current.text = current
                .text
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            out.push(current);
        }
    }
    out
}

/// What keeps a command out of the default run: a tool a fresh machine may lack, or minutes.
fn needs(text: &str) -> Option<&'static str> {
    if text.contains("--sandbox") {
        Some("bubblewrap")
    } else if text.contains(".js") || text.contains("node ") {
        Some("node")
    } else if text.contains(" fuzz ") {
        Some("minutes of a debug build")
    } else {
        None
    }
}

/// The folder the commands of `test` run in, with every file the README names.
fn stage(test: &str) -> PathBuf {
    let dir = common::fresh(&format!("readme-commands-{test}"));
    let root = common::root();
    let copy = |from: &str, to: &str| {
        let to = dir.join(to);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).expect("a folder");
        }
        std::fs::copy(root.join(from), &to).expect("a copy");
    };
    copy("examples/python/dispatcher.py", "mysolution.py");
    copy("examples/node/dispatcher.js", "mysolution.js");
    copy(
        "examples/python/dispatcher.py",
        "submissions/alice/solution.py",
    );
    copy(
        "examples/python/dispatcher.py",
        "submissions/bob/solution.py",
    );
    std::fs::write(
        dir.join("grading.toml"),
        "[[implementation]]\nname = \"mine\"\ncommand = \"mysolution.py\"\n",
    )
    .expect("a manifest");
    // The README's paths into the project (`examples/grading/grading.toml`) are the project's.
    for folder in ["examples", "harness", "cases", "spec"] {
        std::os::unix::fs::symlink(root.join(folder), dir.join(folder)).expect("a link");
    }
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".venvs/grading")).expect("a venv folder");
    let hidden = home.join("grading/hidden");
    std::fs::create_dir_all(&hidden).expect("a hidden folder");
    std::fs::write(
        hidden.join("held-back.yaml"),
        r#"part: retries
cases:
  - id: held-back-first-attempt-delivers
    title: A first attempt that answers 200 delivers
    rules: [classify.delivered, process.pick]
    origin: brief
    steps:
      - op: [register, 0, shop, "https://shop.example/hooks"]
        expect: true
      - op: [enqueue, 0, shop, evt-1, [200]]
        expect: queued
      - op: [process, 0]
        expect: ["evt-1 #1 200 delivered"]
"#,
    )
    .expect("a hidden case");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("a bin folder");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hookcheck"), bin.join("hookcheck"))
        .expect("a link to hookcheck");
    dir
}

/// Runs `text` by `sh` in `dir`, `hookcheck` being this build's; its exit code and output.
fn run(dir: &Path, text: &str) -> (Option<i32>, String) {
    let text = text.replacen("cargo run --release -- ", "hookcheck ", 1);
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new("sh")
        .args(["-c", &format!("{text} >out.txt 2>&1")])
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", dir.join("home"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .spawn()
        .expect("sh starts");
    let until = Instant::now() + Duration::from_secs(900);
    let code = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let out = std::fs::read_to_string(dir.join("out.txt")).unwrap_or_default();
    let tail: String = out
        .lines()
        .rev()
        .take(15)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    (code, tail)
}

/// Runs the README's commands that `wanted` accepts; every other command must be accounted for.
/// `test` names the folder they run in: both tests run at once under `--ignored`.
fn check(test: &str, wanted: impl Fn(Option<&'static str>) -> bool) {
    let commands = shown();
    assert!(
        commands
            .iter()
            .any(|c| c.text.starts_with("hookcheck check")),
        "no `hookcheck check` command found in the README's sh blocks: {commands:?}"
    );
    let dir = stage(test);
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut seen = std::collections::HashSet::new();
    for c in &commands {
        // A command the guide repeats from the README runs once.
        if RUN_ELSEWHERE.iter().any(|(t, _)| *t == c.text) || !seen.insert(c.text.as_str()) {
            continue;
        }
        let runnable =
            c.text.starts_with("hookcheck ") || c.text.starts_with("cargo run --release -- ");
        if !runnable {
            failures.push(format!(
                "{}:{}: `{}` is run by no test: make it a hookcheck command, or say in \
                 RUN_ELSEWHERE what runs it",
                c.file, c.line, c.text
            ));
            continue;
        }
        if !wanted(needs(&c.text)) {
            continue;
        }
        ran += 1;
        let (code, out) = run(&dir, &c.text);
        if code != Some(0) {
            failures.push(format!(
                "{}:{}: `{}` exited {code:?}:\n{out}",
                c.file, c.line, c.text
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran > 0, "no README command was run");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn every_readme_command_a_fresh_machine_can_run_works_as_written() {
    check("fresh-machine", |needs| needs.is_none());
}

#[test]
#[ignore = "needs node and bubblewrap, and minutes: .ci/run installs them and runs ignored tests"]
fn every_readme_command_that_needs_node_bubblewrap_or_minutes_works_as_written() {
    check("node-bubblewrap-minutes", |needs| needs.is_some());
}

#[test]
fn the_readme_shows_commands_to_run() {
    let commands = shown();
    for c in &commands {
        assert!(
            !c.text.ends_with('\\'),
            "{}:{}: an unfinished command",
            c.file,
            c.line
        );
    }
    assert!(
        commands
            .iter()
            .any(|c| c.file == "README.md" && c.text == "cargo test"),
        "the README's test command is not in an sh block: {commands:?}"
    );
}
