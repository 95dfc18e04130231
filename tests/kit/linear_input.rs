//! A million outcomes in one `enqueue`, through every path that decodes operations: `hookcheck
//! run`'s streaming reader (as an array and as JSON lines, read a few bytes or a pipe's worth
//! at a time), `hookcheck serve`'s per-case mode, the in-process [`Session`] and the brief's
//! `run` over JSON values. Each took quadratic time (a 100k list took seconds); the results must
//! be those of the same script written short. Time itself is measured by `benches/outcomes.rs`.

use hookcheck::input::{Format, run_stream};
use hookcheck::ops::{Session, decode_text};
use serde_json::Value;
use std::io::{self, Read};

const N: usize = 1_000_000;

/// The operations around an `enqueue` whose outcomes are `list`: one retried attempt, then a
/// delivery, then nothing left.
fn operations(list: &str) -> Vec<String> {
    vec![
        r#"["register",0,"shop","https://shop.example/hooks"]"#.to_string(),
        format!(r#"["enqueue",0,"shop","evt-1",[{list}]]"#),
        r#"["process",0]"#.to_string(),
        r#"["process",30]"#.to_string(),
        r#"["status",31,"evt-1"]"#.to_string(),
    ]
}

/// `[503, 200, 200, ...]` with `n` statuses in all: the same script as `[503, 200]`.
fn long_list(n: usize) -> String {
    let mut list = String::with_capacity(4 * n);
    list.push_str("503");
    for _ in 1..n {
        list.push_str(",200");
    }
    list
}

/// A reader handing out at most `step` bytes a read, as a pipe does.
struct Pieces<'a> {
    rest: &'a [u8],
    step: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.rest.len().min(self.step).min(out.len());
        out[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

fn run(text: &str, step: usize) -> String {
    let mut out = Vec::new();
    let input = Pieces {
        rest: text.as_bytes(),
        step,
    };
    run_stream(input, &mut out, Format::Auto).expect("a million outcomes run");
    String::from_utf8(out).expect("UTF-8 results")
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_million_outcomes_give_the_results_of_the_short_script() {
    long_outcomes_give_the_results_of_the_short_script(N);
}

/// The same paths at a size a debug build runs in a moment: what they decode, not how long.
#[test]
fn ten_thousand_outcomes_give_the_results_of_the_short_script() {
    long_outcomes_give_the_results_of_the_short_script(10_000);
}

fn long_outcomes_give_the_results_of_the_short_script(n: usize) {
    let short = operations("503,200");
    let long = operations(&long_list(n));
    assert!(
        long[1].len() > 4 * n,
        "the enqueue is {} bytes",
        long[1].len()
    );
    let expected = run(&format!("[{}]", short.join(",\n")), 1 << 16);
    assert_eq!(
        expected,
        "[true,\n \"queued\",\n [\"evt-1 #1 503 retry at 30\"],\n [\"evt-1 #2 200 delivered\"],\n \
         {\"state\":\"delivered\",\"attempts\":2,\"next_attempt_at\":null}]\n"
    );
    let array = format!("[{}]", long.join(",\n"));
    for step in [4096, 1 << 16, 1 << 20] {
        assert_eq!(
            run(&array, step),
            expected,
            "array read {step} bytes at a time"
        );
    }
    let lines = long.join("\n") + "\n";
    let expected_lines = run(&(short.join("\n") + "\n"), 1 << 16);
    for step in [4096, 1 << 16] {
        assert_eq!(
            run(&lines, step),
            expected_lines,
            "lines read {step} bytes at a time"
        );
    }

    // `hookcheck serve`'s per-case mode: one array in, the results on one line.
    let mut out = Vec::new();
    hookcheck::serve::serve_once(array.as_bytes(), &mut out).expect("serves");
    assert_eq!(String::from_utf8_lossy(&out), expected.replace(",\n ", ","));

    // In process: decoded from text, and as JSON values (as `hookcheck record` reads them).
    let mut session = Session::new();
    let by_text: Vec<Value> = long
        .iter()
        .map(|op| {
            let decoded = decode_text(op).expect("JSON");
            session.apply(decoded).to_value()
        })
        .collect();
    let values: Vec<Value> = long
        .iter()
        .map(|op| serde_json::from_str(op).expect("JSON"))
        .collect();
    let by_value = hookcheck::ops::run(&values);
    assert_eq!(by_text, by_value);
    let expected_values: Vec<Value> = serde_json::from_str(&expected).expect("JSON");
    assert_eq!(by_value, expected_values);
}
