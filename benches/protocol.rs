//! Cost of checking through the implementation protocol.
//!
//! `cargo bench --bench protocol` reports:
//! - the per-case overhead of the lines protocol: the same small case run many times through
//!   `hookcheck serve` (the reference behind the protocol, so the implementation's own work is
//!   the in-process figure) minus the in-process reference's time for it;
//! - the same through the Python adapter with a `run` that does nothing, the floor for Python;
//! - the wall time of a full check of `examples/python/dispatcher.py` through the Python
//!   adapter, and of `examples/node/dispatcher.js` through the Node adapter and in per-case mode
//!   (when `node` is installed), processes started and stopped included, median of 5.

use hookcheck::case::Case;
use hookcheck::compare::{Numbers, Scope};
use hookcheck::corpus::Corpus;
use hookcheck::implementation::{Implementation, Options, Reference, Subprocess};
use hookcheck::runner::check_all;
use std::path::Path;
use std::time::Instant;

const ROUNDS: usize = 20_000;

fn per_case_micros(implementation: &dyn Implementation, case: &Case, rounds: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..rounds {
        let results = implementation.run(case).expect("the case runs");
        assert_eq!(results.len(), case.steps.len());
    }
    start.elapsed().as_secs_f64() * 1e6 / rounds as f64
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = Corpus::load(&root.join("cases"));
    assert!(corpus.errors.is_empty(), "{:?}", corpus.errors);
    let case = corpus
        .cases
        .iter()
        .find(|c| c.id == "brief-worked-example")
        .expect("the worked example case exists")
        .clone();

    let reference = per_case_micros(&Reference, &case, ROUNDS);
    let serve = Subprocess::start(
        &format!("{} serve", env!("CARGO_BIN_EXE_hookcheck")),
        Options::default(),
    );
    let lines = per_case_micros(&serve, &case, ROUNDS);
    drop(serve);
    let adapter = root.join("harness/adapters/python/hookcheck_adapter.py");
    let trivial = std::env::temp_dir().join("hookcheck_trivial_impl.py");
    std::fs::write(
        &trivial,
        "def run(operations):\n    return [None] * len(operations)\n",
    )
    .expect("temp file");
    let python = Subprocess::start(
        &format!("python3 {} {}", adapter.display(), trivial.display()),
        Options::default(),
    );
    let python_trivial = per_case_micros(&python, &case, ROUNDS / 4);
    drop(python);

    println!(
        "per case, {} operations, one process, sequential:",
        case.steps.len()
    );
    println!("  in-process reference          {reference:8.1} us");
    println!(
        "  hookcheck serve (protocol)    {lines:8.1} us   overhead {:.1} us",
        lines - reference
    );
    println!("  Python adapter, empty run()   {python_trivial:8.1} us");

    // Full checks, processes started and stopped included: the Python example through its
    // adapter, the JavaScript example through its adapter and one process per case.
    let python_example = format!(
        "python3 {} {}",
        adapter.display(),
        root.join("examples/python/dispatcher.py").display()
    );
    let node_adapter = root.join("harness/adapters/node/hookcheck_adapter.mjs");
    let node_example = root.join("examples/node/dispatcher.js");
    let node = format!("node {} {}", node_adapter.display(), node_example.display());
    let values = Options {
        numbers: Numbers::Values,
        ..Options::default()
    };
    let per_case = Options {
        per_case: true,
        ..values.clone()
    };
    let mut runs = vec![(
        "examples/python/dispatcher.py, Python adapter",
        python_example,
        Options::default(),
    )];
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok()
    {
        runs.push((
            "examples/node/dispatcher.js, Node adapter",
            node.clone(),
            values,
        ));
        runs.push((
            "examples/node/dispatcher.js, --per-case",
            format!("{node} --per-case"),
            per_case,
        ));
    } else {
        println!("(node not found: the JavaScript figures are left out)");
    }
    println!(
        "full check, {} cases, 2 jobs (median of 5, min, max):",
        corpus.cases.len()
    );
    for (what, command, options) in runs {
        let mut walls: Vec<f64> = (0..5)
            .map(|_| {
                let start = Instant::now();
                let implementation = Subprocess::start(&command, options.clone());
                let verdicts = check_all(&implementation, &corpus.cases, Scope::FULL, 2);
                drop(implementation);
                assert!(verdicts.iter().all(|v| v.is_success()), "{what} fails");
                start.elapsed().as_secs_f64()
            })
            .collect();
        walls.sort_by(f64::total_cmp);
        println!(
            "  {what:<48} {:.3} s ({:.3}, {:.3})",
            walls[2], walls[0], walls[4]
        );
    }
}
