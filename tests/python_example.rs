//! The independent Python solution in examples/python passes the whole corpus through the
//! adapter, in lines mode and in per-case mode.

mod common;

use hookcheck::compare::Scope;
use hookcheck::implementation::{Options, Subprocess};
use hookcheck::runner::{Verdict, check_all};

#[test]
fn python_example_passes_every_case() {
    let cases = common::corpus();
    let command = common::python_impl("examples/python/dispatcher.py");
    let implementation = Subprocess::start(&command, Options::default());
    let hello = implementation.hello().cloned();
    assert_eq!(
        hello.map(|h| (h.name, h.language)),
        Some(("dispatcher.py".to_string(), "python".to_string()))
    );
    let verdicts = check_all(&implementation, &cases, Scope::FULL, 2);
    // It offers every part, so a case for implementations without one does not apply.
    for (c, v) in cases.iter().zip(&verdicts) {
        if c.without.is_empty() {
            assert_eq!(v, &Verdict::Passed, "{}", c.name());
        } else {
            assert!(
                matches!(v, Verdict::NotApplicable(_)),
                "{}: {v:?}",
                c.name()
            );
        }
    }
}
