//! Case folders as a careless or hostile user leaves them: FIFOs and devices named like case
//! files, symbolic links back to a parent folder, oversized files, `.YAML` files, empty
//! folders. Each must end quickly, with a warning or an error naming the path.

mod common;

use common::{hookcheck, text};
use hookcheck::case;
use hookcheck::corpus::Corpus;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

fn folder(name: &str) -> PathBuf {
    common::fresh(&format!("folders-{name}"))
}

const CASE: &str = r#"part: retries
cases:
  - id: folder-case-one
    title: A case in a folder
    rules: [retry.wait-schedule]
    origin: regression
    steps:
      - op: [register, 0, shop, "https://shop.example/hooks"]
        expect: true
"#;

fn write_case(path: &Path) {
    std::fs::write(path, CASE).expect("a case file");
}

/// Before, reading the FIFO blocked forever.
#[test]
fn a_fifo_named_like_a_case_file_is_skipped_with_a_warning() {
    let dir = folder("fifo");
    write_case(&dir.join("real.yaml"));
    let fifo = dir.join("a.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let corpus = Corpus::load(&dir);
    assert!(corpus.errors.is_empty(), "{:?}", corpus.errors);
    assert_eq!(corpus.cases.len(), 1);
    assert_eq!(corpus.warnings.len(), 1, "{:?}", corpus.warnings);
    assert!(
        corpus.warnings[0].contains(&format!("{}: skipped: a FIFO", fifo.display())),
        "{:?}",
        corpus.warnings
    );
    // Loading the FIFO by name is refused on the open handle, without blocking.
    let err = case::load(&fifo, "s").expect_err("a FIFO is no case file");
    assert!(err.reason.contains("not a regular file"), "{err}");
    let out = hookcheck(&dir, &["lint", "--no-builtin", "--cases", "."]);
    common::says(&out, 0, "warning: ./a.yaml: skipped: a FIFO");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, `/dev/zero` was read until memory ran out.
#[test]
fn a_link_to_a_device_is_skipped_and_never_read() {
    let dir = folder("device");
    write_case(&dir.join("real.yaml"));
    symlink("/dev/zero", dir.join("zero.yaml")).expect("a symlink");
    let corpus = Corpus::load(&dir);
    assert_eq!(corpus.cases.len(), 1);
    assert!(
        corpus
            .warnings
            .iter()
            .any(|w| w.contains("zero.yaml: skipped: a device")),
        "{:?}",
        corpus.warnings
    );
    let err = case::load(&dir.join("zero.yaml"), "s").expect_err("a device is no case file");
    assert!(err.reason.contains("a device, not a regular file"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, two links to the parent folder made the walk fan out exponentially (it never ended,
/// even with no case file at all).
#[test]
fn links_to_a_parent_folder_are_followed_once() {
    let dir = folder("loops");
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).expect("a folder");
    write_case(&sub.join("one.yaml"));
    symlink("..", sub.join("up1")).expect("a symlink");
    symlink("..", sub.join("up2")).expect("a symlink");
    symlink(&sub, dir.join("again")).expect("a symlink");
    let found = case::discover_all(&dir).expect("walks");
    assert_eq!(found.sources.len(), 1, "{:?}", found.sources);
    assert!(
        found
            .warnings
            .iter()
            .all(|w| w.contains("skipped: a folder already read")),
        "{:?}",
        found.warnings
    );
    assert_eq!(found.warnings.len(), 3, "{:?}", found.warnings);
    // With no case file at all, the walk ends too.
    let empty = folder("loops-empty");
    let inner = empty.join("inner");
    std::fs::create_dir_all(&inner).expect("a folder");
    symlink("..", inner.join("up1")).expect("a symlink");
    symlink("..", inner.join("up2")).expect("a symlink");
    symlink(".", inner.join("here")).expect("a symlink");
    let corpus = Corpus::load(&inner);
    assert!(corpus.cases.is_empty(), "{:?}", corpus.cases);
    assert!(
        corpus
            .warnings
            .iter()
            .any(|w| w.contains("holds no case files")),
        "{:?}",
        corpus.warnings
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn an_oversized_case_file_is_refused_without_reading_it_all() {
    let dir = folder("large");
    let path = dir.join("big.yaml");
    let file = std::fs::File::create(&path).expect("a file");
    file.set_len(case::MAX_CASE_FILE_BYTES + 1)
        .expect("a sparse file");
    let err = case::load(&path, "s").expect_err("too large");
    assert_eq!(
        err.to_string(),
        format!(
            "{}:0:0: the file is too large for a case file: more than 16 MiB (split it into \
             several files)",
            path.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, `lint --cases` on an empty folder or on `*.YAML` files passed with 0 cases.
#[test]
fn lint_with_no_cases_fails_and_names_what_it_skipped() {
    let dir = folder("empty");
    let out = hookcheck(&dir, &["lint", "--no-builtin", "--cases", "."]);
    common::says(
        &out,
        1,
        "warning: .: holds no case files (`*.yaml` or `*.yml`)",
    );
    assert!(
        text(&out).contains("no cases in .: nothing was checked"),
        "{}",
        text(&out)
    );
    write_case(&dir.join("UPPER.YAML"));
    let out = hookcheck(&dir, &["lint", "--no-builtin", "--cases", "."]);
    common::says(
        &out,
        1,
        "warning: ./UPPER.YAML: skipped: case files end in `.yaml` or `.yml`, lower case",
    );
    // With the built-in corpus the empty folder is still named, but lint passes.
    let out = hookcheck(&dir, &["lint", "--cases", "."]);
    common::says(&out, 0, "holds no case files");
    write_case(&dir.join("lower.yml"));
    let out = hookcheck(&dir, &["lint", "--no-builtin", "--cases", "."]);
    assert!(text(&out).contains("1 case: "), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, `record /dev/zero` read until memory ran out.
#[test]
fn record_of_an_endless_input_ends_with_an_error() {
    let dir = folder("record-zero");
    let out = hookcheck(
        &dir,
        &["record", "--id", "t-1", "--ticket", "T-1", "/dev/zero"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hookcheck record: /dev/zero is too large: more than 16 MiB of operations (a case file \
         holds at most 16 MiB)\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, the path was missing and the message blamed existing files whatever happened.
#[test]
fn export_errors_name_the_path() {
    let dir = folder("export");
    std::fs::write(dir.join("taken"), "").expect("a file");
    let out = hookcheck(&dir, &["export", "taken"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("hookcheck export: cannot create the folder taken/"),
        "{err}"
    );
    assert!(!err.contains("overwrit"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
