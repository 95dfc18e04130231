//! Throughput and memory of the reference dispatcher on a generated simulated day.
//!
//! `cargo bench --bench dispatch` runs 10k, 100k and 1M events over 10,000 endpoints and prints,
//! per size: attempts per second, ns per operation and per attempt, and peak heap bytes per event
//! (from a counting allocator, so the figure is what the dispatcher holds, not allocator slack).
//! `cargo bench --bench dispatch -- 250000` runs other sizes; `-- --emit N` prints the workload of
//! N events as JSON lines instead, for timing `hookcheck run` on it.
//!
//! The workload: events spread over 86,400 simulated seconds, `process` every 5 seconds and for
//! two hours after; 80% of endpoints healthy, 10% flaky (a few retryable failures, then 2xx),
//! 3% broken for good (404/410), 5% down for four hours (events fail until the endpoint recovers,
//! those enqueued early in the outage die) and then disabled and re-enabled with replay, 2% paused
//! for two hours by their owner and resumed without replay.

mod common;

use hookcheck::dispatcher::{Dispatcher, Outcomes};
use hookcheck::prng::Prng;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::time::Instant;

const ENDPOINTS: u32 = 10_000;
const DAY: i64 = 86_400;
const TICK: i64 = 5;
const DRAIN: i64 = 7_200;
const OUTAGE: i64 = 4 * 3_600;

#[derive(Clone, Copy, PartialEq)]
enum Health {
    Healthy,
    Flaky,
    Broken,
    /// Down from `.0` for `OUTAGE` seconds, then replayed by its operator.
    Down(i64),
    /// Paused by its owner from `.0` for two hours.
    Paused(i64),
}

enum Op {
    Enqueue {
        ts: i64,
        endpoint: u32,
        event: u64,
        outcomes: Vec<i64>,
    },
    Process(i64),
    Disable {
        ts: i64,
        endpoint: u32,
    },
    Enable {
        ts: i64,
        endpoint: u32,
        replay: bool,
    },
}

struct Workload {
    health: Vec<Health>,
    /// Control operations (ts, op), sorted by ts.
    control: Vec<(i64, Op)>,
    events: u64,
}

impl Workload {
    fn new(events: u64) -> Self {
        let mut p = Prng::new(42);
        let mut control = Vec::new();
        let health = (0..ENDPOINTS)
            .map(|ep| match p.below(100) {
                0..=79 => Health::Healthy,
                80..=89 => Health::Flaky,
                90..=92 => Health::Broken,
                93..=97 => {
                    let start = p.below(18 * 3_600) as i64;
                    control.push((
                        start + OUTAGE,
                        Op::Disable {
                            ts: start + OUTAGE,
                            endpoint: ep,
                        },
                    ));
                    let ts = start + OUTAGE + 600;
                    control.push((
                        ts,
                        Op::Enable {
                            ts,
                            endpoint: ep,
                            replay: true,
                        },
                    ));
                    Health::Down(start)
                }
                _ => {
                    let start = p.below(20 * 3_600) as i64;
                    control.push((
                        start,
                        Op::Disable {
                            ts: start,
                            endpoint: ep,
                        },
                    ));
                    let ts = start + 7_200;
                    control.push((
                        ts,
                        Op::Enable {
                            ts,
                            endpoint: ep,
                            replay: false,
                        },
                    ));
                    Health::Paused(start)
                }
            })
            .collect();
        control.sort_by_key(|(ts, _)| *ts);
        Workload {
            health,
            control,
            events,
        }
    }

    /// Every operation in time order, handed to `f` one at a time so no input is held.
    fn for_each(&self, mut f: impl FnMut(Op)) {
        let mut p = Prng::new(7);
        let mut control = self.control.iter().peekable();
        let mut next_event = 0u64;
        let mut t = 0;
        while t <= DAY + DRAIN {
            while next_event < self.events
                && (next_event as i128 * DAY as i128 / self.events as i128) as i64 <= t
            {
                let endpoint = p.below(u64::from(ENDPOINTS)) as u32;
                let outcomes = self.outcomes(&mut p, endpoint, t);
                f(Op::Enqueue {
                    ts: t,
                    endpoint,
                    event: next_event,
                    outcomes,
                });
                next_event += 1;
            }
            // Control operations take the tick's time, so ts never decreases.
            while let Some((_, op)) = control.next_if(|(ts, _)| *ts <= t) {
                f(match op {
                    Op::Disable { endpoint, .. } => Op::Disable {
                        ts: t,
                        endpoint: *endpoint,
                    },
                    Op::Enable {
                        endpoint, replay, ..
                    } => Op::Enable {
                        ts: t,
                        endpoint: *endpoint,
                        replay: *replay,
                    },
                    _ => continue,
                });
            }
            f(Op::Process(t));
            t += TICK;
        }
    }

    fn outcomes(&self, p: &mut Prng, endpoint: u32, ts: i64) -> Vec<i64> {
        match self.health[endpoint as usize] {
            Health::Healthy | Health::Paused(_) => vec![[200, 201, 204][p.below(3) as usize]],
            Health::Flaky => {
                let failures = 1 + p.below(3) as usize;
                let mut v = vec![*p.pick(&[500, 503, 429, 408, 0]).unwrap_or(&500); failures];
                v.push(200);
                v
            }
            Health::Broken => vec![*p.pick(&[404, 410]).unwrap_or(&404)],
            Health::Down(start) if (start..start + OUTAGE).contains(&ts) => {
                // Attempts start at offsets 0, 30, 90, 210, 450, 750 from enqueue: those before
                // recovery fail, the rest succeed; six failures mean the event dies.
                let left = start + OUTAGE - ts;
                let failures = [0, 30, 90, 210, 450, 750]
                    .iter()
                    .filter(|&&o| o < left)
                    .count();
                let mut v = vec![503; failures];
                if failures < 6 {
                    v.push(200);
                }
                v
            }
            Health::Down(_) => vec![200],
        }
    }
}

struct Measured {
    events: u64,
    operations: u64,
    attempts: u64,
    seconds: f64,
    /// Time spent attempting: process calls that attempted something, less the mean time of the
    /// calls that found nothing due (clock reads and the peek), once per such call.
    attempt_seconds: f64,
    peak_bytes: usize,
}

fn measure(events: u64) -> Measured {
    let workload = Workload::new(events);
    let (mut id, mut endpoint) = (String::new(), String::new());
    let mut d = Dispatcher::new();
    for ep in 0..ENDPOINTS {
        name(&mut endpoint, "ep-", u64::from(ep));
        d.register(&endpoint, "https://example.invalid/hook")
            .expect("fresh endpoint");
    }
    let base = common::reset_peak();
    let (mut operations, mut attempts) = (0u64, 0u64);
    let (mut busy, mut busy_calls, mut idle, mut idle_calls) = (0.0, 0u32, 0.0, 0u32);
    let start = Instant::now();
    workload.for_each(|op| {
        operations += 1;
        match op {
            Op::Enqueue {
                ts,
                endpoint: ep,
                event,
                outcomes,
            } => {
                name(&mut endpoint, "ep-", u64::from(ep));
                name(&mut id, "evt-", event);
                let outcomes = Outcomes::new(outcomes).expect("generated outcomes are valid");
                d.enqueue(ts, &endpoint, &id, outcomes)
                    .expect("generated enqueue is valid");
            }
            Op::Process(ts) => {
                let before = attempts;
                let t = Instant::now();
                d.process_with(ts, |_| attempts += 1);
                let spent = t.elapsed().as_secs_f64();
                if attempts == before {
                    (idle, idle_calls) = (idle + spent, idle_calls + 1);
                } else {
                    (busy, busy_calls) = (busy + spent, busy_calls + 1);
                }
            }
            Op::Disable { endpoint: ep, .. } => {
                name(&mut endpoint, "ep-", u64::from(ep));
                d.disable(&endpoint).expect("generated disable is valid");
            }
            Op::Enable {
                ts,
                endpoint: ep,
                replay,
            } => {
                name(&mut endpoint, "ep-", u64::from(ep));
                d.enable(ts, &endpoint, replay)
                    .expect("generated enable is valid");
            }
        }
    });
    let seconds = start.elapsed().as_secs_f64();
    let attempt_seconds = busy - f64::from(busy_calls) * idle / f64::from(idle_calls.max(1));
    // Generator buffers still live are a few hundred bytes; the peak is the dispatcher's.
    let peak_bytes = common::peak_since(base);
    Measured {
        events,
        operations,
        attempts,
        seconds,
        attempt_seconds,
        peak_bytes,
    }
}

/// The cost of one enqueue and of one attempt against the number of events held: `events`
/// events over all endpoints, each failing five times with a retryable status and then delivered,
/// processed every 30 s until none is left. Few process calls, millions of attempts: the clock is
/// read a few dozen times, so the figures are the dispatcher's own.
fn attempt_cost(events: u64) -> (f64, f64, u64) {
    let mut d = Dispatcher::new();
    let (mut id, mut endpoint) = (String::new(), String::new());
    for ep in 0..ENDPOINTS {
        name(&mut endpoint, "ep-", u64::from(ep));
        d.register(&endpoint, "u").expect("fresh endpoint");
    }
    let mut p = Prng::new(9);
    let start = Instant::now();
    for event in 0..events {
        name(&mut endpoint, "ep-", p.below(u64::from(ENDPOINTS)));
        name(&mut id, "evt-", event);
        let outcomes = Outcomes::new([503, 500, 0, 429, 408, 200]).expect("valid outcomes");
        d.enqueue(0, &endpoint, &id, outcomes)
            .expect("generated enqueue is valid");
    }
    let enqueue_ns = start.elapsed().as_secs_f64() * 1e9 / events as f64;
    let (mut attempts, mut ts) = (0u64, 0);
    let start = Instant::now();
    loop {
        let before = attempts;
        d.process_with(ts, |_| attempts += 1);
        if attempts == before && ts > 1_000_000 {
            break;
        }
        ts += 30;
    }
    let attempt_ns = start.elapsed().as_secs_f64() * 1e9 / attempts as f64;
    (enqueue_ns, attempt_ns, attempts)
}

fn name(buf: &mut String, prefix: &str, n: u64) {
    buf.clear();
    let _ = write!(buf, "{prefix}{n}");
}

fn emit(events: u64) {
    let workload = Workload::new(events);
    let mut out = BufWriter::new(std::io::stdout().lock());
    for ep in 0..ENDPOINTS {
        let _ = writeln!(
            out,
            r#"["register",0,"ep-{ep}","https://example.invalid/hook"]"#
        );
    }
    workload.for_each(|op| {
        let _ = match op {
            Op::Enqueue {
                ts,
                endpoint,
                event,
                outcomes,
            } => {
                writeln!(
                    out,
                    r#"["enqueue",{ts},"ep-{endpoint}","evt-{event}",{outcomes:?}]"#
                )
            }
            Op::Process(ts) => writeln!(out, r#"["process",{ts}]"#),
            Op::Disable { ts, endpoint } => writeln!(out, r#"["disable",{ts},"ep-{endpoint}"]"#),
            Op::Enable {
                ts,
                endpoint,
                replay,
            } => writeln!(out, r#"["enable",{ts},"ep-{endpoint}",{replay}]"#),
        };
    });
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let [flag, n] = args.as_slice()
        && flag == "--emit"
    {
        return emit(n.parse().expect("--emit takes a number of events"));
    }
    // `--day` or `--held` runs one of the two tables (for profilers); both by default.
    let day = !args.iter().any(|a| a == "--held");
    let held = !args.iter().any(|a| a == "--day");
    let sizes: Vec<u64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    if day {
        day_table(&sizes);
    }
    if held {
        held_table(&sizes);
    }
}

fn day_table(sizes: &[u64]) {
    println!("simulated day: {ENDPOINTS} endpoints, process every {TICK} s");
    println!(
        "{:>10} {:>12} {:>10} {:>9} {:>12} {:>8} {:>11} {:>12}",
        "events",
        "operations",
        "attempts",
        "seconds",
        "attempts/s",
        "ns/op",
        "ns/attempt",
        "bytes/event"
    );
    for &events in sizes {
        let m = measure(events);
        println!(
            "{:>10} {:>12} {:>10} {:>9.3} {:>12.0} {:>8.0} {:>11.0} {:>12.0}",
            m.events,
            m.operations,
            m.attempts,
            m.seconds,
            m.attempts as f64 / m.seconds,
            m.seconds * 1e9 / m.operations as f64,
            m.attempt_seconds * 1e9 / m.attempts as f64,
            m.peak_bytes as f64 / m.events as f64,
        );
    }
}

fn held_table(sizes: &[u64]) {
    println!("\ncost against events held: each event fails 5 times, then is delivered");
    println!(
        "{:>10} {:>10} {:>12} {:>12}",
        "events", "attempts", "ns/enqueue", "ns/attempt"
    );
    for &events in sizes {
        let (enqueue_ns, attempt_ns, attempts) = attempt_cost(events);
        println!("{events:>10} {attempts:>10} {enqueue_ns:>12.0} {attempt_ns:>12.0}");
    }
}
