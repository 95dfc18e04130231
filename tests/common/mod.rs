//! Shared by the integration tests: the package root, the corpus, and commands that run Python
//! files through the adapter.

#![allow(dead_code)] // Each test file uses a different part of this.

use hookcheck::case::Case;
use hookcheck::corpus::Corpus;
use std::path::Path;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every case of `cases/`; a corpus that does not load fails the test.
pub fn corpus() -> Vec<Case> {
    let corpus = Corpus::load(&root().join("cases"));
    assert!(corpus.errors.is_empty(), "{:?}", corpus.errors);
    corpus.cases
}

/// The command that serves the Python file `file` (relative to the package) through the adapter.
pub fn python_impl(file: &str) -> String {
    format!(
        "python3 {} {}",
        root()
            .join("harness/adapters/python/hookcheck_adapter.py")
            .display(),
        root().join(file).display()
    )
}
