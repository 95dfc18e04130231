//! One operation, decoded straight from its JSON text into a typed [`Operation`]: no `Value`
//! tree, strings borrowed where the input has no escapes. The operation is first cut into its
//! elements' JSON texts, by the fast scanner of `scan` for the usual shape (`decode_text`, one
//! level up, tries it first) or by serde_json (a `SeqAccess` visitor taking each element as
//! `&RawValue`, here) for anything else; the values are
//! then read from those texts by one judge, so the rules that depend on how a number is written
//! (`op.ts-strict`: `10.0` and `1e3` are not integers, `-0` is 0) are decided on the spelling
//! itself. A `Value` (case files, the fuzzer) gives its elements to the same judge; serde_json
//! keeps each number's spelling in the value.
//!
//! Every JSON value decodes to an operation or to the error the spec assigns it
//! (`op.error-precedence`): decoding fails only on input that is not JSON. Arity is judged
//! before `ts` and the arguments, so the elements are all taken before any is judged.

use super::{Command, Kind, Operation, TS_LIMIT};
use crate::dispatcher::{Breaker, Error, Headers, Key, Outcomes, RetryPolicy, Ts, Verification};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// The most elements an operation can have: a name, `ts` and four arguments (`enqueue` with a
/// payload, `sig.payload`).
pub(crate) const MOST: usize = 6;

/// Decodes one operation (`DeserializeSeed`, for use inside a sequence or on its own).
#[derive(Clone, Copy, Debug, Default)]
pub struct OperationSeed;

impl<'de> DeserializeSeed<'de> for OperationSeed {
    type Value = Result<Operation<'de>, Error>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(OperationVisitor)
    }
}

struct OperationVisitor;

impl<'de> Visitor<'de> for OperationVisitor {
    type Value = Result<Operation<'de>, Error>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an operation")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items: [Option<Elem<'de>>; MOST] = Default::default();
        let mut count = 0;
        while let Some(item) = seq.next_element::<&'de RawValue>()? {
            if let Some(slot) = items.get_mut(count) {
                *slot = Some(Elem::of(item.get()));
            }
            count += 1;
        }
        Ok(operation(items, count))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Err(Error::InvalidArguments))
    }

    // Not a list (`op.not-a-list`): a number, string, boolean or null.
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err(Error::InvalidArguments))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err(Error::InvalidArguments))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err(Error::InvalidArguments))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err(Error::InvalidArguments))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err(Error::InvalidArguments))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err(Error::InvalidArguments))
    }
}

/// What the judge needs to know of one element of an operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Elem<'a> {
    Str(Cow<'a, str>),
    /// A number spelled as an integer (`op.ts-strict`), within an `i64`.
    Int(i64),
    Bool(bool),
    /// A list: `outcomes`, or `verify`'s secrets; read once the operation says which.
    List(List<'a>),
    Null,
    /// An object: a policy (`policy.valid`) or `verify`'s headers; read once the operation says
    /// which.
    Object(Object<'a>),
    /// Anything else: a number with a fraction or exponent or beyond `i64`.
    Other,
}

/// A list element, as its text, as values, or already read as statuses by the scanner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum List<'a> {
    Scanned(Result<Outcomes, Error>),
    Text(&'a str),
    Values(&'a [Value]),
}

impl List<'_> {
    fn outcomes(self) -> Result<Outcomes, Error> {
        match self {
            List::Scanned(outcomes) => outcomes,
            List::Text(json) => outcomes(json),
            List::Values(items) => outcome_values(items),
        }
    }

    /// `sig.verify-args`: a non-empty list of valid secrets, or `invalid secret`.
    fn secrets(self) -> Result<Vec<Key>, Error> {
        let owned;
        let items = match self {
            List::Scanned(_) => return Err(Error::InvalidSecret),
            List::Text(json) => {
                owned =
                    serde_json::from_str::<Vec<Value>>(json).map_err(|_| Error::InvalidSecret)?;
                &owned[..]
            }
            List::Values(items) => items,
        };
        if items.is_empty() {
            return Err(Error::InvalidSecret);
        }
        items
            .iter()
            .map(|item| {
                item.as_str()
                    .ok_or(Error::InvalidSecret)
                    .and_then(Key::parse)
            })
            .collect()
    }
}

/// An object element, as its text or as a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Object<'a> {
    Text(&'a str),
    Value(&'a Map<String, Value>),
}

impl Object<'_> {
    fn policy(self) -> Result<RetryPolicy, Error> {
        match self {
            Object::Text(json) => serde_json::from_str::<Map<String, Value>>(json)
                .map_err(|_| Error::InvalidPolicy)
                .and_then(|map| policy(&map)),
            Object::Value(map) => policy(map),
        }
    }

    /// `sig.verify-args`, `sig.verify-headers`: an object of strings; names match ignoring ASCII
    /// case, and two keys naming one of the three headers are `invalid arguments`. Read from
    /// text key by key, so that a key given twice is seen (a map would keep one of them).
    fn headers(self) -> Result<[Option<String>; 3], Error> {
        let pairs: Vec<(Cow<'_, str>, Cow<'_, Value>)> = match self {
            Object::Text(json) => serde_json::from_str::<Pairs>(json)
                .map_err(|_| Error::InvalidArguments)?
                .0
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k), Cow::Owned(v)))
                .collect(),
            Object::Value(map) => map
                .iter()
                .map(|(k, v)| (Cow::Borrowed(k.as_str()), Cow::Borrowed(v)))
                .collect(),
        };
        let mut found: [Option<String>; 3] = Default::default();
        for (name, value) in pairs {
            let Value::String(value) = value.into_owned() else {
                return Err(Error::InvalidArguments);
            };
            let slot = Headers::NAMES
                .iter()
                .position(|h| h.eq_ignore_ascii_case(&name));
            if let Some(i) = slot {
                if found[i].is_some() {
                    return Err(Error::InvalidArguments);
                }
                found[i] = Some(value);
            }
        }
        Ok(found)
    }
}

/// A JSON object's entries in order, a key given twice kept twice.
struct Pairs(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Pairs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct PairsVisitor;
        impl<'de> Visitor<'de> for PairsVisitor {
            type Value = Pairs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry::<String, Value>()? {
                    pairs.push(pair);
                }
                Ok(Pairs(pairs))
            }
        }
        d.deserialize_map(PairsVisitor)
    }
}

impl<'a> Elem<'a> {
    /// Reads an element from its JSON text.
    pub(crate) fn of(json: &'a str) -> Elem<'a> {
        match json.as_bytes().first() {
            Some(b'"') => text(json).map_or(Elem::Other, Elem::Str),
            Some(b'[') => Elem::List(List::Text(json)),
            Some(b't') if json == "true" => Elem::Bool(true),
            Some(b'f') if json == "false" => Elem::Bool(false),
            Some(b'n') if json == "null" => Elem::Null,
            Some(b'{') => Elem::Object(Object::Text(json)),
            _ => integer(json).map_or(Elem::Other, Elem::Int),
        }
    }
}

impl<'a> Elem<'a> {
    /// Reads an element from a JSON value (case files, generated sequences). serde_json keeps a
    /// number's spelling (`arbitrary_precision`), so `as_i64` is `None` for `10.0` and `1e3`
    /// and `Some(0)` for `-0`, as [`Elem::of`] reads them from text.
    fn of_value(value: &'a Value) -> Elem<'a> {
        match value {
            Value::String(s) => Elem::Str(Cow::Borrowed(s)),
            Value::Bool(b) => Elem::Bool(*b),
            Value::Number(_) => integer_value(value).map_or(Elem::Other, Elem::Int),
            Value::Array(items) => Elem::List(List::Values(items)),
            Value::Null => Elem::Null,
            Value::Object(map) => Elem::Object(Object::Value(map)),
        }
    }
}

/// Decodes an operation held as a JSON value, by the same judge as text.
pub fn decode_value(op: &Value) -> Result<Operation<'_>, Error> {
    let Value::Array(elements) = op else {
        return Err(Error::InvalidArguments);
    };
    let mut items: [Option<Elem<'_>>; MOST] = Default::default();
    for (slot, element) in items.iter_mut().zip(elements) {
        *slot = Some(Elem::of_value(element));
    }
    operation(items, elements.len())
}

/// Judges an operation's elements (the first `MOST` of `count`) in the order of
/// `op.error-precedence`: name, arity, `ts`, then each argument left to right.
pub(crate) fn operation<'a>(
    items: [Option<Elem<'a>>; MOST],
    count: usize,
) -> Result<Operation<'a>, Error> {
    let [name, ts, a, b, c, d] = items;
    let kind = match name {
        Some(Elem::Str(name)) => Kind::from_name(&name),
        _ => None,
    }
    .ok_or(Error::UnknownOperation)?;
    let (fewest, most) = kind.arity();
    if !(fewest + 2..=most + 2).contains(&count) {
        return Err(Error::InvalidArguments);
    }
    let ts = match ts {
        Some(Elem::Int(ts)) => in_range(ts),
        _ => None,
    }
    .ok_or(Error::InvalidArguments)?;
    let string = |item: Option<Elem<'a>>| match item {
        Some(Elem::Str(s)) => Ok(s),
        _ => Err(Error::InvalidArguments),
    };
    let command = match kind {
        Kind::Register => Command::Register {
            endpoint: string(a)?,
            url: string(b)?,
        },
        Kind::Enqueue => {
            let (endpoint, event) = (string(a)?, string(b)?);
            let outcomes = match c {
                Some(Elem::List(outcomes)) => outcomes.outcomes()?,
                _ => return Err(Error::InvalidOutcomes),
            };
            // `sig.payload-type`: after `outcomes`.
            match d {
                None => Command::Enqueue {
                    endpoint,
                    event,
                    outcomes,
                },
                Some(d) => Command::EnqueueWithPayload {
                    endpoint,
                    event,
                    outcomes_and_payload: Box::new((outcomes, string(Some(d))?)),
                },
            }
        }
        Kind::Process => Command::Process,
        Kind::Status => Command::Status { event: string(a)? },
        Kind::Disable => Command::Disable {
            endpoint: string(a)?,
        },
        Kind::Enable => Command::Enable {
            endpoint: string(a)?,
            replay_dead: match b {
                Some(Elem::Bool(flag)) => flag,
                _ => return Err(Error::InvalidArguments),
            },
        },
        Kind::DeadLetters => Command::DeadLetters {
            endpoint: a.map(|a| string(Some(a))).transpose()?,
        },
        Kind::SetPolicy => Command::SetPolicy {
            endpoint: string(a)?,
            policy: match b {
                Some(Elem::Null) => None,
                Some(Elem::Object(policy)) => Some(Box::new(policy.policy()?)),
                _ => return Err(Error::InvalidPolicy),
            },
        },
        Kind::Policy => Command::Policy {
            endpoint: string(a)?,
        },
        Kind::Endpoint => Command::Endpoint {
            endpoint: string(a)?,
        },
        Kind::DeadLetter => Command::DeadLetter { event: string(a)? },
        // `recover.since`: read as a `ts` is.
        Kind::Recover => Command::Recover {
            endpoint: string(a)?,
            since: match b {
                Some(Elem::Int(since)) => in_range(since),
                _ => None,
            }
            .ok_or(Error::InvalidArguments)?,
        },
        // `sig.set-secret-errors`: the id, then the secret.
        Kind::SetSecret => Command::SetSecret {
            endpoint: string(a)?,
            key: match b {
                Some(Elem::Str(secret)) => Key::parse(&secret)?,
                _ => return Err(Error::InvalidSecret),
            },
        },
        // `sig.attempt-n`: `n` is read as a `ts` is, and is at least 1.
        Kind::Signature => Command::Signature {
            event: string(a)?,
            n: match b {
                Some(Elem::Int(n)) => in_range(n).and_then(|n| u64::try_from(n).ok()),
                _ => None,
            }
            .filter(|n| *n >= 1)
            .ok_or(Error::InvalidArguments)?,
        },
        // `sig.verify-args`: the secrets, the headers, the body, in that order.
        Kind::Verify => {
            let keys = match a {
                Some(Elem::List(list)) => list.secrets()?,
                _ => return Err(Error::InvalidSecret),
            };
            let [id, timestamp, signature] = match b {
                Some(Elem::Object(headers)) => headers.headers()?,
                _ => return Err(Error::InvalidArguments),
            };
            let body = string(c)?.into_owned();
            // `sig.verify-headers`: an empty value is a missing header.
            let present = |h: Option<String>| h.filter(|v| !v.is_empty());
            Command::Verify(Box::new(Verification {
                keys,
                id: present(id),
                timestamp: present(timestamp),
                signature: present(signature),
                body,
            }))
        }
    };
    Ok(Operation { ts, command })
}

pub(crate) fn in_range(ts: i64) -> Option<Ts> {
    (ts.unsigned_abs() <= TS_LIMIT.unsigned_abs()).then_some(ts)
}

/// A JSON string's value, borrowed when it has no escapes; `None` for any other value.
fn text(json: &str) -> Option<Cow<'_, str>> {
    let inner = json.strip_prefix('"')?.strip_suffix('"')?;
    if inner.bytes().all(|b| b != b'\\') {
        return Some(Cow::Borrowed(inner));
    }
    // An escape that names no character (a lone surrogate) makes no string either.
    serde_json::from_str::<String>(json).ok().map(Cow::Owned)
}

/// An integer as JSON spells it: digits and an optional minus, no fraction and no exponent
/// (`op.ts-strict`, `outcomes.strict`; `-0` is 0). `None` for any other value, and for integers
/// beyond an `i64` (which every range check rejects anyway).
pub(crate) fn integer(json: &str) -> Option<i64> {
    let (negative, digits) = match json.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        all => (false, all),
    };
    if digits.is_empty() {
        return None;
    }
    // Accumulated as a negative number, whose range is the larger one.
    let mut n: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_sub(i64::from(d - b'0'))?;
    }
    if negative { Some(n) } else { n.checked_neg() }
}

/// `outcomes`: a non-empty list of valid integer statuses (`outcomes.valid`, `outcomes.strict`).
/// The raw text is valid JSON, so reading it needs no more than skipping blanks between integers;
/// the first element that is not a plain integer makes the whole list invalid.
pub(crate) fn outcomes(json: &str) -> Result<Outcomes, Error> {
    let json = json.as_bytes();
    let Some(mut rest) = json.strip_prefix(b"[") else {
        return Err(Error::InvalidOutcomes);
    };
    // Statuses stay on the stack; only a script longer than any usual one spills.
    let (mut short, mut n, mut long) = ([0i64; 8], 0, Vec::new());
    loop {
        rest = rest.trim_ascii_start();
        let len = rest
            .iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'-'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(len);
        if number.is_empty() && rest.first() == Some(&b'{') {
            // An object entry (Part 5): rare enough to be read as values.
            return serde_json::from_slice::<Vec<Value>>(json)
                .map_err(|_| Error::InvalidOutcomes)
                .and_then(|items| outcome_values(&items));
        }
        let status = std::str::from_utf8(number)
            .ok()
            .and_then(integer)
            .ok_or(Error::InvalidOutcomes)?;
        match short.get_mut(n) {
            Some(slot) => *slot = status,
            None => long.push(status),
        }
        n += 1;
        rest = after.trim_ascii_start();
        match rest.first() {
            Some(b',') => rest = &rest[1..],
            // `]` ends the list; `.`, `e` or `E` after the digits are a fraction or exponent.
            Some(b']') => break,
            _ => return Err(Error::InvalidOutcomes),
        }
    }
    let kept = n.min(short.len());
    Outcomes::new(short[..kept].iter().copied().chain(long))
}

/// A value that is an integer as JSON spells one (`op.ts-strict`): serde_json keeps each number's
/// spelling, so `10.0` and `1e1` are not, as `integer` reads them from text; `-0` is 0.
fn integer_value(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

/// `outcomes` held as values: integer statuses (`outcomes.valid`, `outcomes.strict`) or Part 5's
/// objects (`outcomes.objects`, `outcomes.objects-strict`). serde_json keeps each number's
/// spelling, so `as_i64` refuses `200.0` here as `integer` does on text.
fn outcome_values(items: &[Value]) -> Result<Outcomes, Error> {
    let int = |v: &Value| integer_value(v).ok_or(Error::InvalidOutcomes);
    if !items.iter().any(Value::is_object) {
        return items
            .iter()
            .map(int)
            .collect::<Result<Vec<i64>, Error>>()
            .and_then(Outcomes::new);
    }
    items
        .iter()
        .map(|item| match item {
            Value::Object(map) => {
                let (mut status, mut retry_after) = (None, None);
                for (key, value) in map {
                    match key.as_str() {
                        "status" => status = Some(int(value)?),
                        "retry_after" => retry_after = Some(int(value)?),
                        _ => return Err(Error::InvalidOutcomes),
                    }
                }
                Ok((status.ok_or(Error::InvalidOutcomes)?, retry_after))
            }
            other => int(other).map(|s| (s, None)),
        })
        .collect::<Result<Vec<_>, Error>>()
        .and_then(Outcomes::with_retry_after)
}

/// A policy object (`policy.valid`, `policy.strict`, `gone.policy-key`, `auto.policy-key`,
/// `throttle.policy-key`, `expiry.policy-key`): `attempts` and `waits` required,
/// `disable_on_gone`, `disable_after`, `throttle` and `max_age` optional, no other key.
fn policy(map: &Map<String, Value>) -> Result<RetryPolicy, Error> {
    // Beyond u32 is out of range as surely as beyond the policy's own bounds.
    let small = |v: &Value| {
        integer_value(v)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or(Error::InvalidPolicy)
    };
    let (mut attempts, mut waits, mut gone, mut threshold) = (None, None, None, None);
    let (mut throttle, mut max_age, mut breaker) = (None, None, None);
    for (key, value) in map {
        match (key.as_str(), value) {
            ("attempts", v) => attempts = Some(small(v)?),
            ("waits", Value::Array(list)) => {
                waits = Some(
                    list.iter()
                        .map(small)
                        .collect::<Result<Vec<u32>, Error>>()?,
                )
            }
            ("disable_on_gone", Value::Bool(flag)) => gone = Some(*flag),
            ("disable_after", v) => threshold = Some(small(v)?),
            ("max_age", v) => max_age = Some(small(v)?),
            // `breaker.valid`: exactly the four keys.
            ("breaker", Value::Object(b)) => {
                let mut n = [None; 4];
                for (key, value) in b {
                    let slot = match key.as_str() {
                        "failures" => 0,
                        "window" => 1,
                        "open_for" => 2,
                        "probes" => 3,
                        _ => return Err(Error::InvalidPolicy),
                    };
                    n[slot] = Some(small(value)?);
                }
                let [Some(f), Some(w), Some(o), Some(p)] = n else {
                    return Err(Error::InvalidPolicy);
                };
                breaker = Some(Breaker::new(f, w, o, p)?);
            }
            // `throttle.valid`: exactly `burst` and `interval`.
            ("throttle", Value::Object(t)) => {
                let (mut burst, mut interval) = (None, None);
                for (key, value) in t {
                    match key.as_str() {
                        "burst" => burst = Some(small(value)?),
                        "interval" => interval = Some(small(value)?),
                        _ => return Err(Error::InvalidPolicy),
                    }
                }
                throttle = Some(burst.zip(interval).ok_or(Error::InvalidPolicy)?);
            }
            _ => return Err(Error::InvalidPolicy),
        }
    }
    let (Some(attempts), Some(waits)) = (attempts, waits) else {
        return Err(Error::InvalidPolicy);
    };
    let mut policy = RetryPolicy::new(attempts, waits)?;
    if let Some(flag) = gone {
        policy = policy.with_disable_on_gone(flag);
    }
    if let Some(threshold) = threshold {
        policy = policy.with_disable_after(threshold)?;
    }
    if let Some((burst, interval)) = throttle {
        policy = policy.with_throttle(burst, interval)?;
    }
    if let Some(age) = max_age {
        policy = policy.with_max_age(age)?;
    }
    if let Some(b) = breaker {
        policy = policy.with_breaker(b);
    }
    Ok(policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str) -> Result<Operation<'_>, Error> {
        crate::ops::decode_text(text).unwrap_or(Err(Error::InvalidArguments))
    }

    #[test]
    fn policies_and_object_outcomes_read_alike_from_text_and_from_values() {
        let cases = [
            (
                r#"["set_policy", 0, "s", {"attempts": 3, "waits": [10]}]"#,
                Ok(()),
            ),
            (r#"["set_policy", 0, "s", null]"#, Ok(())),
            (
                r#"["set_policy", 0, "s", {"attempts": 100, "waits": [2592000], "disable_on_gone": false}]"#,
                Ok(()),
            ),
            (
                r#"["set_policy", 0, "s", {"waits": [10]}]"#,
                Err(Error::InvalidPolicy),
            ),
            (
                r#"["set_policy", 0, "s", {"attempts": 3.0, "waits": [10]}]"#,
                Err(Error::InvalidPolicy),
            ),
            (
                r#"["set_policy", 0, "s", {"attempts": 3, "waits": [1e1]}]"#,
                Err(Error::InvalidPolicy),
            ),
            (
                r#"["set_policy", 0, "s", {"attempts": true, "waits": [10]}]"#,
                Err(Error::InvalidPolicy),
            ),
            (
                r#"["set_policy", 0, "s", {"attempts": 3, "waits": [10], "disable_on_gone": 1}]"#,
                Err(Error::InvalidPolicy),
            ),
            (
                r#"["set_policy", 0, "s", {"attempts": 3, "waits": [10], "x": 1}]"#,
                Err(Error::InvalidPolicy),
            ),
            (
                r#"["set_policy", 0, "s", {"attempts": 4294967297, "waits": [10]}]"#,
                Err(Error::InvalidPolicy),
            ),
            (
                r#"["set_policy", 0, "s", [3, [10]]]"#,
                Err(Error::InvalidPolicy),
            ),
            (
                r#"["set_policy", 0, 5, "junk"]"#,
                Err(Error::InvalidArguments),
            ),
            (r#"["set_policy", 0, "s"]"#, Err(Error::InvalidArguments)),
            (r#"["policy", 0, "s"]"#, Ok(())),
            (r#"["policy", 0, null]"#, Err(Error::InvalidArguments)),
            (
                r#"["enqueue", 0, "s", "e", [{"status": 503, "retry_after": 45}, 200]]"#,
                Ok(()),
            ),
            (
                r#"["enqueue", 0, "s", "e", [503, {"status": 200}]]"#,
                Ok(()),
            ),
            (
                r#"["enqueue", 0, "s", "e", [{"status": 200.0}]]"#,
                Err(Error::InvalidOutcomes),
            ),
            (
                r#"["enqueue", 0, "s", "e", [{"status": 503, "retry_after": -1}]]"#,
                Err(Error::InvalidOutcomes),
            ),
            (
                r#"["enqueue", 0, "s", "e", [{"retry_after": 5}]]"#,
                Err(Error::InvalidOutcomes),
            ),
            (
                r#"["enqueue", 0, "s", "e", [{"status": 503, "retry": 5}]]"#,
                Err(Error::InvalidOutcomes),
            ),
            (
                r#"["enqueue", 0, "s", "e", {"status": 200}]"#,
                Err(Error::InvalidOutcomes),
            ),
        ];
        for (text, want) in cases {
            let from_text = decode(text).map(|_| ());
            assert_eq!(from_text, want, "{text}");
            let value: Value = serde_json::from_str(text).expect("json");
            assert_eq!(decode_value(&value).map(|_| ()), want, "{text} as a value");
        }
    }

    #[test]
    fn numbers_are_judged_by_their_spelling() {
        assert_eq!(decode(r#"["process", -0]"#).map(|o| o.ts), Ok(0));
        assert_eq!(integer("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(integer("9223372036854775807"), Some(i64::MAX));
        assert_eq!(integer("9223372036854775808"), None);
        assert_eq!(integer("-"), None);
        assert_eq!(integer("1-2"), None);
        assert_eq!(integer("007"), Some(7));
        assert_eq!(
            decode(r#"["process", 9007199254740991]"#).map(|o| o.ts),
            Ok((1 << 53) - 1)
        );
        for ts in [
            "10.0",
            "1e3",
            "1E3",
            "-0.0",
            "0e0",
            "true",
            "null",
            "\"5\"",
            "[5]",
            "{}",
            "9007199254740992",
            "-9007199254740992",
            "100000000000000000000",
        ] {
            assert_eq!(
                decode(&format!(r#"["process", {ts}]"#)),
                Err(Error::InvalidArguments),
                "{ts}"
            );
        }
        for outcomes in [
            "[200.0]",
            "[2e2]",
            "[503, 2E2]",
            "[true]",
            "[]",
            "[\"200\"]",
            "[[200]]",
            "[200, 600]",
            "200",
            "{\"a\": 200}",
            "[-0.0]",
            "[null]",
        ] {
            assert_eq!(
                decode(&format!(r#"["enqueue", 0, "s", "e", {outcomes}]"#)),
                Err(Error::InvalidOutcomes),
                "{outcomes}"
            );
        }
        let ok = decode(r#"["enqueue", 0, "s", "e", [ 503 ,-0, 200 ,0,1,2,3,4,5,6,7,599 ]]"#);
        assert!(
            matches!(ok, Err(Error::InvalidOutcomes)),
            "statuses 1..7 are out of range: {ok:?}"
        );
        let ok = decode(r#"["enqueue", 0, "s", "e", [ 503 ,-0, 200 ,0,100,101,102,103,104,599 ]]"#);
        assert!(ok.is_ok(), "{ok:?}");
    }

    #[test]
    fn strings_are_borrowed_unless_escaped() {
        let op = decode(r#"["register", 0, "shop", "https:\/\/x"]"#);
        match op.map(|o| o.command) {
            Ok(Command::Register { endpoint, url }) => {
                assert!(matches!(endpoint, Cow::Borrowed("shop")));
                assert_eq!(url, "https://x");
                assert!(matches!(url, Cow::Owned(_)));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            decode(r#"["status", 0, "\ud800"]"#),
            Err(Error::InvalidArguments),
            "a lone surrogate is no string"
        );
    }

    #[test]
    fn faults_come_in_the_order_of_the_spec() {
        for (text, e) in [
            ("5", Error::InvalidArguments),
            ("{\"op\": \"process\"}", Error::InvalidArguments),
            ("[]", Error::UnknownOperation),
            ("[5, 0]", Error::UnknownOperation),
            ("[\"nope\"]", Error::UnknownOperation),
            ("[\"process\"]", Error::InvalidArguments),
            ("[\"process\", 0.5, 1]", Error::InvalidArguments),
            ("[\"enqueue\", true, 5, \"e\", []]", Error::InvalidArguments),
            ("[\"enqueue\", 0, 5, \"e\", []]", Error::InvalidArguments),
            ("[\"enqueue\", 0, \"s\", \"e\", []]", Error::InvalidOutcomes),
            ("[\"enable\", 0, 5, 1]", Error::InvalidArguments),
            ("[\"enable\", 0, \"s\", 1]", Error::InvalidArguments),
            ("[\"dead_letters\", 0, 5]", Error::InvalidArguments),
            (
                "[\"dead_letters\", 0, \"a\", \"b\"]",
                Error::InvalidArguments,
            ),
        ] {
            assert_eq!(decode(text), Err(e), "{text}");
        }
        assert_eq!(
            decode(r#"["dead_letters", 0]"#).map(|o| o.command),
            Ok(Command::DeadLetters { endpoint: None })
        );
    }
}
