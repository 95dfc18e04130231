//! hookcheck away from its checkout, as after `cargo install --path .`: the binary runs from an
//! empty folder with its built-in corpus and spec, checks the reference and the Python example,
//! and takes a local folder of one's own cases alongside the built-in ones.

use crate::common;

use common::{hookcheck, root, text};
use std::path::PathBuf;

fn empty_folder(name: &str) -> PathBuf {
    common::fresh(name)
}

const LOCAL_CASE: &str = r#"part: retries
cases:
  - id: local-ticket-77-second-retry
    title: "A ticket of our own: the second retry waits 60 seconds"
    rules: [retry.wait-schedule]
    origin: regression
    ticket: OURS-77
    steps:
      - op: [register, 0, shop, "https://shop.example/hooks"]
        expect: true
      - op: [enqueue, 0, shop, evt-1, [503, 503, 200]]
        expect: queued
      - op: [process, 0]
        expect: ["evt-1 #1 503 retry at 30"]
      - op: [process, 30]
        expect: ["evt-1 #2 503 retry at 90"]
"#;

#[test]
fn the_binary_checks_from_an_empty_folder_with_its_built_in_corpus() {
    let dir = empty_folder("anywhere");
    let corpus = common::corpus();
    let builtin = corpus.len();
    // The reference offers every part: all but the cases for implementations without one.
    let applicable = corpus.iter().filter(|c| c.without.is_empty()).count();
    let out = hookcheck(&dir, &["check"]);
    common::says(&out, 0, &format!("PASSED: {applicable} passed"));
    let python = format!(
        "python3 {} {}",
        root()
            .join("harness/adapters/python/hookcheck_adapter.py")
            .display(),
        root().join("examples/python/dispatcher.py").display()
    );
    let out = hookcheck(&dir, &["check", "--impl", &python]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for (args, expect) in [
        (&["lint"][..], format!("{builtin} cases: 0 problems")),
        (
            &["coverage"][..],
            "0 uncovered; 0 situation cells unchecked".to_string(),
        ),
    ] {
        let out = hookcheck(&dir, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(&expect), "{args:?}: {}", text(&out));
    }
    let out = hookcheck(&dir, &["export", "corpus"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(dir.join("corpus/cases/retries/schedule.yaml").is_file());
    assert!(dir.join("corpus/spec/dispatcher.md").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_local_case_folder_runs_alongside_the_built_in_cases() {
    let dir = empty_folder("local-cases");
    std::fs::create_dir_all(dir.join("our-cases/tickets")).expect("folder");
    std::fs::write(dir.join("our-cases/tickets/ours.yaml"), LOCAL_CASE).expect("case file");
    let builtin = common::corpus().len();
    let out = hookcheck(&dir, &["check", "--cases", "our-cases", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let cases: Vec<&serde_json::Value> = events.iter().filter(|e| e["event"] == "case").collect();
    assert_eq!(cases.len(), builtin + 1);
    let ours = cases
        .iter()
        .find(|e| e["name"] == "tickets::local-ticket-77-second-retry")
        .expect("the local case ran");
    assert_eq!(ours["verdict"], "passed");
    assert_eq!(ours["file"], "our-cases/tickets/ours.yaml");
    // Alone, and checked by lint like the corpus.
    let out = hookcheck(&dir, &["check", "--cases", "our-cases", "--no-builtin"]);
    assert!(text(&out).contains("PASSED: 1 passed"), "{}", text(&out));
    let out = hookcheck(&dir, &["lint", "--cases", "our-cases", "--no-builtin"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // A local id that repeats a built-in one is a lint problem, and check refuses the corpus.
    std::fs::write(
        dir.join("our-cases/tickets/ours.yaml"),
        LOCAL_CASE.replace("local-ticket-77-second-retry", "brief-worked-example"),
    )
    .expect("rewrites");
    let out = hookcheck(&dir, &["lint", "--cases", "our-cases"]);
    common::says(
        &out,
        1,
        "our-cases/tickets/ours.yaml:3: case brief-worked-example: id already used at cases/retries/worked-example.yaml",
    );
    let out = hookcheck(&dir, &["check", "--cases", "our-cases"]);
    common::says(&out, 2, "id already used at");
    let _ = std::fs::remove_dir_all(&dir);
}
