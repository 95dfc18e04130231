//! `hookcheck run` as a user runs it: the whole process on generated workloads of 10k, 100k and
//! 1M events, as a JSON array and as JSON lines, with three yardsticks measured in the same run
//! on the same bytes:
//!
//! - the parse-only floor: serde_json parsing the input into `IgnoredAny` (from memory, and
//!   streamed from the file as `hookcheck run` reads it);
//! - the apply floor: the operations decoded beforehand, then applied and their results encoded
//!   in process on one thread, which is the work of `hookcheck run`'s applying thread alone;
//! - a heap-based Python implementation of the brief (`benches/peers/heap_dispatcher.py`).
//!
//! For each, wall time and peak resident memory of the process (its `VmHWM`, read from /proc
//! while it runs), and the peak of live heap bytes of the same run done in process under a
//! counting allocator: what the dispatcher holds, plus one operation and the read and write
//! buffers. The outputs of hookcheck and of the Python peer are compared byte for byte.
//!
//! `cargo bench --bench run` (all sizes); `cargo bench --bench run -- 100000` (one size);
//! `--no-python` leaves the peer out; `--mix brief`, `--mix policy`, `--mix incidents`, `--mix
//! throttle` or `--mix breaker` runs one workload only.
//! Workloads are written to `target/bench-run/`.
//!
//! The `brief` workload follows the mix measured on a user's input: 2,000 endpoints; per event,
//! one enqueue, 1.1 process calls, 0.25 status queries, 0.07 disables and 0.05 enables (replay
//! half of the time); statuses mostly 2xx, some retried and some dead. The `policy` workload is
//! the same mix under the roadmap's Parts 4 and 5: every endpoint sets a policy of its own (2 to
//! 10 attempts, 1 to 5 waits of up to 20 minutes, a third with `disable_on_gone`), 10% of failed
//! outcomes carry `retry_after`, some are 410, and a few policies change mid-run. The
//! `incidents` workload is the brief's mix under Parts 6 and 7: every endpoint has a
//! `disable_after` threshold (3 to 10), a tenth of the endpoints at a time fail every attempt for
//! 500 s (so they die and get disabled), and `endpoint`, `dead_letter` and `recover` (of what died
//! in the last 2,000 s) are asked in place of some enables. The `throttle` workload is the brief's
//! mix under Part 9: every endpoint has a token bucket (a burst of 1 to 6, one token every 1 to
//! 10 s), so that bursts of events on one endpoint are throttled and wait for their tokens. The
//! `breaker` workload is the brief's mix under Part 10 on 1,000 endpoints, each with a circuit
//! breaker (3 failures in 60 s open it for 30 to 120 s, 1 to 3 probes close it), a tenth of
//! them at a time failing every attempt for 500 s, as in `incidents`: their breakers open,
//! hold their heads, probe, reopen and close as they flap. Its enables never replay (see
//! `generate`). The
//! Python peer implements the brief only, so it runs on the `brief` workload alone.

mod common;

use hookcheck::prng::Prng;
use serde::de::IgnoredAny;
use std::fmt::Write as _;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const ENDPOINTS: u64 = 2_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mix {
    Brief,
    Policy,
    Incidents,
    Throttle,
    Breaker,
}

impl Mix {
    fn name(self) -> &'static str {
        match self {
            Mix::Brief => "brief",
            Mix::Policy => "policy",
            Mix::Incidents => "incidents",
            Mix::Throttle => "throttle",
            Mix::Breaker => "breaker",
        }
    }
}

/// A policy of the endpoint's own, as `set_policy` takes it.
fn policy(p: &mut Prng) -> String {
    let attempts = 2 + p.below(9);
    let waits: Vec<String> = (0..1 + p.below(5))
        .map(|_| (1 + p.below(1200)).to_string())
        .collect();
    let gone = if p.chance(33) {
        r#","disable_on_gone":true"#
    } else {
        ""
    };
    format!(
        r#"{{"attempts":{attempts},"waits":[{}]{gone}}}"#,
        waits.join(",")
    )
}

/// One outcome of the `policy` mix: a failure carries `retry_after` one time in ten.
fn outcome(p: &mut Prng, status: u16) -> String {
    if !(200..300).contains(&status) && p.chance(10) {
        format!(r#"{{"status":{status},"retry_after":{}}}"#, p.below(900))
    } else {
        status.to_string()
    }
}

/// Writes the workload of `events` events as a JSON array and as JSON lines; the operations.
fn generate(events: u64, dir: &Path, mix: Mix) -> u64 {
    let mut p = Prng::new(events);
    let name = mix.name();
    let mut array = BufWriter::new(
        std::fs::File::create(dir.join(format!("ops-{name}-{events}.json"))).expect("create"),
    );
    let mut lines = BufWriter::new(
        std::fs::File::create(dir.join(format!("ops-{name}-{events}.jsonl"))).expect("create"),
    );
    let mut count = 0u64;
    let mut emit = |op: &str| {
        let _ = if count == 0 {
            write!(array, "[{op}")
        } else {
            write!(array, ",\n{op}")
        };
        let _ = writeln!(lines, "{op}");
        count += 1;
    };
    let endpoints = if mix == Mix::Breaker {
        1_000
    } else {
        ENDPOINTS
    };
    for ep in 0..endpoints {
        emit(&format!(
            r#"["register",0,"ep-{ep}","https://ep-{ep}.example/hooks"]"#
        ));
        match mix {
            Mix::Brief => {}
            Mix::Policy => emit(&format!(r#"["set_policy",0,"ep-{ep}",{}]"#, policy(&mut p))),
            Mix::Incidents => emit(&format!(
                r#"["set_policy",0,"ep-{ep}",{{"attempts":4,"waits":[20,60,180],"disable_after":{}}}]"#,
                3 + p.below(8)
            )),
            Mix::Throttle => emit(&format!(
                r#"["set_policy",0,"ep-{ep}",{{"attempts":6,"waits":[30,60,120,240,300],"throttle":{{"burst":{},"interval":{}}}}}]"#,
                1 + p.below(6),
                1 + p.below(10)
            )),
            Mix::Breaker => emit(&format!(
                r#"["set_policy",0,"ep-{ep}",{{"attempts":4,"waits":[20,60,180],"breaker":{{"failures":3,"window":60,"open_for":{},"probes":{}}}}}]"#,
                30 + 30 * p.below(4),
                1 + p.below(3)
            )),
        }
    }
    let (mut ts, mut enqueued) = (0i64, 0u64);
    let mut op = String::new();
    while enqueued < events {
        op.clear();
        let ep = p.below(endpoints);
        // Weights per 247 operations: 100 enqueue, 110 process, 25 status, 7 disable, 5 enable.
        match p.below(247) {
            // Incidents: a tenth of the endpoints fail everything for a while, in turn.
            0..=99
                if matches!(mix, Mix::Incidents | Mix::Breaker)
                    && (ep + ts as u64 / 500).is_multiple_of(10) =>
            {
                let _ = write!(
                    op,
                    r#"["enqueue",{ts},"ep-{ep}","evt-{enqueued}",[503,503,500,500]]"#
                );
                enqueued += 1;
            }
            0..=99 => {
                // The throttle mix sends a third of its events to 20 busy endpoints, whose
                // buckets run dry: those are throttled and wait for their tokens.
                let ep = if mix == Mix::Throttle && p.chance(33) {
                    p.below(20)
                } else {
                    ep
                };
                let statuses: &[u16] = match p.below(20) {
                    0..=13 => &[200],
                    14 => &[503, 200],
                    15 => &[500, 500, 200],
                    16 => &[0, 429, 201],
                    17 if mix == Mix::Policy && p.chance(50) => &[410],
                    17 => &[404],
                    18 => &[503],
                    _ => &[408, 204],
                };
                let outcomes: Vec<String> = match mix {
                    Mix::Brief | Mix::Incidents | Mix::Throttle | Mix::Breaker => {
                        statuses.iter().map(u16::to_string).collect()
                    }
                    Mix::Policy => statuses.iter().map(|s| outcome(&mut p, *s)).collect(),
                };
                let outcomes = format!("[{}]", outcomes.join(","));
                let _ = write!(
                    op,
                    r#"["enqueue",{ts},"ep-{ep}","evt-{enqueued}",{outcomes}]"#
                );
                enqueued += 1;
            }
            100..=209 => {
                ts += 1 + p.below(3) as i64;
                let _ = write!(op, r#"["process",{ts}]"#);
            }
            210..=234 => {
                let id = p.below(enqueued + enqueued / 50 + 1);
                let _ = write!(op, r#"["status",{ts},"evt-{id}"]"#);
            }
            // Endpoints of the incidents mix are disabled by their failures: a manual disable
            // is rarer there, and enables (with or without replay) more common.
            235..=241 if mix == Mix::Incidents && p.chance(70) => {
                let replay = p.chance(50);
                let _ = write!(op, r#"["enable",{ts},"ep-{ep}",{replay}]"#);
            }
            235..=241 => {
                let _ = write!(op, r#"["disable",{ts},"ep-{ep}"]"#);
            }
            // The policy mix changes a policy in one enable out of five.
            242 if mix == Mix::Policy => {
                let _ = write!(op, r#"["set_policy",{ts},"ep-{ep}",{}]"#, policy(&mut p));
            }
            // The incidents mix asks after an endpoint, a dead letter, and recovers what died
            // in the last 2,000 s instead of two enables out of five.
            242 if mix == Mix::Incidents => {
                let _ = write!(op, r#"["endpoint",{ts},"ep-{ep}"]"#);
            }
            243 if mix == Mix::Incidents => {
                let id = p.below(enqueued + 1);
                let _ = write!(op, r#"["dead_letter",{ts},"evt-{id}"]"#);
            }
            244 if mix == Mix::Incidents => {
                let since = ts - 2000;
                let _ = write!(op, r#"["recover",{ts},"ep-{ep}",{since}]"#);
            }
            // The breaker mix never replays: a tenth of its endpoints' events die, and a replay
            // revives every dead event of the endpoint, a number that grows with the run, which
            // would make the work per event grow with the size instead of the breakers'.
            _ => {
                let replay = mix != Mix::Breaker && p.chance(50);
                let _ = write!(op, r#"["enable",{ts},"ep-{ep}",{replay}]"#);
            }
        }
        emit(&op);
    }
    let _ = writeln!(array, "]");
    let _ = array.flush();
    let _ = lines.flush();
    count
}

/// `command` with its stdout written to `out`, which is opened (and truncated) here.
fn writing_to(command: &[&str], out: &Path) -> Command {
    let mut c = Command::new(command[0]);
    c.args(&command[1..])
        .stdout(std::fs::File::create(out).expect("output file"));
    c
}

/// Wall seconds of `command`, its stdout written to `out`. The clock starts once the output
/// file is open: truncating the previous run's output (6.7 MB at 100k events) took 4 to 5 ms,
/// a sixth of a run, and is no work of the command's. While the command runs the parent only
/// waits: polling it (as [`peak_rss`] must) takes CPU time from it on a two-core machine, where
/// `hookcheck run` keeps both cores busy.
fn wall(command: &[&str], out: &Path) -> f64 {
    let mut command = writing_to(command, out);
    let started = Instant::now();
    let status = command.status().expect("the command starts");
    let seconds = started.elapsed().as_secs_f64();
    assert!(status.success(), "{command:?} failed: {status}");
    seconds
}

/// Peak resident memory (KiB) of `command`, its stdout written to `out`: the process's own
/// high-water mark (`VmHWM`), read from /proc while it runs. The resource usage a parent
/// collects counts the parent's memory too for a child started by vfork, as Rust and Python
/// start them.
fn peak_rss(command: &[&str], out: &Path) -> u64 {
    let mut child = writing_to(command, out)
        .spawn()
        .expect("the command starts");
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let code = loop {
        if let Some(code) = child.try_wait().expect("wait") {
            break code;
        }
        let hwm = std::fs::read_to_string(&status).ok().and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        });
        peak = peak.max(hwm.unwrap_or(0));
        std::thread::sleep(std::time::Duration::from_micros(500));
    };
    assert!(code.success(), "{command:?} failed: {code}");
    peak
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median wall time of `runs` timed runs, and the largest RSS of `watched` other runs.
fn repeat(runs: usize, watched: usize, command: &[&str], out: &Path) -> (f64, u64) {
    let times = (0..runs).map(|_| wall(command, out)).collect();
    let peak = (0..watched).map(|_| peak_rss(command, out)).max();
    (median(times), peak.unwrap_or(0))
}

/// The parse-only floor: best of three, from memory and streamed from the file.
fn floor(path: &Path) -> (f64, f64) {
    let bytes = std::fs::read(path).expect("read");
    let slice = (0..3)
        .map(|_| {
            let t = Instant::now();
            if path.extension().is_some_and(|e| e == "jsonl") {
                for v in serde_json::Deserializer::from_slice(&bytes).into_iter::<IgnoredAny>() {
                    v.expect("JSON");
                }
            } else {
                let _: IgnoredAny = serde_json::from_slice(&bytes).expect("JSON");
            }
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min);
    drop(bytes);
    let streamed = (0..3)
        .map(|_| {
            let t = Instant::now();
            let f = BufReader::new(std::fs::File::open(path).expect("open"));
            for v in serde_json::Deserializer::from_reader(f).into_iter::<IgnoredAny>() {
                v.expect("JSON");
            }
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min);
    (slice, streamed)
}

/// The state machine alone, best of three: the operations of the lines file decoded beforehand,
/// then applied in order and their results encoded, in process, on one thread. `hookcheck run`
/// does this work and more on its applying thread, so it cannot take less time than this. The
/// results go into one buffer of 80 KiB, emptied whenever it holds 64 KiB, as the applying
/// thread hands over its pieces (of 32 KiB until the eighth round of issue 20). A buffer growing
/// to the whole output (6.7 MB at 100k events), as this yardstick had before, took 6.7 ms more
/// at 100k (25.0 ms against 18.3, paired), in copies as it grew and first touches of fresh
/// pages, which no run makes.
fn apply_floor(lines: &Path) -> f64 {
    let text = std::fs::read_to_string(lines).expect("read");
    // The room a run makes for the events, and with it the event id table (see
    // `Dispatcher::reserve_events`).
    let room = hookcheck::input::events_room(text.len() as u64);
    let ops: Vec<_> = text
        .lines()
        .filter_map(hookcheck::ops::decode_text)
        .collect();
    (0..3)
        .map(|_| {
            let mut session = hookcheck::ops::Session::new();
            session.reserve_events(room);
            let mut out = Vec::with_capacity(80 << 10);
            let t = Instant::now();
            for op in ops.iter().cloned() {
                session.apply(op).write_json(&mut out);
                out.push(b'\n');
                if out.len() >= 64 << 10 {
                    std::hint::black_box(&out);
                    out.clear();
                }
            }
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

/// Peak live heap bytes of the same run done in process.
fn heap(path: &Path) -> usize {
    let f = BufReader::new(std::fs::File::open(path).expect("open"));
    let base = common::reset_peak();
    hookcheck::input::run_stream(f, &mut std::io::sink(), hookcheck::input::Format::Auto)
        .expect("runs");
    common::peak_since(base)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let python = !args.iter().any(|a| a == "--no-python");
    let mixes: Vec<Mix> = match args.iter().position(|a| a == "--mix") {
        Some(i) => match args.get(i + 1).map(String::as_str) {
            Some("brief") => vec![Mix::Brief],
            Some("policy") => vec![Mix::Policy],
            Some("incidents") => vec![Mix::Incidents],
            Some("throttle") => vec![Mix::Throttle],
            Some("breaker") => vec![Mix::Breaker],
            other => {
                panic!("--mix takes brief, policy, incidents, throttle or breaker, not {other:?}")
            }
        },
        None => vec![
            Mix::Brief,
            Mix::Policy,
            Mix::Incidents,
            Mix::Throttle,
            Mix::Breaker,
        ],
    };
    let sizes: Vec<u64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target").join("bench-run");
    std::fs::create_dir_all(&dir).expect("target/bench-run");
    let hookcheck = env!("CARGO_BIN_EXE_hookcheck");
    let peer = root.join("benches/peers/heap_dispatcher.py");
    let peer = peer.to_string_lossy();
    println!(
        "{:>6} {:>9} {:>5} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8} {:>6} {:>8} {:>8} {:>6} {:>8} {:>8} {:>7}",
        "mix",
        "events",
        "input",
        "MB",
        "ops",
        "floor s",
        "stream s",
        "apply s",
        "run s",
        "/floor",
        "RSS MB",
        "heap MB",
        "RSS/h",
        "py s",
        "py MB",
        "speedup"
    );
    for (&mix, &events) in mixes.iter().flat_map(|m| sizes.iter().map(move |s| (m, s))) {
        let ops = generate(events, &dir, mix);
        let name = mix.name();
        let apply = apply_floor(&dir.join(format!("ops-{name}-{events}.jsonl")));
        for ext in ["json", "jsonl"] {
            let input = dir.join(format!("ops-{name}-{events}.{ext}"));
            let input_text = input.to_string_lossy().into_owned();
            let mb = std::fs::metadata(&input).map_or(0, |m| m.len()) as f64 / 1e6;
            let (slice, streamed) = floor(&input);
            let heap = heap(&input) as f64 / 1e6;
            let ours = dir.join(format!("out-{name}-{events}.{ext}"));
            let runs = if events >= 1_000_000 { 3 } else { 5 };
            let (run, rss) = repeat(runs, 3, &[hookcheck, "run", &input_text], &ours);
            let rss = rss as f64 * 1024.0 / 1e6;
            let mut row = format!(
                "{name:>6} {events:>9} {ext:>5} {mb:>8.1} {ops:>9} {slice:>8.3} {streamed:>8.3} {apply:>8.3} {run:>8.3} {:>6.2} {rss:>8.1} {heap:>8.1} {:>6.2}",
                run / slice,
                rss / heap
            );
            if python && mix == Mix::Brief {
                let theirs = dir.join(format!("py-{events}.{ext}"));
                let py_runs = if events >= 1_000_000 { 1 } else { 3 };
                let (py, py_rss) = repeat(py_runs, 1, &["python3", &peer, &input_text], &theirs);
                let same = std::fs::read(&ours).ok() == std::fs::read(&theirs).ok();
                let _ = write!(
                    row,
                    " {py:>8.2} {:>8.1} {:>6.1}x{}",
                    py_rss as f64 * 1024.0 / 1e6,
                    py / run,
                    if same { "" } else { "  OUTPUTS DIFFER" }
                );
            }
            println!("{row}");
        }
    }
    println!(
        "\nfloor s: serde_json into IgnoredAny from memory; stream s: the same from the file;\n\
         apply s: the operations, decoded beforehand, applied and their results encoded in\n\
         process on one thread (best of three): the applying thread's work alone;\n\
         run s, RSS: the whole `hookcheck run` process (median, largest RSS); heap: peak live heap\n\
         bytes of the same run in process; py: benches/peers/heap_dispatcher.py on the same file."
    );
}
