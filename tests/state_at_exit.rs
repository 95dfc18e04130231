//! `hookcheck run` leaves the dispatcher's state to the process's exit instead of freeing it
//! (`Afterwards::Exit`); any other caller of the run gets it freed (`Afterwards::Free`). Counted
//! by the benches' counting allocator: this file holds one test, so that no other test's
//! allocations mix in.

#[allow(dead_code)] // The benches' peak is not read here.
#[path = "../benches/common/mod.rs"]
mod counting;

use hookcheck::input::{Afterwards, Format, run_sized_then};

const EVENTS: usize = 20_000;

/// Live bytes left behind by one run of `input`, and its output.
fn left_by(input: &[u8], afterwards: Afterwards) -> (isize, Vec<u8>) {
    let mut out = Vec::new();
    let before = counting::live() as isize;
    run_sized_then(
        input,
        Some(input.len() as u64),
        &mut out,
        Format::Auto,
        afterwards,
    )
    .expect("the run succeeds");
    let left = counting::live() as isize - before - out.capacity() as isize;
    (left, out)
}

#[test]
fn the_state_is_left_to_the_exit_only_when_asked_and_the_results_are_the_same() {
    let ops: String = (0..EVENTS)
        .map(|i| format!(r#",["enqueue",{i},"ep-{}","evt-{i}",[503,200]]"#, i % 50))
        .collect();
    let registers: String = (0..50)
        .map(|i| format!(r#"["register",0,"ep-{i}","https://ep-{i}.example"],"#))
        .collect();
    let input = format!(r#"[{}["process",0]{ops},["process",999999]]"#, registers);
    // Once first, for whatever the process sets up once and keeps (standard streams, seeds).
    let (_, first) = left_by(input.as_bytes(), Afterwards::Free);
    let (freed, out_free) = left_by(input.as_bytes(), Afterwards::Free);
    let (left, out_exit) = left_by(input.as_bytes(), Afterwards::Exit);
    assert_eq!(out_free, first);
    assert_eq!(out_exit, out_free);
    assert!(out_free.len() > 10 * EVENTS, "{}", out_free.len());
    // Freed: nothing of the run is left. Left to the exit: at least its events.
    assert!(freed.abs() < 4 << 10, "a freeing run left {freed} bytes");
    let events = EVENTS as isize * 32;
    assert!(
        left > events,
        "a run leaving its state left only {left} bytes"
    );
}
