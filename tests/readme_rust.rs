//! The README's Rust snippet, compiled and run as written (`harness = false`: its `main` runs the
//! corpus on the reference through the library harness). The text between the markers must
//! appear verbatim in README.md (tests/kit/readme.rs checks it); `my_dispatcher` stands for the
//! reader's crate.

mod my_dispatcher {
    use hookcheck::conformance::Part;
    use serde_json::Value;

    /// A `run` of another shape than `Suite::new` takes: owned operations, a `Result`. It
    /// implements the brief's three parts, as the snippet declares: the reference answering as
    /// an implementation of those parts alone (the roadmap's operations unknown, its keys,
    /// outcome objects and payloads invalid).
    pub fn run(operations: Vec<Value>) -> Result<Vec<Value>, String> {
        Ok(hookcheck::ops::run_declared(&operations, &Part::BRIEF))
    }
}

// README snippet begins
use hookcheck::conformance::{Numbers, Part, Suite};
use serde_json::Value;

fn main() -> std::process::ExitCode {
    // Say your solution takes owned operations and returns a Result.
    let run = |operations: &[Value]| -> Vec<Value> {
        my_dispatcher::run(operations.to_vec()).unwrap_or_default()
    };
    Suite::new(run)
        // The parts you implement: the brief's three (also what saying nothing declares);
        // add Part::Policy and the others you implement, or give Part::ALL for all of them.
        .parts(&Part::BRIEF)
        .numbers(Numbers::Spelling)
        .run()
}
// README snippet ends
