//! `hookcheck run` on two threads: one reads and decodes the input and writes the results, one
//! applies the operations to the dispatcher and encodes their results. The applying is the
//! larger share and sets the pace; the reading thread, which would otherwise wait for room, does
//! the writing in its waits, so the applying thread has its processor to itself (a third thread
//! for writing measured slower: on two cores it took its time from the applying thread), and
//! maps the pages of the events to come while it waits (see `prefault`). The
//! results are the same, byte for byte, as on one thread (`run_stream_with`).
//! Operations cross in batches, their strings copied into the batch's own text, and results in
//! buffers; the reading thread has at most eight batches out at a time and writes results as
//! often as it sends a batch, so memory stays bounded whatever the input's size.

use super::apply::{Applier, Output, piece};
use super::prefault::Prefault;
use super::walk::{self, Sink};
use super::{Afterwards, Format, Layout, RunError};
use crate::dispatcher::Error;
use crate::ops::{Operation, OperationOf, Strings};
use crate::prefetch::prefetch;
use std::borrow::Cow;
use std::io::{self, Read, Write};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A batch is sent when it holds this many operations, or this much text, whichever comes
/// first: large enough that the channel costs nothing per operation, small enough that the
/// applying thread starts at once and memory stays small. Batches of 512 with eight in flight
/// (as much memory as 256 with sixteen) measured 0.98 to 0.99 of the time at 10k and 100k
/// events, both threads' work a little less.
const BATCH_OPERATIONS: usize = 512;
const BATCH_TEXT: usize = 16 << 10;
/// Batches sent and not yet given back: they absorb the unevenness of the two threads' pace.
/// The reading thread stalls in its system calls, and is the slower one while the state is
/// small; the applying thread is the slower one once it is large (the applying thread waited
/// for batches about 400 times in a 100k run with four in flight). Sixteen of 256 operations
/// measured 3 to 6% faster than four at 100k and 1M events, for 0.3 MB more heap; four were 5%
/// faster than two.
const IN_FLIGHT: usize = 8;
/// How many items ahead of the one applied are fetched.
const AHEAD: usize = 8;
/// From how many events on a batch's lookups are made ahead of it (see `apply_all`): 2^18
/// events and their id table are about 19 MB, beyond a core's own cache and much of a shared
/// one. Measured in turns against none: 5 to 20% faster at 1M events, 0 to 3% at 300k, and 3
/// to 5% slower at 10k and 100k, whose state stays in the cache. Tests warm from the first event,
/// so that the small inputs of the tests comparing the two ways of running go through it.
const WARM_FROM: usize = if cfg!(test) { 1 } else { 1 << 18 };

/// What the reading side handed to its sink, in order.
enum Item {
    Open,
    /// The operation, its strings given as [`Place`]s in the batch.
    Operation(Result<OperationOf<Place>, Error>),
    Close,
    LeftOpen,
}

// Every item crosses between the cores: a rare argument (a policy, a payload) goes behind a
// pointer rather than widen them all.
const _: () = assert!(size_of::<Item>() <= 64, "an item stays within 64 bytes");

/// Where a string of a batch's operation is: a range of the batch's text, or, when `start` is
/// [`LARGE`], the batch's large string numbered `end`. Places of 32 bits keep an item at 64
/// bytes (72 with ranges of `usize`): 2 MB less to pass between the cores at 100k events, which
/// measured 7% less work for the reading thread and 2% for the applying one. (Items of 48
/// bytes, the policy of `set_policy` and the `retry_after` list behind thin pointers, then
/// measured the same on both threads.)
type Place = Range<u32>;
const LARGE: u32 = u32::MAX;
/// The text a batch's places may reach: beyond it (a string of gigabytes), a string is kept
/// apart, whole. Tests keep apart whatever lies past 4 KiB, so that both ways are compared with
/// one thread's output.
const TEXT_LIMIT: u32 = if cfg!(test) { 4 << 10 } else { LARGE - 1 };

struct Batch {
    text: String,
    /// Strings that would take the text past [`TEXT_LIMIT`].
    large: Vec<String>,
    items: Vec<Item>,
}

impl Batch {
    /// Sized for what it holds before it is sent, so it never grows (and doubles) on the way.
    fn new() -> Self {
        Batch {
            text: String::with_capacity(BATCH_TEXT + BATCH_TEXT / 4),
            large: Vec::new(),
            items: Vec::with_capacity(BATCH_OPERATIONS),
        }
    }
}

/// What the applying thread sends back to the reading thread, on one channel so that one wait
/// serves both: a batch it is done with (room for another), or results to write.
enum Back {
    Applied(Batch),
    Results(Vec<u8>),
}

/// The reading thread's sink: fills batches and sends them, and writes the results that came
/// back meanwhile.
struct Batcher<W: Write> {
    batch: Batch,
    /// `None` once the last batch is sent.
    full: Option<mpsc::Sender<Batch>>,
    back: mpsc::Receiver<Back>,
    /// Written buffers, for the applying thread to fill again.
    spare: mpsc::Sender<Vec<u8>>,
    applied: Vec<Batch>,
    in_flight: usize,
    out: W,
    /// The first write that failed: nothing is written after it, and the reading stops.
    wrote: io::Result<()>,
    /// How long to wait for room by spinning (or mapping pages ahead) before sleeping: the
    /// reading side is the faster one and so usually waits; woken from sleep, it would cost the
    /// applying thread a system call per batch. Zero on a single processor, where spinning would
    /// only keep the applying thread from running.
    spin: Duration,
    /// Maps the events' pages ahead of the applying thread, as long as that works.
    prefault: Option<Prefault>,
}

/// A batch takes the applying thread some tens of microseconds: room comes well within this.
const SPIN: Duration = Duration::from_micros(200);

impl<W: Write> Batcher<W> {
    /// Sends the batch, once there is room, and writes what results came back; `false` when
    /// the run cannot go on (a write failed, or the applying side stopped).
    fn send(&mut self) -> bool {
        let started = Instant::now();
        while self.in_flight >= IN_FLIGHT {
            let message = match self.back.try_recv() {
                Ok(message) => message,
                Err(mpsc::TryRecvError::Disconnected) => return false,
                Err(mpsc::TryRecvError::Empty) if started.elapsed() < self.spin => {
                    // Idle: the time to map the events' next pages, if any are due.
                    match self.prefault.as_mut().map(Prefault::step) {
                        Some(Some(true)) => {}
                        Some(None) => self.prefault = None,
                        _ => std::hint::spin_loop(),
                    }
                    continue;
                }
                Err(mpsc::TryRecvError::Empty) => match self.back.recv() {
                    Ok(message) => message,
                    Err(_) => return false,
                },
            };
            self.take(message);
        }
        let next = self.applied.pop().unwrap_or_else(Batch::new);
        let batch = std::mem::replace(&mut self.batch, next);
        let Some(full) = &self.full else {
            return false;
        };
        if full.send(batch).is_err() {
            return false;
        }
        self.in_flight += 1;
        while let Ok(message) = self.back.try_recv() {
            self.take(message);
        }
        self.wrote.is_ok()
    }

    fn take(&mut self, message: Back) {
        match message {
            Back::Applied(batch) => {
                self.in_flight -= 1;
                self.applied.push(batch);
            }
            Back::Results(mut buf) => {
                if self.wrote.is_ok() {
                    self.wrote = self.out.write_all(&buf);
                }
                buf.clear();
                // Once the applying side is done, nobody takes it back, which is fine.
                let _ = self.spare.send(buf);
            }
        }
    }

    /// Sends what was read since the last batch, then writes results until the applying side
    /// is done; the first failed write, if any.
    fn finish(mut self) -> io::Result<()> {
        if self.wrote.is_ok() {
            self.send();
        }
        self.full = None;
        while let Ok(message) = self.back.recv() {
            self.take(message);
        }
        self.wrote
    }
}

impl<W: Write> Sink for Batcher<W> {
    fn open(&mut self) {
        self.batch.items.push(Item::Open);
    }

    fn operation(&mut self, op: Result<Operation<'_>, Error>) -> Result<(), RunError> {
        let Batch { text, large, .. } = &mut self.batch;
        let op = op.map(|op| op.map_strings(|s| place(text, large, s)));
        self.batch.items.push(Item::Operation(op));
        // A large string alone outweighs any batch: it goes at once, so that a batch never
        // holds more than one operation's.
        let full = self.batch.items.len() >= BATCH_OPERATIONS
            || self.batch.text.len() >= BATCH_TEXT
            || !self.batch.large.is_empty();
        if full && !self.send() {
            // The write's own error is the one reported.
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

/// The applying thread's way out for results: to the reading thread, which writes them.
struct Handoff {
    back: mpsc::Sender<Back>,
    spares: mpsc::Receiver<Vec<u8>>,
}

impl Output for Handoff {
    fn take(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        let next = self.spares.try_recv().unwrap_or_else(|_| piece());
        let full = std::mem::replace(buf, next);
        // The reading thread takes results until this side is done, unless it panicked.
        self.back
            .send(Back::Results(full))
            .map_err(|_| io::Error::other("the results are not written"))
    }
}

/// Reads, decodes and writes on one thread, applies on this one, with room made beforehand for
/// `events` events (none when 0). Errors come out as on one thread: a failed write first, then
/// whatever stopped the reading.
pub(super) fn run(
    input: impl Read + Send,
    out: &mut (impl Write + Send),
    format: Format,
    layout: Layout,
    events: usize,
    afterwards: Afterwards,
) -> Result<(), RunError> {
    let (full, full_received) = mpsc::channel::<Batch>();
    let (back, back_received) = mpsc::channel::<Back>();
    let (spare, spares) = mpsc::channel::<Vec<u8>>();
    let mut applier = Applier::new(
        Handoff {
            back: back.clone(),
            spares,
        },
        layout,
    );
    let applied = Arc::new(AtomicUsize::new(0));
    let prefault = (events > 0)
        .then(|| {
            applier.session_mut().reserve_events(events);
            let room = applier.session().dispatcher().event_room();
            Prefault::new(room, Arc::clone(&applied))
        })
        .flatten();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let processors = std::thread::available_parallelism().map_or(1, |n| n.get());
            let mut batcher = Batcher {
                batch: Batch::new(),
                full: Some(full),
                back: back_received,
                spare,
                applied: Vec::new(),
                in_flight: 0,
                out,
                wrote: Ok(()),
                spin: if processors > 1 { SPIN } else { Duration::ZERO },
                prefault,
            };
            // What was read before the end (or the error) is applied all the same.
            let read = walk::read(input, format, &mut batcher);
            (read, batcher.finish())
        });
        let outcome = apply_all(&full_received, &back, &mut applier, &applied);
        // A reader still sending learns that nobody is listening, and stops.
        drop(full_received);
        let flushed = applier.flush();
        // The reading thread writes until every way back is closed: closed first, it writes
        // the last results while the state is freed.
        let session = applier.into_session();
        drop(back);
        match afterwards {
            Afterwards::Free => drop(session),
            Afterwards::Exit => std::mem::forget(session),
        }
        let (read, wrote) = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        wrote.and(flushed).map_err(RunError::Write)?;
        outcome.and(read)
    })
}

/// Copies `s` into a batch's text, or among its large strings past [`TEXT_LIMIT`]: its place.
fn place(text: &mut String, large: &mut Vec<String>, s: Cow<'_, str>) -> Place {
    match u32::try_from(text.len() + s.len()) {
        Ok(end) if end <= TEXT_LIMIT => {
            // Within the limit, and so is where it starts.
            let start = end - s.len() as u32;
            text.push_str(&s);
            start..end
        }
        _ => {
            large.push(s.into_owned());
            LARGE..u32::try_from(large.len() - 1).unwrap_or(LARGE)
        }
    }
}

/// A batch's strings, as places in its text or among its large strings. Those in the text were
/// cut from it as it was written, at its characters' boundaries.
struct Places<'t> {
    text: &'t str,
    large: &'t [String],
}

impl Strings<Place> for Places<'_> {
    fn get<'a>(&'a self, place: &'a Place) -> &'a str {
        if place.start == LARGE {
            return self
                .large
                .get(place.end as usize)
                .map_or("", String::as_str);
        }
        self.text
            .get(place.start as usize..place.end as usize)
            .unwrap_or("")
    }
}

/// The operations among a batch's items that decoded.
fn operations(items: &[Item]) -> impl Iterator<Item = &OperationOf<Place>> {
    items.iter().filter_map(|item| match item {
        Item::Operation(Ok(op)) => Some(op),
        _ => None,
    })
}

/// Applies every batch received, in order, sending each back emptied for reuse.
fn apply_all(
    full: &mpsc::Receiver<Batch>,
    back: &mpsc::Sender<Back>,
    applier: &mut Applier<Handoff>,
    events: &AtomicUsize,
) -> Result<(), RunError> {
    for mut batch in full {
        let Batch { text, large, items } = &mut batch;
        let places = Places { text, large };
        let session = applier.session();
        // Each operation's lookups miss the cache once the state outgrows it, and one after
        // the other they wait for memory in turn. Looked up together first, a batch's misses
        // overlap, and the operations then find their lines at hand. The table entries an
        // event lookup reads are fetched in a pass of their own before: found in the same pass,
        // each waited for its entry before it could fetch its event (2 to 4% of a 1M run).
        if session.dispatcher().event_count() >= WARM_FROM {
            for op in operations(items) {
                session.warm_entries_with(op, &places);
            }
            for op in operations(items) {
                session.warm_with(op, &places);
            }
        }
        let mut rest = items.drain(..);
        while let Some(item) = rest.next() {
            // The reading thread's core wrote these items: fetching one costs a transfer
            // between cores, started here a few items ahead of its turn.
            prefetch(rest.as_slice().get(AHEAD));
            match item {
                Item::Open => applier.open(),
                Item::Operation(op) => applier.operation_with(op, &places)?,
                Item::Close => applier.close(),
                Item::LeftOpen => applier.left_open(),
            }
        }
        drop(rest);
        text.clear();
        large.clear();
        // For the reading thread's hints (see `prefault`): how far the events have come.
        events.store(
            applier.session().dispatcher().event_count(),
            Ordering::Relaxed,
        );
        // The reader may have stopped: then nobody takes it back, which is fine.
        let _ = back.send(Back::Applied(batch));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{Afterwards, Format, Layout, run_sized_then, run_stream, run_stream_with};
    use super::BATCH_OPERATIONS;
    use std::io::{self, Read, Write};

    /// Output and error of both ways of running, for one input. Two threads run three times:
    /// without room made for the events, with room made from the input's size, and with that
    /// room and the state left to the exit (leaked here, as the input is small), the same every
    /// time.
    fn both(input: &[u8], format: Format) -> [(Vec<u8>, String); 2] {
        let said = |e: Result<(), super::RunError>| e.err().map(|e| e.to_string());
        let mut one = Vec::new();
        let e1 = run_stream_with(input, &mut one, format, Layout::OnePerLine);
        let mut two = Vec::new();
        let e2 = said(run_stream(input, &mut two, format));
        for afterwards in [Afterwards::Free, Afterwards::Exit] {
            let mut sized = Vec::new();
            let bytes = Some(input.len() as u64);
            let e = said(run_sized_then(input, bytes, &mut sized, format, afterwards));
            assert_eq!((&two, &e2), (&sized, &e), "{afterwards:?}");
        }
        [
            (one, said(e1).unwrap_or_default()),
            (two, e2.unwrap_or_default()),
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
    fn strings_past_the_text_limit_are_kept_apart_and_found_again() {
        let (mut text, mut large) = (String::new(), Vec::new());
        let strings: Vec<String> = (0..40)
            .map(|i| format!("{}-{i}", "é".repeat(i * 20)))
            .collect();
        let placed: Vec<_> = strings
            .iter()
            .map(|s| super::place(&mut text, &mut large, s.as_str().into()))
            .collect();
        assert!(text.len() <= super::TEXT_LIMIT as usize, "{}", text.len());
        assert!(placed.iter().any(|p| p.start == super::LARGE));
        assert!(placed.iter().any(|p| p.start != super::LARGE));
        let places = super::Places {
            text: &text,
            large: &large,
        };
        for (s, p) in strings.iter().zip(&placed) {
            assert_eq!(crate::ops::Strings::get(&places, p), s);
        }
        // Ids and a url of hundreds of bytes, which take batches past the limit, come out
        // as one thread gives them.
        let id = |i: usize| format!("{}{i}", "é".repeat(300));
        let ops: String = (0..40)
            .map(|i| {
                format!(
                    r#"["enqueue",{i},"s","{}",[200]],["process",{i}],["status",{i},"{}"],"#,
                    id(i),
                    id(i)
                )
            })
            .collect();
        let url = "u".repeat(5000);
        let input = format!(r#"[["register",0,"s","{url}"],{ops}["process",99999]]"#);
        let [one, two] = both(input.as_bytes(), Format::Auto);
        assert_eq!(one, two);
        assert!(String::from_utf8_lossy(&one.0).contains(&id(39)));
    }

    #[test]
    fn results_of_many_pieces_are_all_written_and_a_late_failed_write_is_reported() {
        // Some ten pieces of results, written by the reading thread while it reads and after.
        let ops: String = (0..50_000)
            .map(|i| format!(r#"["enqueue",{i},"s","e{i}",[503,200]],["process",{i}],"#))
            .collect();
        let text = format!(r#"[["register",0,"s","u"],{ops}["process",99999999]]"#);
        let [one, two] = both(text.as_bytes(), Format::Auto);
        assert!(
            one.0.len() > 8 * super::super::apply::PIECE,
            "{}",
            one.0.len()
        );
        assert_eq!(one, two);
        // The write fails near the end: the error is the write's, and all before it was taken.
        let left = one.0.len() - 10;
        let mut out = Full {
            left,
            taken: Vec::new(),
        };
        let e = run_stream(text.as_bytes(), &mut out, Format::Auto).err();
        assert!(
            matches!(&e, Some(super::RunError::Write(w)) if w.kind() == io::ErrorKind::StorageFull),
            "{e:?}"
        );
        assert_eq!(out.taken, one.0[..left]);
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
