//! The README and the pages it links to describe the product as it is: its Rust snippet is
//! tests/readme_rust.rs word for word, it stays short, its links lead somewhere, and neither it nor
//! the CHANGELOG keeps a diary.

use crate::common;

#[test]
fn the_rust_snippet_is_the_one_that_compiles() {
    let root = common::root();
    let compiled = std::fs::read_to_string(root.join("tests/readme_rust.rs")).expect("snippet");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let (_, rest) = compiled
        .split_once("// README snippet begins\n")
        .expect("begin marker");
    let (snippet, _) = rest
        .split_once("// README snippet ends")
        .expect("end marker");
    let shown = format!("```rust\n// tests/conformance.rs\n{snippet}```");
    assert!(readme.contains(&shown), "README lacks:\n{shown}");
}

/// The README and the pages it links to, from the project's root.
fn documents() -> Vec<std::path::PathBuf> {
    let root = common::root();
    let mut out = vec![root.join("README.md"), root.join("benches/README.md")];
    let mut guide: Vec<_> = std::fs::read_dir(root.join("spec/guide"))
        .expect("spec/guide")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guide.sort();
    out.extend(guide);
    out
}

#[test]
fn the_readme_is_short() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines: keep it to the shortest path per user (at most 300) and \
         move reference material to spec/guide/"
    );
}

/// History lives in git and the CHANGELOG's user-visible entries: the docs describe the product
/// as it is.
#[test]
fn the_docs_and_changelog_speak_of_no_issues_or_rounds() {
    let root = common::root();
    let mut offending = Vec::new();
    for path in documents().into_iter().chain([root.join("CHANGELOG.md")]) {
        let text = std::fs::read_to_string(&path).expect("a document");
        for (i, line) in text.lines().enumerate() {
            let lower = line.to_ascii_lowercase();
            let words: Vec<&str> = lower
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            let diary = words.windows(2).any(|w| {
                (w[0] == "issue" || w[0] == "round") && w[1].chars().all(|c| c.is_ascii_digit())
            }) || words.windows(2).any(|w| {
                w[1] == "round"
                    && [
                        "first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                        "eighth", "ninth", "tenth",
                    ]
                    .contains(&w[0])
            });
            if diary {
                offending.push(format!("{}:{}: {line}", path.display(), i + 1));
            }
        }
    }
    assert!(
        offending.is_empty(),
        "diary lines:\n{}",
        offending.join("\n")
    );
}

/// Every relative link of the README and its pages names a file that exists.
#[test]
fn the_docs_links_lead_somewhere() {
    let mut broken = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).expect("a document");
        let folder = path.parent().expect("a folder");
        for (_, rest) in text.match_indices("](").map(|(i, _)| ((), &text[i + 2..])) {
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") {
                continue;
            }
            if !folder.join(target).exists() {
                broken.push(format!("{}: {target}", path.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to nothing:\n{}",
        broken.join("\n")
    );
}
