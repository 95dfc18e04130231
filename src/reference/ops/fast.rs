//! The fastest path, for operations that are well formed as well as of the usual shape: a known
//! name, an integer `ts`, and exactly the arguments the operation takes, each of its type
//! (strings without escapes, `true` or `false`, a list of integers), such as `["enqueue", 5,
//! "shop", "e1", [503, 200]]`. Those are decoded in one pass straight into the typed operation.
//! Anything else (a malformed number, a wrong type, a missing argument) makes it give up, and
//! the general scanner of `scan` (and after it serde_json) decides: every error of
//! `op.error-precedence` but the range of `ts` and the statuses' values is left to them.

use super::decode::in_range;
use super::{Command, Kind, Operation};
use crate::dispatcher::{Error, INLINE_STATUSES, Outcomes};
use crate::escape::plain_len;
use std::borrow::Cow;

/// The well-formed operation at the start of `text` and the offset after its closing `]`.
pub(crate) fn operation(text: &str) -> Option<(Result<Operation<'_>, Error>, usize)> {
    let mut c = Cursor { text, i: 0 };
    c.byte(b'[')?;
    let kind = Kind::from_name(c.string()?)?;
    c.byte(b',')?;
    let ts = c.integer()?;
    // Well formed so far; the statuses' values are judged below, after the range of `ts`.
    // Each arm builds the whole operation in the place it is returned to: an operation built
    // in a local and then moved was copied in wide loads that straddle the narrower stores
    // which had just built it, a load that waits for those stores to drain (a
    // store-forwarding stall), once per operation.
    // The closing `]`, then whether `ts` is in range: what every arm ends with.
    let close = |c: &mut Cursor| c.byte(b']').map(|()| in_range(ts).is_some());
    macro_rules! done {
        ($command:expr) => {{
            let command = $command;
            let ok = close(&mut c)?;
            return Some(if ok {
                (Ok(Operation { ts, command }), c.i)
            } else {
                (Err(Error::InvalidArguments), c.i)
            });
        }};
    }
    match kind {
        Kind::Process => done!(Command::Process),
        Kind::Register => done!(Command::Register {
            endpoint: c.argument()?,
            url: c.argument()?,
        }),
        Kind::Enqueue => {
            let (endpoint, event) = (c.argument()?, c.argument()?);
            c.byte(b',')?;
            match c.statuses()? {
                Ok(outcomes) => done!(Command::Enqueue {
                    endpoint,
                    event,
                    outcomes,
                }),
                Err(e) => {
                    let ok = close(&mut c)?;
                    Some((Err(if ok { e } else { Error::InvalidArguments }), c.i))
                }
            }
        }
        Kind::Status => done!(Command::Status {
            event: c.argument()?,
        }),
        Kind::Disable => done!(Command::Disable {
            endpoint: c.argument()?,
        }),
        Kind::Enable => {
            let endpoint = c.argument()?;
            c.byte(b',')?;
            done!(Command::Enable {
                endpoint,
                replay_dead: c.flag()?,
            })
        }
        Kind::Policy => done!(Command::Policy {
            endpoint: c.argument()?,
        }),
        Kind::Endpoint => done!(Command::Endpoint {
            endpoint: c.argument()?,
        }),
        Kind::DeadLetter => done!(Command::DeadLetter {
            event: c.argument()?,
        }),
        // A policy is an object, which only the general decoders read; `since` is rare enough
        // to be left to them too.
        Kind::SetPolicy | Kind::Recover => None,
        // Part 8's operations are rare, and a secret is judged beyond its shape.
        Kind::SetSecret | Kind::Signature | Kind::Verify => None,
        Kind::DeadLetters => done!(Command::DeadLetters {
            endpoint: if c.peek() == Some(b',') {
                Some(c.argument()?)
            } else {
                None
            },
        }),
    }
}

/// How many of the eight bytes of `word` (read little-endian), from the first, are ASCII
/// digits, and the number they write when that is fewer than eight.
#[inline]
fn short_number(word: u64) -> (usize, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let sub = word.wrapping_sub(ONES * u64::from(b'0'));
    // A byte is a digit when taking '0' from it neither borrows nor leaves over 9, and adding
    // 0x76 sets the high bit of what is over 9. A borrow or carry only goes up, so bytes past
    // the first that is not a digit may be misjudged, never those before it.
    let not_digit = (sub | sub.wrapping_add(ONES * 0x76)) & (ONES * 0x80);
    let count = (not_digit.trailing_zeros() / 8) as usize;
    if count == 0 || count >= 8 {
        return (count, 0);
    }
    // The digits moved to the top bytes read as eight digits with leading zeros, combined
    // pairwise: two digits per 16 bits, four per 32, then all eight.
    let v = (sub << (8 * (8 - count))) & (ONES * 0x0f);
    let v = (v.wrapping_mul(10) + (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    let v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_ffff_0000_ffff;
    (count, (v.wrapping_mul(10_000) + (v >> 32)) & 0xffff_ffff)
}

/// Whether the digits `b[start..end]` are a JSON integer's whole spelling: at least one, no
/// leading zero, and no fraction or exponent after them.
fn whole_integer(b: &[u8], start: usize, end: usize) -> bool {
    !matches!(
        (b.get(start..end), b.get(end)),
        (None | Some([] | [b'0', _, ..]), _) | (_, Some(b'.' | b'e' | b'E'))
    )
}

struct Cursor<'a> {
    text: &'a str,
    i: usize,
}

impl<'a> Cursor<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte after blanks, not consumed.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        let b = self.bytes();
        // Compact input has no blanks: one test for the usual case.
        let c = *b.get(self.i)?;
        if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            return Some(c);
        }
        loop {
            self.i += 1;
            match b.get(self.i) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => {}
                other => return other.copied(),
            }
        }
    }

    #[inline(always)]
    fn byte(&mut self, want: u8) -> Option<()> {
        (self.peek()? == want).then(|| self.i += 1)
    }

    /// `,` then a string argument.
    #[inline(always)]
    fn argument(&mut self) -> Option<Cow<'a, str>> {
        self.byte(b',')?;
        self.string().map(Cow::Borrowed)
    }

    /// A string without escapes or control characters.
    #[inline(always)]
    fn string(&mut self) -> Option<&'a str> {
        self.byte(b'"')?;
        let start = self.i;
        let b = self.bytes();
        let j = start + plain_len(b.get(start..)?);
        if *b.get(j)? != b'"' {
            return None;
        }
        self.i = j + 1;
        self.text.get(start..j)
    }

    /// An integer as JSON writes one (no leading zeros, no fraction, no exponent) that fits
    /// an `i64`; `-0` is 0.
    #[inline]
    fn integer(&mut self) -> Option<i64> {
        let negative = self.peek()? == b'-';
        let b = self.bytes();
        let start = self.i + usize::from(negative);
        // Up to seven digits, which times and statuses are, are read eight bytes at a time.
        if let Some(chunk) = b.get(start..start + 8) {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            let (count, value) = short_number(u64::from_le_bytes(word));
            if count < 8 {
                let j = start + count;
                self.i = j;
                let n = value as i64;
                return whole_integer(b, start, j).then_some(if negative { -n } else { n });
            }
        }
        // Digits are read and their value accumulated in one pass; the value is used only when
        // there are at most eighteen of them, which cannot overflow.
        let (mut j, mut n) = (start, 0u64);
        while let Some(&c) = b.get(j) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            n = n.wrapping_mul(10).wrapping_add(u64::from(d));
            j += 1;
        }
        self.i = j;
        if !whole_integer(b, start, j) {
            return None;
        }
        let digits = b.get(start..j)?;
        if digits.len() <= 18 {
            let n = n as i64;
            return Some(if negative { -n } else { n });
        }
        // Accumulated as a negative number, whose range is the larger one.
        let mut n: i64 = 0;
        for &d in digits {
            n = n.checked_mul(10)?.checked_sub(i64::from(d - b'0'))?;
        }
        if negative { Some(n) } else { n.checked_neg() }
    }

    fn flag(&mut self) -> Option<bool> {
        let b = self.bytes();
        let at = self.peek()?;
        let (word, value): (&[u8], bool) = match at {
            b't' => (b"true", true),
            b'f' => (b"false", false),
            _ => return None,
        };
        (b.get(self.i..self.i + word.len())? == word).then(|| {
            self.i += word.len();
            value
        })
    }

    /// A list of integers, judged as `outcomes` (`outcomes.valid`). Statuses are read into
    /// their place in the script; a script longer than a script keeps inline is left to the
    /// general scanner.
    #[inline(always)]
    fn statuses(&mut self) -> Option<Result<Outcomes, Error>> {
        self.byte(b'[')?;
        // The statuses are gathered in one register and the list stored whole: stored one by
        // one, they were read back as wider words when the operation was moved into place, a
        // load that waits for every one of those stores to drain (a store-forwarding stall).
        let (mut word, mut n) = (0u128, 0);
        if self.peek()? != b']' {
            loop {
                let status = self.integer()?;
                if n == INLINE_STATUSES {
                    return None;
                }
                word |= u128::from(u16::try_from(status).unwrap_or(u16::MAX)) << (16 * n);
                n += 1;
                match self.peek()? {
                    b',' => self.i += 1,
                    b']' => break,
                    _ => return None,
                }
            }
        }
        self.i += 1;
        let list = std::array::from_fn(|k| (word >> (16 * k)) as u16);
        Some(Outcomes::short(list, n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::scan::general;

    #[test]
    fn well_formed_operations_take_the_fast_path_and_agree_with_the_scanner() {
        for text in [
            r#"["register",0,"shop","https://shop.example/hooks"]"#,
            r#"[ "enqueue" , -0 , "s" , "e" , [ 503 , 200 ] ] tail"#,
            r#"["enqueue",5,"s","e",[]]"#,
            r#"["enqueue",5,"s","e",[600]]"#,
            r#"["enqueue",9007199254740992,"s","e",[600]]"#,
            r#"["enqueue",1,"s","e",[503,503,503,503,503,503,200]]"#,
            r#"["enqueue",1,"s","e",[503,70000,-1,503,503,503,200]]"#,
            r#"["process",9223372036854775807]"#,
            r#"["status",3,"é漢🙂"]"#,
            r#"["status",3,"abcdefgh-é漢🙂-ijklmnop-qrstuvwx"]"#,
            r#"["status",3,"abcdefgh"]"#,
            r#"["disable",3,"s"]"#,
            r#"["enable",3,"s",false]"#,
            r#"["dead_letters",3]"#,
            r#"["dead_letters",3,"s"]"#,
        ] {
            let fast = operation(text);
            assert!(fast.is_some(), "{text}");
            assert_eq!(fast, general(text), "{text}");
        }
        // A script longer than a script keeps inline is the general scanner's.
        let long = r#"["enqueue",1,"s","e",[503,503,503,503,503,503,503,200]]"#;
        assert_eq!(operation(long), None);
        assert!(matches!(general(long), Some((Ok(_), _))));
    }

    #[test]
    fn numbers_of_up_to_seven_digits_are_read_eight_bytes_at_a_time() {
        let mut p = crate::prng::Prng::new(11);
        let tails = [
            "]", ",", " ", ".5", "e3", "E3", "x", "\u{0}", "99999999", "",
        ];
        for _ in 0..20_000 {
            let digits: String = (0..p.below(10))
                .map(|_| char::from(b'0' + p.below(10) as u8))
                .collect();
            let sign = if p.chance(20) { "-" } else { "" };
            let tail = tails[p.below(tails.len() as u64) as usize];
            let text = format!(r#"["process",{sign}{digits}{tail}]"#);
            let fast = operation(&text);
            // The operation is a prefix of the text, as in an array of them.
            let by_json = serde_json::Deserializer::from_str(&text)
                .into_iter::<serde_json::Value>()
                .next()
                .and_then(Result::ok)
                .and_then(|v| v.get(1).and_then(serde_json::Value::as_i64));
            // Whatever the fast path takes, it reads as serde_json does and as the scanner does.
            if let Some((Ok(op), _)) = &fast {
                assert_eq!(Some(op.ts), by_json, "{text}");
            }
            if fast.is_some() {
                assert_eq!(fast, general(&text), "{text}");
            }
        }
        for word in [
            *b"12345678",
            *b"1234567]",
            *b"0]......",
            *b"/]......",
            *b":]......",
        ] {
            let (count, value) = short_number(u64::from_le_bytes(word));
            let text = String::from_utf8_lossy(&word);
            let want = text.bytes().take_while(u8::is_ascii_digit).count();
            assert_eq!(count, want, "{text}");
            if count < 8 {
                assert_eq!(value, text[..count].parse::<u64>().unwrap_or(0), "{text}");
            }
        }
    }

    #[test]
    fn anything_unusual_is_left_to_the_scanner() {
        for text in [
            r#"["process",1.0]"#,
            r#"["process",1e3]"#,
            r#"["process",01]"#,
            r#"["process",true]"#,
            r#"["process",9223372036854775808]"#,
            r#"["process",0,1]"#,
            r#"["frobnicate",0]"#,
            r#"["status",0,5]"#,
            r#"["status",0,"a\"b"]"#,
            r#"["status",0,"abcdefghijk\"b"]"#,
            "[\"status\",0,\"abcdefghijklm\u{1f}nop\"]",
            "[\"status\",0,\"abcdefgh\u{7f}\u{0}\"]",
            r#"["enqueue",0,"s","e",[200.0]]"#,
            r#"["enqueue",0,"s","e",200]"#,
            r#"["enable",0,"s",1]"#,
            r#"["enable",0,"s",tru]"#,
            r#"["dead_letters",0,"s","t"]"#,
            r#"[5,0]"#,
        ] {
            assert_eq!(operation(text), None, "{text}");
        }
    }
}
