//! Turns one JSON operation into a typed [`Command`], checking its shape before any state is
//! consulted, in the precedence the spec fixes (`op.error-precedence`, steps 1 to 5).

use serde_json::Value;

use crate::error::Error;

/// Largest `ts` magnitude accepted: beyond it a double-based reader could not hold the value
/// exactly, so no portable result exists (`op.ts-range`).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// A well-formed operation; `ts` is carried separately by [`Operation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Register {
        endpoint: String,
    },
    Enqueue {
        endpoint: String,
        event: String,
        outcomes: Vec<u16>,
    },
    Process,
    Status {
        event: String,
    },
    Disable {
        endpoint: String,
    },
    Enable {
        endpoint: String,
        replay_dead: bool,
    },
    DeadLetters {
        endpoint: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    pub ts: i64,
    pub command: Command,
}

/// Decodes `[name, ts, ...args]`, reporting the first fault in spec precedence.
pub fn decode(value: &Value) -> Result<Operation, Error> {
    let items = value.as_array().ok_or(Error::InvalidArguments)?;
    let (name, rest) = match items.split_first() {
        Some((Value::String(name), rest)) => (name.as_str(), rest),
        _ => return Err(Error::UnknownOperation),
    };
    // `rest` is ts followed by the arguments; its allowed lengths count ts too.
    let arity: &[usize] = match name {
        "register" => &[3],
        "enqueue" => &[4],
        "process" => &[1],
        "status" | "disable" => &[2],
        "enable" => &[3],
        "dead_letters" => &[1, 2],
        _ => return Err(Error::UnknownOperation),
    };
    if !arity.contains(&rest.len()) {
        return Err(Error::InvalidArguments);
    }
    let (ts, args) = rest.split_first().ok_or(Error::InvalidArguments)?;
    let ts = timestamp(ts)?;
    let mut args = Args(args.iter());

    let command = match name {
        "register" => {
            let endpoint = args.string()?;
            // The url must be a string, but the simulation never contacts it, so it is dropped.
            args.string()?;
            Command::Register { endpoint }
        }
        "enqueue" => Command::Enqueue {
            endpoint: args.string()?,
            event: args.string()?,
            outcomes: outcomes(args.next()?)?,
        },
        "process" => Command::Process,
        "status" => Command::Status {
            event: args.string()?,
        },
        "disable" => Command::Disable {
            endpoint: args.string()?,
        },
        "enable" => Command::Enable {
            endpoint: args.string()?,
            replay_dead: args.boolean()?,
        },
        "dead_letters" => Command::DeadLetters {
            endpoint: match args.0.len() {
                0 => None,
                _ => Some(args.string()?),
            },
        },
        // Every name was matched above; reaching here would be a bug, not bad input.
        _ => return Err(Error::UnknownOperation),
    };
    Ok(Operation { ts, command })
}

/// Positional arguments after `ts`, consumed left to right so the leftmost fault wins.
struct Args<'a>(std::slice::Iter<'a, Value>);

impl<'a> Args<'a> {
    fn next(&mut self) -> Result<&'a Value, Error> {
        // Arity was checked already, so running out means the table above is wrong.
        self.0.next().ok_or(Error::InvalidArguments)
    }

    fn string(&mut self) -> Result<String, Error> {
        match self.next()? {
            Value::String(s) => Ok(s.clone()),
            _ => Err(Error::InvalidArguments),
        }
    }

    fn boolean(&mut self) -> Result<bool, Error> {
        self.next()?.as_bool().ok_or(Error::InvalidArguments)
    }
}

/// A JSON integer as written: with `arbitrary_precision`, `as_i64` rejects `10.0` and `1e3`
/// (and booleans are not numbers at all), while `-0` reads as 0 (`op.ts-strict`).
fn strict_integer(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

fn timestamp(value: &Value) -> Result<i64, Error> {
    strict_integer(value)
        .filter(|ts| ts.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs())
        .ok_or(Error::InvalidArguments)
}

fn outcomes(value: &Value) -> Result<Vec<u16>, Error> {
    let items = value.as_array().ok_or(Error::InvalidOutcomes)?;
    if items.is_empty() {
        return Err(Error::InvalidOutcomes);
    }
    items
        .iter()
        .map(|item| {
            strict_integer(item)
                .filter(|&status| status == 0 || (100..=599).contains(&status))
                .and_then(|status| u16::try_from(status).ok())
                .ok_or(Error::InvalidOutcomes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Result<Operation, Error> {
        let value: Value = serde_json::from_str(text).expect("test input is valid JSON");
        decode(&value)
    }

    #[test]
    fn integers_are_read_as_written() {
        assert_eq!(parse(r#"["process", -0]"#).map(|op| op.ts), Ok(0));
        assert_eq!(parse(r#"["process", 10.0]"#), Err(Error::InvalidArguments));
        assert_eq!(parse(r#"["process", 1e3]"#), Err(Error::InvalidArguments));
        assert_eq!(parse(r#"["process", true]"#), Err(Error::InvalidArguments));
        assert_eq!(
            parse(r#"["process", 9007199254740991]"#).map(|op| op.ts),
            Ok(9_007_199_254_740_991)
        );
        assert_eq!(
            parse(r#"["process", -9007199254740992]"#),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            parse(r#"["enqueue", 0, "a", "b", [200, 2e2]]"#),
            Err(Error::InvalidOutcomes)
        );
        assert_eq!(
            parse(r#"["enqueue", 0, "a", "b", [false]]"#),
            Err(Error::InvalidOutcomes)
        );
    }

    #[test]
    fn faults_follow_precedence() {
        assert_eq!(decode(&json!(7)), Err(Error::InvalidArguments));
        assert_eq!(decode(&json!([])), Err(Error::UnknownOperation));
        assert_eq!(decode(&json!([1, 0])), Err(Error::UnknownOperation));
        assert_eq!(decode(&json!(["nope", "x"])), Err(Error::UnknownOperation));
        assert_eq!(decode(&json!(["process"])), Err(Error::InvalidArguments));
        assert_eq!(
            decode(&json!(["enqueue", 0, 5, "e", "bad"])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["enqueue", 0, "a", "e", [99]])),
            Err(Error::InvalidOutcomes)
        );
        assert_eq!(
            decode(&json!(["enable", 0, "a", "yes"])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["dead_letters", 0, "a", "b"])),
            Err(Error::InvalidArguments)
        );
    }
}
