//! The README's examples are the ones the tests run: its Rust snippet is tests/readme_rust.rs
//! word for word.

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
