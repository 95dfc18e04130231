//! Signatures (roadmap Part 8, Standard Webhooks): the secrets an endpoint signs with and their
//! rotation, what an attempt records of them, the headers it carried, and the receiver's check.
//!
//! An attempt does not compute its signatures when it is made. It keeps its `ts` and a shared
//! snapshot of its endpoint's secrets ([`Signing`]), which no later `set_secret` changes (a
//! rotation copies the secrets when an attempt still holds them), so the headers are computed
//! only when `signature` asks for them, and exactly as they were at the attempt
//! (`sig.signers-order`). Attempts of an endpoint without a secret keep nothing.

use std::collections::VecDeque;
use std::fmt;
use std::ops::RangeInclusive;
use std::rc::Rc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::Error;
use crate::schedule::MAX_SAFE_INTEGER;

type HmacSha256 = Hmac<Sha256>;

/// The three headers every attempt carries, as named in `signature`'s result; `verify` matches
/// them ignoring ASCII case (`sig.verify-headers`).
pub const ID_HEADER: &str = "webhook-id";
pub const TIMESTAMP_HEADER: &str = "webhook-timestamp";
pub const SIGNATURE_HEADER: &str = "webhook-signature";

/// What starts every secret, in lower case (`sig.secret-strict`).
const PREFIX: &str = "whsec_";
/// Bounds of a key's length in bytes (`sig.secret-format`).
const KEY_BYTES: RangeInclusive<usize> = 24..=64;
/// How long a previous secret keeps signing after its rotation, in seconds (`sig.grace`).
const GRACE: i64 = 86_400;
/// How many previous secrets an endpoint keeps (`sig.keep-ten`).
const KEEP: usize = 10;
/// How far the receiver's clock and the timestamp may be apart either way (`sig.verify`).
const TOLERANCE: i64 = 300;
/// The one signature version there is: `v1,<base64>` (`sig.signature`, `sig.verify-match`).
const VERSION: &str = "v1";

/// A valid secret (`sig.secret-strict`): its text, by which secrets are compared
/// (`sig.same-secret`), and HMAC-SHA256 already keyed with its key.
#[derive(Clone)]
pub struct Secret {
    text: Box<str>,
    keyed: HmacSha256,
}

impl Secret {
    /// `whsec_` then the canonical padded standard base64 of 24 to 64 bytes, or `invalid
    /// secret`. Decoding then encoding again and comparing rules out every other spelling of a
    /// key: whitespace, the URL-safe alphabet, missing or extra padding, non-zero unused bits.
    pub fn parse(text: &str) -> Result<Secret, Error> {
        let encoded = text.strip_prefix(PREFIX).ok_or(Error::InvalidSecret)?;
        let key = STANDARD.decode(encoded).map_err(|_| Error::InvalidSecret)?;
        if !KEY_BYTES.contains(&key.len()) || STANDARD.encode(&key) != encoded {
            return Err(Error::InvalidSecret);
        }
        // HMAC takes a key of any length, so this never fails.
        let keyed = HmacSha256::new_from_slice(&key).map_err(|_| Error::InvalidSecret)?;
        Ok(Secret {
            text: text.into(),
            keyed,
        })
    }

    /// The HMAC of the signed content `<id>.<timestamp>.<body>` (UTF-8), not yet finalized.
    fn mac(&self, id: &str, timestamp: &str, body: &str) -> HmacSha256 {
        let mut mac = self.keyed.clone();
        for part in [id, ".", timestamp, ".", body] {
            mac.update(part.as_bytes());
        }
        mac
    }

    /// `v1,` and the padded standard base64 of the signed content's HMAC (`sig.signature`).
    fn sign(&self, id: &str, timestamp: &str, body: &str) -> String {
        let tag = self.mac(id, timestamp, body).finalize().into_bytes();
        format!("{VERSION},{}", STANDARD.encode(tag))
    }
}

impl PartialEq for Secret {
    fn eq(&self, other: &Secret) -> bool {
        self.text == other.text
    }
}

impl Eq for Secret {}

impl fmt::Debug for Secret {
    /// The prefix only: a secret is not printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(whsec_…)")
    }
}

/// A previous secret and its rotation time R, the `ts` of the `set_secret` that retired it.
#[derive(Debug, Clone)]
struct Retired {
    secret: Secret,
    at: i64,
}

/// An endpoint's current secret and its previous ones, most recently retired first.
#[derive(Debug, Clone)]
struct Keyring {
    current: Secret,
    /// At most [`KEEP`]; the back is the earliest retired, the first dropped
    /// (`sig.keep-ten-oldest`). Past their grace they stay and sign nothing.
    previous: VecDeque<Retired>,
}

impl Keyring {
    /// Makes `secret` current, retiring the current one at `ts` (`sig.rotation`). `secret` is
    /// not the current one; if it is a previous one it leaves that list (`sig.same-secret`).
    fn rotate(&mut self, secret: Secret, ts: i64) {
        self.previous.retain(|retired| retired.secret != secret);
        let current = std::mem::replace(&mut self.current, secret);
        self.previous.push_front(Retired {
            secret: current,
            at: ts,
        });
        self.previous.truncate(KEEP);
    }

    /// The secrets signing an attempt made at `ts`, newest first (`sig.signers`): the current
    /// one, then each previous one within its grace, `ts - R < 86400` (`sig.grace-boundary`).
    fn signers(&self, ts: i64) -> impl Iterator<Item = &Secret> {
        let in_grace = self
            .previous
            .iter()
            .filter(move |retired| ts - retired.at < GRACE)
            .map(|retired| &retired.secret);
        std::iter::once(&self.current).chain(in_grace)
    }
}

/// An endpoint's signing secrets: none until its first `set_secret`.
#[derive(Debug, Default)]
pub struct Secrets(Option<Rc<Keyring>>);

impl Secrets {
    /// `set_secret` (`sig.set-secret`, `sig.rotation`, `sig.same-secret`): the first secret
    /// becomes current; the current one again changes nothing; another one rotates. The
    /// keyring is copied first if an attempt's [`Signing`] still shares it.
    pub fn set(&mut self, secret: Secret, ts: i64) {
        match &mut self.0 {
            None => {
                self.0 = Some(Rc::new(Keyring {
                    current: secret,
                    previous: VecDeque::new(),
                }));
            }
            Some(keyring) if keyring.current == secret => {}
            Some(keyring) => Rc::make_mut(keyring).rotate(secret, ts),
        }
    }

    /// What an attempt made now, at `ts`, keeps to show its headers later; `None` when the
    /// endpoint has no secret, as such an attempt carried no signature (`sig.signature-codes`).
    pub fn sign_at(&self, ts: i64) -> Option<Signing> {
        self.0.as_ref().map(|keyring| Signing {
            ts,
            keyring: Rc::clone(keyring),
        })
    }
}

/// How one attempt was signed: the `ts` of the `process` call that made it and the secrets its
/// endpoint had then.
#[derive(Debug, Clone)]
pub struct Signing {
    ts: i64,
    keyring: Rc<Keyring>,
}

impl Signing {
    /// The headers the attempt carried (`sig.signature`, `sig.timestamp-string`): the event id,
    /// the attempt's `ts` as decimal text, and one `v1` signature per signing secret, newest
    /// first, separated by single spaces.
    pub fn headers(&self, event_id: &str, body: &str) -> Headers {
        let timestamp = self.ts.to_string();
        let signature = self
            .keyring
            .signers(self.ts)
            .map(|secret| secret.sign(event_id, &timestamp, body))
            .collect::<Vec<_>>()
            .join(" ");
        Headers {
            id: event_id.to_owned(),
            timestamp,
            signature,
        }
    }
}

/// The headers of an attempt, as `signature` returns them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Headers {
    pub id: String,
    pub timestamp: String,
    pub signature: String,
}

/// The three headers as `verify` received them, each `None` when no key names it; other headers
/// are dropped by decoding, having no effect once their values are known to be strings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Received {
    pub id: Option<String>,
    pub timestamp: Option<String>,
    pub signature: Option<String>,
}

/// The receiver's check (`sig.verify`), reasons in `sig.verify-codes`' order: a missing (or
/// empty) header, a bad timestamp, one too old or too new for the clock `now`, then no `v1`
/// signature matching any of `secrets`. Reads no dispatcher state.
pub fn verify(now: i64, secrets: &[Secret], received: &Received, body: &str) -> Result<(), Error> {
    let (Some(id), Some(timestamp), Some(signature)) = (
        present(&received.id),
        present(&received.timestamp),
        present(&received.signature),
    ) else {
        return Err(Error::MissingHeader);
    };
    let sent = timestamp_value(timestamp).ok_or(Error::BadTimestamp)?;
    // Both within 2^53 - 1 in magnitude, so the differences fit.
    if now - sent > TOLERANCE {
        return Err(Error::TimestampTooOld);
    }
    if sent - now > TOLERANCE {
        return Err(Error::TimestampTooNew);
    }
    // Entries split at every space, then at their first comma; other versions, empty entries,
    // entries without a comma and signatures that are not canonical padded base64 are skipped
    // (`sig.verify-match`). Strict decoding keeps exactly the texts `sign` can produce.
    let tags: Vec<Vec<u8>> = signature
        .split(' ')
        .filter_map(|entry| entry.split_once(','))
        .filter(|&(version, _)| version == VERSION)
        .filter_map(|(_, tag)| STANDARD.decode(tag).ok())
        .collect();
    let matches = secrets.iter().any(|secret| {
        let mac = secret.mac(id, timestamp, body);
        // `verify_slice` compares in constant time and rejects a tag of another length.
        tags.iter().any(|tag| mac.clone().verify_slice(tag).is_ok())
    });
    if matches {
        Ok(())
    } else {
        Err(Error::NoMatchingSignature)
    }
}

/// A header's value unless it is absent or empty, which is the same (`sig.verify-headers`).
fn present(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|value| !value.is_empty())
}

/// The value of a `webhook-timestamp` that is an integer's decimal text: `0`, or an optional `-`
/// then a digit 1 to 9 then digits, at most 2^53 - 1 in magnitude (`sig.verify-timestamp`).
fn timestamp_value(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = text == "0"
        || (digits.starts_with(|c: char| ('1'..='9').contains(&c))
            && digits.bytes().all(|b| b.is_ascii_digit()));
    if !canonical {
        return None;
    }
    // Too many digits for an i64 is out of range as well.
    let value: i64 = text.parse().ok()?;
    (value.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KA: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const KB: &str = "whsec_aG9va2NoZWNrIGtleSBCLCAzMiBieXRlcyBsb25nISE=";
    const KNOWN_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const KNOWN_BODY: &str = r#"{"test": 2432232314}"#;
    const KNOWN_SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn secret(text: &str) -> Secret {
        Secret::parse(text).expect("valid secret")
    }

    /// A secret of `n` bytes, each `b`, as text.
    fn of_bytes(n: usize, b: u8) -> String {
        format!("{PREFIX}{}", STANDARD.encode(vec![b; n]))
    }

    fn known_headers() -> Received {
        Received {
            id: Some(KNOWN_ID.into()),
            timestamp: Some("1614265330".into()),
            signature: Some(KNOWN_SIGNATURE.into()),
        }
    }

    #[test]
    fn the_roadmaps_known_answer() {
        let mut secrets = Secrets::default();
        secrets.set(secret(KA), 0);
        let signing = secrets.sign_at(1_614_265_330).expect("has a secret");
        assert_eq!(
            signing.headers(KNOWN_ID, KNOWN_BODY),
            Headers {
                id: KNOWN_ID.into(),
                timestamp: "1614265330".into(),
                signature: KNOWN_SIGNATURE.into(),
            }
        );
        assert_eq!(
            verify(1_614_265_330, &[secret(KA)], &known_headers(), KNOWN_BODY),
            Ok(())
        );
    }

    #[test]
    fn secrets_are_strict() {
        for n in [24, 25, 26, 32, 63, 64] {
            assert!(Secret::parse(&of_bytes(n, 0xfb)).is_ok(), "{n} bytes");
        }
        for n in [0, 1, 23, 65, 100] {
            assert_eq!(
                Secret::parse(&of_bytes(n, 7)).map(|_| ()),
                Err(Error::InvalidSecret),
                "{n} bytes"
            );
        }
        for bad in [
            "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "Whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "whsec_",
            "whsec_ MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n",
            "whsec_MfKQ9r8GKYqrTwjUPD8I\nLPZIo2LaLaSw",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw====",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw=",
            "whsec_aG9va2NoZWNrIGtleSBCLCAzMiBieXRlcyBsb25nISE",
            "whsec_aG9va2NoZWNrIGtleSBCLCAzMiBieXRlcyBsb25nIS=E",
            "whsec_aG9va2NoZWNrIGtleSBG----____ISEh",
            "whsec_aG9va2NoZWNrIGtleSBFLCAyNSBieXRlcx==",
        ] {
            assert_eq!(
                Secret::parse(bad).map(|_| ()),
                Err(Error::InvalidSecret),
                "{bad:?}"
            );
        }
        assert!(Secret::parse("whsec_aG9va2NoZWNrIGtleSBG++++////ISEh").is_ok());
    }

    fn signer_texts(secrets: &Secrets, ts: i64) -> Vec<&str> {
        let keyring = secrets.0.as_ref().expect("has a secret");
        keyring.signers(ts).map(|secret| &*secret.text).collect()
    }

    #[test]
    fn rotation_grace_and_the_ten_kept() {
        let keys: Vec<String> = (0..12).map(|i| of_bytes(24, i)).collect();
        let mut secrets = Secrets::default();
        secrets.set(secret(&keys[0]), 0);
        secrets.set(secret(&keys[1]), 1000);
        // The current secret again: no rotation, KA's grace still ends at 87400.
        secrets.set(secret(&keys[1]), 2000);
        assert_eq!(
            signer_texts(&secrets, 87_399),
            [keys[1].as_str(), keys[0].as_str()]
        );
        assert_eq!(signer_texts(&secrets, 87_400), [keys[1].as_str()]);
        // A ts before the rotation is within the grace.
        assert_eq!(
            signer_texts(&secrets, -5),
            [keys[1].as_str(), keys[0].as_str()]
        );
        // A previous secret set again leaves the list: it signs once.
        secrets.set(secret(&keys[0]), 3000);
        assert_eq!(
            signer_texts(&secrets, 3000),
            [keys[0].as_str(), keys[1].as_str()]
        );

        let mut secrets = Secrets::default();
        for (ts, key) in keys.iter().enumerate() {
            secrets.set(secret(key), ts as i64);
        }
        let newest_first: Vec<&str> = keys.iter().rev().take(11).map(String::as_str).collect();
        assert_eq!(signer_texts(&secrets, 11), newest_first);
    }

    #[test]
    fn an_attempts_signing_keeps_the_secrets_of_its_time() {
        let mut secrets = Secrets::default();
        assert!(secrets.sign_at(0).is_none());
        secrets.set(secret(KA), 0);
        let first = secrets.sign_at(5).expect("has a secret");
        secrets.set(secret(KB), 10);
        let second = secrets.sign_at(20).expect("has a secret");
        assert_eq!(first.keyring.signers(5).count(), 1);
        assert_eq!(second.keyring.signers(20).count(), 2);
        assert_eq!(first.headers("e", "").timestamp, "5");
    }

    #[test]
    fn timestamps_are_an_integers_decimal_text() {
        for (text, value) in [
            ("0", 0),
            ("-5", -5),
            ("1614265330", 1_614_265_330),
            ("9007199254740991", MAX_SAFE_INTEGER),
            ("-9007199254740991", -MAX_SAFE_INTEGER),
        ] {
            assert_eq!(timestamp_value(text), Some(value), "{text}");
        }
        for text in [
            "",
            "-",
            "-0",
            "+1",
            "01",
            "1.0",
            "1e9",
            " 1",
            "1 ",
            "9007199254740992",
            "-9007199254740992",
            "99999999999999999999999",
            "2021-02-25T15:02:10Z",
            "١٢",
        ] {
            assert_eq!(timestamp_value(text), None, "{text:?}");
        }
    }

    #[test]
    fn verify_reasons_in_order() {
        let ka = [secret(KA)];
        let now = 1_614_265_330;
        let mut headers = known_headers();
        headers.signature = Some(String::new());
        headers.timestamp = Some("soon".into());
        assert_eq!(
            verify(now, &ka, &headers, KNOWN_BODY),
            Err(Error::MissingHeader)
        );
        headers.signature = Some("v2,x".into());
        assert_eq!(
            verify(now, &ka, &headers, KNOWN_BODY),
            Err(Error::BadTimestamp)
        );
        headers.timestamp = Some("1614265030".into());
        assert_eq!(
            verify(now, &ka, &headers, KNOWN_BODY),
            Err(Error::NoMatchingSignature)
        );
        headers.timestamp = Some("1614265029".into());
        assert_eq!(
            verify(now, &ka, &headers, KNOWN_BODY),
            Err(Error::TimestampTooOld)
        );
        headers.timestamp = Some("1614265631".into());
        assert_eq!(
            verify(now, &ka, &headers, KNOWN_BODY),
            Err(Error::TimestampTooNew)
        );
    }

    #[test]
    fn verify_skips_entries_it_cannot_use() {
        let ka = [secret(KA)];
        let now = 1_614_265_330;
        let good = &KNOWN_SIGNATURE[3..];
        let unpadded = good.trim_end_matches('=');
        for (signature, ok) in [
            (format!("v1a,{good} v2,{good} v1,{good}"), true),
            (format!("  v1,Zm9v v1 V1,{good} v1,{good} "), true),
            (format!("V1,{good}"), false),
            (format!("v1,{unpadded}"), false),
            (format!("v1,{good},x"), false),
            (format!("v1,{good}\tv1,x"), false),
            (good.to_owned(), false),
            ("   ".to_owned(), false),
        ] {
            let headers = Received {
                signature: Some(signature.clone()),
                ..known_headers()
            };
            let want = if ok {
                Ok(())
            } else {
                Err(Error::NoMatchingSignature)
            };
            assert_eq!(
                verify(now, &ka, &headers, KNOWN_BODY),
                want,
                "{signature:?}"
            );
        }
        let kb = secret(KB);
        assert_eq!(
            verify(now, &[kb.clone(), secret(KA)], &known_headers(), KNOWN_BODY),
            Ok(())
        );
        assert_eq!(
            verify(now, &[kb], &known_headers(), KNOWN_BODY),
            Err(Error::NoMatchingSignature)
        );
    }
}
