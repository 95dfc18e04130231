//! `hookcheck serve`: the reference dispatcher behind the implementation protocol
//! (`spec/protocol.md`), so the process path can be checked and timed against a known-good
//! implementation whose own work per case is negligible.

use crate::ops::run;
use crate::target::PROTOCOL;
use serde_json::{Value, json};
use std::io::{self, BufRead, Write};

/// Serves the lines protocol until `stop` or end of input.
pub fn serve_lines(input: impl BufRead, out: &mut impl Write) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(m) => m,
            Err(e) => {
                // Not a message hookcheck sends: say so on stderr and go on.
                eprintln!("hookcheck serve: ignoring a line that is not JSON: {e}");
                continue;
            }
        };
        let answer = match message.get("type").and_then(Value::as_str) {
            Some("hello") => json!({
                "type": "hello", "protocol": PROTOCOL, "name": "hookcheck reference",
                "language": "rust", "version": env!("CARGO_PKG_VERSION"),
                "parts": ["retries", "ordering", "pause"],
            }),
            Some("run") => {
                let seq = message.get("seq").cloned().unwrap_or(Value::Null);
                match message.get("operations").and_then(Value::as_array) {
                    Some(ops) => json!({"type": "results", "seq": seq, "results": run(ops)}),
                    None => json!({"type": "errored", "seq": seq,
                                   "message": "the run request has no operations list"}),
                }
            }
            Some("stop") => return Ok(()),
            _ => continue,
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}

/// Per-case mode: one JSON array of operations in, one array of results out.
pub fn serve_once(input: &str, out: &mut impl Write) -> Result<(), String> {
    let ops: Value = serde_json::from_str(input).map_err(|e| format!("input is not JSON: {e}"))?;
    let ops = ops
        .as_array()
        .ok_or("input is not a JSON array of operations")?;
    writeln!(out, "{}", Value::Array(run(ops))).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_hello_and_runs_then_stops() {
        let input = concat!(
            "{\"type\":\"hello\",\"protocol\":1}\n",
            "garbage\n",
            "{\"type\":\"run\",\"seq\":4,\"case\":\"x\",\"operations\":[[\"process\",0],[\"nope\",0]]}\n",
            "{\"type\":\"stop\"}\n",
            "{\"type\":\"run\",\"seq\":5,\"operations\":[]}\n",
        );
        let mut out = Vec::new();
        serve_lines(input.as_bytes(), &mut out).expect("serves");
        let lines: Vec<Value> = String::from_utf8_lossy(&out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["protocol"], json!(1));
        assert_eq!(
            lines[1],
            json!({"type": "results", "seq": 4, "results": [[], "error: unknown operation"]})
        );
    }

    #[test]
    fn per_case_round_trip() {
        let mut out = Vec::new();
        serve_once("[[\"process\", 0]]", &mut out).expect("serves");
        assert_eq!(String::from_utf8_lossy(&out), "[[]]\n");
        assert!(serve_once("{}", &mut Vec::new()).is_err());
    }
}
