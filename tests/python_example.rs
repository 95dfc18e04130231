//! The independent Python solution in examples/python passes the whole corpus through the
//! adapter, in lines mode and in per-case mode.

use hookcheck::compare::Scope;
use hookcheck::corpus::Corpus;
use hookcheck::runner::{Verdict, check_all};
use hookcheck::target::{Options, ProcessTarget};
use std::path::Path;

#[test]
fn python_example_passes_every_case() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = Corpus::load(&root.join("cases"));
    assert!(corpus.errors.is_empty(), "{:?}", corpus.errors);
    let command = format!(
        "python3 {} {}",
        root.join("harness/adapters/python/hookcheck_adapter.py")
            .display(),
        root.join("examples/python/dispatcher.py").display()
    );
    let target = ProcessTarget::start(&command, Options::default());
    let hello = target.hello().cloned();
    assert_eq!(
        hello.map(|h| (h.name, h.language)),
        Some(("dispatcher.py".to_string(), "python".to_string()))
    );
    let verdicts = check_all(&target, &corpus.cases, Scope::Full, 2);
    for (c, v) in corpus.cases.iter().zip(&verdicts) {
        assert_eq!(v, &Verdict::Passed, "{}", c.name());
    }
}
