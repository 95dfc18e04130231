//! `hookcheck run`'s input and output, streamed both ways. A JSON array of operations is read in
//! chunks; each operation is cut out of the array, decoded straight into a typed operation
//! ([`OperationSeed`]), applied, and its result written before the next one is read, so the
//! results form a JSON array written as it goes. One operation per line (JSON lines) is answered
//! one result per line. Memory stays the dispatcher's state plus one operation and the read
//! buffer, whatever the input size.
//!
//! Input that stops being JSON part-way keeps the results already written (an array is left
//! open); the error names the line and column of the whole input.

use crate::dispatcher::Error;
use crate::ops::{Operation, OperationSeed, Session, decode_prefix};
use serde::de::{DeserializeSeed, IgnoredAny};
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

/// Runs the operations read from `input` on a fresh dispatcher and writes the results to `out`.
pub fn run_stream(input: impl Read, out: &mut impl Write, format: Format) -> Result<(), RunError> {
    run_stream_with(input, out, format, Layout::OnePerLine)
}

pub fn run_stream_with(
    input: impl Read,
    out: &mut impl Write,
    format: Format,
    layout: Layout,
) -> Result<(), RunError> {
    let mut r = Reader::new(input);
    // RFC 8259 lets a parser ignore a byte order mark; editors on Windows write one.
    r.skip_bom()?;
    // Leading blank lines are read off here, so auto-detection sees the first real line.
    r.skip_whitespace()?;
    let format = match format {
        Format::Auto if r.may_be_one_operation()? => {
            // A first line already not JSON is no operation: it is not read to its end.
            match r.whole_line(|text| doomed(serde_json::from_str::<IgnoredAny>(text)))? {
                Some(end) => detect(&r.buf[r.pos..end]),
                None => Format::Array,
            }
        }
        Format::Auto => Format::Array,
        f => f,
    };
    let mut w = Results::new(out);
    let result = match format {
        Format::Lines => run_lines(&mut r, &mut w),
        _ => run_array(&mut r, &mut w, layout),
    };
    w.flush().map_err(RunError::Write)?;
    result
}

/// Whether parsing a text cut short failed for a reason other than its end: the whole text
/// fails there too, whatever follows.
fn doomed<T>(parsed: serde_json::Result<T>) -> bool {
    matches!(parsed, Err(e) if !e.is_eof())
}

/// One operation decoded from the whole of `text`, as `hookcheck run` reads a line.
fn decode_line(text: &str) -> serde_json::Result<Result<Operation<'_>, Error>> {
    let mut de = serde_json::Deserializer::from_str(text);
    OperationSeed
        .deserialize(&mut de)
        .and_then(|op| de.end().map(|()| op))
}

/// U+FEFF, written as EF BB BF in UTF-8.
const BOM: char = '\u{feff}';

/// Text read from the input, with what is needed to name a position in the whole input. The
/// input is checked to be UTF-8 as it is read, once, so operations are parsed from `&str` and
/// no string inside them is checked again.
struct Reader<R> {
    inner: R,
    buf: String,
    /// Offset in `buf` of the first byte not yet consumed.
    pos: usize,
    eof: bool,
    /// Lines before `buf[0]`, and bytes of its line before it.
    lines_before: usize,
    column_before: usize,
    /// Bytes read but not yet in `buf`: a character cut by the end of a read.
    pending: Vec<u8>,
    scratch: Vec<u8>,
    /// Set where the input stops being UTF-8 (reading stops there).
    invalid_at: Option<usize>,
}

const CHUNK: usize = 256 << 10;

impl<R: Read> Reader<R> {
    fn new(inner: R) -> Self {
        Reader {
            inner,
            buf: String::new(),
            pos: 0,
            eof: false,
            lines_before: 0,
            column_before: 0,
            pending: Vec::new(),
            scratch: Vec::new(),
            invalid_at: None,
        }
    }

    /// Reads more input, dropping what was consumed; the read grows with the unconsumed part,
    /// so one huge operation costs linear time. `false` at end of input (or of its UTF-8).
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        self.compact();
        let want = CHUNK.max(self.buf.len());
        let old = self.pending.len();
        // The read buffer is zeroed once, when it grows, not on every read.
        if self.scratch.len() < old + want {
            self.scratch.resize(old + want, 0);
        }
        self.scratch[..old].copy_from_slice(&self.pending);
        let n = loop {
            match self.inner.read(&mut self.scratch[old..old + want]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        let data = &self.scratch[..old + n];
        let (valid, rest) = match std::str::from_utf8(data) {
            Ok(text) => (text, &data[..0]),
            Err(e) => {
                let (good, bad) = data.split_at(e.valid_up_to());
                // A character cut by the end of this read is completed by the next one.
                if e.error_len().is_some() || n == 0 {
                    self.invalid_at = Some(self.buf.len() + good.len());
                }
                (std::str::from_utf8(good).unwrap_or_default(), bad)
            }
        };
        let added = valid.len();
        self.buf.push_str(valid);
        self.pending.clear();
        self.pending.extend_from_slice(rest);
        self.eof = n == 0 || self.invalid_at.is_some();
        Ok(added > 0 || !self.eof)
    }

    fn compact(&mut self) {
        let gone = &self.buf.as_bytes()[..self.pos];
        match memchr::memrchr(b'\n', gone) {
            Some(last) => {
                self.lines_before += memchr::memchr_iter(b'\n', gone).count();
                self.column_before = gone.len() - last - 1;
            }
            None => self.column_before += gone.len(),
        }
        if let Some(at) = &mut self.invalid_at {
            *at -= self.pos;
        }
        self.buf.drain(..self.pos);
        self.pos = 0;
    }

    fn bytes(&self) -> &[u8] {
        self.buf.as_bytes()
    }

    /// The error for input that ended early: at the first byte that is not UTF-8 if that is
    /// why it ended, else `reason` at the end.
    fn cut_short(&self, reason: &str) -> RunError {
        match self.invalid_at {
            Some(at) => self.syntax_error(at, "invalid UTF-8"),
            None => self.syntax_error(self.buf.len(), reason),
        }
    }

    /// The 1-based line and column of `buf[at]`.
    fn position(&self, at: usize) -> (usize, usize) {
        let before = &self.bytes()[..at];
        match memchr::memrchr(b'\n', before) {
            Some(last) => (
                self.lines_before + 1 + memchr::memchr_iter(b'\n', before).count(),
                at - last,
            ),
            None => (self.lines_before + 1, self.column_before + at + 1),
        }
    }

    /// Skips JSON whitespace; `false` at end of input.
    fn skip_whitespace(&mut self) -> io::Result<bool> {
        loop {
            while let Some(&b) = self.bytes().get(self.pos) {
                if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                    return Ok(true);
                }
                self.pos += 1;
            }
            if !self.fill()? {
                return Ok(false);
            }
        }
    }

    /// Whether the input, at a non-blank byte, starts like one operation, `["`: only then is the
    /// first line worth reading whole (an array of operations may be one long line). Blanks
    /// after the `[` are not consumed here, so more than a chunk of them (or a newline among
    /// them) settles it as an array, whose reading skips them without keeping them.
    fn may_be_one_operation(&mut self) -> io::Result<bool> {
        let mut at = self.pos + 1;
        loop {
            match self.bytes().get(self.pos) {
                Some(b'[') => {}
                _ => return Ok(false),
            }
            while let Some(&b) = self.bytes().get(at) {
                if !matches!(b, b' ' | b'\t' | b'\r') {
                    return Ok(b == b'"');
                }
                at += 1;
            }
            let scanned = at - self.pos;
            if scanned > CHUNK {
                return Ok(false);
            }
            if !self.fill()? {
                return Ok(false);
            }
            at = self.pos + scanned;
        }
    }

    /// Skips a byte order mark at the start of the input.
    fn skip_bom(&mut self) -> io::Result<()> {
        let mut bom = [0; 4];
        let bom: &str = BOM.encode_utf8(&mut bom);
        while self.buf.len() - self.pos < bom.len() && bom.starts_with(&self.buf[self.pos..]) {
            if !self.fill()? {
                break;
            }
        }
        if self.buf[self.pos..].starts_with(BOM) {
            self.pos += bom.len();
        }
        Ok(())
    }

    /// The end of the current line (the offset of its newline, or of the end of input), reading
    /// as much as needed; `None` as soon as the part read is `doomed`. That is asked each time
    /// the part read has doubled past a chunk, so a line that never ends (`/dev/zero`) is read
    /// only until it is sure to be bad, in linear time.
    fn whole_line(&mut self, doomed: impl Fn(&str) -> bool) -> io::Result<Option<usize>> {
        let mut from = self.pos;
        let mut check_at = CHUNK;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.bytes()[from..]) {
                return Ok(Some(from + i));
            }
            let scanned = self.buf.len() - self.pos;
            if scanned >= check_at {
                if doomed(&self.buf[self.pos..]) {
                    return Ok(None);
                }
                check_at = 2 * scanned;
            }
            if !self.fill()? {
                return Ok(Some(self.buf.len()));
            }
            from = self.pos + scanned;
        }
    }

    /// Reads more for a value cut by the end of the buffer, which is then decoded again from its
    /// start. Past a chunk, at least as much again as is held is read (or all that is left), so
    /// a value of any length is decoded a logarithmic number of times, in linear time overall;
    /// below that, one read, so short values never wait on input they do not need.
    fn fill_more(&mut self) -> io::Result<()> {
        let held = self.buf.len() - self.pos;
        let target = if held >= CHUNK { 2 * held } else { held + 1 };
        while self.fill()? && self.buf.len() - self.pos < target {}
        Ok(())
    }

    /// The error of parsing `buf[start..]` as JSON (serde's message), at its place in the input.
    fn not_json(&self, start: usize, e: &serde_json::Error) -> RunError {
        if e.is_eof() && self.invalid_at.is_some() {
            return self.cut_short("");
        }
        let (line, column) = self.position(start);
        let (line, column) = if e.line() <= 1 {
            (line, column + e.column().saturating_sub(1))
        } else {
            (line + e.line() - 1, e.column().max(1))
        };
        let text = &self.buf[start..];
        let at = offset_of(text, e.line(), e.column());
        RunError::NotJson {
            line,
            column,
            reason: explained(reason_of(e), text.get(at..).unwrap_or("")),
        }
    }

    fn syntax_error(&self, at: usize, reason: &str) -> RunError {
        let (line, column) = self.position(at);
        RunError::NotJson {
            line,
            column,
            reason: reason.to_string(),
        }
    }
}

/// serde appends " at line L column C", which is given separately (and corrected) here.
fn reason_of(e: &serde_json::Error) -> String {
    let message = e.to_string();
    message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(r, _)| r)
        .to_string()
}

/// The byte offset in `text` of serde's 1-based line and column (a byte count on its line).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start = match line.checked_sub(2) {
        Some(newlines) => memchr::memchr_iter(b'\n', text.as_bytes())
            .nth(newlines)
            .map_or(text.len(), |i| i + 1),
        None => 0,
    };
    line_start + column.saturating_sub(1)
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

/// Results on their way out, in a buffer flushed in large writes.
struct Results<'w, W: Write> {
    out: &'w mut W,
    buf: Vec<u8>,
}

impl<'w, W: Write> Results<'w, W> {
    fn new(out: &'w mut W) -> Self {
        Results {
            out,
            buf: Vec::with_capacity(CHUNK),
        }
    }

    fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn maybe_flush_out(&mut self) -> Result<(), RunError> {
        self.maybe_flush().map_err(RunError::Write)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

fn run_lines<R: Read, W: Write>(r: &mut Reader<R>, w: &mut Results<W>) -> Result<(), RunError> {
    let mut session = Session::new();
    loop {
        // Blank lines, and blanks before an operation, are passed over as they are read.
        if !r.skip_whitespace()? {
            return match r.invalid_at {
                Some(_) => Err(r.cut_short("")),
                None => Ok(()),
            };
        }
        let found = r.whole_line(|text| doomed(decode_line(text)))?;
        // Reading may have moved the line to the buffer's start.
        let start = r.pos;
        let Some(end) = found else {
            let e = decode_line(&r.buf[start..]).err();
            return Err(match e {
                Some(e) => r.not_json(start, &e),
                None => r.cut_short("EOF while parsing a list"),
            });
        };
        let line = &r.buf[start..end];
        if !line.bytes().all(|b| b.is_ascii_whitespace()) {
            let op = match decode_prefix(line) {
                Some((op, end)) if line[end..].bytes().all(|b| b.is_ascii_whitespace()) => op,
                _ => decode_line(line).map_err(|e| r.not_json(start, &e))?,
            };
            session.apply(op).write_json(&mut w.buf);
            w.buf.push(b'\n');
            w.maybe_flush_out()?;
        }
        r.pos = (end + 1).min(r.buf.len());
    }
}

fn run_array<R: Read, W: Write>(
    r: &mut Reader<R>,
    w: &mut Results<W>,
    layout: Layout,
) -> Result<(), RunError> {
    if !r.skip_whitespace()? {
        return Err(match r.invalid_at {
            Some(_) => r.cut_short(""),
            None => RunError::Empty,
        });
    }
    if r.bytes()[r.pos] != b'[' {
        return not_an_array(r);
    }
    r.pos += 1;
    let separator: &[u8] = match layout {
        Layout::OnePerLine => b",\n ",
        Layout::OneLine => b",",
    };
    let mut session = Session::new();
    w.buf.push(b'[');
    let mut first = true;
    loop {
        if !r.skip_whitespace()? {
            return Err(left_open(w, r.cut_short("EOF while parsing a list")));
        }
        match (first, r.bytes()[r.pos]) {
            (true, b']') => {
                r.pos += 1;
                break;
            }
            (false, b']') => return Err(left_open(w, r.syntax_error(r.pos, "trailing comma"))),
            (_, b',') => return Err(left_open(w, r.syntax_error(r.pos, "expected value"))),
            _ => {}
        }
        let step = {
            // serde_json's stream says where the operation ended; the operation borrows the
            // buffer, so it is applied here, before the buffer may be refilled.
            let rest = &r.buf[r.pos..];
            let decoded = match decode_prefix(rest) {
                Some((op, len)) => Some(Ok((op, len))),
                None => {
                    let mut stream =
                        serde_json::Deserializer::from_str(rest).into_iter::<Decoded>();
                    stream
                        .next()
                        .map(|d| d.map(|Decoded(op)| (op, stream.byte_offset())))
                }
            };
            match decoded {
                Some(Ok((op, len))) => {
                    let end = r.pos + len;
                    match r.bytes()[end..]
                        .iter()
                        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                    {
                        // Whether the value goes on (a number cut by the buffer's end) is
                        // known only once what follows it is read.
                        None if !r.eof => Step::More,
                        None => Step::Fault(r.cut_short("EOF while parsing a list")),
                        Some(gap) => {
                            if !first {
                                w.buf.extend_from_slice(separator);
                            }
                            session.apply(op).write_json(&mut w.buf);
                            Step::Done(end + gap)
                        }
                    }
                }
                Some(Err(e)) if e.is_eof() && !r.eof => Step::More,
                Some(Err(e)) => Step::Fault(r.not_json(r.pos, &e)),
                None => Step::More,
            }
        };
        match step {
            Step::More => r.fill_more()?,
            Step::Fault(e) => return Err(left_open(w, e)),
            Step::Done(delimiter) => {
                first = false;
                w.maybe_flush_out()?;
                r.pos = delimiter + 1;
                match r.bytes()[delimiter] {
                    b',' => {}
                    b']' => break,
                    _ => {
                        return Err(left_open(
                            w,
                            r.syntax_error(delimiter, "expected `,` or `]`"),
                        ));
                    }
                }
            }
        }
    }
    w.buf.extend_from_slice(b"]\n");
    if r.skip_whitespace()? {
        return Err(r.syntax_error(r.pos, "trailing characters"));
    }
    Ok(())
}

/// Where decoding one array element got to.
enum Step {
    /// The element may go on past the end of the buffer: read more and decode it again.
    More,
    Fault(RunError),
    /// Applied; the offset of the `,` or `]` after it (or of whatever stands there instead).
    Done(usize),
}

/// One operation as a stream item, so serde_json's stream can say where it ended.
struct Decoded<'de>(Result<Operation<'de>, Error>);

impl<'de> serde::Deserialize<'de> for Decoded<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        OperationSeed.deserialize(d).map(Decoded)
    }
}

/// Ends a results array cut short by bad input with a newline, leaving it open.
fn left_open<W: Write>(w: &mut Results<W>, error: RunError) -> RunError {
    w.buf.push(b'\n');
    error
}

/// The input does not start with `[`: said from its first character, never reading on (the
/// rest may be endless, as `/dev/zero` is).
fn not_an_array<R: Read>(r: &mut Reader<R>) -> Result<(), RunError> {
    let (line, column) = r.position(r.pos);
    Err(RunError::NotArray {
        line,
        column,
        found: described(&r.buf[r.pos..]),
    })
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
