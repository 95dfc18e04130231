//! The brief's JSON contract: `run(operations) -> results`. Decodes one JSON operation into a typed
//! [`Command`] (checking faults in the order of `op.error-precedence`), applies it to a
//! [`Dispatcher`] and encodes the result. Any JSON value is accepted; nothing here panics.

use crate::dispatcher::{Dispatcher, Error, Outcomes, Status, Ts};
use serde_json::{Map, Value, json};

/// `op.ts-range`: the largest magnitude every JSON implementation represents exactly.
pub const TS_LIMIT: Ts = (1 << 53) - 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command<'a> {
    Register {
        endpoint: &'a str,
        url: &'a str,
    },
    Enqueue {
        endpoint: &'a str,
        event: &'a str,
        outcomes: Outcomes,
    },
    Process,
    Status {
        event: &'a str,
    },
    Disable {
        endpoint: &'a str,
    },
    Enable {
        endpoint: &'a str,
        replay_dead: bool,
    },
    DeadLetters {
        endpoint: Option<&'a str>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation<'a> {
    pub ts: Ts,
    pub command: Command<'a>,
}

/// The operation names and how many arguments may follow `ts`, fewest and most (`op.shape`;
/// `dead_letters` takes an optional endpoint, `dead.list-endpoint`).
const ARITY: [(&str, usize, usize); 7] = [
    ("register", 2, 2),
    ("enqueue", 3, 3),
    ("process", 0, 0),
    ("status", 1, 1),
    ("disable", 1, 1),
    ("enable", 2, 2),
    ("dead_letters", 0, 1),
];

/// The names of the brief's operations (and `dead_letters`).
pub fn names() -> impl Iterator<Item = &'static str> {
    ARITY.iter().map(|(name, _, _)| *name)
}

/// Decodes one operation, reporting its first fault in the order of `op.error-precedence`.
pub fn decode(op: &Value) -> Result<Operation<'_>, Error> {
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
    let ts = decode_ts(&items[1])?;
    let args = &items[2..];
    let command = match name {
        "register" => Command::Register {
            endpoint: string(&args[0])?,
            url: string(&args[1])?,
        },
        "enqueue" => Command::Enqueue {
            endpoint: string(&args[0])?,
            event: string(&args[1])?,
            outcomes: decode_outcomes(&args[2])?,
        },
        "process" => Command::Process,
        "status" => Command::Status {
            event: string(&args[0])?,
        },
        "disable" => Command::Disable {
            endpoint: string(&args[0])?,
        },
        "enable" => Command::Enable {
            endpoint: string(&args[0])?,
            replay_dead: args[1].as_bool().ok_or(Error::InvalidArguments)?,
        },
        _ => Command::DeadLetters {
            endpoint: args.first().map(string).transpose()?,
        },
    };
    Ok(Operation { ts, command })
}

/// `op.ts-integer`, `op.ts-strict`, `op.ts-range`. serde_json keeps `10.0` and `1e3` as floats,
/// so `as_i64` is `None` for them, as it is for booleans.
fn decode_ts(v: &Value) -> Result<Ts, Error> {
    v.as_i64()
        .filter(|ts| ts.abs() <= TS_LIMIT)
        .ok_or(Error::InvalidArguments)
}

fn string(v: &Value) -> Result<&str, Error> {
    v.as_str().ok_or(Error::InvalidArguments)
}

/// `outcomes.valid`, `outcomes.strict`.
fn decode_outcomes(v: &Value) -> Result<Outcomes, Error> {
    let list = v.as_array().ok_or(Error::InvalidOutcomes)?;
    let statuses = list
        .iter()
        .map(|s| s.as_i64().ok_or(Error::InvalidOutcomes))
        .collect::<Result<Vec<i64>, Error>>()?;
    Outcomes::new(statuses)
}

/// Applies a decoded operation and encodes its result as the brief's JSON.
pub fn apply(d: &mut Dispatcher, op: Operation<'_>) -> Result<Value, Error> {
    let ts = op.ts;
    Ok(match op.command {
        Command::Register { endpoint, url } => {
            d.register(endpoint, url)?;
            Value::Bool(true)
        }
        Command::Enqueue {
            endpoint,
            event,
            outcomes,
        } => {
            d.enqueue(ts, endpoint, event, outcomes)?;
            Value::from("queued")
        }
        Command::Process => {
            let attempts = d.process(ts);
            Value::Array(
                attempts
                    .iter()
                    .map(|a| Value::String(d.record(a).to_string()))
                    .collect(),
            )
        }
        Command::Status { event } => encode_status(d.status(event)?),
        Command::Disable { endpoint } => {
            d.disable(endpoint)?;
            Value::Bool(true)
        }
        Command::Enable {
            endpoint,
            replay_dead,
        } => {
            d.enable(ts, endpoint, replay_dead)?;
            Value::Bool(true)
        }
        Command::DeadLetters { endpoint: None } => d.dead_letters().map(Value::from).collect(),
        Command::DeadLetters {
            endpoint: Some(endpoint),
        } => d.dead_letters_of(endpoint)?.map(Value::from).collect(),
    })
}

fn encode_status(s: Status) -> Value {
    let mut m = Map::new();
    m.insert("state".into(), Value::from(s.state.as_str()));
    m.insert("attempts".into(), json!(s.attempts));
    m.insert("next_attempt_at".into(), json!(s.next_attempt_at));
    Value::Object(m)
}

/// One operation, start to finish: its JSON result or `"error: <code>"`.
pub fn step(d: &mut Dispatcher, op: &Value) -> Value {
    decode(op)
        .and_then(|op| apply(d, op))
        .unwrap_or_else(|e| Value::String(e.to_string()))
}

/// The brief's `run(operations)`: a fresh dispatcher, one result per operation.
pub fn run(operations: &[Value]) -> Vec<Value> {
    let mut d = Dispatcher::new();
    operations.iter().map(|op| step(&mut d, op)).collect()
}
