//! The rule catalogue of `spec/dispatcher.md`: every rule id with its basis (stated by the brief,
//! or a clarification hookcheck decided). Embedded at build time so the binary needs no checkout.

use std::fmt;

pub const DISPATCHER_SPEC: &str = include_str!("../spec/dispatcher.md");
pub const SITUATIONS_SPEC: &str = include_str!("../spec/situations.md");

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
    /// The rule's first sentence, for reports that say what a failing case is about.
    pub summary: String,
}

/// Parses rule headings of the form ``### `rule.id` · brief`` (or `· clarification`).
pub fn parse_rules(spec: &str) -> Vec<Rule> {
    let lines: Vec<&str> = spec.lines().collect();
    lines
        .iter()
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
                summary: first_sentence(&lines[i + 1..]),
            })
        })
        .collect()
}

/// The first sentence of the paragraph that opens `body`, at most about 100 characters.
fn first_sentence(body: &[&str]) -> String {
    let paragraph: Vec<&str> = body
        .iter()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.trim())
        .collect();
    let text = paragraph.join(" ");
    let end = text
        .match_indices(". ")
        .map(|(i, _)| i + 1)
        .next()
        .unwrap_or(text.len());
    let sentence = &text[..end];
    match sentence.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &sentence[..i]),
        None => sentence.to_string(),
    }
}

/// The candidate nearest to `word` by edit distance, if it is near enough to be a misspelling
/// (at most a third of the word's length, and at least one edit away).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| (1..=limit).contains(d))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (previous + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            previous = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// A rule of the embedded spec by id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    static RULES: std::sync::OnceLock<Vec<Rule>> = std::sync::OnceLock::new();
    RULES.get_or_init(rules).iter().find(|r| r.id == id)
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

/// The error codes of the spec's "Error codes" table, each with the rules that give it: a step
/// expecting `"error: <code>"` depends on one of them (`hookcheck lint` checks it is cited).
pub fn error_codes(spec: &str) -> Vec<(String, Vec<String>)> {
    spec.lines()
        .skip_while(|l| !l.starts_with("## ") || !l.contains("Error codes"))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| {
            let (code, rest) = l.strip_prefix("| `\"error: ")?.split_once("\"` |")?;
            let rules = rest
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            Some((code.to_string(), rules))
        })
        .collect()
}

/// The rules × situations grid of `spec/situations.md`: for each rule, the situations in which
/// a case must check it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grid {
    pub situations: Vec<String>,
    pub rows: Vec<GridRow>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridRow {
    pub rule: String,
    /// Per situation, in the order of `Grid::situations`: must a case check the rule there?
    pub required: Vec<bool>,
    /// 1-based line of the row in the grid's file.
    pub line: usize,
}

impl Grid {
    pub fn row(&self, rule: &str) -> Option<&GridRow> {
        self.rows.iter().find(|r| r.rule == rule)
    }

    /// Whether the grid requires `rule` to be checked in `situation`; `None` when either is not
    /// in the grid.
    pub fn requires(&self, rule: &str, situation: &str) -> Option<bool> {
        let column = self.situations.iter().position(|s| s == situation)?;
        self.row(rule)?.required.get(column).copied()
    }
}

/// Parses the grid: a header row `| rule | `situation` | ...`, then one row per rule whose
/// cells are `✓` (required) or anything else (the rule says nothing there).
pub fn parse_grid(text: &str) -> Grid {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().trim_matches('`').to_string())
            .collect()
    };
    let mut grid = Grid::default();
    let mut lines = text.lines().enumerate();
    for (_, line) in lines.by_ref() {
        if line.starts_with("| rule |") {
            grid.situations = cells(line).into_iter().skip(1).collect();
            break;
        }
    }
    for (i, line) in lines {
        if !line.starts_with('|') {
            break;
        }
        let mut row = cells(line).into_iter();
        let Some(rule) = row.next().filter(|r| r.contains('.')) else {
            continue;
        };
        grid.rows.push(GridRow {
            rule,
            required: row.map(|c| c == "✓").collect(),
            line: i + 1,
        });
    }
    grid
}

/// The grid of the embedded `spec/situations.md`.
pub fn grid() -> Grid {
    parse_grid(SITUATIONS_SPEC)
}

pub fn find<'a>(rules: &'a [Rule], id: &str) -> Option<&'a Rule> {
    rules.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelling_finds_its_word_and_nothing_far_does() {
        let parts = ["retries", "ordering", "pause"];
        assert_eq!(closest("retires", parts), Some("retries"));
        assert_eq!(closest("paus", parts), Some("pause"));
        assert_eq!(closest("folklore", parts), None);
        assert_eq!(closest("pause", parts), None);
        let ids: Vec<String> = rules().into_iter().map(|r| r.id).collect();
        assert_eq!(
            closest("retry.wait-schedul", ids.iter().map(String::as_str)),
            Some("retry.wait-schedule")
        );
    }

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
    fn the_grid_names_known_rules_and_every_situation_of_the_schema() {
        let grid = grid();
        assert_eq!(grid.situations.len(), 13, "{:?}", grid.situations);
        assert!(grid.rows.len() >= 10);
        let rules = rules();
        for row in &grid.rows {
            assert!(
                find(&rules, &row.rule).is_some(),
                "unknown rule {}",
                row.rule
            );
            assert_eq!(row.required.len(), grid.situations.len(), "{}", row.rule);
        }
        assert_eq!(grid.requires("pause.held", "blocked-pending"), Some(true));
        assert_eq!(grid.requires("pause.no-replay", "head"), Some(false));
        assert_eq!(grid.requires("pause.held", "nowhere"), None);
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../spec/case.schema.json")).unwrap_or_default();
        let listed = &schema["$defs"]["case"]["properties"]["situations"]["propertyNames"]["enum"];
        assert_eq!(listed, &serde_json::json!(grid.situations));
    }

    #[test]
    fn every_error_code_of_the_table_names_known_rules() {
        let codes = error_codes(DISPATCHER_SPEC);
        let rules = rules();
        assert!(codes.len() >= 10, "{codes:?}");
        let unknown = codes.iter().find(|(c, _)| c == "unknown operation");
        assert_eq!(
            unknown.map(|(_, r)| r.as_slice()),
            Some(
                &[
                    "op.unknown-name".to_string(),
                    "op.name-type".to_string(),
                    "sig.absent".to_string()
                ][..]
            )
        );
        for (code, cited) in &codes {
            assert!(!cited.is_empty(), "{code}");
            for r in cited {
                assert!(find(&rules, r).is_some(), "{code}: {r}");
            }
        }
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
