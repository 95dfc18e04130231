//! hookcheck's corpus as this crate's own tests: one trial per case, in process.
//! `cargo test --test conformance` (add `-- ordering::` to run the ordering cases only).

use hookcheck::conformance::{Part, Suite};

fn main() -> std::process::ExitCode {
    // The parts are named rather than left to `Part::ALL`, so a part the kit learns later is
    // listed as ignored here until this crate implements it, instead of failing.
    Suite::new(dispatcher_example::run)
        .parts(&[
            Part::Retries,
            Part::Ordering,
            Part::Pause,
            Part::Policy,
            Part::RetryAfter,
            Part::AutoDisable,
            Part::DeadLetters,
            Part::Signatures,
            Part::Throttle,
            Part::Breaker,
            Part::Expiry,
        ])
        .run()
}
