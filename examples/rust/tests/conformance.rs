//! hookcheck's corpus as this crate's own tests: one trial per case, in process.
//! `cargo test --test conformance` (add `-- ordering::` to run the ordering cases only).

fn main() -> std::process::ExitCode {
    hookcheck::conformance::Suite::new(dispatcher_example::run).run()
}
