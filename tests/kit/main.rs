//! The integration tests, one binary (`cargo test --test kit`): each module was a file of
//! `tests/` of its own, linked against the crate on its own; one link instead of forty is most
//! of a fresh build's time saved. The tests that need a process of their own stay separate
//! targets in Cargo.toml: `conformance` and `readme_rust` have `main`s of their own, and
//! `state_at_exit` counts every allocation of its process.
//!
//! Tests that take more than a few seconds are `#[ignore]`d with the reason `slow`, and run by
//! `cargo test -- --ignored` (which `.ci/run` runs) with those that need Node, Chromium or
//! bubblewrap.

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
mod supervision;
mod targets;
mod untrusted;
