//! Case folders as a careless or hostile user leaves them: FIFOs and devices named like case
//! files, symbolic links back to a parent folder, oversized files, `.YAML` files, empty
//! folders. Each must end quickly, with a warning or an error naming the path.

use crate::common;

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
            .all(|w| w.contains("skipped: a link to a parent folder, or to a folder already read")),
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

/// Before, a link from the cases folder to the folder above it was followed, and the cases'
/// neighbours (here a case file beside the folder) were read as cases: the spec says skipped.
#[test]
fn a_link_to_the_folder_above_the_cases_is_skipped() {
    let dir = folder("above");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).expect("a folder");
    write_case(&cases.join("one.yaml"));
    std::fs::write(
        dir.join("neighbour.yaml"),
        CASE.replace("folder-case-one", "folder-case-neighbour"),
    )
    .expect("a case file beside the folder");
    symlink("..", cases.join("up")).expect("a symlink");
    symlink(&dir, cases.join("absolute-up")).expect("a symlink");
    symlink("/", cases.join("root")).expect("a symlink");
    let found = case::discover_all(&cases).expect("walks");
    let paths: Vec<_> = found.sources.iter().map(|s| s.path.clone()).collect();
    assert_eq!(paths, vec![cases.join("one.yaml")], "{:?}", found.warnings);
    for link in ["up", "absolute-up", "root"] {
        assert!(
            found.warnings.iter().any(|w| w.contains(&format!(
                "{}: skipped: a link to a parent folder",
                cases.join(link).display()
            ))),
            "{link}: {:?}",
            found.warnings
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, `!!python/object` and `!foo` were dropped and the value read as if untagged, and a
/// second document was refused with the YAML library's advice (`use from_str_multiple`).
#[test]
fn tags_and_a_second_document_are_errors_at_their_line_and_column() {
    let dir = folder("tags");
    let tagged = CASE.replace("expect: true", "expect: !!python/object:os.system true");
    std::fs::write(dir.join("python.yaml"), &tagged).expect("a case file");
    let local = CASE.replace(
        "title: A case in a folder",
        "title: !foo A case in a folder",
    );
    std::fs::write(dir.join("local.yaml"), &local).expect("a case file");
    let key = CASE.replace("    title: A case", "    !secret title: A case");
    std::fs::write(dir.join("key.yaml"), &key).expect("a case file");
    let two = format!(
        "{CASE}---\n{}",
        CASE.replace("folder-case-one", "folder-case-two")
    );
    std::fs::write(dir.join("two.yaml"), &two).expect("a case file");
    for (file, line, tag) in [
        ("python.yaml", 9, "python/object:os.system"),
        ("local.yaml", 4, "!foo"),
        ("key.yaml", 4, "!secret"),
    ] {
        let err = case::load(&dir.join(file), "s").expect_err("a tag is refused");
        assert_eq!(err.line, line, "{file}: {err}");
        assert!(err.column > 0, "{file}: {err}");
        assert!(
            err.reason.contains("has no meaning in a case file") && err.reason.contains(tag),
            "{file}: {err}"
        );
    }
    let err = case::load(&dir.join("two.yaml"), "s").expect_err("two documents");
    assert!(
        err.reason.contains("a case file holds one YAML document"),
        "{err}"
    );
    assert!(!err.reason.contains("from_str"), "{err}");
    assert_eq!(err.line, 10, "{err}");
    let out = hookcheck(&dir, &["lint", "--no-builtin", "--cases", "."]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("python.yaml:9:"), "{said}");
    assert!(!said.contains("from_str_multiple"), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}
