//! `hookcheck serve`: the reference dispatcher behind the implementation protocol
//! (`spec/protocol.md`), so the process path can be checked and timed against a known-good
//! implementation whose own work per case is negligible.

use crate::implementation::PROTOCOL;
use crate::input::{Format, Layout, run_stream_with};
use crate::ops::{OperationSeed, Session};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};
use std::fmt;
use std::io::{self, BufRead, Read, Write};

/// Serves the lines protocol until `stop` or end of input.
pub fn serve_lines(input: impl BufRead, out: &mut impl Write) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let message = match serde_json::from_str::<Message>(&line) {
            Ok(m) => m,
            Err(e) => {
                // Not a message hookcheck sends: say so on stderr and go on.
                // serde's message quotes the line's text: shown inert.
                eprintln!(
                    "hookcheck serve: ignoring a line that is not a JSON object: {}",
                    crate::inert::terminal_line(&e.to_string())
                );
                continue;
            }
        };
        let mut answer = Vec::new();
        match message.kind.as_deref() {
            Some("hello") => {
                let hello = json!({
                    "type": "hello", "protocol": PROTOCOL, "name": "hookcheck reference",
                    "language": "rust", "version": env!("CARGO_PKG_VERSION"),
                    // The reference offers every part, the roadmap's included, so `check` and
                    // `fuzz` against it send everything.
                    "parts": crate::case::Part::ALL.map(crate::case::Part::as_str),
                });
                answer.extend_from_slice(hello.to_string().as_bytes());
            }
            Some("run") => match message.results {
                Some(results) => {
                    answer.extend_from_slice(b"{\"type\":\"results\",\"seq\":");
                    answer.extend_from_slice(message.seq.to_string().as_bytes());
                    answer.extend_from_slice(b",\"results\":");
                    answer.extend_from_slice(&results);
                    answer.push(b'}');
                }
                None => {
                    let errored = json!({"type": "errored", "seq": message.seq,
                        "message": "the run request has no operations list"});
                    answer.extend_from_slice(errored.to_string().as_bytes());
                }
            },
            Some("stop") => return Ok(()),
            _ => continue,
        }
        answer.push(b'\n');
        out.write_all(&answer)?;
        out.flush()?;
    }
    Ok(())
}

/// A protocol message, decoded in one pass: a `run` request's operations are run as they are
/// read, and only their results kept.
struct Message {
    kind: Option<String>,
    seq: Value,
    /// The results of `operations` as a JSON array; `None` when it is missing or not a list.
    results: Option<Vec<u8>>,
}

impl<'de> serde::Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a protocol message (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut message = Message {
            kind: None,
            seq: Value::Null,
            results: None,
        };
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "type" => message.kind = map.next_value::<Value>()?.as_str().map(str::to_string),
                "seq" => message.seq = map.next_value()?,
                "operations" => message.results = map.next_value_seed(Operations)?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(message)
    }
}

/// A list of operations, run on a fresh dispatcher as it is read; its results as a JSON array.
struct Operations;

impl<'de> DeserializeSeed<'de> for Operations {
    type Value = Option<Vec<u8>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Operations {
    type Value = Option<Vec<u8>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of operations")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut session = Session::new();
        let mut out = vec![b'['];
        while let Some(op) = seq.next_element_seed(OperationSeed)? {
            if out.len() > 1 {
                out.push(b',');
            }
            session.apply(op).write_json(&mut out);
        }
        out.push(b']');
        Ok(Some(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Per-case mode: one JSON array of operations in, the results array out on one line.
pub fn serve_once(input: impl Read, out: &mut impl Write) -> Result<(), String> {
    run_stream_with(input, out, Format::Array, Layout::OneLine).map_err(|e| e.to_string())
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
        serve_once(&b"[[\"process\", 0], [\"nope\", 1]]"[..], &mut out).expect("serves");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "[[],\"error: unknown operation\"]\n"
        );
        assert!(serve_once(&b"{}"[..], &mut Vec::new()).is_err());
    }
}
