//! The integration tests, one binary (`cargo test --test kit`): one link of the crate instead
//! of one per file, and one pool of test threads for all of them instead of a binary at a time
//! waiting for its slowest test. The tests that need a process of their own are separate
//! targets in Cargo.toml: `conformance` and `readme_rust` have `main`s of their own, and
//! `state_at_exit` counts every allocation of its process.
//!
//! A test that takes more than a few seconds is `#[ignore = "slow: ..."]`, so that `cargo test`
//! stays within minutes on a fresh two-core machine; `cargo test -- --ignored` (which `.ci/run`
//! runs) runs those with the ones that need Node, Chromium or bubblewrap. Each file keeps at
//! least one test in the default run where its behaviour allows one of a few seconds.

#[path = "../common/mod.rs"]
mod common;

mod absent_parts;
mod anywhere;
mod anywhere_builtin;
mod brief_examples;
mod brief_scope;
mod case_folders;
mod check_cli;
mod contract;
mod costs;
mod dash_names;
mod decoder;
mod dependent_flags;
mod descriptors;
mod faults;
mod fuzz;
mod grading;
mod grading_browser;
mod hidden;
mod hostile_flags;
mod hostile_reports;
mod inert_lines;
mod linear_input;
mod model;
mod mutation;
mod node;
mod numbers_strict;
mod one_scope;
mod origins;
mod parts;
mod python_example;
mod readme;
mod readme_commands;
mod report_destinations;
mod report_events;
mod run_input;
mod rust_example;
mod sandbox;
mod shards;
mod supervision;
mod targets;
mod untrusted;
mod vectors;
