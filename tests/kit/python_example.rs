//! The independent Python solution in examples/python passes the whole corpus through the
//! adapter, in lines mode and in per-case mode.

use crate::common;

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

/// Before, the adapter had no `--per-case` (an argparse error, so every case could not start),
/// though the README says both built-in adapters take it.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn the_python_adapter_serves_one_case_per_process_with_per_case() {
    let dir = common::fresh("python-per-case");
    let adapter = common::root().join("harness/adapters/python/hookcheck_adapter.py");
    let example = common::root().join("examples/python/dispatcher.py");
    let command = format!(
        "python3 {} {} --per-case",
        adapter.display(),
        example.display()
    );
    let out = common::hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--per-case",
            "--parts",
            "retries,ordering,pause",
            "--part",
            "ordering",
            "--impl",
            &command,
        ],
    );
    common::says(&out, 0, "PASSED: 10 passed, 0 failed");
    // A solution that raises: the case errors with the traceback, the run goes on.
    let broken = format!(
        "import sys\nsys.path.insert(0, {:?})\nfrom dispatcher import run as good\n\n\
         def run(operations):\n    if any(op[0] == 'disable' for op in operations):\n        \
         raise ValueError('no dispatcher here')\n    return good(operations)\n",
        example.parent().expect("a folder").display().to_string()
    );
    std::fs::write(dir.join("broken.py"), broken).expect("a solution");
    let broken = format!("python3 {} broken.py --per-case", adapter.display());
    let out = common::hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--per-case",
            "--part",
            "pause",
            "--impl",
            &broken,
        ],
    );
    common::says(&out, 1, "ValueError: no dispatcher here");
    common::says(&out, 1, " errored, 0 not run");
    let _ = std::fs::remove_dir_all(&dir);
}
