//! The case corpus as a whole: loading every file under `cases/`, and the checks that keep it
//! honest against the spec (known rule ids, every rule covered, unique ids, sound `clarified`
//! marks, no unreviewed recordings).

use crate::case::{self, Case, LoadError, Origin, Recorded};
use crate::spec::{Basis, Rule};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Default)]
pub struct Corpus {
    pub cases: Vec<Case>,
    /// Files that could not be loaded; their cases are missing from `cases`.
    pub errors: Vec<LoadError>,
}

impl Corpus {
    pub fn load(root: &Path) -> Corpus {
        let mut corpus = Corpus::default();
        match case::discover(root) {
            Ok(sources) => {
                for source in sources {
                    match case::load(&source.path, &source.suite) {
                        Ok(cases) => corpus.cases.extend(cases),
                        Err(e) => corpus.errors.push(e),
                    }
                }
            }
            Err(e) => corpus.errors.push(e),
        }
        corpus
    }
}

/// How many cases cite each rule of the spec, in spec order (zero for uncovered rules).
pub fn coverage<'a>(cases: &[Case], rules: &'a [Rule]) -> Vec<(&'a Rule, usize)> {
    rules
        .iter()
        .map(|r| (r, cases.iter().filter(|c| c.rules.contains(&r.id)).count()))
        .collect()
}

/// The `hookcheck coverage` table: per rule, its basis and how many cases cite it, then the
/// uncovered rules. `None` for the second value when every rule is covered.
pub fn coverage_report(cases: &[Case], rules: &[Rule]) -> (String, Vec<String>) {
    use std::fmt::Write as _;
    let mut out = String::new();
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(4).max(4);
    let _ = writeln!(out, "{:<width$}  {:<13}  cases", "rule", "basis");
    let rows = coverage(cases, rules);
    for (rule, n) in &rows {
        let _ = writeln!(
            out,
            "{:<width$}  {:<13}  {n}",
            rule.id,
            rule.basis.to_string()
        );
    }
    let uncovered: Vec<String> = rows
        .iter()
        .filter(|(_, n)| *n == 0)
        .map(|(r, _)| r.id.clone())
        .collect();
    let _ = writeln!(
        out,
        "\n{} rules, {} cases, {} uncovered{}",
        rules.len(),
        cases.len(),
        uncovered.len(),
        if uncovered.is_empty() {
            String::new()
        } else {
            format!(": {}", uncovered.join(", "))
        }
    );
    (out, uncovered)
}

/// `hookcheck lint`: every problem of the corpus under `root`, one per line, then a count line;
/// and the number of problems.
pub fn lint(root: &Path) -> (String, usize) {
    let corpus = Corpus::load(root);
    let mut found: Vec<String> = corpus.errors.iter().map(ToString::to_string).collect();
    found.extend(problems(&corpus.cases, &crate::spec::rules()));
    let mut text: String = found.iter().map(|p| format!("{p}\n")).collect();
    text.push_str(&format!(
        "{} cases: {} problems\n",
        corpus.cases.len(),
        found.len()
    ));
    (text, found.len())
}

/// Problems that make the corpus untrustworthy, each as `file:line: message`.
pub fn problems(cases: &[Case], rules: &[Rule]) -> Vec<String> {
    let mut out = Vec::new();
    let basis = |id: &str| crate::spec::find(rules, id).map(|r| r.basis);
    let mut seen: BTreeMap<&str, &Case> = BTreeMap::new();
    let retired = crate::spec::retired_case_ids(crate::spec::DISPATCHER_SPEC);
    for c in cases {
        let at = format!("{}:{}: case {}", c.file.display(), c.line, c.id);
        if retired.contains(&c.id) {
            out.push(format!(
                "{at}: this id was retired (spec/dispatcher.md, \"Retired case ids\"); choose a new one"
            ));
        }
        if let Some(first) = seen.insert(&c.id, c) {
            out.push(format!(
                "{at}: id already used at {}:{}",
                first.file.display(),
                first.line
            ));
        }
        if !case::valid_id(&c.id) {
            out.push(format!(
                "{at}: ids are lower-case letters, digits and dashes"
            ));
        }
        if c.rules.is_empty() {
            out.push(format!("{at}: cites no rule"));
        }
        for r in &c.rules {
            match basis(r) {
                None => out.push(format!("{at}: cites unknown rule `{r}`")),
                Some(Basis::Clarification) if c.origin == Origin::Brief => out.push(format!(
                    "{at}: origin brief but cites clarification `{r}` (mark the step `clarified: {r}` \
                     and cite only brief rules, or make the origin clarification)"
                )),
                _ => {}
            }
        }
        for s in &c.steps {
            if c.origin == Origin::Brief
                && s.clarified.is_none()
                && let Some(rule) = clarification_behind(s)
            {
                out.push(format!(
                    "{}:{}: in a brief case this result is fixed by clarification `{rule}`: \
                     add `clarified: {rule}` to the step",
                    c.file.display(),
                    s.line
                ));
            }
            if let Some(r) = &s.clarified
                && basis(r) != Some(Basis::Clarification)
            {
                out.push(format!(
                    "{}:{}: `clarified: {r}` must name a clarification rule of the spec",
                    c.file.display(),
                    s.line
                ));
            }
        }
        if c.recorded == Some(Recorded::Unreviewed) {
            out.push(format!(
                "{at}: recorded from the reference and not yet reviewed against the spec"
            ));
        }
        if c.steps.is_empty() {
            out.push(format!("{at}: has no steps"));
        }
    }
    out
}

/// The clarification that fixes a step's expected result when the brief alone does not: a
/// guard against brief cases that silently depend on hookcheck's decisions.
pub fn clarification_behind(step: &crate::case::Step) -> Option<&'static str> {
    let name = step
        .op
        .get(0)
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let error = step.expect.as_str().and_then(|e| e.strip_prefix("error: "));
    match (name, error) {
        ("dead_letters", _) => Some("dead.list"),
        ("disable" | "enable", None) => Some("pause.results"),
        (_, Some("duplicate endpoint")) => Some("register.duplicate"),
        (_, Some("duplicate event")) => Some("enqueue.duplicate-event"),
        (_, Some("unknown event")) => Some("status.unknown-event"),
        ("enqueue", Some("unknown endpoint")) => Some("enqueue.unknown-endpoint"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::parse;
    use crate::spec::parse_rules;

    #[test]
    fn brief_cases_must_mark_clarified_results() {
        let rules = parse_rules("### `a.b` · brief\n### `pause.results` · clarification\n");
        let text = r#"part: pause
cases:
  - id: one
    title: t
    rules: [a.b]
    origin: brief
    steps:
      - op: [disable, 0, s]
        expect: true
      - op: [disable, 0, s]
        expect: "error: already disabled"
      - op: [enable, 0, s, true]
        expect: true
        clarified: pause.results
"#;
        let cases = parse(text, Path::new("f.yaml"), "s").expect("parses");
        let p = problems(&cases, &rules);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("f.yaml:8: in a brief case"), "{p:?}");
    }

    #[test]
    fn flags_unknown_rules_duplicates_and_unsound_marks() {
        let rules = parse_rules("### `a.b` · brief\n### `c.d` · clarification\n");
        let text = r#"part: pause
cases:
  - id: one
    title: t
    rules: [a.b, c.d, z.z]
    origin: brief
    steps:
      - op: [process, 0]
        expect: []
        clarified: a.b
  - id: one
    title: t
    rules: [a.b]
    origin: regression
    recorded: unreviewed
    steps:
      - op: [process, 0]
        expect: []
"#;
        let cases = parse(text, Path::new("f.yaml"), "s").expect("parses");
        let p = problems(&cases, &rules);
        let has = |needle: &str| p.iter().any(|m| m.contains(needle));
        assert!(has("cites unknown rule `z.z`"), "{p:?}");
        assert!(has("origin brief but cites clarification `c.d`"), "{p:?}");
        assert!(
            has("f.yaml:8: `clarified: a.b` must name a clarification"),
            "{p:?}"
        );
        assert!(
            has("f.yaml:11: case one: id already used at f.yaml:3"),
            "{p:?}"
        );
        assert!(has("not yet reviewed"), "{p:?}");
        assert_eq!(p.len(), 5, "{p:?}");
        let cov = coverage(&cases, &rules);
        assert_eq!(
            cov.iter()
                .map(|(r, n)| (r.id.as_str(), *n))
                .collect::<Vec<_>>(),
            vec![("a.b", 2), ("c.d", 1)]
        );
    }
}
