//! What each (implementation, case) pair cost, as a run's bundle and reports record it: its
//! time, the processes restarted to serve it, and the times it was sent again. Each is checked
//! against what the implementation was made to do: crash on known cases, hang once on one.

use crate::common::{self, fresh, python_impl, text};
use serde_json::Value;
use std::process::{Command, Output};

/// Dies (without a word) on every case of a multiple of seven operations; passes the others.
const CRASHY: &str = r#"
import os, sys
sys.path.insert(0, os.environ["EXAMPLES"])
from dispatcher import run as good, HOOKCHECK_PARTS

def run(operations):
    if len(operations) % 7 == 0:
        os._exit(3)
    return good(operations)
"#;

/// Hangs the first time it is given the case of a multiple of seven operations, then passes.
const HANGS_ONCE: &str = r#"
import os, sys, time
sys.path.insert(0, os.environ["EXAMPLES"])
from dispatcher import run as good, HOOKCHECK_PARTS

def run(operations):
    marker = os.environ["HUNG_ONCE"]
    if len(operations) % 7 == 0 and not os.path.exists(marker):
        open(marker, "w").close()
        time.sleep(30)
    return good(operations)
"#;

fn check(dir: &std::path::Path, script: &str, args: &[&str]) -> Output {
    let file = dir.join("solution.py");
    std::fs::write(&file, script).expect("the solution");
    let command = python_impl("examples/python/dispatcher.py").replace(
        &common::root()
            .join("examples/python/dispatcher.py")
            .display()
            .to_string(),
        &file.display().to_string(),
    );
    Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args([
            "check", "--impl", &command, "--part", "ordering", "--jobs", "1",
        ])
        .args(args)
        .current_dir(dir)
        .env("EXAMPLES", common::root().join("examples/python"))
        .env("HUNG_ONCE", dir.join("hung"))
        .env("TMPDIR", common::scratch())
        .output()
        .expect("hookcheck runs")
}

fn bundle_cases(dir: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("run.json")).expect("a bundle");
    let bundle: Value = serde_json::from_str(&text).expect("JSON");
    bundle["implementations"][0]["cases"]
        .as_array()
        .expect("cases")
        .clone()
}

fn number(c: &Value, key: &str) -> u64 {
    c[key].as_u64().unwrap_or_else(|| panic!("`{key}` of {c}"))
}

#[test]
fn a_crash_costs_its_case_a_retry_and_the_next_case_a_restart() {
    let dir = fresh("costs-crash");
    let out = check(
        &dir,
        CRASHY,
        &["--bundle", "run.json", "--junit", "run.xml"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let cases = bundle_cases(&dir);
    let crashed: Vec<bool> = cases.iter().map(|c| c["verdict"] == "errored").collect();
    assert!(
        crashed.iter().any(|c| *c) && !crashed.iter().all(|c| *c),
        "{crashed:?}"
    );
    for (i, c) in cases.iter().enumerate() {
        // A crash on a process that served a case before is sent once more to a fresh one
        // (a retry, that process a restart); it dies there too, and the case after it starts
        // the process that replaces it. One case at a time, so the cases come in order.
        let after_crash = i > 0 && crashed[i - 1];
        let (restarts, retries) = match (crashed[i], after_crash) {
            (true, _) => (1, 1),
            (false, true) => (1, 0),
            (false, false) => (0, 0),
        };
        assert_eq!(number(c, "restarts"), restarts, "{c}");
        assert_eq!(number(c, "retries"), retries, "{c}");
        let seconds = c["seconds"].as_f64().expect("seconds");
        assert!(seconds.is_finite() && seconds >= 0.0, "{c}");
    }
    // The JUnit report gives every test case its time.
    let xml = std::fs::read_to_string(dir.join("run.xml")).expect("a report");
    let testcases = xml.matches("<testcase ").count();
    assert_eq!(testcases, cases.len(), "{xml}");
    assert_eq!(
        xml.matches("<testcase ")
            .zip(xml.split("<testcase ").skip(1))
            .filter(|(_, t)| {
                t.split('>')
                    .next()
                    .is_some_and(|attrs| attrs.contains(" time=\""))
            })
            .count(),
        testcases,
        "{xml}"
    );
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_timeout_passed_alone_is_one_retry_and_takes_the_time_it_waited() {
    let dir = fresh("costs-timeout");
    let out = check(
        &dir,
        HANGS_ONCE,
        &["--timeout", "3", "--bundle", "run.json", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let cases = bundle_cases(&dir);
    let slow: Vec<&Value> = cases.iter().filter(|c| c["slow"] == true).collect();
    assert_eq!(
        slow.len(),
        1,
        "the first case of seven operations: {cases:?}"
    );
    for (i, c) in cases.iter().enumerate() {
        let expected = u64::from(c["slow"] == true);
        assert_eq!(number(c, "retries"), expected, "{c}");
        // The process that timed out was killed: the case after it starts its replacement.
        let after = u64::from(i > 0 && cases[i - 1]["slow"] == true);
        assert_eq!(number(c, "restarts"), after, "{c}");
    }
    let waited = slow[0]["seconds"].as_f64().expect("seconds");
    assert!(
        waited >= 3.0,
        "it waited out the 3 s timeout first: {waited}"
    );
    // The JSON report's case events say the same time.
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON event"))
        .filter(|e: &Value| e["event"] == "case")
        .collect();
    assert_eq!(events.len(), cases.len());
    let slow_event = events
        .iter()
        .find(|e| e["slow"] == true)
        .expect("the slow case's event");
    assert!(
        slow_event["seconds"].as_f64().is_some_and(|s| s >= 3.0),
        "{slow_event}"
    );
}
