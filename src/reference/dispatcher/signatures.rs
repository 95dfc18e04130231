//! Part 8, signatures (`sig.*`): an endpoint's signing secrets and their rotation, which secrets
//! signed each attempt, the headers an attempt carried, and the receiver's check. Signing is
//! noted only for attempts of endpoints that have a secret, and an HMAC is computed only when a
//! `signature` asks for one: a run without secrets pays one branch per attempt.

use super::{Dispatcher, Error, EventKey, Ts};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::VecDeque;

/// `sig.grace`: how long a retired secret keeps signing.
pub const GRACE: Ts = 86_400;
/// `sig.keep-ten`: how many previous secrets an endpoint keeps.
pub const KEEP: usize = 10;
/// `sig.verify`: how far the receiver's clock may be from the timestamp, either way.
pub const TOLERANCE: Ts = 300;

/// A signing key: the bytes a valid secret's base64 stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key(Box<[u8]>);

impl Key {
    /// `sig.secret-format`, `sig.secret-strict`: `whsec_` and the canonical, padded standard
    /// base64 of 24 to 64 bytes; anything else is `invalid secret`. The `base64` crate's
    /// standard engine requires the padding and rejects stray characters and non-zero unused
    /// bits, which is exactly the canonical form; the re-encoding check keeps it so whatever
    /// the engine's leniency.
    pub fn parse(secret: &str) -> Result<Key, Error> {
        let text = secret.strip_prefix("whsec_").ok_or(Error::InvalidSecret)?;
        let key = STANDARD.decode(text).map_err(|_| Error::InvalidSecret)?;
        if !(24..=64).contains(&key.len()) || STANDARD.encode(&key) != text {
            return Err(Error::InvalidSecret);
        }
        Ok(Key(key.into_boxed_slice()))
    }

    /// `v1,` and the signature of the signed content (`sig.signature`).
    fn sign(&self, id: &str, timestamp: &str, body: &str) -> String {
        format!("v1,{}", self.signature(id, timestamp, body))
    }

    /// The base64 of HMAC-SHA256 of `<id>.<timestamp>.<body>`: what follows `v1,` in a header
    /// and what `verify` compares an entry with.
    fn signature(&self, id: &str, timestamp: &str, body: &str) -> String {
        // HMAC takes a key of any length; none is refused.
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.0) else {
            return String::new();
        };
        for part in [id, ".", timestamp, ".", body] {
            mac.update(part.as_bytes());
        }
        STANDARD.encode(mac.finalize().into_bytes())
    }
}

/// An endpoint's secrets: every key it was ever given (attempts name their signers by place
/// here, so a key dropped from the previous ones still shows the attempts it signed), the
/// current one, and the previous ones with their rotation times, earliest retired first.
#[derive(Debug, Default)]
pub(crate) struct Secrets {
    keys: Vec<Key>,
    current: u32,
    previous: VecDeque<(u32, Ts)>,
}

impl Secrets {
    /// `sig.set-secret`, `sig.rotation`, `sig.same-secret`, `sig.keep-ten-oldest`.
    fn set(&mut self, key: Key, ts: Ts) {
        if self.keys.get(self.current as usize) == Some(&key) {
            return;
        }
        let known = self
            .previous
            .iter()
            .position(|&(k, _)| self.keys[k as usize] == key);
        let place = match known {
            Some(i) => self.previous.remove(i).map_or(0, |(k, _)| k),
            None => {
                self.keys.push(key);
                u32::try_from(self.keys.len() - 1).unwrap_or(u32::MAX)
            }
        };
        if self.keys.len() > 1 || known.is_some() {
            self.previous.push_back((self.current, ts));
            if self.previous.len() > KEEP {
                self.previous.pop_front();
            }
        }
        self.current = place;
    }

    /// `sig.signers`, `sig.grace-boundary`, `sig.signers-order`: the keys signing at `ts`,
    /// newest first.
    fn signers(&self, ts: Ts) -> Box<[u32]> {
        std::iter::once(self.current)
            .chain(
                self.previous
                    .iter()
                    .rev()
                    .filter(|&&(_, retired)| ts.saturating_sub(retired) < GRACE)
                    .map(|&(k, _)| k),
            )
            .collect()
    }
}

/// What one attempt carried: its number, the `ts` of the call that made it and its signers.
#[derive(Debug)]
pub(crate) struct Signed {
    number: u16,
    ts: Ts,
    signers: Box<[u32]>,
}

/// The headers of an attempt (`sig.signature`, `sig.timestamp-string`), in their order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Headers {
    pub id: String,
    pub timestamp: String,
    pub signature: String,
}

impl Headers {
    /// The three headers' names, in the order of their values: what `signature` writes and
    /// what `verify` reads (ignoring ASCII case, `sig.verify-headers`).
    pub const NAMES: [&str; 3] = ["webhook-id", "webhook-timestamp", "webhook-signature"];

    /// The values, in the order of [`Headers::NAMES`].
    pub fn values(&self) -> [&str; 3] {
        [&self.id, &self.timestamp, &self.signature]
    }
}

/// `verify`'s arguments once judged (`sig.verify-args`, `sig.verify-headers`): the keys, the
/// three headers (`None` when absent or empty) and the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verification {
    pub keys: Vec<Key>,
    pub id: Option<String>,
    pub timestamp: Option<String>,
    pub signature: Option<String>,
    pub body: String,
}

/// `sig.verify`, `sig.verify-timestamp`, `sig.verify-match`, `sig.verify-codes`: the receiver's
/// check at its clock `ts`. It reads no state.
pub fn verify(ts: Ts, v: &Verification) -> Result<(), Error> {
    let (Some(id), Some(timestamp), Some(signature)) = (&v.id, &v.timestamp, &v.signature) else {
        return Err(Error::MissingHeader);
    };
    let t = timestamp_value(timestamp).ok_or(Error::BadTimestamp)?;
    // Both are within 2^53 - 1 in magnitude, so the difference cannot overflow.
    if ts - t > TOLERANCE {
        return Err(Error::TimestampTooOld);
    }
    if t - ts > TOLERANCE {
        return Err(Error::TimestampTooNew);
    }
    let expected: Vec<String> = v
        .keys
        .iter()
        .map(|key| key.signature(id, timestamp, &v.body))
        .collect();
    let matched = signature.split(' ').any(|entry| {
        entry
            .split_once(',')
            .is_some_and(|(version, sig)| version == "v1" && expected.iter().any(|e| e == sig))
    });
    if matched {
        Ok(())
    } else {
        Err(Error::NoMatchingSignature)
    }
}

/// `sig.verify-timestamp`: `0`, or an optional `-` and a digit 1 to 9 and digits, of magnitude
/// at most 2^53 - 1.
fn timestamp_value(text: &str) -> Option<Ts> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = match digits.as_bytes() {
        [b'0'] => text == "0",
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !canonical || digits.len() > 16 {
        return None;
    }
    let value: Ts = text.parse().ok()?;
    (value.unsigned_abs() <= super::TS_LIMIT.unsigned_abs()).then_some(value)
}

impl Dispatcher {
    /// `sig.set-secret`: the secret was judged when the key was made, which is why `invalid
    /// secret` precedes `unknown endpoint` (`sig.set-secret-errors`).
    pub fn set_secret(&mut self, ts: Ts, endpoint_id: &str, key: Key) -> Result<(), Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        self.signed_ever = true;
        self.extras_ever = true;
        self.endpoints[endpoint.index()]
            .secrets
            .get_or_insert_default()
            .set(key, ts);
        Ok(())
    }

    /// Notes who signed attempt `number` of `key`, made at `ts`, if its endpoint has a secret.
    /// Out of line: most attempts are of endpoints without one.
    #[inline(never)]
    pub(super) fn note_signers(&mut self, key: EventKey, number: u32, ts: Ts) {
        let endpoint = self.events[key.index()].endpoint;
        let Some(secrets) = self.endpoints[endpoint.index()].secrets.as_deref() else {
            return;
        };
        let signed = Signed {
            number: u16::try_from(number).unwrap_or(u16::MAX),
            ts,
            signers: secrets.signers(ts),
        };
        self.signed.entry(key).or_default().push(signed);
    }

    /// `sig.attempt-n`, `sig.replay`: a revived event's attempts are numbered from 1 again, and
    /// those of before are no longer asked for.
    pub(super) fn signed_forget(&mut self, key: EventKey) {
        if !self.signed.is_empty() {
            self.signed.remove(&key);
        }
    }

    /// `sig.signature`, `sig.signature-codes`: the headers attempt `n` of the event carried.
    pub fn signature(&self, event_id: &str, n: u64) -> Result<Headers, Error> {
        let key = self.event_key(event_id)?;
        let event = &self.events[key.index()];
        if n == 0 || n > u64::from(event.attempts) {
            return Err(Error::AttemptNotMade);
        }
        let signed = self
            .signed
            .get(&key)
            .and_then(|list| list.iter().rev().find(|s| u64::from(s.number) == n))
            .ok_or(Error::NoSecret)?;
        let Some(secrets) = self.endpoints[event.endpoint.index()].secrets.as_deref() else {
            return Err(Error::NoSecret);
        };
        let id = self.event_id(key);
        let timestamp = signed.ts.to_string();
        let body = self.payloads.get(&key).map_or("", |b| b);
        let signature = signed
            .signers
            .iter()
            .filter_map(|&k| secrets.keys.get(k as usize))
            .map(|k| k.sign(id, &timestamp, body))
            .collect::<Vec<_>>()
            .join(" ");
        Ok(Headers {
            id: id.to_owned(),
            timestamp,
            signature,
        })
    }

    /// `sig.payload`: the body of every attempt of `key`; an empty one is not kept.
    pub(super) fn keep_payload(&mut self, key: EventKey, payload: &str) {
        if !payload.is_empty() {
            self.payloads.insert(key, payload.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    #[test]
    fn the_roadmaps_known_answer() {
        let key = Key::parse(KNOWN).expect("a valid secret");
        assert_eq!(
            key.sign(
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                "1614265330",
                r#"{"test": 2432232314}"#
            ),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn secrets_are_strict() {
        let bytes = |n: usize| STANDARD.encode(vec![7u8; n]);
        assert!(Key::parse(&format!("whsec_{}", bytes(24))).is_ok());
        assert!(Key::parse(&format!("whsec_{}", bytes(64))).is_ok());
        for bad in [
            format!("whsec_{}", bytes(23)),
            format!("whsec_{}", bytes(65)),
            format!("WHSEC_{}", bytes(24)),
            format!("whsec_{}", bytes(25).trim_end_matches('=')),
            format!("whsec_{} ", bytes(24)),
            // Non-zero unused bits: the last character of a 25-byte key's text changed.
            format!("whsec_{}", bytes(25).replacen("Bw==", "Bx==", 1)),
            "whsec_".to_owned(),
            "whsec_-_-_".to_owned(),
        ] {
            assert_eq!(Key::parse(&bad), Err(Error::InvalidSecret), "{bad}");
        }
    }

    #[test]
    fn timestamps_are_canonical_integers() {
        assert_eq!(timestamp_value("0"), Some(0));
        assert_eq!(timestamp_value("-5"), Some(-5));
        assert_eq!(timestamp_value("9007199254740991"), Some((1 << 53) - 1));
        for bad in [
            "",
            "-",
            "-0",
            "01",
            "+1",
            "1.0",
            "1e9",
            " 1",
            "9007199254740992",
            "99999999999999999",
        ] {
            assert_eq!(timestamp_value(bad), None, "{bad}");
        }
    }

    #[test]
    fn rotation_keeps_ten_and_grace_is_half_open() {
        let key = |b: u8| Key(vec![b; 24].into_boxed_slice());
        let mut s = Secrets::default();
        s.set(key(0), 0);
        assert_eq!(&*s.signers(0), &[0]);
        s.set(key(0), 5);
        assert!(
            s.previous.is_empty(),
            "the same secret again is no rotation"
        );
        s.set(key(1), 100);
        assert_eq!(&*s.signers(100 + GRACE - 1), &[1, 0]);
        assert_eq!(&*s.signers(100 + GRACE), &[1]);
        // Back to the first: it leaves the previous ones as it becomes current.
        s.set(key(0), 200);
        assert_eq!(&*s.signers(200), &[0, 1]);
        for b in 2..14 {
            s.set(key(b), 300);
        }
        assert_eq!(s.previous.len(), KEEP);
        assert_eq!(s.signers(300).len(), KEEP + 1);
    }
}
