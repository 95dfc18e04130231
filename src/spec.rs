//! The rule catalogue of `spec/dispatcher.md`: every rule id with its basis (stated by the brief,
//! or a clarification hookcheck decided). Embedded at build time so the binary needs no checkout.

use std::fmt;

pub const DISPATCHER_SPEC: &str = include_str!("../spec/dispatcher.md");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Basis {
    Brief,
    Clarification,
}

impl fmt::Display for Basis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Basis::Brief => "brief",
            Basis::Clarification => "clarification",
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: String,
    pub basis: Basis,
    /// 1-based line of the rule's heading in the spec.
    pub line: usize,
}

/// Parses rule headings of the form ``### `rule.id` · brief`` (or `· clarification`).
pub fn parse_rules(spec: &str) -> Vec<Rule> {
    spec.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let rest = line.strip_prefix("### `")?;
            let (id, tail) = rest.split_once('`')?;
            let basis = match tail.trim().trim_start_matches('·').trim() {
                "brief" => Basis::Brief,
                "clarification" => Basis::Clarification,
                _ => return None,
            };
            Some(Rule {
                id: id.to_string(),
                basis,
                line: i + 1,
            })
        })
        .collect()
}

/// The rules of the embedded `spec/dispatcher.md`.
pub fn rules() -> Vec<Rule> {
    parse_rules(DISPATCHER_SPEC)
}

/// The case ids retired in the spec's "Retired case ids" table: never to be used again.
pub fn retired_case_ids(spec: &str) -> Vec<String> {
    spec.lines()
        .skip_while(|l| !l.starts_with("## ") || !l.contains("Retired case ids"))
        .filter_map(|l| {
            l.strip_prefix("| `")?
                .split_once('`')
                .map(|(id, _)| id.to_string())
        })
        .collect()
}

pub fn find<'a>(rules: &'a [Rule], id: &str) -> Option<&'a Rule> {
    rules.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_headings_and_skips_other_lines() {
        let text = "# T\n### `a.b` · brief\ntext\n### `c.d` · clarification\n### `e` · other\n## x";
        let rules = parse_rules(text);
        assert_eq!(rules.len(), 2);
        assert_eq!(
            (rules[0].id.as_str(), rules[0].basis, rules[0].line),
            ("a.b", Basis::Brief, 2)
        );
        assert_eq!(
            (rules[1].id.as_str(), rules[1].basis),
            ("c.d", Basis::Clarification)
        );
    }

    #[test]
    fn retired_case_ids_come_from_their_table_only() {
        let text = "| `not-this` | x |\n## 10. Retired case ids\n\n| case id | retired |\n|---|---|\n\
                    | `old-case` | 2026 |\n| `older` | 2025 |\n";
        assert_eq!(retired_case_ids(text), ["old-case", "older"]);
        assert!(
            retired_case_ids(DISPATCHER_SPEC).contains(&"errors-arity-dead-letters".to_string())
        );
    }

    #[test]
    fn the_spec_has_unique_ids_and_both_bases() {
        let rules = rules();
        assert!(rules.len() >= 40, "only {} rules parsed", rules.len());
        let mut ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        let before = ids.len();
        ids.dedup();
        assert_eq!(
            ids.len(),
            before,
            "duplicate rule ids in spec/dispatcher.md"
        );
        assert!(rules.iter().any(|r| r.basis == Basis::Clarification));
        assert_eq!(
            find(&rules, "retry.wait-schedule").map(|r| r.basis),
            Some(Basis::Brief)
        );
        assert_eq!(
            find(&rules, "dead.list").map(|r| r.basis),
            Some(Basis::Clarification)
        );
    }
}
