//! The reading side of `hookcheck run`: the input's format is settled (an array of operations or
//! one per line), then each operation is cut out of the input, decoded, and handed to a [`Sink`]
//! in input order, with the marks of the results' layout (an array opened, closed, or left open
//! by bad input). What the sink does with them (apply and write at once, or pass them to another
//! thread) is its own affair.

use super::reader::Reader;
use super::{Format, RunError, described, detect};
use crate::dispatcher::Error;
use crate::ops::{Operation, OperationSeed, decode_prefix};
use serde::de::{DeserializeSeed, IgnoredAny};
use std::io::Read;

/// Where the operations read go.
pub(super) trait Sink {
    /// The input is an array of operations: the results form one too.
    fn open(&mut self);
    /// The next operation, decoded (or the error its decoding gave). An error returned stops
    /// the reading: the results cannot be written.
    fn operation(&mut self, op: Result<Operation<'_>, Error>) -> Result<(), RunError>;
    /// The array of operations ended well.
    fn close(&mut self);
    /// The array of operations was cut short by bad input: the results stay, left open.
    fn left_open(&mut self);
}

/// Reads every operation of `input` into `sink`; the error that stopped the reading, if any.
pub(super) fn read(input: impl Read, format: Format, sink: &mut impl Sink) -> Result<(), RunError> {
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
    match format {
        Format::Lines => read_lines(&mut r, sink),
        _ => read_array(&mut r, sink),
    }
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

fn read_lines<R: Read>(r: &mut Reader<R>, sink: &mut impl Sink) -> Result<(), RunError> {
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
            // As in an array, the fast path's operation goes to the sink from where the
            // decoder put it (see `read_array`).
            match decode_prefix(line) {
                Some((op, end)) if line[end..].bytes().all(|b| b.is_ascii_whitespace()) => {
                    sink.operation(op)?
                }
                _ => sink.operation(decode_line(line).map_err(|e| r.not_json(start, &e))?)?,
            }
        }
        r.pos = (end + 1).min(r.buf.len());
    }
}

fn read_array<R: Read>(r: &mut Reader<R>, sink: &mut impl Sink) -> Result<(), RunError> {
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
    sink.open();
    let mut first = true;
    loop {
        if !r.skip_whitespace()? {
            return Err(left_open(sink, r.cut_short("EOF while parsing a list")));
        }
        match (first, r.bytes()[r.pos]) {
            (true, b']') => {
                r.pos += 1;
                break;
            }
            (false, b']') => return Err(left_open(sink, r.syntax_error(r.pos, "trailing comma"))),
            (_, b',') => return Err(left_open(sink, r.syntax_error(r.pos, "expected value"))),
            _ => {}
        }
        let step = {
            // serde_json's stream says where the operation ended; the operation borrows the
            // buffer, so it is handed over here, before the buffer may be refilled. The fast
            // path's operation goes to the sink from where the decoder put it: wrapped in
            // another enum first, as serde_json's is, it was copied in wide loads over the
            // narrow stores that had just written it, which wait for those stores to drain (a
            // store-forwarding stall, a tenth of the reading thread's samples).
            let rest = &r.buf[r.pos..];
            match decode_prefix(rest) {
                Some((op, len)) => handed(r, sink, op, len),
                None => {
                    let mut stream =
                        serde_json::Deserializer::from_str(rest).into_iter::<Decoded>();
                    match stream.next() {
                        Some(Ok(Decoded(op))) => handed(r, sink, op, stream.byte_offset()),
                        Some(Err(e)) if e.is_eof() && !r.eof => Step::More,
                        Some(Err(e)) => Step::Fault(r.not_json(r.pos, &e)),
                        None => Step::More,
                    }
                }
            }
        };
        match step {
            Step::More => r.fill_more()?,
            Step::Fault(e) => return Err(left_open(sink, e)),
            Step::Stop(e) => return Err(e),
            Step::Done(delimiter) => {
                first = false;
                r.pos = delimiter + 1;
                match r.bytes()[delimiter] {
                    b',' => {}
                    b']' => break,
                    _ => {
                        return Err(left_open(
                            sink,
                            r.syntax_error(delimiter, "expected `,` or `]`"),
                        ));
                    }
                }
            }
        }
    }
    sink.close();
    if r.skip_whitespace()? {
        return Err(r.syntax_error(r.pos, "trailing characters"));
    }
    Ok(())
}

/// Hands a decoded array element, `len` bytes from the reader's position, to the sink, once
/// what follows it shows that it ended there.
#[inline(always)]
fn handed<R: Read>(
    r: &Reader<R>,
    sink: &mut impl Sink,
    op: Result<Operation<'_>, Error>,
    len: usize,
) -> Step {
    let end = r.pos + len;
    match r.bytes()[end..]
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        // Whether the value goes on (a number cut by the buffer's end) is known only once
        // what follows it is read.
        None if !r.eof => Step::More,
        None => Step::Fault(r.cut_short("EOF while parsing a list")),
        Some(gap) => match sink.operation(op) {
            Ok(()) => Step::Done(end + gap),
            Err(e) => Step::Stop(e),
        },
    }
}

/// Where decoding one array element got to.
enum Step {
    /// The element may go on past the end of the buffer: read more and decode it again.
    More,
    Fault(RunError),
    /// The sink refused the operation.
    Stop(RunError),
    /// Taken by the sink; the offset of the `,` or `]` after it (or of whatever stands there instead).
    Done(usize),
}

/// One operation as a stream item, so serde_json's stream can say where it ended.
struct Decoded<'de>(Result<Operation<'de>, Error>);

impl<'de> serde::Deserialize<'de> for Decoded<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        OperationSeed.deserialize(d).map(Decoded)
    }
}

/// Leaves the results array open, for bad input.
fn left_open(sink: &mut impl Sink, error: RunError) -> RunError {
    sink.left_open();
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
