//! `hookcheck run`'s input and output: a JSON array of operations (read whole, answered with a
//! JSON array), or one operation per line (streamed, answered one result per line, so inputs of
//! any size run in constant memory beyond the dispatcher's own state).

use crate::dispatcher::Dispatcher;
use crate::ops::step;
use serde_json::Value;
use std::fmt;
use std::io::{self, BufRead, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Decide from the first non-blank line (see [`detect`]).
    Auto,
    Array,
    Lines,
}

#[derive(Debug)]
pub enum RunError {
    Io(io::Error),
    /// The input, or one line of it, is not JSON.
    NotJson {
        line: usize,
        column: usize,
        reason: String,
    },
    Empty,
    /// The input is JSON but not an array of operations.
    NotArray(&'static str),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Io(e) => write!(f, "cannot read input: {e}"),
            RunError::NotJson {
                line,
                column,
                reason,
            } => write!(f, "not JSON at line {line}, column {column}: {reason}"),
            RunError::Empty => {
                f.write_str("the input is empty: expected a JSON array of operations")
            }
            RunError::NotArray(kind) => write!(
                f,
                "the input is a JSON {kind}, not an array of operations such as \
                 [[\"register\", 0, \"shop\", \"https://shop.example/hooks\"]]"
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
    match serde_json::from_str::<Value>(first_line) {
        Ok(Value::Array(items)) if items.first().is_some_and(Value::is_string) => Format::Lines,
        _ => Format::Array,
    }
}

/// Runs the operations read from `input` on a fresh dispatcher and writes the results to `out`.
pub fn run_stream(
    mut input: impl BufRead,
    out: &mut impl Write,
    format: Format,
) -> Result<(), RunError> {
    // Leading blank lines are read off here, so auto-detection sees the first real line.
    let mut first = String::new();
    let mut skipped = 0;
    while input.read_line(&mut first)? > 0 && first.trim().is_empty() {
        skipped += 1;
        first.clear();
    }
    let format = match format {
        Format::Auto => detect(first.trim()),
        f => f,
    };
    match format {
        Format::Lines => run_lines(first, skipped, input, out),
        _ => run_array(first, input, out),
    }
}

fn run_array(
    mut text: String,
    mut input: impl BufRead,
    out: &mut impl Write,
) -> Result<(), RunError> {
    input.read_to_string(&mut text)?;
    let results = crate::ops::run(&parse_array(&text)?);
    write_array(out, &results)?;
    Ok(())
}

/// The results as a JSON array, one result per line, like the brief's worked example.
pub fn write_array(out: &mut impl Write, results: &[Value]) -> io::Result<()> {
    if results.is_empty() {
        return writeln!(out, "[]");
    }
    for (i, r) in results.iter().enumerate() {
        let open = if i == 0 { "[" } else { " " };
        let close = if i + 1 == results.len() { "]" } else { "," };
        writeln!(out, "{open}{r}{close}")?;
    }
    Ok(())
}

fn run_lines(
    first: String,
    skipped: usize,
    input: impl BufRead,
    out: &mut impl Write,
) -> Result<(), RunError> {
    let mut d = Dispatcher::new();
    let first_number = skipped + 1;
    let lines = std::iter::once(Ok(first)).chain(input.lines());
    for (i, line) in lines.enumerate() {
        if let Some(op) = parse_line(&line?, first_number + i)? {
            writeln!(out, "{}", step(&mut d, &op))?;
        }
    }
    Ok(())
}

/// One line of JSON-lines input (1-based `number` in the whole input); `None` when blank.
fn parse_line(line: &str, number: usize) -> Result<Option<Value>, RunError> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(line)
        .map(Some)
        .map_err(|e| not_json(&e, number - 1))
}

/// The whole input as one JSON array of operations.
fn parse_array(text: &str) -> Result<Vec<Value>, RunError> {
    if text.trim().is_empty() {
        return Err(RunError::Empty);
    }
    match serde_json::from_str(text).map_err(|e| not_json(&e, 0))? {
        Value::Array(ops) => Ok(ops),
        other => Err(RunError::NotArray(kind(&other))),
    }
}

/// `line_offset` turns serde's line within a parsed line into the line of the whole input.
fn not_json(e: &serde_json::Error, line_offset: usize) -> RunError {
    let message = e.to_string();
    // serde appends " at line L column C", which is given separately (and corrected) here.
    let reason = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(r, _)| r);
    RunError::NotJson {
        line: e.line() + line_offset,
        column: e.column(),
        reason: reason.to_string(),
    }
}

/// Operations from text holding a JSON array of them, or one operation per line.
pub fn parse_operations(text: &str) -> Result<Vec<Value>, RunError> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.is_empty() {
        return Err(RunError::Empty);
    }
    if detect(first.trim()) == Format::Lines {
        let mut ops = Vec::new();
        for (i, line) in text.lines().enumerate() {
            ops.extend(parse_line(line, i + 1)?);
        }
        return Ok(ops);
    }
    parse_array(text)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_text(text: &str, format: Format) -> Result<String, String> {
        let mut out = Vec::new();
        run_stream(text.as_bytes(), &mut out, format).map_err(|e| e.to_string())?;
        Ok(String::from_utf8_lossy(&out).into_owned())
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
    }

    #[test]
    fn lines_input_is_detected_and_blank_lines_skipped() {
        let text = "\n[\"register\",0,\"s\",\"u\"]\n\n[\"enqueue\",0,\"s\",\"e\",[404]]\n[\"process\",0]\n";
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
        let err = run_text("{\"a\": 1}", Format::Auto)
            .err()
            .unwrap_or_default();
        assert!(err.contains("JSON object, not an array"), "{err}");
        assert_eq!(
            run_text(" \n", Format::Auto).err().as_deref(),
            Some("the input is empty: expected a JSON array of operations")
        );
        let err = run_text("[1,\n2,", Format::Array).err().unwrap_or_default();
        assert!(err.starts_with("not JSON at line 2"), "{err}");
    }
}
