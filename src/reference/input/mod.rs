//! `hookcheck run`'s input and output, streamed both ways. A JSON array of operations is read in
//! chunks; each operation is cut out of the array, decoded straight into a typed operation
//! ([`OperationSeed`]), applied, and its result written before the next one is read, so the
//! results form a JSON array written as it goes. One operation per line (JSON lines) is answered
//! one result per line. Memory stays the dispatcher's state plus one operation and the read
//! buffer, whatever the input size.
//!
//! Input that stops being JSON part-way keeps the results already written (an array is left
//! open); the error names the line and column of the whole input.

mod apply;
mod pipeline;
mod prefault;
mod reader;
mod walk;

use reader::{BOM, offset_of, reason_of};
use serde::de::IgnoredAny;
use serde_json::Value;
use std::fmt;
use std::io::{self, Read, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Decide from the first non-blank line (see [`detect`]).
    Auto,
    Array,
    Lines,
}

#[derive(Debug)]
pub enum RunError {
    /// Reading the input failed.
    Io(io::Error),
    /// Writing the results failed (a full disk, a closed pipe).
    Write(io::Error),
    /// The input, or one line of it, is not JSON.
    NotJson {
        line: usize,
        column: usize,
        reason: String,
    },
    Empty,
    /// The input does not start as an array of operations; what it starts with instead.
    NotArray {
        line: usize,
        column: usize,
        found: String,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Io(e) => write!(f, "cannot read input: {e}"),
            RunError::Write(e) => write!(f, "cannot write output: {e}"),
            RunError::NotJson {
                line,
                column,
                reason,
            } => write!(f, "not JSON at line {line}, column {column}: {reason}"),
            RunError::Empty => {
                f.write_str("the input is empty: expected a JSON array of operations")
            }
            RunError::NotArray {
                line,
                column,
                found,
            } => write!(
                f,
                "not an array of operations at line {line}, column {column}: the input starts \
                 with {found}; expected an array of operations such as \
                 [[\"register\", 0, \"shop\", \"https://shop.example/hooks\"]] or one \
                 operation per line"
            ),
        }
    }
}

impl From<io::Error> for RunError {
    fn from(e: io::Error) -> Self {
        RunError::Io(e)
    }
}

/// Lines mode when the first non-blank line is on its own one operation: a JSON array whose first
/// element is a string, such as `["register", 0, "shop", "u"]`. Anything else is read as an array.
pub fn detect(first_line: &str) -> Format {
    // An array of operations starts `[[`; only a line starting `["` can be one operation, and
    // only such a line is worth parsing (a whole array may sit on one long line).
    let candidate = first_line
        .trim_start()
        .strip_prefix('[')
        .is_some_and(|rest| rest.trim_start().starts_with('"'));
    // Parsed without building it: a line of a million outcomes is one operation too. A JSON
    // value starting `["` is an array whose first element is a string.
    if candidate && serde_json::from_str::<IgnoredAny>(first_line).is_ok() {
        Format::Lines
    } else {
        Format::Array
    }
}

/// How results are laid out: `hookcheck run` puts one result per line; the protocol's per-case
/// mode writes the whole array on one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    OnePerLine,
    OneLine,
}

/// Runs the operations read from `input` on a fresh dispatcher and writes the results to `out`,
/// one result per line. Reading and writing run on a thread of their own, beside applying (see
/// `pipeline`); the results are the same, byte for byte, as [`run_stream_with`]'s.
pub fn run_stream(
    input: impl Read + Send,
    out: &mut (impl Write + Send),
    format: Format,
) -> Result<(), RunError> {
    run_sized(input, None, out, format)
}

/// [`run_stream`] for an input known to be `bytes` long (a file's size), which the run uses to
/// make room for the events it may hold at once (see `prefault`). The size is only a hint:
/// the results are the same whatever it says.
pub fn run_sized(
    input: impl Read + Send,
    bytes: Option<u64>,
    out: &mut (impl Write + Send),
    format: Format,
) -> Result<(), RunError> {
    run_sized_then(input, bytes, out, format, Afterwards::Free)
}

/// What becomes of the dispatcher's state once a run's results are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Afterwards {
    /// Freed, as any value: for a run within a process that goes on.
    Free,
    /// Left to the process's exit, which the caller makes next: `hookcheck run`. Freeing a
    /// state of many allocations one by one only puts off the exit, which gives back all the
    /// memory at once (as a compiler leaves its trees to the exit: clang's `-disable-free`).
    /// Freeing took 0.8 ms at the end of a run of 100k events, but most of that was giving
    /// pages back, which the exit then does instead: left to the exit, runs measured 0.98 to
    /// 0.99 of the time at 100k events, 0.97 to 0.99 at 1M and 0.97 at 10k.
    Exit,
}

/// [`run_sized`], with the state freed or left to the exit as `afterwards` says.
pub fn run_sized_then(
    input: impl Read + Send,
    bytes: Option<u64>,
    out: &mut (impl Write + Send),
    format: Format,
    afterwards: Afterwards,
) -> Result<(), RunError> {
    let events = bytes.map_or(0, events_room);
    pipeline::run(input, out, format, Layout::OnePerLine, events, afterwards)
}

/// The events [`run_sized`] makes room for ahead, for an input of `bytes` bytes (none where the
/// process's limits advise against it): for a yardstick that does the applying thread's work
/// alone, in the same state (`cargo bench --bench run`).
pub fn events_room(bytes: u64) -> usize {
    prefault::events_for(bytes)
}

/// Runs the operations on the calling thread alone, results laid out as `layout` says.
pub fn run_stream_with(
    input: impl Read,
    out: &mut impl Write,
    format: Format,
    layout: Layout,
) -> Result<(), RunError> {
    let mut applier = apply::Applier::new(out, layout);
    let result = walk::read(input, format, &mut applier);
    applier.flush().map_err(RunError::Write)?;
    result
}

/// serde's reason, with what stands at the place it names when that is invisible in an editor
/// or a terminal: a byte order mark or a control character.
fn explained(reason: String, rest: &str) -> String {
    match rest.chars().next() {
        Some(BOM) => format!(
            "{reason}: found a UTF-8 byte order mark (EF BB BF), allowed only at the very \
             start of the input"
        ),
        Some(c) if c.is_control() && !matches!(c, ' ' | '\t' | '\n' | '\r') => {
            format!("{reason}: found byte 0x{:02X}", u32::from(c))
        }
        _ => reason,
    }
}

/// What the text at the start of the input is, in words, for an input that is not an array.
fn described(text: &str) -> String {
    let Some(c) = text.chars().next() else {
        return "nothing".to_string();
    };
    let kind = match c {
        '{' => "an object",
        '"' => "a string",
        '-' | '0'..='9' => "a number",
        't' | 'f' => "a boolean",
        'n' => "null",
        BOM => {
            return "a second UTF-8 byte order mark (EF BB BF); one is skipped, not two"
                .to_string();
        }
        c if c.is_control() => return format!("byte 0x{:02X}, which is not JSON", u32::from(c)),
        c if c.is_ascii_graphic() => return format!("`{c}`, which is not JSON"),
        c => return format!("U+{:04X} `{c}`, which is not JSON", u32::from(c)),
    };
    format!("`{c}`, the start of {kind} in JSON")
}

/// One line of JSON-lines input (1-based `number` in the whole input); `None` when blank.
fn parse_line(line: &str, number: usize, bom: usize) -> Result<Option<Value>, RunError> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(line)
        .map(Some)
        .map_err(|e| not_json(&e, line, number - 1, bom))
}

/// The whole input as one JSON array of operations.
fn parse_array(text: &str, bom: usize) -> Result<Vec<Value>, RunError> {
    let blank = text.len() - text.trim_start().len();
    if blank == text.len() {
        return Err(RunError::Empty);
    }
    if !text[blank..].starts_with('[') {
        let before = &text[..blank];
        let line = 1 + memchr::memchr_iter(b'\n', before.as_bytes()).count();
        let column = match memchr::memrchr(b'\n', before.as_bytes()) {
            Some(last) => blank - last,
            None => bom + blank + 1,
        };
        return Err(RunError::NotArray {
            line,
            column,
            found: described(&text[blank..]),
        });
    }
    match serde_json::from_str(text).map_err(|e| not_json(&e, text, 0, bom))? {
        Value::Array(ops) => Ok(ops),
        // Starts with `[` and parsed: an array.
        _ => Ok(Vec::new()),
    }
}

/// `line_offset` turns serde's line within `text` into the line of the whole input, whose first
/// line has `bom` bytes before `text`.
fn not_json(e: &serde_json::Error, text: &str, line_offset: usize, bom: usize) -> RunError {
    let line = e.line() + line_offset;
    let at = offset_of(text, e.line(), e.column());
    RunError::NotJson {
        line,
        column: e.column() + if line == 1 { bom } else { 0 },
        reason: explained(reason_of(e), text.get(at..).unwrap_or("")),
    }
}

/// Operations from text holding a JSON array of them, or one operation per line, as values
/// (`hookcheck record` turns them into a case file). A byte order mark at the start is skipped,
/// as `hookcheck run` skips it.
pub fn parse_operations(text: &str) -> Result<Vec<Value>, RunError> {
    let (text, bom) = match text.strip_prefix(BOM) {
        Some(rest) => (rest, BOM.len_utf8()),
        None => (text, 0),
    };
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.is_empty() {
        return Err(RunError::Empty);
    }
    if detect(first.trim()) == Format::Lines {
        let mut ops = Vec::new();
        for (i, line) in text.lines().enumerate() {
            ops.extend(parse_line(line, i + 1, bom)?);
        }
        return Ok(ops);
    }
    parse_array(text, bom)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_text(text: &str, format: Format) -> Result<String, String> {
        let mut out = Vec::new();
        run_stream(text.as_bytes(), &mut out, format).map_err(|e| e.to_string())?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// The output written before an error, and the error.
    fn run_partial(text: &str, format: Format) -> (String, String) {
        let mut out = Vec::new();
        let e = run_stream(text.as_bytes(), &mut out, format)
            .err()
            .map_or_else(String::new, |e| e.to_string());
        (String::from_utf8_lossy(&out).into_owned(), e)
    }

    #[test]
    fn array_input_gives_an_array_one_result_per_line() {
        let got = run_text(
            "\n[[\"register\",0,\"s\",\"u\"],\n [\"bogus\",0]]\n",
            Format::Auto,
        );
        assert_eq!(
            got,
            Ok("[true,\n \"error: unknown operation\"]\n".to_string())
        );
        assert_eq!(run_text("[]", Format::Auto), Ok("[]\n".to_string()));
        assert_eq!(run_text(" [ ] \n", Format::Auto), Ok("[]\n".to_string()));
        assert_eq!(
            run_text("[5, {\"a\": [1, \"]\"]}, \"x,y\"]", Format::Auto),
            Ok("[\"error: invalid arguments\",\n \"error: invalid arguments\",\n \"error: invalid arguments\"]\n".to_string())
        );
    }

    #[test]
    fn lines_input_is_detected_and_blank_lines_skipped() {
        let text = "\n[\"register\",0,\"s\",\"u\"]\n\n[\"enqueue\",0,\"s\",\"e\",[404]]\r\n[\"process\",0]";
        let got = run_text(text, Format::Auto);
        assert_eq!(
            got,
            Ok("true\n\"queued\"\n[\"e #1 404 dead\"]\n".to_string())
        );
    }

    #[test]
    fn forced_lines_answers_non_operations_per_line() {
        assert_eq!(
            run_text("5\n[1]\n", Format::Lines),
            Ok("\"error: invalid arguments\"\n\"error: unknown operation\"\n".to_string())
        );
    }

    #[test]
    fn errors_name_the_line_of_the_whole_input() {
        let text = "\n[\"process\",0]\n[\"process\",1]\n[\"process\",\n";
        let err = run_text(text, Format::Auto).err().unwrap_or_default();
        assert!(err.starts_with("not JSON at line 4, column"), "{err}");
        let err = run_text("\n {\"a\": 1}", Format::Auto)
            .err()
            .unwrap_or_default();
        assert!(
            err.starts_with(
                "not an array of operations at line 2, column 2: the input starts with `{`, \
                 the start of an object in JSON; expected an array of operations such as"
            ),
            "{err}"
        );
        assert_eq!(
            run_text(" \n", Format::Auto).err().as_deref(),
            Some("the input is empty: expected a JSON array of operations")
        );
        let err = run_text("[1,\n2,", Format::Array).err().unwrap_or_default();
        assert!(err.starts_with("not JSON at line 2"), "{err}");
    }

    #[test]
    fn bad_input_part_way_keeps_the_results_already_written() {
        let (out, err) = run_partial(
            "[[\"register\",0,\"s\",\"u\"],\n [\"process\",0],\n [\"process\", 1 2]]",
            Format::Auto,
        );
        assert_eq!(out, "[true,\n []\n");
        assert_eq!(err, "not JSON at line 3, column 16: expected `,` or `]`");
        let (out, err) = run_partial("[[\"process\",0],]", Format::Array);
        assert_eq!(out, "[[]\n");
        assert_eq!(err, "not JSON at line 1, column 16: trailing comma");
        let (_, err) = run_partial("[[\"process\",0],,[\"process\",0]]", Format::Array);
        assert_eq!(err, "not JSON at line 1, column 16: expected value");
        // The first operation is whole; the input stops being JSON after it.
        let (out, err) = run_partial("[[\"process\",0] [\"process\",1]]", Format::Array);
        assert_eq!(out, "[[]\n");
        assert_eq!(err, "not JSON at line 1, column 16: expected `,` or `]`");
        let (out, err) = run_partial("[[\"process\",0],\n[\"process\",1", Format::Array);
        assert_eq!(out, "[[]\n");
        assert!(
            err.starts_with("not JSON at line 2, column 12: EOF"),
            "{err}"
        );
        let (out, err) = run_partial("[[\"process\",0]] x", Format::Array);
        assert_eq!(out, "[[]]\n");
        assert_eq!(err, "not JSON at line 1, column 17: trailing characters");
        let (out, err) = run_partial("[\"process\",0]\n[\"process\",1]\n{oops\n", Format::Auto);
        assert_eq!(out, "[]\n[]\n");
        assert!(err.starts_with("not JSON at line 3, column 2"), "{err}");
    }

    #[test]
    fn input_that_is_not_utf8_stops_the_run_where_it_breaks() {
        let run = |bytes: &[u8], format| {
            let mut out = Vec::new();
            let e = run_stream(bytes, &mut out, format)
                .err()
                .map_or_else(String::new, |e| e.to_string());
            (String::from_utf8_lossy(&out).into_owned(), e)
        };
        let (out, err) = run(b"[[\"process\",0],\n[\"status\",0,\"\xff\"]]", Format::Auto);
        assert_eq!(out, "[[]\n");
        assert_eq!(err, "not JSON at line 2, column 14: invalid UTF-8");
        let (out, err) = run(b"[\"process\",0]\n\xfe", Format::Auto);
        assert_eq!(out, "[]\n");
        assert_eq!(err, "not JSON at line 2, column 1: invalid UTF-8");
        let (_, err) = run(b"\xef\xbb", Format::Auto);
        assert_eq!(err, "not JSON at line 1, column 1: invalid UTF-8");
        let (_, err) = run(b"[\xff", Format::Auto);
        assert_eq!(err, "not JSON at line 1, column 2: invalid UTF-8");
        // Characters cut by a read boundary are whole again once the next read comes in.
        let (out, err) = run(
            "[[\"status\",0,\"\u{e9}\u{6f22}\u{1f642}\"]]".as_bytes(),
            Format::Auto,
        );
        assert_eq!(
            (out.as_str(), err.as_str()),
            ("[\"error: unknown event\"]\n", "")
        );
    }

    #[test]
    fn reads_in_chunks_across_any_boundary() {
        // A reader that hands out one byte at a time exercises every refill point.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let Some((first, rest)) = self.0.split_first() else {
                    return Ok(0);
                };
                if let Some(slot) = out.first_mut() {
                    *slot = *first;
                    self.0 = rest;
                    return Ok(1);
                }
                Ok(0)
            }
        }
        let text = "[[\"register\",0,\"s\",\"u\"],\n [\"enqueue\",0,\"s\",\"e\\\"1\",[503]],[\"process\",0],[\"status\",0,\"\u{1f642}\"]]";
        let mut out = Vec::new();
        run_stream(Trickle(text.as_bytes()), &mut out, Format::Auto).expect("runs");
        assert_eq!(
            String::from_utf8_lossy(&out),
            run_text(text, Format::Auto).unwrap_or_default()
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            "[true,\n \"queued\",\n [\"e\\\"1 #1 503 retry at 30\"],\n \"error: unknown event\"]\n"
        );
    }
}
