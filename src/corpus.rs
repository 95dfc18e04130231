//! The case corpus as a whole: the built-in cases and any folders of the user's own, loaded as
//! one list, and the checks that keep it honest against the spec (known rule ids, every rule
//! covered, unique ids, sound `clarified` marks, no unreviewed recordings).

use crate::case::{self, Case, LoadError, Origin, Recorded};
use crate::spec::{Basis, Grid, GridRow, Rule};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a run's cases come from: the corpus built into hookcheck, folders of case files
/// (an implementer's own regression cases), or both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sources {
    pub builtin: bool,
    pub folders: Vec<PathBuf>,
}

impl Default for Sources {
    fn default() -> Self {
        Sources {
            builtin: true,
            folders: Vec::new(),
        }
    }
}

impl Sources {
    /// For reports: `the built-in corpus`, `the built-in corpus and mycases/`, ...
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if self.builtin {
            parts.push("the built-in corpus".to_string());
        }
        parts.extend(self.folders.iter().map(|f| f.display().to_string()));
        match parts.len() {
            0 => "no cases".to_string(),
            _ => parts.join(" and "),
        }
    }
}

#[derive(Debug, Default)]
pub struct Corpus {
    pub cases: Vec<Case>,
    /// Files that could not be loaded; their cases are missing from `cases`.
    pub errors: Vec<LoadError>,
    /// What the walk of the case folders skipped (special files, folders reached twice, `.YAML`
    /// files) and folders holding no case file, each naming the path.
    pub warnings: Vec<String>,
}

impl Corpus {
    /// The cases built into this hookcheck (`cases/` as it was when it was built).
    pub fn builtin() -> Corpus {
        let mut corpus = Corpus::default();
        for (path, suite, text) in crate::builtin::case_files() {
            match case::parse(text, Path::new(path), suite) {
                Ok(cases) => corpus.cases.extend(cases),
                Err(e) => corpus.errors.push(e),
            }
        }
        corpus
    }

    /// The built-in cases, if wanted, then each folder's.
    pub fn gather(sources: &Sources) -> Corpus {
        let mut corpus = if sources.builtin {
            Corpus::builtin()
        } else {
            Corpus::default()
        };
        for folder in &sources.folders {
            let more = Corpus::load(folder);
            corpus.cases.extend(more.cases);
            corpus.errors.extend(more.errors);
            corpus.warnings.extend(more.warnings);
        }
        corpus
    }

    /// Every case file below `root`.
    pub fn load(root: &Path) -> Corpus {
        let mut corpus = Corpus::default();
        match case::discover_all(root) {
            Ok(found) => {
                corpus.warnings = found.warnings;
                if found.sources.is_empty() {
                    corpus.warnings.push(format!(
                        "{}: holds no case files (`*.yaml` or `*.yml`)",
                        root.display()
                    ));
                }
                for source in found.sources {
                    match with_problems(case::load(&source.path, &source.suite)) {
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

/// The `hookcheck coverage` report: per rule, its basis and how many cases cite it; the rules ×
/// situations grid; then the uncovered rules and unchecked cells (`rule@situation`), which the
/// second value lists.
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
    let mut uncovered: Vec<String> = rows
        .iter()
        .filter(|(_, n)| *n == 0)
        .map(|(r, _)| r.id.clone())
        .collect();
    let grid = crate::spec::grid();
    out.push_str(&grid_report(cases, &grid));
    let gaps: Vec<String> = situation_gaps(cases, &grid)
        .into_iter()
        .map(|(cell, _)| cell)
        .collect();
    let _ = writeln!(
        out,
        "\n{} rules, {} cases, {} uncovered{}; {} situation cells unchecked{}",
        rules.len(),
        cases.len(),
        uncovered.len(),
        if uncovered.is_empty() {
            String::new()
        } else {
            format!(": {}", uncovered.join(", "))
        },
        gaps.len(),
        if gaps.is_empty() {
            String::new()
        } else {
            format!(": {}", gaps.join(", "))
        }
    );
    uncovered.extend(gaps);
    (out, uncovered)
}

/// `hookcheck lint`: every warning (`warning: ...`) and problem of the corpus, one per line,
/// then a count line; and the number of problems. No case at all is a problem: a lint that
/// checked nothing must not pass.
///
/// Everything in it is shown inert: a case file's name, a case's id or a value quoted in a
/// message is the user's text, which must not act on the terminal nor start a line of its own
/// (only a load error's reason, which lists more problems, spans lines).
pub fn lint(sources: &Sources) -> (String, usize) {
    use crate::inert::{terminal, terminal_line};
    let corpus = Corpus::gather(sources);
    let mut found: Vec<String> = corpus
        .errors
        .iter()
        .map(|e| {
            format!(
                "{}:{}:{}: {}",
                terminal_line(&e.file.display().to_string()),
                e.line,
                e.column,
                terminal(&e.reason)
            )
        })
        .collect();
    found.extend(
        problems(&corpus.cases, &crate::spec::rules())
            .iter()
            .map(|p| terminal_line(p)),
    );
    if corpus.cases.is_empty() && corpus.errors.is_empty() {
        found.push(format!(
            "no cases in {}: nothing was checked",
            terminal_line(&sources.describe())
        ));
    }
    let mut text: String = corpus
        .warnings
        .iter()
        .map(|w| format!("warning: {}\n", terminal_line(w)))
        .collect();
    text.extend(found.iter().map(|p| format!("{p}\n")));
    let warnings = match corpus.warnings.len() {
        0 => String::new(),
        1 => ", 1 warning".to_string(),
        n => format!(", {n} warnings"),
    };
    // The cases counted are those that loaded: a file that did not is said, so "0 cases" above
    // a file's problems is not read as an empty folder.
    let unloaded = match corpus.errors.len() {
        0 => String::new(),
        n => format!(
            " ({} did not load)",
            crate::wording::count(n, "case file", "case files")
        ),
    };
    text.push_str(&format!(
        "{}{unloaded}: {}{warnings}\n",
        crate::wording::count(corpus.cases.len(), "case", "cases"),
        crate::wording::count(found.len(), "problem", "problems")
    ));
    (text, found.len())
}

/// A case file's load, with the problems of the cases that parsed despite its error told in the
/// error too (an unknown part leaves them whole): the user fixes them all in one go, not one
/// after the other.
pub fn with_problems(loaded: Result<Vec<Case>, LoadError>) -> Result<Vec<Case>, LoadError> {
    loaded.map_err(|mut error| {
        let parsed = std::mem::take(&mut error.parsed);
        for problem in problems(&parsed, &crate::spec::rules()) {
            error.reason.push('\n');
            error.reason.push_str(&problem);
        }
        error
    })
}

/// Problems that make the corpus untrustworthy, each as `file:line: message`.
pub fn problems(cases: &[Case], rules: &[Rule]) -> Vec<String> {
    let mut out = Vec::new();
    let basis = |id: &str| crate::spec::find(rules, id).map(|r| r.basis);
    let mut seen: BTreeMap<&str, &Case> = BTreeMap::new();
    let retired = crate::spec::retired_case_ids(crate::spec::DISPATCHER_SPEC);
    let codes = crate::spec::error_codes(crate::spec::DISPATCHER_SPEC);
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
                None => {
                    let near = crate::spec::closest(r, rules.iter().map(|rule| rule.id.as_str()))
                        .map(|n| format!(": did you mean `{n}`?"))
                        .unwrap_or_default();
                    out.push(format!("{at}: cites unknown rule `{r}`{near}"));
                }
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
            let needs = case::depends_on_spelling(&s.op);
            let step_at = format!("{}:{}", c.file.display(), s.line);
            if needs && !s.spelling {
                out.push(format!(
                    "{step_at}: a number here is written with a fraction or exponent but is whole: \
                     mark the step `spelling: true` (spec/case-format.md)"
                ));
            }
            if s.spelling && !needs {
                out.push(format!(
                    "{step_at}: `spelling: true`, but no number here is written as a whole float"
                ));
            }
            if s.spelling && !s.expect.as_str().is_some_and(|e| e.starts_with("error: ")) {
                out.push(format!(
                    "{step_at}: a `spelling` step must expect an error: it is left out for \
                     implementations that see only number values, which is sound only when it \
                     changes nothing"
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
        out.extend(crate::citations::problems(c, &codes));
        out.extend(situation_problems(c, &at, rules));
        out.extend(part_list_problems(c, &at));
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

/// What is wrong with a case's `without:` and `also:` lists (their names are known parts:
/// loading checks that). A case that excludes its own part, a part its part builds on, or a
/// part `also` asks for applies to no implementation at all: it would never run, and so never
/// be checked. A part in `also` must add something: not the case's own part nor one it builds
/// on.
fn part_list_problems(c: &Case, at: &str) -> Vec<String> {
    let mut out = Vec::new();
    let needed = c.part.needs();
    for (field, list) in [("without", &c.without), ("also", &c.also)] {
        for (i, p) in list.iter().enumerate() {
            let problem = if list[..i].contains(p) {
                format!("`{field}` lists `{p}` twice")
            } else if field == "also" {
                if *p == c.part || needed.contains(p) {
                    format!(
                        "`also` lists `{p}`, which the case's part `{}` already needs",
                        c.part
                    )
                } else if c.without.contains(p) {
                    format!(
                        "`also` and `without` both list `{p}`: the case would apply to no \
                         implementation"
                    )
                } else {
                    continue;
                }
            } else if *p == c.part {
                format!(
                    "`without` lists `{p}`, the case's own part: the case would apply to no \
                     implementation"
                )
            } else if needed.contains(p) {
                format!(
                    "`without` lists `{p}`, which the case's part `{}` builds on: the case \
                     would apply to no implementation",
                    c.part
                )
            } else {
                continue;
            };
            out.push(format!("{at}: {problem}"));
        }
    }
    out
}

/// What is wrong with a case's `situations:` map against `spec/situations.md`.
fn situation_problems(c: &Case, at: &str, rules: &[Rule]) -> Vec<String> {
    let grid = crate::spec::grid();
    let mut out = Vec::new();
    for (situation, cited) in &c.situations {
        if !grid.situations.contains(situation) {
            out.push(format!(
                "{at}: unknown situation `{situation}` (spec/situations.md lists {})",
                grid.situations.join(", ")
            ));
            continue;
        }
        for rule in cited {
            if !c.rules.contains(rule) && crate::spec::find(rules, rule).is_some() {
                out.push(format!(
                    "{at}: situations cites `{rule}`, which the case's rules do not"
                ));
            }
            match grid.requires(rule, situation) {
                Some(true) => {}
                Some(false) => out.push(format!(
                    "{at}: spec/situations.md says `{rule}` says nothing in situation \
                     `{situation}`"
                )),
                None => out.push(format!(
                    "{at}: `{rule}` is not a rule of the grid in spec/situations.md"
                )),
            }
        }
    }
    out
}

/// Per grid row, per situation: `None` where the rule says nothing, else how many cases check
/// the rule in that situation.
pub fn situation_coverage<'a>(
    cases: &[Case],
    grid: &'a Grid,
) -> Vec<(&'a GridRow, Vec<Option<usize>>)> {
    grid.rows
        .iter()
        .map(|row| {
            let counts = grid
                .situations
                .iter()
                .zip(&row.required)
                .map(|(situation, required)| {
                    required.then(|| {
                        cases
                            .iter()
                            .filter(|c| {
                                c.situations
                                    .get(situation)
                                    .is_some_and(|r| r.contains(&row.rule))
                            })
                            .count()
                    })
                })
                .collect();
            (row, counts)
        })
        .collect()
}

/// The required cells of the grid no case checks, as `rule@situation`, each with its line.
pub fn situation_gaps(cases: &[Case], grid: &Grid) -> Vec<(String, usize)> {
    situation_coverage(cases, grid)
        .into_iter()
        .flat_map(|(row, counts)| {
            grid.situations
                .iter()
                .zip(counts)
                .filter(|(_, n)| *n == Some(0))
                .map(|(s, _)| (format!("{}@{s}", row.rule), row.line))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The grid as text: a row per rule, a column per situation, each cell the number of cases
/// (`-` where the rule says nothing, `0!` where a required cell has none).
fn grid_report(cases: &[Case], grid: &Grid) -> String {
    use std::fmt::Write as _;
    let width = grid.rows.iter().map(|r| r.rule.len()).max().unwrap_or(4);
    let mut out = format!("\n{:<width$}", "rule \\ situation");
    for s in &grid.situations {
        let _ = write!(out, "  {s}");
    }
    out.push('\n');
    for (row, counts) in situation_coverage(cases, grid) {
        let _ = write!(out, "{:<width$}", row.rule);
        for (s, n) in grid.situations.iter().zip(counts) {
            let cell = match n {
                None => "-".to_string(),
                Some(0) => "0!".to_string(),
                Some(n) => n.to_string(),
            };
            let _ = write!(out, "  {cell:>w$}", w = s.len());
        }
        out.push('\n');
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
        // `dead_letter`'s `unknown event` is the roadmap's own (`dead-letter.errors`).
        ("status", Some("unknown event")) => Some("status.unknown-event"),
        ("enqueue", Some("unknown endpoint")) => Some("enqueue.unknown-endpoint"),
        ("endpoint", Some("unknown endpoint")) => Some("endpoint.errors"),
        // Part 8: the roadmap names no error of its operations, nor of a payload; an unknown
        // operation is the brief's own (`op.unknown-name`).
        (_, Some("unknown operation")) => None,
        ("set_secret", Some(_)) => Some("sig.set-secret-errors"),
        ("signature", Some(_)) => Some("sig.signature-codes"),
        ("verify", Some(_)) => Some("sig.verify-codes"),
        ("enqueue", Some(_)) if step.op.as_array().is_some_and(|op| op.len() == 6) => {
            Some("sig.payload-type")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::parse;
    use crate::spec::parse_rules;

    #[test]
    fn a_misspelled_part_does_not_hide_the_other_problems() {
        let text = "part: retires\ncases:\n  - id: a-case\n    title: t\n    rules: [no.such-rule]\n    \
                    origin: brief\n    steps:\n      - op: [process, 0]\n        expect: []\n";
        let err = with_problems(case::parse(text, std::path::Path::new("p.yaml"), "s"))
            .expect_err("unknown part");
        let message = err.to_string();
        assert!(
            message.starts_with("p.yaml:1:7: unknown part `retires`"),
            "{message}"
        );
        assert!(message.contains("did you mean `retries`?"), "{message}");
        assert!(
            message.contains("cites unknown rule `no.such-rule`"),
            "{message}"
        );
    }

    #[test]
    fn brief_cases_must_mark_clarified_results() {
        let rules = parse_rules(
            "### `a.b` · brief\n### `pause.disable` · brief\n### `pause.results` · clarification\n",
        );
        let text = r#"part: pause
cases:
  - id: one
    title: t
    rules: [a.b, pause.disable]
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
