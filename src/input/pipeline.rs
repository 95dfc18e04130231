//! `hookcheck run` on three threads: one reads and decodes the input, one applies the operations
//! to the dispatcher and encodes their results, one writes them. Reading and decoding are over a
//! third of a run's work and writing a twentieth, so on two cores they overlap with the applying,
//! which is the rest and sets the pace; the results are the same, byte for byte, as on one thread
//! (`run_stream_with`).
//! Operations cross in batches over a bounded channel, their strings copied into the batch's own
//! text, and results in buffers over another: memory stays bounded, a few batches and buffers in
//! flight whatever the input's size.

use super::apply::{Applier, Output, piece};
use super::walk::{self, Sink};
use super::{Format, Layout, RunError};
use crate::dispatcher::Error;
use crate::ops::{Operation, OperationOf, Strings};
use crate::prefetch::prefetch;
use std::io::{self, Read, Write};
use std::ops::Range;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A batch is sent when it holds this many operations, or this much text, whichever comes
/// first: large enough that the channel costs nothing per operation, small enough that the
/// applying thread starts at once and memory stays small.
const BATCH_OPERATIONS: usize = 256;
const BATCH_TEXT: usize = 8 << 10;
/// Batches decoded ahead of the one being applied.
const IN_FLIGHT: usize = 2;
/// How many items ahead of the one applied are fetched.
const AHEAD: usize = 8;

/// What the reading side handed to its sink, in order.
enum Item {
    Open,
    /// The operation, its strings given as ranges of the batch's text.
    Operation(Result<OperationOf<Range<usize>>, Error>),
    Close,
    LeftOpen,
}

struct Batch {
    text: String,
    items: Vec<Item>,
}

impl Batch {
    /// Sized for what it holds before it is sent, so it never grows (and doubles) on the way.
    fn new() -> Self {
        Batch {
            text: String::with_capacity(BATCH_TEXT + BATCH_TEXT / 4),
            items: Vec::with_capacity(BATCH_OPERATIONS),
        }
    }
}

/// The reading thread's sink: fills batches and sends them, reusing those sent back.
struct Batcher {
    batch: Batch,
    full: mpsc::SyncSender<Batch>,
    empty: mpsc::Receiver<Batch>,
    /// How long to wait for room in the channel by spinning before sleeping: the reading side
    /// is the faster one and so usually waits; woken from sleep, it would cost the applying
    /// thread a system call per batch. Zero on a single processor, where spinning would only
    /// keep the applying thread from running.
    spin: Duration,
}

/// A batch takes the applying thread some tens of microseconds: room comes well within this.
const SPIN: Duration = Duration::from_micros(200);

impl Batcher {
    /// Sends the batch; `false` when the applying side has stopped (it could not write).
    fn send(&mut self) -> bool {
        let next = self.empty.try_recv().unwrap_or_else(|_| Batch::new());
        let mut batch = std::mem::replace(&mut self.batch, next);
        let started = Instant::now();
        loop {
            match self.full.try_send(batch) {
                Ok(()) => return true,
                Err(mpsc::TrySendError::Disconnected(_)) => return false,
                Err(mpsc::TrySendError::Full(back)) => batch = back,
            }
            if started.elapsed() >= self.spin {
                return self.full.send(batch).is_ok();
            }
            std::hint::spin_loop();
        }
    }
}

impl Sink for Batcher {
    fn open(&mut self) {
        self.batch.items.push(Item::Open);
    }

    fn operation(&mut self, op: Result<Operation<'_>, Error>) -> Result<(), RunError> {
        let text = &mut self.batch.text;
        let op = op.map(|op| {
            op.map_strings(|s| {
                let start = text.len();
                text.push_str(&s);
                start..text.len()
            })
        });
        self.batch.items.push(Item::Operation(op));
        let full =
            self.batch.items.len() >= BATCH_OPERATIONS || self.batch.text.len() >= BATCH_TEXT;
        if full && !self.send() {
            // The applying side's own error is the one reported.
            return Err(RunError::Write(io::Error::other(
                "the results are not written",
            )));
        }
        Ok(())
    }

    fn close(&mut self) {
        self.batch.items.push(Item::Close);
    }

    fn left_open(&mut self) {
        self.batch.items.push(Item::LeftOpen);
    }
}

/// Buffers of results handed to the writing thread, and taken back empty.
struct Handoff {
    full: mpsc::SyncSender<Vec<u8>>,
    empty: mpsc::Receiver<Vec<u8>>,
}

impl Output for Handoff {
    fn take(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        let next = self.empty.try_recv().unwrap_or_else(|_| piece());
        let full = std::mem::replace(buf, next);
        // The writer stops only on an error, which it reports itself.
        self.full
            .send(full)
            .map_err(|_| io::Error::other("the results are not written"))
    }
}

/// Reads and decodes `input` on one thread, applies on this one, writes on a third. Errors come
/// out as on one thread: a failed write first, then whatever stopped the reading.
pub(super) fn run(
    input: impl Read + Send,
    out: &mut (impl Write + Send),
    format: Format,
    layout: Layout,
) -> Result<(), RunError> {
    let (full, full_received) = mpsc::sync_channel::<Batch>(IN_FLIGHT);
    let (empty_sent, empty) = mpsc::channel::<Batch>();
    let (written, to_write) = mpsc::sync_channel::<Vec<u8>>(IN_FLIGHT);
    let (spare, spares) = mpsc::channel::<Vec<u8>>();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
            let mut batcher = Batcher {
                batch: Batch::new(),
                full,
                empty,
                spin: if processors > 1 { SPIN } else { Duration::ZERO },
            };
            let read = walk::read(input, format, &mut batcher);
            // What was read before the end (or the error) is applied all the same.
            batcher.send();
            read
        });
        let writer = scope.spawn(move || -> io::Result<()> {
            for mut buf in to_write {
                out.write_all(&buf)?;
                buf.clear();
                // Once the applying side is done, nobody takes it back, which is fine.
                let _ = spare.send(buf);
            }
            Ok(())
        });
        let mut applier = Applier::new(
            Handoff {
                full: written,
                empty: spares,
            },
            layout,
        );
        let applied = apply_all(&full_received, &empty_sent, &mut applier);
        // A reader still sending learns that nobody is listening, and stops.
        drop(full_received);
        let read = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let flushed = applier.flush();
        // The writer ends when the last buffer is taken and the channel closes.
        drop(applier);
        let wrote = writer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        wrote.and(flushed).map_err(RunError::Write)?;
        applied.and(read)
    })
}

/// A batch's strings, as places in its text. They were cut from it as it was written, at its
/// characters' boundaries.
struct Places<'t>(&'t str);

impl Strings<Range<usize>> for Places<'_> {
    fn get<'a>(&'a self, place: &'a Range<usize>) -> &'a str {
        &self.0[place.clone()]
    }
}

/// Applies every batch received, in order, sending each back emptied for reuse.
fn apply_all(
    full: &mpsc::Receiver<Batch>,
    empty: &mpsc::Sender<Batch>,
    applier: &mut Applier<Handoff>,
) -> Result<(), RunError> {
    for mut batch in full {
        let Batch { text, items } = &mut batch;
        let mut rest = items.drain(..);
        while let Some(item) = rest.next() {
            // The reading thread's core wrote these items: fetching one costs a transfer
            // between cores, started here a few items ahead of its turn.
            prefetch(rest.as_slice().get(AHEAD));
            match item {
                Item::Open => applier.open(),
                Item::Operation(op) => applier.operation_with(op, &Places(text))?,
                Item::Close => applier.close(),
                Item::LeftOpen => applier.left_open(),
            }
        }
        drop(rest);
        text.clear();
        // The reader may have finished: then nobody takes it back, which is fine.
        let _ = empty.send(batch);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{Format, Layout, run_stream, run_stream_with};
    use super::BATCH_OPERATIONS;
    use std::io::{self, Read, Write};

    /// Output and error of both ways of running, for one input.
    fn both(input: &[u8], format: Format) -> [(Vec<u8>, String); 2] {
        let mut one = Vec::new();
        let e1 = run_stream_with(input, &mut one, format, Layout::OnePerLine);
        let mut two = Vec::new();
        let e2 = run_stream(input, &mut two, format);
        let said = |e: Result<(), super::RunError>| e.err().map(|e| e.to_string());
        [
            (one, said(e1).unwrap_or_default()),
            (two, said(e2).unwrap_or_default()),
        ]
    }

    #[test]
    fn two_threads_write_what_one_writes_even_when_the_input_goes_bad() {
        let many: String = (0..3 * BATCH_OPERATIONS)
            .map(|i| format!(r#"["enqueue",{i},"s","e{i}",[503,200]],["process",{i}],"#))
            .collect();
        let escaped = r#"["status",1,"e\"1"],["status",1,"\u00e9"]"#;
        let texts = [
            String::new(),
            "   \n".to_string(),
            "[]".to_string(),
            "{}".to_string(),
            format!(r#"[["register",0,"s","u"],{many}["process",99999]]"#),
            format!(r#"[["register",0,"s","u"],{many}["process",99999]] trailing"#),
            format!(r#"[["register",0,"s","u"],{many}["process",99999],]"#),
            format!(r#"[["register",0,"s","u"],{many}["process",99999]"#),
            format!(r#"[["register",0,"s","u"],{many}{{"a":1}},["process",9] x"#),
            format!(r#"[["register",0,"s","u"],{escaped},{many}["status",1,"e5"]]"#),
            many.replace("],[", "]\n[").replace("],", "]\n"),
            format!(
                "[\"register\",0,\"s\",\"u\"]\n{}\nnot json\n",
                many.replace("],", "]\n")
            ),
        ];
        for text in &texts {
            for format in [Format::Auto, Format::Array, Format::Lines] {
                let [one, two] = both(text.as_bytes(), format);
                assert_eq!(
                    (String::from_utf8_lossy(&one.0), &one.1),
                    (String::from_utf8_lossy(&two.0), &two.1),
                    "{format:?}: {}",
                    text.get(..200).unwrap_or(text)
                );
            }
        }
        // Invalid UTF-8 part-way, after several batches.
        let mut bad = format!(r#"[["register",0,"s","u"],{many}["status",0,""#).into_bytes();
        bad.extend_from_slice(b"\xff\"]]");
        let [one, two] = both(&bad, Format::Auto);
        assert_eq!(one, two);
        assert!(one.1.contains("invalid UTF-8"), "{}", one.1);
    }

    /// A writer that takes `left` bytes, then fails.
    struct Full {
        left: usize,
        taken: Vec<u8>,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            self.taken.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Input that never ends: only a reader that stops when the results cannot be written
    /// lets the run end.
    struct Endless(usize);

    impl Read for Endless {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let op: &[u8] = if self.0 == 0 {
                b"["
            } else {
                b"[\"process\",1],"
            };
            self.0 += 1;
            let n = op.len().min(out.len());
            out[..n].copy_from_slice(&op[..n]);
            Ok(n)
        }
    }

    #[test]
    fn a_failed_write_stops_the_reading_and_is_the_error_reported() {
        let mut out = Full {
            left: 1000,
            taken: Vec::new(),
        };
        let e = run_stream(Endless(0), &mut out, Format::Auto).err();
        assert!(
            matches!(&e, Some(super::RunError::Write(w)) if w.kind() == io::ErrorKind::StorageFull),
            "{e:?}"
        );
        assert_eq!(out.taken.len(), 1000);
    }
}
