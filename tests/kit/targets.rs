//! Every test file is built. Cargo.toml says `autotests = false`, so a file dropped into
//! `tests/` is not a test target until Cargo.toml names it, and a file of `tests/kit/` is no
//! part of this binary until `main.rs` declares it: either would never run, silently.

use crate::common::root;
use std::path::{Path, PathBuf};

/// The files of `dir` whose names end in `.rs`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a readable folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

/// The paths, relative to the package, of the `[[test]]` targets of Cargo.toml; a target
/// without `path` is `tests/<name>.rs`, as cargo reads it.
fn test_targets() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let manifest: toml::Table = toml::from_str(&text).expect("Cargo.toml parses");
    assert_eq!(
        manifest["package"]
            .get("autotests")
            .and_then(|a| a.as_bool()),
        Some(false),
        "this test is written for a Cargo.toml that lists its test targets"
    );
    let targets = manifest
        .get("test")
        .and_then(|t| t.as_array())
        .expect("[[test]] targets");
    targets
        .iter()
        .map(|t| match t.get("path").and_then(|p| p.as_str()) {
            Some(path) => path.to_string(),
            None => format!("tests/{}.rs", t["name"].as_str().expect("a target's name")),
        })
        .collect()
}

#[test]
fn every_file_of_tests_is_a_test_target_of_cargo_toml() {
    let targets = test_targets();
    assert!(
        targets.iter().any(|t| t == "tests/kit/main.rs"),
        "{targets:?}"
    );
    let mut candidates = rust_files(&root().join("tests"));
    // A folder's `main.rs` is what cargo would have taken as a test of that folder's name.
    for entry in std::fs::read_dir(root().join("tests"))
        .expect("tests/")
        .flatten()
    {
        let main = entry.path().join("main.rs");
        if main.is_file() {
            candidates.push(main);
        }
    }
    let stray: Vec<String> = candidates
        .iter()
        .filter_map(|p| p.strip_prefix(root()).ok())
        .map(|p| p.display().to_string())
        .filter(|p| !targets.contains(p))
        .collect();
    assert!(
        stray.is_empty(),
        "never built, so never run: {stray:?}; make each a module of tests/kit/main.rs (or, if \
         it needs a process of its own, a [[test]] of Cargo.toml)"
    );
}

#[test]
fn every_file_of_tests_kit_is_a_module_of_the_kit() {
    let main = std::fs::read_to_string(root().join("tests/kit/main.rs")).expect("main.rs");
    let undeclared: Vec<String> = rust_files(&root().join("tests/kit"))
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|stem| stem != "main")
        .filter(|stem| !main.lines().any(|l| l.trim() == format!("mod {stem};")))
        .collect();
    assert!(
        undeclared.is_empty(),
        "never built, so never run: {undeclared:?}; declare each in tests/kit/main.rs"
    );
}
