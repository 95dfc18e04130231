//! Speed of `hookcheck fuzz`: generated sequences per second against the in-process reference
//! and against the Python example through the adapter, and the time to shrink a failure of 200+
//! operations against a Python implementation (tests/fakes/subtle_bug.py).
//!
//! `cargo bench --bench fuzz`

use hookcheck::compare::{Scope, compare};
use hookcheck::fuzz::{FuzzOptions, Generator, adhoc_case, fuzz, shrink};
use hookcheck::implementation::{Implementation, Options, Reference, Subprocess};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

fn python(file: &str) -> Subprocess {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let command = format!(
        "python3 {} {}",
        root.join("harness/adapters/python/hookcheck_adapter.py")
            .display(),
        root.join(file).display()
    );
    Subprocess::start(&command, Options::default())
}

fn rate(implementation: &dyn Implementation, cases: u64) -> f64 {
    let opts = FuzzOptions {
        seed: 11,
        cases,
        max_ops: 40,
        time: None,
        jobs: 2,
        shrink_time: Duration::from_secs(10),
        findings: 1,
        brief_only: false,
    };
    let report = fuzz(implementation, &opts, &|_, _, _| {});
    assert!(report.finding.is_none(), "no mismatch expected here");
    report.cases_run as f64 / report.seconds
}

fn fails(implementation: &dyn Implementation, ops: &[Value]) -> bool {
    let case = adhoc_case("bench", ops, false);
    !matches!(implementation.run(&case), Ok(actual) if compare(&case, &actual, Scope::FULL).is_ok())
}

fn main() {
    println!("sequences of at most 40 operations, 2 jobs:");
    println!(
        "  in-process reference       {:>8.0} per second",
        rate(&Reference, 200_000)
    );
    println!(
        "  Python example (adapter)   {:>8.0} per second",
        rate(&python("examples/python/dispatcher.py"), 20_000)
    );

    let buggy = python("tests/fakes/subtle_bug.py");
    let generator = Generator {
        max_ops: 230,
        parts: buggy.parts(),
        brief_only: false,
    };
    let failing = (0..)
        .map(|i| generator.case(5, i))
        .find(|ops| ops.len() >= 200 && fails(&buggy, ops))
        .expect("a long failing sequence");
    let mut evaluations = 0;
    let mut predicate = |ops: &[Value]| {
        evaluations += 1;
        fails(&buggy, ops)
    };
    let started = Instant::now();
    let shrunk = shrink(
        failing.clone(),
        &mut predicate,
        started + Duration::from_secs(60),
    );
    println!(
        "shrinking a {}-operation failure against subtle_bug.py: {} operations in {:.2} s ({evaluations} runs)",
        failing.len(),
        shrunk.len(),
        started.elapsed().as_secs_f64()
    );
}
