//! The README's Rust snippet, compiled and run as written (`harness = false`: its `main` runs the
//! corpus on the reference through the library harness). The text between the markers must
//! appear verbatim in README.md (tests/kit/readme.rs checks it); `my_dispatcher` stands for the
//! reader's crate.

mod my_dispatcher {
    use serde_json::{Value, json};

    /// A `run` of another shape than `Suite::new` takes: owned operations, a `Result`. It
    /// implements the brief's three parts, as the snippet declares: the reference, with the
    /// roadmap's operations unknown and outcome objects invalid, as they are without their parts.
    pub fn run(operations: Vec<Value>) -> Result<Vec<Value>, String> {
        let later = ["set_policy", "policy", "endpoint", "dead_letter", "recover"];
        let within: Vec<Value> = operations
            .into_iter()
            .map(|mut op| {
                let name = op.get(0).and_then(Value::as_str).unwrap_or("").to_string();
                if later.contains(&name.as_str()) {
                    return json!(["no such operation"]);
                }
                let objects = op
                    .get(4)
                    .and_then(Value::as_array)
                    .is_some_and(|o| o.iter().any(Value::is_object));
                if name == "enqueue" && objects && op.as_array().is_some_and(|a| a.len() == 5) {
                    op[4] = json!([]);
                }
                op
            })
            .collect();
        Ok(hookcheck::run(&within))
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
