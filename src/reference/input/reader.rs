//! The input of `hookcheck run`, read in chunks and checked to be UTF-8 once, with what is
//! needed to name a position (line, column) anywhere in the whole input.

use super::{RunError, explained};
use std::io::{self, Read};

/// U+FEFF, written as EF BB BF in UTF-8.
pub(super) const BOM: char = '\u{feff}';

/// Text read from the input, with what is needed to name a position in the whole input. The
/// input is checked to be UTF-8 as it is read, once, so operations are parsed from `&str` and
/// no string inside them is checked again.
pub(super) struct Reader<R> {
    inner: R,
    pub buf: String,
    /// Offset in `buf` of the first byte not yet consumed.
    pub pos: usize,
    pub eof: bool,
    /// Lines before `buf[0]`, and bytes of its line before it.
    lines_before: usize,
    column_before: usize,
    /// Bytes read but not yet in `buf`: a character cut by the end of a read.
    pending: Vec<u8>,
    scratch: Vec<u8>,
    /// Set where the input stops being UTF-8 (reading stops there).
    pub invalid_at: Option<usize>,
}

pub(super) const CHUNK: usize = 256 << 10;
/// The size of one read: input is taken in pieces smaller than a chunk, so the reading side holds
/// little beyond the operation it decodes (a piece read, and the unconsumed rest of the last).
const READ: usize = 64 << 10;

impl<R: Read> Reader<R> {
    pub fn new(inner: R) -> Self {
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
        let want = READ.max(self.buf.len());
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

    pub fn bytes(&self) -> &[u8] {
        self.buf.as_bytes()
    }

    /// The error for input that ended early: at the first byte that is not UTF-8 if that is
    /// why it ended, else `reason` at the end.
    pub fn cut_short(&self, reason: &str) -> RunError {
        match self.invalid_at {
            Some(at) => self.syntax_error(at, "invalid UTF-8"),
            None => self.syntax_error(self.buf.len(), reason),
        }
    }

    /// The 1-based line and column of `buf[at]`.
    pub fn position(&self, at: usize) -> (usize, usize) {
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
    pub fn skip_whitespace(&mut self) -> io::Result<bool> {
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
    pub fn may_be_one_operation(&mut self) -> io::Result<bool> {
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
    pub fn skip_bom(&mut self) -> io::Result<()> {
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
    pub fn whole_line(&mut self, doomed: impl Fn(&str) -> bool) -> io::Result<Option<usize>> {
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
    pub fn fill_more(&mut self) -> io::Result<()> {
        let held = self.buf.len() - self.pos;
        let target = if held >= CHUNK { 2 * held } else { held + 1 };
        while self.fill()? && self.buf.len() - self.pos < target {}
        Ok(())
    }

    /// The error of parsing `buf[start..]` as JSON (serde's message), at its place in the input.
    pub fn not_json(&self, start: usize, e: &serde_json::Error) -> RunError {
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

    pub fn syntax_error(&self, at: usize, reason: &str) -> RunError {
        let (line, column) = self.position(at);
        RunError::NotJson {
            line,
            column,
            reason: reason.to_string(),
        }
    }
}

/// serde appends " at line L column C", which is given separately (and corrected) here.
pub(super) fn reason_of(e: &serde_json::Error) -> String {
    let message = e.to_string();
    message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(r, _)| r)
        .to_string()
}

/// The byte offset in `text` of serde's 1-based line and column (a byte count on its line).
pub(super) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start = match line.checked_sub(2) {
        Some(newlines) => memchr::memchr_iter(b'\n', text.as_bytes())
            .nth(newlines)
            .map_or(text.len(), |i| i + 1),
        None => 0,
    };
    line_start + column.saturating_sub(1)
}
