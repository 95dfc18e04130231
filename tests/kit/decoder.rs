//! The one decoder of `hookcheck::ops` against the `Value` decoder it replaced, kept here as the
//! oracle just as it stood (decode a `serde_json::Value`, apply, build the result as a `Value`):
//! thousands of random operation lists, malformed ones included, are run through every path
//! that now shares the decoder (`hookcheck run`'s streaming input as a JSON array and as JSON
//! lines, `hookcheck::run` on values, `hookcheck serve --per-case`) and must give the oracle's
//! results, byte for byte where the output is text.

use hookcheck::input::{Format, Layout, run_stream, run_stream_with};
use hookcheck::prng::Prng;
use serde_json::{Value, json};

/// The decoder as it was before the typed one, over the same dispatcher.
mod oracle {
    use hookcheck::dispatcher::{Dispatcher, Error, Outcomes, Status};
    use serde_json::{Map, Value, json};

    const TS_LIMIT: i64 = (1 << 53) - 1;
    const ARITY: [(&str, usize, usize); 7] = [
        ("register", 2, 2),
        ("enqueue", 3, 4),
        ("process", 0, 0),
        ("status", 1, 1),
        ("disable", 1, 1),
        ("enable", 2, 2),
        ("dead_letters", 0, 1),
    ];

    fn string(v: &Value) -> Result<&str, Error> {
        v.as_str().ok_or(Error::InvalidArguments)
    }

    fn outcomes(v: &Value) -> Result<Outcomes, Error> {
        let list = v.as_array().ok_or(Error::InvalidOutcomes)?;
        let statuses = list
            .iter()
            .map(|s| s.as_i64().ok_or(Error::InvalidOutcomes))
            .collect::<Result<Vec<i64>, Error>>()?;
        Outcomes::new(statuses)
    }

    fn status(s: Status) -> Value {
        let mut m = Map::new();
        m.insert("state".into(), Value::from(s.state.as_str()));
        m.insert("attempts".into(), json!(s.attempts));
        m.insert("next_attempt_at".into(), json!(s.next_attempt_at));
        Value::Object(m)
    }

    fn step(d: &mut Dispatcher, op: &Value) -> Result<Value, Error> {
        let items = op.as_array().ok_or(Error::InvalidArguments)?;
        let name = items
            .first()
            .and_then(Value::as_str)
            .ok_or(Error::UnknownOperation)?;
        let &(name, fewest, most) = ARITY
            .iter()
            .find(|(n, _, _)| *n == name)
            .ok_or(Error::UnknownOperation)?;
        if !(fewest + 2..=most + 2).contains(&items.len()) {
            return Err(Error::InvalidArguments);
        }
        let ts = items[1]
            .as_i64()
            .filter(|ts| ts.unsigned_abs() <= TS_LIMIT as u64)
            .ok_or(Error::InvalidArguments)?;
        let args = &items[2..];
        Ok(match name {
            "register" => {
                let (e, u) = (string(&args[0])?, string(&args[1])?);
                d.register(e, u)?;
                json!(true)
            }
            "enqueue" => {
                let (e, v) = (string(&args[0])?, string(&args[1])?);
                let o = outcomes(&args[2])?;
                // Part 8's payload, a string, after the outcomes.
                match args.get(3) {
                    Some(payload) => d.enqueue_with_payload(ts, e, v, o, string(payload)?)?,
                    None => d.enqueue(ts, e, v, o)?,
                };
                json!("queued")
            }
            "process" => {
                let attempts = d.process(ts);
                attempts
                    .iter()
                    .map(|a| Value::String(d.record(a).to_string()))
                    .collect()
            }
            "status" => status(d.status(string(&args[0])?)?),
            "disable" => {
                d.disable(string(&args[0])?)?;
                json!(true)
            }
            "enable" => {
                let e = string(&args[0])?;
                let replay = args[1].as_bool().ok_or(Error::InvalidArguments)?;
                d.enable(ts, e, replay)?;
                json!(true)
            }
            _ => match args.first() {
                None => d.dead_letters().map(Value::from).collect(),
                Some(e) => d.dead_letters_of(string(e)?)?.map(Value::from).collect(),
            },
        })
    }

    pub fn run(ops: &[Value]) -> Vec<Value> {
        let mut d = Dispatcher::new();
        ops.iter()
            .map(|op| step(&mut d, op).unwrap_or_else(|e| Value::String(e.to_string())))
            .collect()
    }
}

/// A number as spelled: serde_json (with `arbitrary_precision`) keeps the spelling in the value.
fn spelled(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

fn pick(p: &mut Prng, pool: &[Value]) -> Value {
    p.pick(pool).cloned().unwrap_or(Value::Null)
}

/// A random operation: usually well-formed over a few endpoints and events, often not.
fn operation(p: &mut Prng, ts: &mut i64) -> Value {
    let numbers: Vec<Value> = [
        "0",
        "-0",
        "7",
        "-5",
        "10.0",
        "1e3",
        "1E3",
        "-0.0",
        "9007199254740991",
        "-9007199254740991",
        "9007199254740992",
        "-9007199254740992",
        "100000000000000000000",
        "-9223372036854775808",
        "0.5",
    ]
    .iter()
    .map(|t| spelled(t))
    .collect();
    let strings = [
        json!("a"),
        json!("b"),
        json!("e1"),
        json!("e2"),
        json!("e3"),
        json!("a\"q"),
        json!("line\nbreak"),
        json!("é漢🙂"),
        json!(""),
        json!("tab\t\\"),
    ];
    let others = [
        json!(null),
        json!(true),
        json!(false),
        json!([]),
        json!([1, "x"]),
        json!({"k": [1]}),
        json!({"$serde_json::private::Number": "5"}),
    ];
    let outcomes = [
        json!([200]),
        json!([503, 200]),
        json!([500, 500, 500, 500, 500, 500, 500, 500, 500, 201]),
        json!([404]),
        json!([0, 429, 408]),
        json!([]),
        json!([600]),
        json!([99]),
        json!([-1]),
        json!([true]),
        json!(["200"]),
        json!(200),
        spelled("[200.0]"),
        spelled("[2e2]"),
        spelled("[-0, 200]"),
        json!([[200]]),
    ];
    *ts += [0, 1, 29, 30, 31, 60, 300][p.below(7) as usize];
    let ts_value = if p.chance(85) {
        json!(*ts)
    } else {
        pick(p, &numbers)
    };
    let name = [
        "register",
        "enqueue",
        "process",
        "process",
        "status",
        "disable",
        "enable",
        "dead_letters",
        "frobnicate",
        "Process",
    ][p.below(10) as usize];
    let any = |p: &mut Prng| match p.below(3) {
        0 => pick(p, &strings),
        1 => pick(p, &numbers),
        _ => pick(p, &others),
    };
    let arg = |p: &mut Prng, pool: &[Value]| {
        if p.chance(90) { pick(p, pool) } else { any(p) }
    };
    let endpoints = [json!("a"), json!("b"), json!("a\"q")];
    let events = [
        json!("e1"),
        json!("e2"),
        json!("e3"),
        json!("é漢🙂"),
        json!(""),
    ];
    let mut op = vec![json!(name), ts_value];
    match name {
        "register" => {
            op.push(arg(p, &endpoints));
            op.push(arg(p, &strings));
        }
        "enqueue" => {
            op.push(arg(p, &endpoints));
            op.push(arg(p, &events));
            op.push(arg(p, &outcomes));
        }
        "status" => op.push(arg(p, &events)),
        "disable" => op.push(arg(p, &endpoints)),
        "enable" => {
            op.push(arg(p, &endpoints));
            op.push(if p.chance(85) {
                json!(p.chance(50))
            } else {
                any(p)
            });
        }
        "dead_letters" if p.chance(40) => op.push(arg(p, &endpoints)),
        _ => {}
    }
    // Now and then the wrong number of elements, a name that is not a string, or no list.
    match p.below(40) {
        0 => {
            op.pop();
        }
        1 => op.push(any(p)),
        2 => op[0] = any(p),
        3 => return any(p),
        4 => return json!([]),
        _ => {}
    }
    Value::Array(op)
}

fn random_ops(p: &mut Prng) -> Vec<Value> {
    let mut ts = 0;
    let mut ops = vec![
        json!(["register", 0, "a", "u"]),
        json!(["register", 0, "b", "u"]),
    ];
    ops.extend((0..p.below(40)).map(|_| operation(p, &mut ts)));
    ops
}

/// `hookcheck run`'s array output for these results, as it was written from values.
fn array_text(results: &[Value]) -> String {
    if results.is_empty() {
        return "[]\n".to_string();
    }
    let items: Vec<String> = results.iter().map(Value::to_string).collect();
    format!("[{}]\n", items.join(",\n "))
}

fn run_text(input: &str, format: Format, layout: Layout) -> String {
    let mut out = Vec::new();
    let result = run_stream_with(input.as_bytes(), &mut out, format, layout);
    assert!(result.is_ok(), "{result:?}\ninput: {input}");
    if layout == Layout::OnePerLine {
        // `hookcheck run` decodes on a thread of its own: the same results, byte for byte.
        let mut two_threads = Vec::new();
        let result = run_stream(input.as_bytes(), &mut two_threads, format);
        assert!(result.is_ok(), "{result:?}\ninput: {input}");
        assert_eq!(out, two_threads, "input: {input}");
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn every_path_gives_the_oracles_results() {
    let mut p = Prng::new(0xdec0de);
    for case in 0..2000 {
        let ops = random_ops(&mut p);
        let expected = oracle::run(&ops);
        assert_eq!(
            hookcheck::run(&ops),
            expected,
            "case {case}: {}",
            json!(ops)
        );
        // As a JSON array, compact or spread over lines and blanks.
        let texts: Vec<String> = ops.iter().map(Value::to_string).collect();
        let array = if p.chance(50) {
            format!("[{}]", texts.join(","))
        } else {
            format!("[ {} \n]\n", texts.join(" ,\n\t"))
        };
        assert_eq!(
            run_text(&array, Format::Auto, Layout::OnePerLine),
            array_text(&expected),
            "case {case}: {array}"
        );
        assert_eq!(
            run_text(&array, Format::Array, Layout::OneLine),
            format!("{}\n", Value::Array(expected.clone())),
            "case {case} (serve --per-case)"
        );
        // As JSON lines.
        let lines: String = texts.iter().map(|t| format!("{t}\n")).collect();
        let answered: String = expected.iter().map(|r| format!("{r}\n")).collect();
        assert_eq!(
            run_text(&lines, Format::Lines, Layout::OnePerLine),
            answered,
            "case {case}: {lines}"
        );
    }
}

/// A large input in one piece, read in many chunks: the stream is the same as the whole.
#[test]
fn a_long_array_streams_through_many_reads() {
    let mut p = Prng::new(77);
    let mut ops = Vec::new();
    let mut ts = 0;
    while ops.len() < 40_000 {
        ops.push(operation(&mut p, &mut ts));
    }
    let text = format!(
        "[{}]",
        ops.iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut out = Vec::new();
    run_stream(text.as_bytes(), &mut out, Format::Auto).expect("runs");
    assert!(
        text.len() > 3 * (256 << 10),
        "{} bytes: not several reads",
        text.len()
    );
    assert_eq!(
        String::from_utf8_lossy(&out),
        array_text(&oracle::run(&ops))
    );
}
