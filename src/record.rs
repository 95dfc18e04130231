//! Writing case files from operations whose results come from the reference: `hookcheck record`
//! (a ticket's operations) and `hookcheck fuzz` (a shrunk mismatch). Such cases are marked
//! `recorded: unreviewed` until a person checks every result against the spec.

use crate::case::{MAX_CASE_FILE_BYTES, Origin, Part};
use serde_json::Value;
use std::fmt::Write as _;
use std::io::Read as _;

pub struct Draft<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub origin: Origin,
    pub ticket: Option<&'a str>,
    pub rules: &'a [String],
    pub notes: &'a str,
    pub operations: &'a [Value],
    /// The reference's results, one per operation.
    pub results: &'a [Value],
    /// Per operation, the clarification that fixes its result in a brief-only case (may be
    /// shorter than `operations`, or empty).
    pub clarified: &'a [Option<String>],
    /// Parts the case is for implementations without (`without`): a fuzz finding's probes of
    /// parts the implementation does not declare. Empty for a ticket.
    pub without: &'a [Part],
}

/// The part a sequence needs, the highest one (a part's implementations offer every part it
/// builds on): `recover` or `dead_letter` need `dead-letters`; `endpoint` or a policy's
/// `disable_after` need `auto-disable`; an outcomes object, or a policy's `disable_on_gone`, needs
/// `retry-after`; `set_policy` and `policy` need `policy`; pause operations need `pause`; two
/// events of one endpoint need `ordering`; anything else `retries`. A sequence that needs two
/// roadmap parts neither of which builds on the other gets the higher one: the reviewer adds
/// the other as `also:`.
pub fn infer_part(operations: &[Value]) -> Part {
    let name = |op: &Value| op.get(0).and_then(Value::as_str).map(str::to_string);
    let roadmap = |op: &Value| match name(op).as_deref() {
        Some("recover" | "dead_letter") => Some(Part::DeadLetters),
        Some("endpoint") => Some(Part::AutoDisable),
        Some("enqueue") => op
            .get(4)
            .and_then(Value::as_array)
            .is_some_and(|outcomes| outcomes.iter().any(Value::is_object))
            .then_some(Part::RetryAfter),
        Some("set_policy") => Some(match op.get(3) {
            Some(p) if p.get("disable_after").is_some() => Part::AutoDisable,
            Some(p) if p.get("disable_on_gone").is_some() => Part::RetryAfter,
            _ => Part::Policy,
        }),
        Some("policy") => Some(Part::Policy),
        _ => None,
    };
    if let Some(part) = operations.iter().filter_map(roadmap).max() {
        return part;
    }
    if operations
        .iter()
        .any(|op| matches!(name(op).as_deref(), Some("disable" | "enable")))
    {
        return Part::Pause;
    }
    let mut endpoints: Vec<&str> = operations
        .iter()
        .filter(|op| name(op).as_deref() == Some("enqueue"))
        .filter_map(|op| op.get(2).and_then(Value::as_str))
        .collect();
    let total = endpoints.len();
    endpoints.sort_unstable();
    endpoints.dedup();
    if endpoints.len() < total {
        Part::Ordering
    } else {
        Part::Retries
    }
}

/// A value as YAML flow text that reads back as the same JSON value. Compact JSON is YAML's
/// flow syntax, except that YAML forbids some characters JSON writes raw: DEL, the C1 controls
/// and the non-characters U+FFFE and U+FFFF may not appear in a YAML file at all. Those (and NEL,
/// the line and paragraph separators and the byte order mark, which YAML readers may take for
/// line breaks or strip) are written as `\u` escapes, which JSON and YAML double-quoted strings
/// share. Outside strings JSON text is ASCII, so only string content changes.
pub fn yaml_value(value: &Value) -> String {
    let json = value.to_string();
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if matches!(
            c,
            '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        ) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

fn yaml_str(text: &str) -> String {
    yaml_value(&Value::from(text))
}

/// A rule id as people write it (`pause.results`), or quoted when it is not one: `--rule` takes
/// any text, and quoted, a mistyped rule still loads and lint names it.
fn yaml_rule(rule: &str) -> String {
    let plain = rule.starts_with(|c: char| c.is_ascii_lowercase())
        && rule.contains('.')
        && rule
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-');
    if plain {
        rule.to_string()
    } else {
        yaml_str(rule)
    }
}

/// Every part but `without`.
fn declared(without: &[Part]) -> Vec<Part> {
    Part::ALL
        .into_iter()
        .filter(|p| !without.contains(p))
        .collect()
}

/// A case file holding one case. Operations and results are written as JSON (YAML's flow
/// syntax, see [`yaml_value`]) and read back exactly, numbers with their spelling.
pub fn case_file(draft: &Draft<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# yaml-language-server: $schema=../../spec/case.schema.json"
    );
    let _ = writeln!(
        out,
        "# Recorded from the reference: check every `expect` against spec/dispatcher.md, cite the \
         rules, then set `recorded: reviewed`."
    );
    // The probes of parts left out (`without`) say nothing of the part the case needs.
    let own: Vec<Value> = draft
        .operations
        .iter()
        .filter(|op| {
            draft.without.is_empty() || crate::ops::absent(op, &declared(draft.without)).is_none()
        })
        .cloned()
        .collect();
    let _ = writeln!(out, "part: {}", infer_part(&own).as_str());
    let _ = writeln!(out, "cases:");
    let _ = writeln!(out, "  - id: {}", draft.id);
    let _ = writeln!(out, "    title: {}", yaml_str(draft.title));
    let rules: Vec<String> = draft.rules.iter().map(|r| yaml_rule(r)).collect();
    let _ = writeln!(out, "    rules: [{}]", rules.join(", "));
    let _ = writeln!(out, "    origin: {}", draft.origin.as_str());
    if !draft.without.is_empty() {
        let parts: Vec<&str> = draft.without.iter().map(|p| p.as_str()).collect();
        let _ = writeln!(out, "    without: [{}]", parts.join(", "));
    }
    if let Some(ticket) = draft.ticket {
        let _ = writeln!(out, "    ticket: {}", yaml_str(ticket));
    }
    if !draft.notes.is_empty() {
        let _ = writeln!(out, "    notes: {}", yaml_str(draft.notes));
    }
    let _ = writeln!(out, "    recorded: unreviewed");
    let _ = writeln!(out, "    steps:");
    for (i, op) in draft.operations.iter().enumerate() {
        let _ = writeln!(out, "      - op: {}", yaml_value(op));
        let result = draft.results.get(i).unwrap_or(&Value::Null);
        let _ = writeln!(out, "        expect: {}", yaml_value(result));
        if let Some(Some(rule)) = draft.clarified.get(i) {
            let _ = writeln!(out, "        clarified: {}", yaml_rule(rule));
        }
    }
    out
}

/// `hookcheck record`: a case file from a ticket's operations (a JSON array, or one per line),
/// with the reference's results.
pub fn record(
    text: &str,
    id: &str,
    ticket: &str,
    title: Option<&str>,
    rules: &[String],
) -> Result<String, String> {
    if !crate::case::valid_id(id) {
        return Err(
            "--id takes lower-case letters, digits and dashes, such as ticket-4711".to_string(),
        );
    }
    let operations = crate::input::parse_operations(text).map_err(|e| e.to_string())?;
    if operations.is_empty() {
        return Err("no operations in the input".to_string());
    }
    let results = crate::ops::run(&operations);
    let title = title.map_or_else(|| format!("Recorded from ticket {ticket}"), str::to_string);
    let file = case_file(&Draft {
        id,
        title: &title,
        origin: Origin::Regression,
        ticket: Some(ticket),
        rules,
        notes: "",
        operations: &operations,
        results: &results,
        clarified: &[],
        without: &[],
    });
    if file.len() as u64 > MAX_CASE_FILE_BYTES {
        return Err(format!(
            "the case file would take {} MiB, more than the {} MiB a case file may hold: record \
             the ticket's operations in several parts",
            file.len().div_ceil(1024 * 1024),
            MAX_CASE_FILE_BYTES / (1024 * 1024)
        ));
    }
    Ok(file)
}

/// The most `hookcheck record` reads: as much as a case file may hold, since the case file it
/// writes is larger than its input.
pub const MAX_INPUT_BYTES: u64 = MAX_CASE_FILE_BYTES;

/// `hookcheck record`'s input, read through a bounded reader: `/dev/zero` or an endless pipe
/// ends with an error once the limit is passed, instead of filling memory.
pub fn read_input(mut input: impl std::io::Read, name: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    std::io::Read::take(&mut input, MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "{name} is too large: more than {} MiB of operations (a case file holds at most {} MiB)",
            MAX_INPUT_BYTES / (1024 * 1024),
            MAX_CASE_FILE_BYTES / (1024 * 1024)
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name} is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Recorded, parse};
    use crate::prng::Prng;
    use serde_json::json;
    use std::path::Path;

    #[test]
    fn written_files_parse_back_to_the_same_steps() {
        let operations = vec![
            json!(["register", 0, "shop", "https://shop.example/hooks"]),
            json!(["enqueue", 0, "shop", "evt #1: \"x\"", [500, 200]]),
            json!(["enqueue", 1.5, "shop", "e2", {"a": [true, null]}]),
            json!(["status", 0, "evt #1: \"x\""]),
            json!("weird"),
        ];
        let results = crate::ops::run(&operations);
        let rules = vec!["retry.wait-schedule".to_string()];
        let text = case_file(&Draft {
            id: "ticket-1",
            title: "A title: with colon # and hash",
            origin: Origin::Regression,
            ticket: Some("SUP-1"),
            rules: &rules,
            notes: "line one\nline two",
            operations: &operations,
            results: &results,
            clarified: &[None, None, None, Some("pause.results".to_string())],
            without: &[],
        });
        let cases =
            parse(&text, Path::new("r.yaml"), "regressions").expect("the written file parses");
        let c = &cases[0];
        assert_eq!(c.title, "A title: with colon # and hash");
        assert_eq!(c.recorded, Some(Recorded::Unreviewed));
        assert_eq!(c.notes.as_deref(), Some("line one\nline two"));
        assert_eq!(c.operations(), operations);
        let expected: Vec<Value> = c.steps.iter().map(|s| s.expect.clone()).collect();
        assert_eq!(expected, results);
        assert_eq!(c.steps[3].clarified.as_deref(), Some("pause.results"));
        assert_eq!(c.steps[2].clarified, None);
    }

    /// A string of the characters that broke record's files, and those YAML gives meaning to.
    fn random_string(prng: &mut Prng) -> String {
        const PIECES: &[&str] = &[
            "\u{7f}",
            "\u{80}",
            "\u{85}",
            "\u{9f}",
            "\u{fffe}",
            "\u{ffff}",
            "\u{feff}",
            "\u{2028}",
            "\u{0}",
            "\t",
            "\n",
            "\r",
            "\"",
            "'",
            "\\",
            "#",
            " #",
            ": ",
            ":",
            "-",
            "- ",
            "?",
            "!",
            "&",
            "*",
            "|",
            ">",
            "%",
            "@",
            "`",
            "{",
            "}",
            "[",
            "]",
            ",",
            "yes",
            "no",
            "null",
            "~",
            "true",
            "1e3",
            "0x1F",
            ".inf",
            "é",
            "𝄞",
            "\u{10ffff}",
            " ",
            "a",
        ];
        let len = prng.below(6);
        let mut s = String::new();
        for _ in 0..len {
            if prng.chance(20) {
                // Any Unicode scalar value: surrogates are not chars, so skip them.
                let c = char::from_u32(u32::try_from(prng.below(0x11_0000)).unwrap_or(0));
                s.extend(c);
            } else if let Some(piece) = prng.pick(PIECES) {
                s.push_str(piece);
            }
        }
        s
    }

    fn random_number(prng: &mut Prng) -> Value {
        const SPELLINGS: &[&str] = &[
            "0",
            "-0",
            "-0.0",
            "0.5",
            "-2.25",
            "10.0",
            "1e3",
            "1E-3",
            "2.5e+10",
            "1e400",
            "-1e400",
            "99999999999999999999999999",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775809",
            "4.9e-324",
            "1.7976931348623157e308",
        ];
        let spelling = prng.pick(SPELLINGS).copied().unwrap_or("0");
        let text = if prng.chance(30) {
            format!("{}", prng.next_u64())
        } else {
            spelling.to_string()
        };
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    fn random_value(prng: &mut Prng, depth: u32) -> Value {
        match prng.below(if depth > 2 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => Value::Bool(prng.chance(50)),
            2 => random_number(prng),
            3 => Value::String(random_string(prng)),
            4 => Value::Array(
                (0..prng.below(4))
                    .map(|_| random_value(prng, depth + 1))
                    .collect(),
            ),
            _ => Value::Object(
                (0..prng.below(3))
                    .map(|_| (random_string(prng), random_value(prng, depth + 1)))
                    .collect(),
            ),
        }
    }

    fn random_operation(prng: &mut Prng) -> Value {
        let names = [
            "register", "enqueue", "process", "status", "disable", "enable", "x",
        ];
        let mut op = vec![Value::from(prng.pick(&names).copied().unwrap_or("x"))];
        op.extend((0..prng.below(5)).map(|_| random_value(prng, 1)));
        if prng.chance(5) {
            random_value(prng, 0)
        } else {
            Value::Array(op)
        }
    }

    /// Every string and number an operation can hold comes back from `record`'s file as it
    /// went in: the same values, numbers with the same spelling. Before, DEL, C1 controls and
    /// U+FFFE made the file unloadable and `1e400` was refused.
    #[test]
    fn recorded_files_load_back_the_same_operations() {
        let mut prng = Prng::new(15);
        for round in 0..300 {
            // Input whose first element is not an array reads as a single operation
            // (`input::parse_operations`), so the first is always an array.
            let mut operations = vec![json!(["process", random_number(&mut prng)])];
            operations.extend((0..prng.below(6)).map(|_| random_operation(&mut prng)));
            let input = Value::Array(operations.clone()).to_string();
            let rules = vec![random_string(&mut prng), "retry.wait-schedule".to_string()];
            let title = random_string(&mut prng);
            let file = record(
                &input,
                "prop-case",
                &random_string(&mut prng),
                Some(&title),
                &rules,
            )
            .unwrap_or_else(|e| panic!("round {round}: {e}\n{input}"));
            let cases = parse(&file, Path::new("p.yaml"), "s")
                .unwrap_or_else(|e| panic!("round {round}: {e}\n{file}"));
            let c = &cases[0];
            assert_eq!(c.operations(), operations, "round {round}\n{file}");
            assert_eq!(
                Value::Array(c.operations()).to_string(),
                input,
                "round {round}: spellings"
            );
            assert_eq!(c.title, title);
            assert_eq!(c.rules, rules);
        }
    }

    /// Before, serde-saphyr's node budget refused the file: `budget breached: Nodes`.
    #[test]
    #[ignore = "slow: .ci/run runs it with --ignored"]
    fn a_hundred_thousand_operations_load() {
        let operations: Vec<Value> = (0..100_000).map(|i| json!(["process", i])).collect();
        let input = Value::Array(operations.clone()).to_string();
        let file = record(&input, "long-ticket", "SUP-9", None, &[]).expect("records");
        let cases = parse(&file, Path::new("l.yaml"), "s").expect("the long file loads");
        assert_eq!(cases[0].operations(), operations);
    }

    /// Before, `record /dev/zero` read until memory ran out.
    #[test]
    fn record_input_is_bounded() {
        let zero = std::fs::File::open("/dev/zero").expect("/dev/zero");
        let err = read_input(zero, "/dev/zero").expect_err("endless input");
        assert_eq!(
            err,
            "/dev/zero is too large: more than 16 MiB of operations (a case file holds at most \
             16 MiB)"
        );
        assert_eq!(read_input(&b"[]"[..], "stdin").as_deref(), Ok("[]"));
    }

    #[test]
    fn parts_are_inferred() {
        let reg = json!(["register", 0, "a", "u"]);
        let e = |ep: &str, id: &str| json!(["enqueue", 0, ep, id, [200]]);
        assert_eq!(
            infer_part(&[reg.clone(), e("a", "1"), e("b", "2")]),
            Part::Retries
        );
        assert_eq!(
            infer_part(&[reg.clone(), e("a", "1"), e("a", "2")]),
            Part::Ordering
        );
        assert_eq!(
            infer_part(&[reg.clone(), json!(["disable", 0, "a"])]),
            Part::Pause
        );
        let policy = json!(["set_policy", 0, "a", {"attempts": 3, "waits": [10]}]);
        assert_eq!(
            infer_part(&[reg.clone(), policy, json!(["disable", 0, "a"])]),
            Part::Policy
        );
        assert_eq!(
            infer_part(&[reg.clone(), json!(["policy", 0, "a"])]),
            Part::Policy
        );
        let gone =
            json!(["set_policy", 0, "a", {"attempts": 3, "waits": [10], "disable_on_gone": false}]);
        assert_eq!(infer_part(&[reg.clone(), gone]), Part::RetryAfter);
        let later = json!(["enqueue", 0, "a", "1", [503, {"status": 503, "retry_after": 5}]]);
        assert_eq!(infer_part(&[reg.clone(), later]), Part::RetryAfter);
        let threshold =
            json!(["set_policy", 0, "a", {"attempts": 3, "waits": [10], "disable_after": 2}]);
        assert_eq!(infer_part(&[reg.clone(), threshold]), Part::AutoDisable);
        assert_eq!(
            infer_part(&[reg.clone(), json!(["endpoint", 0, "a"])]),
            Part::AutoDisable
        );
        assert_eq!(
            infer_part(&[reg, json!(["recover", 0, "a", 0])]),
            Part::DeadLetters
        );
    }
}
