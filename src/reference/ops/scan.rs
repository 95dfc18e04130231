//! A fast scanner for operations of the usual shape: a list of strings without escapes,
//! numbers, booleans, `null` and lists of numbers, such as `["enqueue", 5, "shop", "e1", [503,
//! 200]]`. It only cuts the operation into its elements' JSON texts (the judge in `decode` reads
//! them), and it accepts only text that is valid JSON: anything else (an escape, an object, a
//! nested list of strings, a malformed number) makes it give up, and serde_json decodes the
//! operation instead, reporting any syntax error. Well-formed operations take a faster path
//! still (`fast`), which this falls back from.

use super::Operation;
use super::decode::{Elem, List, MOST, operation as judge};
use crate::dispatcher::{Error, Outcomes};
use std::borrow::Cow;

/// The operation at the start of `text` and the offset just after its closing `]`, or `None`
/// when it is not of the usual shape (decode it with [`super::OperationSeed`] then).
pub fn operation(text: &str) -> Option<(Result<Operation<'_>, Error>, usize)> {
    super::fast::operation(text).or_else(|| general(text))
}

/// The scanner proper, for anything of the usual shape the fast path left.
pub(crate) fn general(text: &str) -> Option<(Result<Operation<'_>, Error>, usize)> {
    let b = text.as_bytes();
    let mut i = blank(b, 0);
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i = blank(b, i + 1);
    let mut items: [Option<Elem<'_>>; MOST] = Default::default();
    let mut count = 0;
    if b.get(i) == Some(&b']') {
        return None;
    }
    loop {
        let (elem, end) = element(text, i)?;
        if let Some(slot) = items.get_mut(count) {
            *slot = Some(elem);
        }
        count += 1;
        i = blank(b, end);
        match b.get(i)? {
            b',' => i = blank(b, i + 1),
            b']' => return Some((judge(items, count), i + 1)),
            _ => return None,
        }
    }
}

fn blank(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The element starting at `i` and its end, if it is of a kind this scanner takes. Values are
/// typed as they are scanned: a string without escapes is borrowed as it stands, an integer's
/// value is read once its spelling is known to be an integer's.
fn element(text: &str, i: usize) -> Option<(Elem<'_>, usize)> {
    let b = text.as_bytes();
    Some(match b.get(i)? {
        b'"' => {
            let end = string(b, i)?;
            (Elem::Str(Cow::Borrowed(text.get(i + 1..end - 1)?)), end)
        }
        b'[' => {
            let (statuses, end) = numbers(b, i)?;
            (Elem::List(List::Scanned(statuses)), end)
        }
        b't' => (Elem::Bool(true), word(b, i, b"true")?),
        b'f' => (Elem::Bool(false), word(b, i, b"false")?),
        b'n' => (Elem::Null, word(b, i, b"null")?),
        _ => {
            let (end, value) = number(b, i)?;
            (value.map_or(Elem::Other, Elem::Int), end)
        }
    })
}

/// A string without escapes or control characters (which JSON does not allow unescaped).
fn string(b: &[u8], i: usize) -> Option<usize> {
    // Ids are short: a plain loop beats a vectorised search here.
    let rest = b.get(i + 1..)?;
    for (k, &c) in rest.iter().enumerate() {
        match c {
            b'"' => return Some(i + 2 + k),
            b'\\' | 0x00..=0x1f => return None,
            _ => {}
        }
    }
    None
}

fn word(b: &[u8], i: usize, w: &[u8]) -> Option<usize> {
    b.get(i..i + w.len())
        .filter(|s| *s == w)
        .map(|_| i + w.len())
}

/// A number in JSON's grammar, `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?:
/// its end, and its value if it is spelled as an integer (no fraction, no exponent) that fits
/// an `i64` (`op.ts-strict`; `-0` is 0).
fn number(b: &[u8], i: usize) -> Option<(usize, Option<i64>)> {
    let mut j = i;
    let negative = b.get(j) == Some(&b'-');
    if negative {
        j += 1;
    }
    let start = j;
    match b.get(j)? {
        b'0' => j += 1,
        b'1'..=b'9' => j = digits(b, j),
        _ => return None,
    }
    let int_end = j;
    let mut whole = true;
    if b.get(j) == Some(&b'.') {
        let k = digits(b, j + 1);
        if k == j + 1 {
            return None;
        }
        j = k;
        whole = false;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        j += 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let k = digits(b, j);
        if k == j {
            return None;
        }
        j = k;
        whole = false;
    }
    if !whole {
        return Some((j, None));
    }
    // Accumulated as a negative number, whose range is the larger one.
    let mut n: i64 = 0;
    for &d in &b[start..int_end] {
        match n
            .checked_mul(10)
            .and_then(|n| n.checked_sub(i64::from(d - b'0')))
        {
            Some(m) => n = m,
            None => return Some((j, None)),
        }
    }
    Some((j, if negative { Some(n) } else { n.checked_neg() }))
}

fn digits(b: &[u8], mut j: usize) -> usize {
    while b.get(j).is_some_and(u8::is_ascii_digit) {
        j += 1;
    }
    j
}

/// A list of numbers (possibly empty), such as an `outcomes` list, read as `outcomes` is
/// (`outcomes.valid`, `outcomes.strict`), and its end.
fn numbers(b: &[u8], i: usize) -> Option<(Result<Outcomes, Error>, usize)> {
    // Statuses stay on the stack; only a script longer than any usual one spills.
    let (mut short, mut n, mut long) = ([0i64; 8], 0, Vec::new());
    let mut whole = true;
    let mut j = blank(b, i + 1);
    if b.get(j) != Some(&b']') {
        loop {
            let (end, value) = number(b, j)?;
            match (value, short.get_mut(n)) {
                (Some(v), Some(slot)) => *slot = v,
                (Some(v), None) => long.push(v),
                (None, _) => whole = false,
            }
            n += 1;
            j = blank(b, end);
            match b.get(j)? {
                b',' => j = blank(b, j + 1),
                b']' => break,
                _ => return None,
            }
        }
    }
    let outcomes = if whole {
        Outcomes::new(short[..n.min(short.len())].iter().copied().chain(long))
    } else {
        Err(Error::InvalidOutcomes)
    };
    Some((outcomes, j + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::decode::OperationSeed;
    use crate::prng::Prng;
    use serde::de::DeserializeSeed;

    /// What serde_json's path makes of the text: the operation and where it ends, or `None`
    /// when it is not JSON.
    fn by_serde(text: &str) -> Option<(Result<Operation<'_>, Error>, usize)> {
        let mut stream =
            serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
        stream.next()?.ok()?;
        let end = stream.byte_offset();
        let mut de = serde_json::Deserializer::from_str(&text[..end]);
        let op = OperationSeed.deserialize(&mut de).ok()?;
        Some((op, end))
    }

    #[test]
    fn the_usual_shapes_are_scanned_and_agree_with_serde() {
        for text in [
            r#"["register",0,"shop","https://shop.example/hooks"]"#,
            r#" [ "enqueue" , -0 , "s" , "e" , [ 503 , 200 ] ] tail"#,
            r#"["enqueue",1e3,"s","e",[]]"#,
            r#"["enqueue",1,"s","e",[200.0, 2E+2]]"#,
            r#"["enable",0,"s",true]"#,
            r#"["status",0,null]"#,
            r#"["process",-12.5e-3]"#,
            r#"[5]"#,
            r#"["dead_letters",0,false,"x",1,2]"#,
        ] {
            let fast = operation(text);
            assert!(fast.is_some(), "{text}");
            assert_eq!(fast, by_serde(text), "{text}");
        }
    }

    #[test]
    fn anything_else_is_left_to_serde() {
        for text in [
            r#"["status",0,"a\"b"]"#,
            "[\"status\",0,\"a\u{1}b\"]",
            r#"["enqueue",0,"s","e",[[200]]]"#,
            r#"["register",0,{"a":1},"u"]"#,
            r#"[]"#,
            r#"["process",01]"#,
            r#"["process",1.]"#,
            r#"["process",-]"#,
            r#"["process",1e]"#,
            r#"["process",0 1]"#,
            r#"["process",tru]"#,
            r#"["process",0"#,
            r#"5"#,
            r#"["process",0,]"#,
        ] {
            assert_eq!(operation(text), None, "{text}");
        }
    }

    /// Random operation-like texts, well-formed or not: wherever the scanner answers, serde
    /// agrees on the operation and on where it ends.
    #[test]
    fn never_disagrees_with_serde() {
        let elements = [
            "\"process\"",
            "\"enqueue\"",
            "\"register\"",
            "\"s\"",
            "\"e\"",
            "0",
            "-0",
            "1.5",
            "2e2",
            "200",
            "-7",
            "9007199254740992",
            "true",
            "false",
            "null",
            "[200,503]",
            "[]",
            "[ 0 , -0 ]",
            "[1.0]",
            "\"a\\\"\"",
            "{}",
            "01",
            "-",
            "[\"x\"]",
            "\"\u{e9}\"",
        ];
        let blanks = ["", "", " ", "\n", "\t "];
        let mut p = Prng::new(3);
        let mut scanned = 0;
        for _ in 0..20_000 {
            let mut text = String::from("[");
            let n = p.below(7);
            for k in 0..n {
                text.push_str(p.pick(&blanks).copied().unwrap_or(""));
                text.push_str(p.pick(&elements).copied().unwrap_or(""));
                text.push_str(p.pick(&blanks).copied().unwrap_or(""));
                // Now and then a missing or doubled separator.
                let sep = if p.chance(5) {
                    ""
                } else if p.chance(5) {
                    ",,"
                } else {
                    ","
                };
                text.push_str(if k + 1 < n { sep } else { "" });
            }
            if !p.chance(5) {
                text.push(']');
            }
            if let Some(fast) = operation(&text) {
                scanned += 1;
                assert_eq!(Some(fast), by_serde(&text), "{text}");
            }
        }
        assert!(scanned > 5000, "only {scanned} texts scanned");
    }
}
