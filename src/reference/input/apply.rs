//! The writing side of `hookcheck run`: each operation applied to one session, in input order,
//! and its result written into a buffer flushed in large writes, laid out as the input was (an
//! array of results for an array of operations, one result per line for lines).

use super::walk::Sink;
use super::{Layout, RunError};
use crate::dispatcher::Error;
use crate::ops::{Operation, OperationOf, Owned, Session, Strings};
use std::io::{self, Write};

/// Where full buffers of results go.
pub(super) trait Output {
    /// Writes out the bytes of `buf`, leaving it empty (possibly another allocation).
    fn take(&mut self, buf: &mut Vec<u8>) -> io::Result<()>;
}

impl<W: Write> Output for &mut W {
    fn take(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        self.write_all(buf)?;
        buf.clear();
        Ok(())
    }
}

/// Results are written in pieces of about this size: large enough that writing costs little per
/// result, small enough to keep few of them in memory when they are handed to another thread.
/// The reading thread's writes slow the applying thread too (not writing the results at all
/// measured 0.965 of a 100k run's time): pieces of 64 KiB instead of 32 halve the writes and
/// measured 0.96 to 0.99 of the time at 100k events, 1.00 at 10k and 1M; 128 KiB measured the
/// same for 0.2 MB more memory.
pub(super) const PIECE: usize = 64 << 10;

/// An empty buffer of results, with room for the result that takes it past [`PIECE`]: a buffer
/// that had to grow would double.
pub(super) fn piece() -> Vec<u8> {
    Vec::with_capacity(PIECE + PIECE / 4)
}

pub(super) struct Applier<O: Output> {
    session: Session,
    out: O,
    buf: Vec<u8>,
    layout: Layout,
    /// Between results: `Some` (the layout) once the input showed itself an array, `None` for
    /// lines.
    separator: Option<Layout>,
    first: bool,
}

impl<O: Output> Applier<O> {
    pub fn new(out: O, layout: Layout) -> Self {
        Applier {
            session: Session::new(),
            out,
            buf: piece(),
            layout,
            separator: None,
            first: true,
        }
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The session, its way out closed.
    pub fn into_session(self) -> Session {
        self.session
    }

    /// Writes what is still buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.take(&mut self.buf)
    }

    /// Applies an operation whose strings `text` reads, and writes its result.
    pub fn operation_with<S>(
        &mut self,
        op: Result<OperationOf<S>, Error>,
        text: &impl Strings<S>,
    ) -> Result<(), RunError> {
        // Each separator as a constant, which is copied in place: a slice of unknown length
        // would cost a call per result.
        match self.separator {
            Some(_) if self.first => {}
            Some(Layout::OnePerLine) => self.buf.extend_from_slice(b",\n "),
            Some(Layout::OneLine) => self.buf.extend_from_slice(b","),
            None => {}
        }
        self.first = false;
        let reply = self.session.apply_with(op, text);
        reply.write_json(&mut self.buf);
        // Most replies own nothing: forgetting those skips a call to the replies' drop glue,
        // which the compiler keeps out of line (1% of a run of the brief's operations).
        if reply.owns_memory() {
            drop(reply);
        } else {
            std::mem::forget(reply);
        }
        if self.separator.is_none() {
            self.buf.push(b'\n');
        }
        if self.buf.len() >= PIECE {
            self.flush().map_err(RunError::Write)?;
        }
        Ok(())
    }
}

impl<O: Output> Sink for Applier<O> {
    fn open(&mut self) {
        self.buf.push(b'[');
        self.separator = Some(self.layout);
    }

    fn operation(&mut self, op: Result<Operation<'_>, Error>) -> Result<(), RunError> {
        self.operation_with(op, &Owned)
    }

    fn close(&mut self) {
        self.buf.extend_from_slice(b"]\n");
    }

    fn left_open(&mut self) {
        self.buf.push(b'\n');
    }
}
