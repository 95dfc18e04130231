//! Turns one JSON operation into a typed [`Command`], checking its shape before any state is
//! consulted, in the precedence the spec fixes (`op.error-precedence`, steps 1 to 5).

use serde_json::{Map, Value};

use crate::breaker::BreakerPolicy;
use crate::error::Error;
use crate::schedule::{MAX_SAFE_INTEGER, Outcome, Policy};
use crate::signatures::{ID_HEADER, Received, SIGNATURE_HEADER, Secret, TIMESTAMP_HEADER};
use crate::throttle::Throttle;

/// A well-formed operation; `ts` is carried separately by [`Operation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Register {
        endpoint: String,
    },
    /// Without a payload (Part 8's optional fifth argument) the body is empty.
    Enqueue {
        endpoint: String,
        event: String,
        outcomes: Vec<Outcome>,
        payload: String,
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
    /// `null` has already become the default policy: the two are indistinguishable afterwards.
    SetPolicy {
        endpoint: String,
        policy: Policy,
    },
    Policy {
        endpoint: String,
    },
    Endpoint {
        endpoint: String,
    },
    DeadLetter {
        event: String,
    },
    Recover {
        endpoint: String,
        since: i64,
    },
    SetSecret {
        endpoint: String,
        secret: Secret,
    },
    /// `attempt` is at least 1 and at most 2^53 - 1 (`sig.attempt-n`).
    Signature {
        event: String,
        attempt: u64,
    },
    Verify {
        secrets: Vec<Secret>,
        headers: Received,
        body: String,
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
        "enqueue" => &[4, 5],
        "process" => &[1],
        "status" | "disable" | "policy" | "endpoint" | "dead_letter" => &[2],
        "enable" | "set_policy" | "recover" | "set_secret" | "signature" => &[3],
        "verify" => &[4],
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
            // Any string, checked after `outcomes` (`sig.payload-type`).
            payload: match args.0.len() {
                0 => String::new(),
                _ => args.string()?,
            },
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
        "set_policy" => Command::SetPolicy {
            endpoint: args.string()?,
            policy: policy(args.next()?)?,
        },
        "policy" => Command::Policy {
            endpoint: args.string()?,
        },
        "endpoint" => Command::Endpoint {
            endpoint: args.string()?,
        },
        "dead_letter" => Command::DeadLetter {
            event: args.string()?,
        },
        "recover" => Command::Recover {
            endpoint: args.string()?,
            // Compared with death times, so read exactly as a `ts` is (`recover.since`).
            since: timestamp(args.next()?)?,
        },
        "set_secret" => Command::SetSecret {
            endpoint: args.string()?,
            secret: secret(args.next()?)?,
        },
        "signature" => Command::Signature {
            event: args.string()?,
            attempt: attempt_number(args.next()?)?,
        },
        "verify" => Command::Verify {
            secrets: secrets(args.next()?)?,
            headers: received(args.next()?)?,
            body: args.string()?,
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

/// Beyond 2^53 - 1 in magnitude a double-based reader could not hold a `ts` exactly, so no
/// portable result exists (`op.ts-range`).
fn timestamp(value: &Value) -> Result<i64, Error> {
    strict_integer(value)
        .filter(|ts| ts.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs())
        .ok_or(Error::InvalidArguments)
}

/// An attempt number, read as a `ts` is and at least 1 (`sig.attempt-n`).
fn attempt_number(value: &Value) -> Result<u64, Error> {
    timestamp(value)
        .ok()
        .and_then(|n| u64::try_from(n).ok())
        .filter(|&n| n >= 1)
        .ok_or(Error::InvalidArguments)
}

/// A secret: a string, then `sig.secret-strict`; anything else is `invalid secret`.
fn secret(value: &Value) -> Result<Secret, Error> {
    value
        .as_str()
        .ok_or(Error::InvalidSecret)
        .and_then(Secret::parse)
}

/// `verify`'s receiver secrets: a non-empty list of valid secrets (`sig.verify-args`).
fn secrets(value: &Value) -> Result<Vec<Secret>, Error> {
    let items = value.as_array().ok_or(Error::InvalidSecret)?;
    if items.is_empty() {
        return Err(Error::InvalidSecret);
    }
    items.iter().map(secret).collect()
}

/// `verify`'s headers: an object whose values are all strings, the three headers matched
/// ignoring ASCII case and each named at most once (`sig.verify-args`, `sig.verify-headers`).
fn received(value: &Value) -> Result<Received, Error> {
    let fields = value.as_object().ok_or(Error::InvalidArguments)?;
    let mut received = Received::default();
    for (name, value) in fields {
        let value = value.as_str().ok_or(Error::InvalidArguments)?;
        let slot = if name.eq_ignore_ascii_case(ID_HEADER) {
            &mut received.id
        } else if name.eq_ignore_ascii_case(TIMESTAMP_HEADER) {
            &mut received.timestamp
        } else if name.eq_ignore_ascii_case(SIGNATURE_HEADER) {
            &mut received.signature
        } else {
            continue;
        };
        if slot.replace(value.to_owned()).is_some() {
            return Err(Error::InvalidArguments);
        }
    }
    Ok(received)
}

fn outcomes(value: &Value) -> Result<Vec<Outcome>, Error> {
    let items = value.as_array().ok_or(Error::InvalidOutcomes)?;
    if items.is_empty() {
        return Err(Error::InvalidOutcomes);
    }
    items.iter().map(outcome).collect()
}

/// One outcomes entry: a plain status, or `{"status": S}` / `{"status": S, "retry_after": R}`
/// (`outcomes.objects`). Ranges are [`Outcome::new`]'s to check.
fn outcome(item: &Value) -> Result<Outcome, Error> {
    let fields = match item {
        Value::Object(fields) => fields,
        plain => {
            let status = strict_integer(plain).ok_or(Error::InvalidOutcomes)?;
            return Outcome::new(status, None);
        }
    };
    only_keys(fields, &["status", "retry_after"]).ok_or(Error::InvalidOutcomes)?;
    let status = fields
        .get("status")
        .and_then(strict_integer)
        .ok_or(Error::InvalidOutcomes)?;
    let retry_after =
        optional(fields, "retry_after", strict_integer).ok_or(Error::InvalidOutcomes)?;
    Outcome::new(status, retry_after)
}

/// A `set_policy` argument: `null` for the default, or `{"attempts", "waits"}` with the optional
/// `disable_on_gone`, `disable_after`, `throttle`, `breaker` and `max_age` (`policy.valid`,
/// `gone.policy-key`, `auto.policy-key`, `throttle.policy-key`, `breaker.policy-key`,
/// `expiry.policy-key`). Ranges are [`Policy::new`]'s, [`Policy::with_max_age`]'s,
/// [`Throttle::new`]'s and [`BreakerPolicy::new`]'s to check.
fn policy(value: &Value) -> Result<Policy, Error> {
    let fields = match value {
        Value::Null => return Ok(Policy::default()),
        Value::Object(fields) => fields,
        _ => return Err(Error::InvalidPolicy),
    };
    only_keys(
        fields,
        &[
            "attempts",
            "waits",
            "disable_on_gone",
            "disable_after",
            "throttle",
            "breaker",
            "max_age",
        ],
    )
    .ok_or(Error::InvalidPolicy)?;
    let attempts = fields
        .get("attempts")
        .and_then(strict_integer)
        .ok_or(Error::InvalidPolicy)?;
    let waits = fields
        .get("waits")
        .and_then(Value::as_array)
        .ok_or(Error::InvalidPolicy)?
        .iter()
        .map(|wait| strict_integer(wait).ok_or(Error::InvalidPolicy))
        .collect::<Result<Vec<_>, _>>()?;
    let disable_on_gone =
        optional(fields, "disable_on_gone", Value::as_bool).ok_or(Error::InvalidPolicy)?;
    let disable_after =
        optional(fields, "disable_after", strict_integer).ok_or(Error::InvalidPolicy)?;
    let throttle = optional(fields, "throttle", throttle_values)
        .ok_or(Error::InvalidPolicy)?
        .map(|(burst, interval)| Throttle::new(burst, interval))
        .transpose()?;
    let breaker = optional(fields, "breaker", breaker_values)
        .ok_or(Error::InvalidPolicy)?
        .map(|(failures, window, open_for, probes)| {
            BreakerPolicy::new(failures, window, open_for, probes)
        })
        .transpose()?;
    let max_age = optional(fields, "max_age", strict_integer).ok_or(Error::InvalidPolicy)?;
    Policy::new(attempts, waits, disable_on_gone, disable_after, throttle)?
        .with_breaker(breaker)
        .with_max_age(max_age)
}

/// A policy's breaker: an object with exactly the integer keys `failures`, `window`, `open_for`
/// and `probes` (`breaker.valid`); `null`, a missing or an extra key is no breaker.
fn breaker_values(value: &Value) -> Option<(i64, i64, i64, i64)> {
    let fields = value.as_object()?;
    only_keys(fields, &["failures", "window", "open_for", "probes"])?;
    let read = |key: &str| fields.get(key).and_then(strict_integer);
    Some((
        read("failures")?,
        read("window")?,
        read("open_for")?,
        read("probes")?,
    ))
}

/// A policy's throttle: an object with exactly the integer keys `burst` and `interval`
/// (`throttle.valid`); `null`, a missing or an extra key is no throttle.
fn throttle_values(value: &Value) -> Option<(i64, i64)> {
    let fields = value.as_object()?;
    only_keys(fields, &["burst", "interval"])?;
    let burst = fields.get("burst").and_then(strict_integer)?;
    let interval = fields.get("interval").and_then(strict_integer)?;
    Some((burst, interval))
}

/// `Some(())` when every key of `fields` is one of `allowed`.
fn only_keys(fields: &Map<String, Value>, allowed: &[&str]) -> Option<()> {
    fields
        .keys()
        .all(|key| allowed.contains(&key.as_str()))
        .then_some(())
}

/// An optional key: `Some(None)` when absent, `Some(Some(v))` when present and readable, `None`
/// when present with the wrong type (even `null`: absent and `null` are not the same).
fn optional<T>(
    fields: &Map<String, Value>,
    key: &str,
    read: impl Fn(&Value) -> Option<T>,
) -> Option<Option<T>> {
    match fields.get(key) {
        None => Some(None),
        Some(value) => read(value).map(Some),
    }
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
        // Part 4: the endpoint id before the policy, the policy before any state.
        assert_eq!(
            decode(&json!(["set_policy", 0, 5, 5])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["set_policy", 0, "a", 5])),
            Err(Error::InvalidPolicy)
        );
        assert_eq!(
            decode(&json!(["set_policy", 0, "a"])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["policy", 0, "a", null])),
            Err(Error::InvalidArguments)
        );
        // Parts 6 and 7: ids must be strings, `since` an integer, checked in argument order.
        assert_eq!(
            decode(&json!(["endpoint", 0])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["endpoint", 0, 5])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["dead_letter", 0, "e", "x"])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["dead_letter", 0, null])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["recover", 0, "a"])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["recover", 0.5, 5, "x"])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["recover", 0, 5, 0])),
            Err(Error::InvalidArguments)
        );
        for since in [json!("0"), json!(null), json!(true), json!([0])] {
            assert_eq!(
                decode(&json!(["recover", 0, "a", since])),
                Err(Error::InvalidArguments),
                "{since}"
            );
        }
        assert_eq!(
            decode(&json!(["recover", 0, "a", -5])).map(|op| op.command),
            Ok(Command::Recover {
                endpoint: "a".into(),
                since: -5,
            })
        );
    }

    #[test]
    fn since_is_read_as_a_ts_is() {
        assert_eq!(
            parse(r#"["recover", 0, "a", -0]"#).map(|op| op.command),
            Ok(Command::Recover {
                endpoint: "a".into(),
                since: 0,
            })
        );
        for since in ["5.0", "1e1", "9007199254740992", "-9007199254740992"] {
            assert_eq!(
                parse(&format!(r#"["recover", 0, "a", {since}]"#)),
                Err(Error::InvalidArguments),
                "{since}"
            );
        }
        assert_eq!(
            parse(r#"["recover", 0, "a", -9007199254740991]"#).map(|op| op.command),
            Ok(Command::Recover {
                endpoint: "a".into(),
                since: -9_007_199_254_740_991,
            })
        );
    }

    #[test]
    fn disable_after_is_a_strict_integer_key() {
        assert_eq!(
            decode(
                &json!(["set_policy", 0, "a", {"attempts": 2, "waits": [1], "disable_after": 3}])
            )
            .map(|op| op.command),
            Ok(Command::SetPolicy {
                endpoint: "a".into(),
                policy: Policy::new(2, vec![1], None, Some(3), None).expect("valid"),
            })
        );
        for f in ["3.0", "3e0", "true", "null", "\"3\"", "[3]", "0", "1001"] {
            assert_eq!(
                parse(&format!(
                    r#"["set_policy", 0, "a", {{"attempts": 2, "waits": [1], "disable_after": {f}}}]"#
                )),
                Err(Error::InvalidPolicy),
                "{f}"
            );
        }
    }

    #[test]
    fn max_age_is_a_strict_integer_key() {
        assert_eq!(
            decode(&json!(["set_policy", 0, "a", {"attempts": 2, "waits": [1], "max_age": 60}]))
                .map(|op| op.command),
            Ok(Command::SetPolicy {
                endpoint: "a".into(),
                policy: Policy::new(2, vec![1], None, None, None)
                    .and_then(|p| p.with_max_age(Some(60)))
                    .expect("valid"),
            })
        );
        for a in [
            "60.0",
            "6e1",
            "true",
            "null",
            "\"60\"",
            "[60]",
            "{}",
            "0",
            "-1",
            "31536001",
            "99999999999999999999",
        ] {
            assert_eq!(
                parse(&format!(
                    r#"["set_policy", 0, "a", {{"attempts": 2, "waits": [1], "max_age": {a}}}]"#
                )),
                Err(Error::InvalidPolicy),
                "{a}"
            );
        }
        // The policy before the state, and the id before the policy (`policy.set-errors`).
        assert_eq!(
            decode(&json!(["set_policy", 0, 7, {"attempts": 2, "waits": [1], "max_age": 0}])),
            Err(Error::InvalidArguments)
        );
    }

    #[test]
    fn throttle_is_an_object_of_exactly_two_strict_integers() {
        assert_eq!(
            parse(
                r#"["set_policy", 0, "a", {"attempts": 2, "waits": [1], "throttle": {"interval": 10, "burst": 3}}]"#
            )
            .map(|op| op.command),
            Ok(Command::SetPolicy {
                endpoint: "a".into(),
                policy: Policy::new(2, vec![1], None, None, Throttle::new(3, 10).ok())
                    .expect("valid"),
            })
        );
        for t in [
            "null",
            "true",
            "5",
            "[3, 10]",
            "{}",
            r#"{"burst": 3}"#,
            r#"{"interval": 10}"#,
            r#"{"burst": 3, "interval": 10, "rate": 1}"#,
            r#"{"Burst": 3, "interval": 10}"#,
            r#"{"burst": 3.0, "interval": 10}"#,
            r#"{"burst": 3, "interval": 1e1}"#,
            r#"{"burst": true, "interval": 10}"#,
            r#"{"burst": 0, "interval": 10}"#,
            r#"{"burst": 3, "interval": 2592001}"#,
            r#"{"burst": 99999999999999999999, "interval": 10}"#,
        ] {
            assert_eq!(
                parse(&format!(
                    r#"["set_policy", 0, "a", {{"attempts": 2, "waits": [1], "throttle": {t}}}]"#
                )),
                Err(Error::InvalidPolicy),
                "{t}"
            );
        }
    }

    #[test]
    fn breaker_is_an_object_of_exactly_four_strict_integers() {
        assert_eq!(
            parse(
                r#"["set_policy", 0, "a", {"attempts": 2, "waits": [1], "breaker": {"probes": 1, "open_for": 60, "window": 30, "failures": 3}}]"#
            )
            .map(|op| op.command),
            Ok(Command::SetPolicy {
                endpoint: "a".into(),
                policy: Policy::new(2, vec![1], None, None, None)
                    .expect("valid")
                    .with_breaker(BreakerPolicy::new(3, 30, 60, 1).ok()),
            })
        );
        for b in [
            "null",
            "true",
            "5",
            "[3, 30, 60, 1]",
            "{}",
            r#"{"failures": 3, "window": 30, "open_for": 60}"#,
            r#"{"failures": 3, "window": 30, "probes": 1}"#,
            r#"{"failures": 3, "open_for": 60, "probes": 1}"#,
            r#"{"window": 30, "open_for": 60, "probes": 1}"#,
            r#"{"failures": 3, "window": 30, "open_for": 60, "probes": 1, "x": 1}"#,
            r#"{"Failures": 3, "window": 30, "open_for": 60, "probes": 1}"#,
            r#"{"failures": 3.0, "window": 30, "open_for": 60, "probes": 1}"#,
            r#"{"failures": 3, "window": 3e1, "open_for": 60, "probes": 1}"#,
            r#"{"failures": 3, "window": 30, "open_for": true, "probes": 1}"#,
            r#"{"failures": 3, "window": 30, "open_for": 60, "probes": null}"#,
            r#"{"failures": 3, "window": 30, "open_for": 60, "probes": "1"}"#,
            r#"{"failures": 0, "window": 30, "open_for": 60, "probes": 1}"#,
            r#"{"failures": 1001, "window": 30, "open_for": 60, "probes": 1}"#,
            r#"{"failures": 3, "window": 0, "open_for": 60, "probes": 1}"#,
            r#"{"failures": 3, "window": 2592001, "open_for": 60, "probes": 1}"#,
            r#"{"failures": 3, "window": 30, "open_for": 0, "probes": 1}"#,
            r#"{"failures": 3, "window": 30, "open_for": 2592001, "probes": 1}"#,
            r#"{"failures": 3, "window": 30, "open_for": 60, "probes": 0}"#,
            r#"{"failures": 3, "window": 30, "open_for": 60, "probes": 101}"#,
            r#"{"failures": 99999999999999999999, "window": 30, "open_for": 60, "probes": 1}"#,
        ] {
            assert_eq!(
                parse(&format!(
                    r#"["set_policy", 0, "a", {{"attempts": 2, "waits": [1], "breaker": {b}}}]"#
                )),
                Err(Error::InvalidPolicy),
                "{b}"
            );
        }
    }

    #[test]
    fn null_policy_is_the_default_and_plain_statuses_are_objects_without_retry_after() {
        assert_eq!(
            decode(&json!(["set_policy", 0, "a", null])).map(|op| op.command),
            Ok(Command::SetPolicy {
                endpoint: "a".into(),
                policy: Policy::default(),
            })
        );
        assert_eq!(
            decode(&json!(["enqueue", 0, "a", "e", [503, {"status": 503}]])).map(|op| op.command),
            Ok(Command::Enqueue {
                endpoint: "a".into(),
                event: "e".into(),
                outcomes: vec![Outcome::plain(503), Outcome::plain(503)],
                payload: String::new(),
            })
        );
    }

    const KA: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    #[test]
    fn payload_is_an_optional_string_after_outcomes() {
        assert_eq!(
            decode(&json!(["enqueue", 0, "a", "e", [200], "body"])).map(|op| op.command),
            Ok(Command::Enqueue {
                endpoint: "a".into(),
                event: "e".into(),
                outcomes: vec![Outcome::plain(200)],
                payload: "body".into(),
            })
        );
        for payload in [json!(null), json!(1), json!(true), json!([]), json!({})] {
            assert_eq!(
                decode(&json!(["enqueue", 0, "a", "e", [200], payload])),
                Err(Error::InvalidArguments),
                "{payload}"
            );
        }
        assert_eq!(
            decode(&json!(["enqueue", 0, "a", "e", [], null])),
            Err(Error::InvalidOutcomes)
        );
        assert_eq!(
            decode(&json!(["enqueue", 0, "a", "e", [200], "x", "y"])),
            Err(Error::InvalidArguments)
        );
    }

    #[test]
    fn set_secret_and_signature_arguments_in_order() {
        assert_eq!(
            decode(&json!(["set_secret", 0, 7, "bad"])),
            Err(Error::InvalidArguments)
        );
        for secret in [json!("bad"), json!(null), json!(24), json!([KA])] {
            assert_eq!(
                decode(&json!(["set_secret", 0, "a", secret])),
                Err(Error::InvalidSecret),
                "{secret}"
            );
        }
        assert!(decode(&json!(["set_secret", 0, "a", KA])).is_ok());
        assert_eq!(
            decode(&json!(["set_secret", 0, "a"])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            parse(r#"["signature", 0, "e", 9007199254740991]"#).map(|op| op.command),
            Ok(Command::Signature {
                event: "e".into(),
                attempt: 9_007_199_254_740_991,
            })
        );
        for n in [
            "0",
            "-1",
            "-0",
            "true",
            "\"1\"",
            "null",
            "1.0",
            "1e0",
            "9007199254740992",
        ] {
            assert_eq!(
                parse(&format!(r#"["signature", 0, "e", {n}]"#)),
                Err(Error::InvalidArguments),
                "{n}"
            );
        }
        assert_eq!(
            decode(&json!(["signature", 0, 7, 1])),
            Err(Error::InvalidArguments)
        );
    }

    #[test]
    fn verify_arguments_in_order() {
        let headers =
            json!({"webhook-id": "e", "webhook-timestamp": "0", "webhook-signature": "v1,x"});
        assert_eq!(
            decode(&json!(["verify", "0", [], null, null])),
            Err(Error::InvalidArguments)
        );
        for secrets in [json!(KA), json!([]), json!([KA, "nope"]), json!([null])] {
            assert_eq!(
                decode(&json!(["verify", 0, secrets, null, null])),
                Err(Error::InvalidSecret),
                "{secrets}"
            );
        }
        for bad in [
            json!(null),
            json!(["webhook-id"]),
            json!({"webhook-id": "e", "content-length": 20}),
            json!({"webhook-id": "e", "Webhook-ID": "e"}),
        ] {
            assert_eq!(
                decode(&json!(["verify", 0, [KA], bad, ""])),
                Err(Error::InvalidArguments),
                "{bad}"
            );
        }
        assert_eq!(
            decode(&json!(["verify", 0, [KA], headers, null])),
            Err(Error::InvalidArguments)
        );
        assert_eq!(
            decode(&json!(["verify", 0, [KA], {"WEBHOOK-ID": "e", "X-Foo": "a", "x-foo": "b", "Webhook-Signature": "s"}, ""]))
                .map(|op| op.command),
            Ok(Command::Verify {
                secrets: vec![Secret::parse(KA).expect("valid")],
                headers: Received {
                    id: Some("e".into()),
                    timestamp: None,
                    signature: Some("s".into()),
                },
                body: String::new(),
            })
        );
    }
}
