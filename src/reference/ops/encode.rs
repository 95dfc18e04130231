//! A [`Reply`] as the brief's JSON: written straight into a byte buffer (no `Value` in between),
//! or built as a `Value` where a caller compares results with a case file's expectations. Both
//! give exactly what serde_json would print for the same result: compact, keys in the order
//! `state`, `attempts`, `next_attempt_at` (and `attempts`, `waits`, `disable_on_gone` for a
//! policy), strings escaped as serde_json escapes them.

use super::Reply;
use crate::dispatcher::{Attempt, Dispatcher, Headers, Outcome, RetryPolicy, Status};
use crate::escape::plain_len;
use serde_json::{Map, Value};

impl Reply<'_> {
    /// Whether dropping the reply frees memory: only these variants own any.
    pub fn owns_memory(&self) -> bool {
        matches!(
            self,
            Reply::DeadLetters(_) | Reply::DeadLetter(..) | Reply::Signature(_)
        )
    }

    /// Appends the reply's JSON to `out`.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Reply::True => out.extend_from_slice(b"true"),
            Reply::Queued => out.extend_from_slice(b"\"queued\""),
            Reply::Attempts(d, attempts) => {
                out.push(b'[');
                for (i, a) in attempts.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_record(out, d, a);
                    if a.disabled_endpoint {
                        out.push(b',');
                        write_disabled(out, d, a);
                    }
                }
                out.push(b']');
            }
            Reply::Status(s) => write_status(out, s),
            Reply::Policy(p) => write_policy(out, p),
            Reply::Endpoint(r) => {
                out.extend_from_slice(if r.disabled.is_some() {
                    b"{\"disabled\":true,\"reason\":"
                } else {
                    b"{\"disabled\":false,\"reason\":"
                });
                match r.disabled {
                    Some(reason) => write_json_string(out, reason.as_str()),
                    None => out.extend_from_slice(b"null"),
                }
                out.extend_from_slice(b",\"consecutive_failures\":");
                write_int(out, i64::from(r.consecutive_failures));
                if let Some(state) = r.breaker {
                    out.extend_from_slice(b",\"breaker\":{\"state\":");
                    write_json_string(out, state.as_str());
                    out.extend_from_slice(b",\"until\":");
                    match state.until() {
                        Some(until) => write_int(out, until),
                        None => out.extend_from_slice(b"null"),
                    }
                    out.push(b'}');
                }
                out.push(b'}');
            }
            Reply::DeadLetter(d, l) => {
                out.extend_from_slice(b"{\"endpoint\":");
                write_json_string(out, d.endpoint_of(l.event));
                out.extend_from_slice(b",\"attempts\":");
                write_int(out, i64::from(l.attempts));
                out.extend_from_slice(b",\"last_status\":");
                match l.last_status {
                    Some(status) => write_int(out, i64::from(status)),
                    None => out.extend_from_slice(b"null"),
                }
                out.extend_from_slice(b",\"died_at\":");
                write_int(out, l.died_at);
                if l.expired {
                    out.extend_from_slice(b",\"reason\":\"expired\"");
                }
                out.push(b'}');
            }
            Reply::Count(n) => write_int(out, i64::try_from(*n).unwrap_or(i64::MAX)),
            Reply::DeadLetters(ids) => {
                out.push(b'[');
                for (i, id) in ids.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_json_string(out, id);
                }
                out.push(b']');
            }
            Reply::Signature(h) => {
                for (i, (name, value)) in Headers::NAMES.iter().zip(h.values()).enumerate() {
                    out.push(if i == 0 { b'{' } else { b',' });
                    write_json_string(out, name);
                    out.push(b':');
                    write_json_string(out, value);
                }
                out.push(b'}');
            }
            Reply::Error(e) => {
                out.extend_from_slice(b"\"error: ");
                out.extend_from_slice(e.code().as_bytes());
                out.push(b'"');
            }
        }
    }

    /// The reply as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            Reply::True => Value::Bool(true),
            Reply::Queued => Value::from("queued"),
            Reply::Attempts(d, attempts) => {
                let mut records = Vec::with_capacity(attempts.len());
                for a in attempts.iter() {
                    records.push(Value::String(d.record(a).to_string()));
                    if a.disabled_endpoint {
                        records.push(Value::String(format!(
                            "{} disabled",
                            d.endpoint_of(a.event)
                        )));
                    }
                }
                Value::Array(records)
            }
            Reply::Endpoint(r) => {
                let mut m = Map::new();
                m.insert("disabled".into(), Value::Bool(r.disabled.is_some()));
                m.insert(
                    "reason".into(),
                    r.disabled
                        .map_or(Value::Null, |reason| reason.as_str().into()),
                );
                m.insert(
                    "consecutive_failures".into(),
                    Value::from(r.consecutive_failures),
                );
                if let Some(state) = r.breaker {
                    m.insert(
                        "breaker".into(),
                        serde_json::json!({"state": state.as_str(), "until": state.until()}),
                    );
                }
                Value::Object(m)
            }
            Reply::DeadLetter(d, l) => {
                let mut m = Map::new();
                m.insert("endpoint".into(), Value::from(d.endpoint_of(l.event)));
                m.insert("attempts".into(), Value::from(l.attempts));
                m.insert("last_status".into(), Value::from(l.last_status));
                m.insert("died_at".into(), Value::from(l.died_at));
                if l.expired {
                    m.insert("reason".into(), Value::from("expired"));
                }
                Value::Object(m)
            }
            Reply::Count(n) => Value::from(*n),
            Reply::Signature(h) => Value::Object(
                Headers::NAMES
                    .iter()
                    .zip(h.values())
                    .map(|(name, value)| ((*name).to_string(), Value::from(value)))
                    .collect(),
            ),
            Reply::Policy(p) => {
                let mut m = Map::new();
                m.insert("attempts".into(), Value::from(p.attempts()));
                m.insert("waits".into(), p.waits().iter().copied().collect());
                if let Some(flag) = p.disable_on_gone() {
                    m.insert("disable_on_gone".into(), Value::Bool(flag));
                }
                if let Some(threshold) = p.disable_after() {
                    m.insert("disable_after".into(), Value::from(threshold));
                }
                if let Some(t) = p.throttle() {
                    m.insert(
                        "throttle".into(),
                        serde_json::json!({"burst": t.burst(), "interval": t.interval()}),
                    );
                }
                if let Some(age) = p.max_age() {
                    m.insert("max_age".into(), Value::from(age));
                }
                if let Some(b) = p.breaker() {
                    m.insert(
                        "breaker".into(),
                        serde_json::json!({"failures": b.failures(), "window": b.window(),
                            "open_for": b.open_for(), "probes": b.probes()}),
                    );
                }
                Value::Object(m)
            }
            Reply::Status(s) => {
                let mut m = Map::new();
                m.insert("state".into(), Value::from(s.state.as_str()));
                m.insert("attempts".into(), Value::from(s.attempts));
                m.insert("next_attempt_at".into(), s.next_attempt_at.into());
                Value::Object(m)
            }
            Reply::DeadLetters(ids) => ids.iter().map(|id| Value::from(*id)).collect(),
            Reply::Error(e) => Value::String(e.to_string()),
        }
    }
}

/// `,"<key>":{"<name>":<n>,...}`: a policy's object of counts (a throttle, a breaker), whose
/// names are plain.
fn write_counts(out: &mut Vec<u8>, key: &str, fields: &[(&str, u32)]) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":{");
    for (i, (name, n)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":");
        write_int(out, i64::from(*n));
    }
    out.push(b'}');
}

/// `"<event_id> #<n> <status> <outcome>"`: only the id can need escaping, and the dispatcher
/// knows whether it does. The rest is put together on the stack, back to front (numbers come
/// out last digit first), and copied once: `hookcheck run` writes one of these for every
/// attempt.
fn write_record(out: &mut Vec<u8>, d: &Dispatcher, a: &Attempt) {
    let (id, plain) = d.event_id_json(a.event);
    if plain {
        out.push(b'"');
        out.extend_from_slice(id);
    } else {
        write_json_bytes(out, id);
        // Re-open the string the id's closing quote ended.
        out.pop();
    }
    let mut tail = Tail::new();
    match a.outcome {
        Outcome::Throttled(until) => {
            tail.put(b"\"");
            tail.int(until);
            tail.put(b" throttled until ");
            out.extend_from_slice(tail.bytes());
            return;
        }
        Outcome::Expired => {
            out.extend_from_slice(b" expired\"");
            return;
        }
        Outcome::Held(until) => {
            tail.put(b"\"");
            tail.int(until);
            tail.put(b" held until ");
            out.extend_from_slice(tail.bytes());
            return;
        }
        Outcome::Delivered => tail.put(b" delivered\""),
        Outcome::Dead => tail.put(b" dead\""),
        Outcome::RetryAt(due) => {
            tail.put(b"\"");
            tail.int(due);
            tail.put(b" retry at ");
        }
    }
    tail.int(i64::from(a.status));
    tail.put(b" ");
    tail.int(i64::from(a.number));
    tail.put(b" #");
    out.extend_from_slice(tail.bytes());
}

/// A short run of output put together back to front, then copied once: room enough for the
/// longest status, the tail of a record (three integers of at most 20 characters and some
/// words) or one number.
struct Tail {
    buf: [u8; 96],
    start: usize,
}

/// "00" to "99", for writing numbers two digits at a time.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

impl Tail {
    fn new() -> Self {
        Tail {
            buf: [0; 96],
            start: 96,
        }
    }

    /// Puts `bytes` before what is there.
    fn put(&mut self, bytes: &[u8]) {
        let Some(from) = self.start.checked_sub(bytes.len()) else {
            return;
        };
        if let Some(to) = self.buf.get_mut(from..self.start) {
            to.copy_from_slice(bytes);
            self.start = from;
        }
    }

    /// Puts `n` in decimal, as serde_json writes it, before what is there.
    fn int(&mut self, n: i64) {
        let mut m = n.unsigned_abs();
        while m >= 100 {
            let pair = (m % 100) as usize * 2;
            m /= 100;
            self.put(PAIRS.get(pair..pair + 2).unwrap_or(b"00"));
        }
        if m >= 10 {
            let pair = m as usize * 2;
            self.put(PAIRS.get(pair..pair + 2).unwrap_or(b"00"));
        } else {
            self.put(&[b'0' + m as u8]);
        }
        if n < 0 {
            self.put(b"-");
        }
    }

    fn bytes(&self) -> &[u8] {
        self.buf.get(self.start..).unwrap_or(&[])
    }
}

/// `"<endpoint_id> disabled"` (`gone.disable`, `gone.disabled-record`).
fn write_disabled(out: &mut Vec<u8>, d: &Dispatcher, a: &Attempt) {
    write_json_string(out, d.endpoint_of(a.event));
    out.pop();
    out.extend_from_slice(b" disabled\"");
}

fn write_policy(out: &mut Vec<u8>, p: &RetryPolicy) {
    out.extend_from_slice(b"{\"attempts\":");
    write_int(out, i64::from(p.attempts()));
    out.extend_from_slice(b",\"waits\":[");
    for (i, w) in p.waits().iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_int(out, i64::from(*w));
    }
    out.push(b']');
    if let Some(flag) = p.disable_on_gone() {
        out.extend_from_slice(if flag {
            b",\"disable_on_gone\":true"
        } else {
            b",\"disable_on_gone\":false"
        });
    }
    if let Some(threshold) = p.disable_after() {
        out.extend_from_slice(b",\"disable_after\":");
        write_int(out, i64::from(threshold));
    }
    if let Some(t) = p.throttle() {
        write_counts(
            out,
            "throttle",
            &[("burst", t.burst()), ("interval", t.interval())],
        );
    }
    if let Some(age) = p.max_age() {
        out.extend_from_slice(b",\"max_age\":");
        write_int(out, i64::from(age));
    }
    if let Some(b) = p.breaker() {
        let fields = [
            ("failures", b.failures()),
            ("window", b.window()),
            ("open_for", b.open_for()),
            ("probes", b.probes()),
        ];
        write_counts(out, "breaker", &fields);
    }
    out.push(b'}');
}

fn write_status(out: &mut Vec<u8>, s: &Status) {
    let mut tail = Tail::new();
    tail.put(b"}");
    match s.next_attempt_at {
        Some(t) => tail.int(t),
        None => tail.put(b"null"),
    }
    tail.put(b",\"next_attempt_at\":");
    tail.int(i64::from(s.attempts));
    tail.put(b"\",\"attempts\":");
    tail.put(s.state.as_str().as_bytes());
    tail.put(b"{\"state\":\"");
    out.extend_from_slice(tail.bytes());
}

fn write_int(out: &mut Vec<u8>, n: i64) {
    let mut tail = Tail::new();
    tail.int(n);
    out.extend_from_slice(tail.bytes());
}

/// Writes `s` as a JSON string, escaped exactly as serde_json escapes: `"` and `\`, and control
/// characters below 0x20 (the five with short forms as `\b \t \n \f \r`, the rest as `\u00XX`).
/// Everything else, non-ASCII included, is written as it is.
pub fn write_json_string(out: &mut Vec<u8>, s: &str) {
    write_json_bytes(out, s.as_bytes());
}

/// [`write_json_string`] for the bytes of a `str`.
fn write_json_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    // Ids rarely need escaping: copy them whole unless a byte asks for it.
    let first = plain_len(bytes);
    if first == bytes.len() {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate().skip(first) {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\t' => b"\\t",
            b'\r' => b"\\r",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if escape.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(escape);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::Prng;

    #[test]
    fn integers_are_written_as_serde_json_writes_them() {
        let mut p = Prng::new(3);
        let mut samples = vec![0, 1, -1, 9, 10, 99, 100, i64::MAX, i64::MIN, i64::MIN + 1];
        samples.extend((0..2000).map(|_| p.next_u64() as i64 >> p.below(64)));
        for n in samples {
            let mut tail = Tail::new();
            tail.put(b"x");
            tail.int(n);
            tail.int(n);
            assert_eq!(tail.bytes(), format!("{n}{n}x").as_bytes());
        }
        // The longest status fits its line whole.
        let mut out = Vec::new();
        write_status(
            &mut out,
            &Status {
                state: crate::dispatcher::State::Delivered,
                attempts: u32::MAX,
                next_attempt_at: Some(i64::MIN),
            },
        );
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!(
                r#"{{"state":"delivered","attempts":{},"next_attempt_at":{}}}"#,
                u32::MAX,
                i64::MIN
            )
        );
    }

    #[test]
    fn a_signature_is_written_as_its_value_prints() {
        // An id a hostile case may give: quotes, a backslash, a line break, a control byte.
        let h = Headers {
            id: "e\"1\\\n\u{1}".to_string(),
            timestamp: "-5".to_string(),
            signature: "v1,a+/= v1,b".to_string(),
        };
        let reply = Reply::Signature(Box::new(h));
        let mut out = Vec::new();
        reply.write_json(&mut out);
        assert_eq!(
            String::from_utf8_lossy(&out),
            serde_json::to_string(&reply.to_value()).unwrap_or_default()
        );
        assert!(out.starts_with(br#"{"webhook-id":"e\"1\\\n\u0001","webhook-timestamp":"-5""#));
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut samples: Vec<String> = (0u32..0x80)
            .filter_map(char::from_u32)
            .map(|c| format!("a{c}b"))
            .collect();
        samples.extend(
            [
                "",
                "evt-1",
                "é ü 漢字 🙂",
                "\u{7f}\u{2028}\u{2029}",
                "\"\\\"/",
            ]
            .map(String::from),
        );
        let mut p = Prng::new(1);
        for _ in 0..2000 {
            let len = p.below(12);
            samples.push(
                (0..len)
                    .filter_map(|_| char::from_u32(p.below(0x3000) as u32))
                    .collect(),
            );
        }
        for s in samples {
            let mut out = Vec::new();
            write_json_string(&mut out, &s);
            assert_eq!(
                String::from_utf8_lossy(&out),
                Value::from(s.as_str()).to_string(),
                "{s:?}"
            );
        }
    }
}
