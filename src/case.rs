//! Case files (`spec/case-format.md`): the model, discovery under `cases/`, loading with line
//! numbers, and a cheap text scan of case ids so a harness can list cases without parsing YAML.

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which part of the brief an implementation needs to run a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Retries,
    Ordering,
    Pause,
}

impl Part {
    pub const ALL: [Part; 3] = [Part::Retries, Part::Ordering, Part::Pause];

    pub fn as_str(self) -> &'static str {
        match self {
            Part::Retries => "retries",
            Part::Ordering => "ordering",
            Part::Pause => "pause",
        }
    }

    pub fn parse(s: &str) -> Option<Part> {
        Part::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// Where a case's expectations come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// Only rules the brief states (steps fixed by a clarification say so with `clarified`).
    Brief,
    /// Depends on at least one clarification of the spec.
    Clarification,
    /// Turned from a support ticket into a case.
    Regression,
    /// Found by `hookcheck fuzz` and shrunk.
    Fuzz,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Brief => "brief",
            Origin::Clarification => "clarification",
            Origin::Regression => "regression",
            Origin::Fuzz => "fuzz",
        }
    }
}

/// A case whose expectations were recorded from the reference rather than worked out by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recorded {
    /// Not yet checked against the spec by a person: it does not count.
    Unreviewed,
    /// Checked against the spec by a person.
    Reviewed,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    part: Part,
    cases: Vec<RawCase>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    id: Spanned<String>,
    title: String,
    rules: Vec<String>,
    origin: Origin,
    #[serde(default)]
    ticket: Option<String>,
    #[serde(default)]
    notes: Option<String>,
    #[serde(default)]
    recorded: Option<Recorded>,
    #[serde(default)]
    situations: BTreeMap<String, Vec<String>>,
    steps: Vec<RawStep>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    op: Spanned<Value>,
    expect: Value,
    #[serde(default)]
    clarified: Option<String>,
    #[serde(default)]
    spelling: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The operation in the brief's array form, sent as is.
    pub op: Value,
    pub expect: Value,
    /// The clarification that fixes this step's result in a brief case; such a step is not
    /// compared when only the brief's rules are checked.
    pub clarified: Option<String>,
    /// The expectation depends on how a number in the operation is written (`10.0` against
    /// `10`): an implementation whose JSON reader sees only values does not get this step.
    pub spelling: bool,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub id: String,
    pub title: String,
    pub rules: Vec<String>,
    pub origin: Origin,
    pub ticket: Option<String>,
    pub notes: Option<String>,
    pub recorded: Option<Recorded>,
    /// The rules the case checks in each situation of `spec/situations.md`.
    pub situations: BTreeMap<String, Vec<String>>,
    pub steps: Vec<Step>,
    pub part: Part,
    /// The folder under `cases/` the file sits in: `retries`, `errors`, `regressions`...
    pub suite: String,
    pub file: Arc<Path>,
    pub line: u32,
}

impl Case {
    /// The test name: `<suite>::<id>`.
    pub fn name(&self) -> String {
        format!("{}::{}", self.suite, self.id)
    }

    pub fn operations(&self) -> Vec<Value> {
        self.steps.iter().map(|s| s.op.clone()).collect()
    }
}

/// Whether an operation holds a number written with a fraction or exponent whose value is
/// whole (`10.0`, `1e3`, `2e2`): a JSON reader that sees only values takes it for an integer, so
/// the step's expectation depends on spelling (`op.ts-strict`, `outcomes.strict`).
pub fn depends_on_spelling(op: &Value) -> bool {
    match op {
        Value::Number(n) => {
            let text = n.to_string();
            text.contains(['.', 'e', 'E'])
                && text
                    .parse::<f64>()
                    .is_ok_and(|v| v.is_finite() && v.fract() == 0.0)
        }
        Value::Array(items) => items.iter().any(depends_on_spelling),
        Value::Object(map) => map.values().any(depends_on_spelling),
        _ => false,
    }
}

/// Whether `id` can name a case: lower-case letters, digits and dashes, not starting with a dash
/// (`spec/case-format.md`).
pub fn valid_id(id: &str) -> bool {
    id.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A case file that could not be read or parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    pub line: u64,
    pub column: u64,
    pub reason: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.reason
        )
    }
}

impl std::error::Error for LoadError {}

/// A case file found under the cases folder, with the case ids a text scan sees in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub path: PathBuf,
    pub suite: String,
    pub ids: Vec<String>,
    /// The file's `part:` line, as a text scan sees it.
    pub part: Option<Part>,
}

/// Every `*.yaml`/`*.yml` file below `root`, sorted by path; the suite is the first folder
/// below `root` (files directly in `root` have the suite `cases`).
pub fn discover(root: &Path) -> Result<Vec<Source>, LoadError> {
    let mut paths = Vec::new();
    walk(root, &mut paths).map_err(|e| LoadError {
        file: root.to_path_buf(),
        line: 0,
        column: 0,
        reason: format!("cannot read the cases folder: {e}"),
    })?;
    paths.sort();
    Ok(paths
        .into_iter()
        .map(|path| {
            let suite = path
                .strip_prefix(root)
                .ok()
                .and_then(|rel| {
                    let mut parts = rel.components();
                    let first = parts.next()?;
                    parts
                        .next()
                        .map(|_| first.as_os_str().to_string_lossy().into_owned())
                })
                .unwrap_or_else(|| "cases".to_string());
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let part = text
                .lines()
                .find_map(|l| l.strip_prefix("part:"))
                .and_then(|p| Part::parse(p.split('#').next().unwrap_or("").trim()));
            Source {
                ids: scan_ids(&text),
                path,
                suite,
                part,
            }
        })
        .collect())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            out.push(path);
        }
    }
    Ok(())
}

/// The ids of lines of the form `- id: some-id`: by the case format, `id` is the first key of
/// every case. Loading checks that the scan and the parse agree.
pub fn scan_ids(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix('-')?.trim_start();
            let value = rest.strip_prefix("id:")?;
            let value = value.split(" #").next().unwrap_or("").trim();
            let value = value.trim_matches(|c| c == '"' || c == '\'');
            (!value.is_empty()).then(|| value.to_string())
        })
        .collect()
}

/// Parses one case file. `suite` names the cases in it.
pub fn load(path: &Path, suite: &str) -> Result<Vec<Case>, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        reason: format!("cannot read: {e}"),
    })?;
    parse(&text, path, suite)
}

/// Parses case-file text; `path` is used for positions and stored in each case.
pub fn parse(text: &str, path: &Path, suite: &str) -> Result<Vec<Case>, LoadError> {
    let options = serde_saphyr::options! { strict_booleans: true };
    let raw: RawFile = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let location = e.location();
        LoadError {
            file: path.to_path_buf(),
            line: location.map_or(0, |l| l.line()),
            column: location.map_or(0, |l| l.column()),
            reason: first_line(&e.without_snippet().to_string()),
        }
    })?;
    let file: Arc<Path> = Arc::from(path);
    let cases: Vec<Case> = raw
        .cases
        .into_iter()
        .map(|c| Case {
            line: line_of(&c.id.referenced),
            id: c.id.value,
            title: c.title,
            rules: c.rules,
            origin: c.origin,
            ticket: c.ticket,
            notes: c.notes,
            recorded: c.recorded,
            situations: c.situations,
            steps: c
                .steps
                .into_iter()
                .map(|s| Step {
                    line: line_of(&s.op.referenced),
                    op: s.op.value,
                    expect: s.expect,
                    clarified: s.clarified,
                    spelling: s.spelling,
                })
                .collect(),
            part: raw.part,
            suite: suite.to_string(),
            file: Arc::clone(&file),
        })
        .collect();
    let scanned = scan_ids(text);
    let parsed: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    if scanned != parsed {
        let line = cases.first().map_or(1, |c| u64::from(c.line));
        return Err(LoadError {
            file: path.to_path_buf(),
            line,
            column: 1,
            reason: format!(
                "write `- id: <id>` as the first line of every case (found {scanned:?} by \
                 scanning lines, {parsed:?} by parsing)"
            ),
        });
    }
    Ok(cases)
}

fn line_of(location: &serde_saphyr::Location) -> u32 {
    u32::try_from(location.line()).unwrap_or(u32::MAX)
}

/// serde-saphyr's messages may span lines (snippets) and end with the position, which
/// `LoadError` gives separately; the first line, less the position, is the reason.
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or(message).trim();
    line.rsplit_once(" at line ")
        .map_or(line, |(reason, _)| reason)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"# yaml-language-server: $schema=../../spec/case.schema.json
part: retries
cases:
  - id: first   # a comment
    title: One
    rules: [retry.wait-schedule]
    origin: brief
    steps:
      - op: [register, 0, shop, "https://shop.example/hooks"]
        expect: true
      - op: [process, 0]
        expect: []
  - id: "second"
    title: Two
    rules: []
    origin: clarification
    ticket: SUP-1
    steps:
      - op: [disable, 0, shop]
        expect: "error: unknown endpoint"
        clarified: pause.results
"#;

    #[test]
    fn parses_cases_with_lines() {
        let cases = parse(FILE, Path::new("cases/retries/x.yaml"), "retries").expect("parses");
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].name(), "retries::first");
        assert_eq!(
            (
                cases[0].line,
                cases[0].steps[0].line,
                cases[0].steps[1].line
            ),
            (4, 9, 11)
        );
        assert_eq!(
            cases[0].steps[0].op,
            serde_json::json!(["register", 0, "shop", "https://shop.example/hooks"])
        );
        assert_eq!(cases[0].steps[0].expect, serde_json::json!(true));
        assert_eq!(cases[1].ticket.as_deref(), Some("SUP-1"));
        assert_eq!(
            cases[1].steps[0].clarified.as_deref(),
            Some("pause.results")
        );
        assert_eq!(scan_ids(FILE), vec!["first", "second"]);
    }

    #[test]
    fn errors_carry_file_line_and_column() {
        let broken = FILE.replace("origin: clarification", "origin: folklore");
        let err = parse(&broken, Path::new("b.yaml"), "s").expect_err("unknown origin");
        assert_eq!(err.line, 16, "{err}");
        assert_eq!(
            err.to_string(),
            "b.yaml:16:13: unknown variant `folklore`, expected one of brief, clarification, \
             regression, fuzz"
        );
        let missing = FILE.replace("        expect: []\n", "");
        let err = parse(&missing, Path::new("m.yaml"), "s").expect_err("missing expect");
        assert!(err.reason.contains("expect"), "{err}");
        let unknown = FILE.replace("    ticket: SUP-1\n", "    tiket: SUP-1\n");
        assert!(parse(&unknown, Path::new("u.yaml"), "s").is_err());
    }

    #[test]
    fn yaml_1_1_booleans_stay_strings() {
        let text = FILE.replace("[process, 0]", "[process, no]");
        let cases = parse(&text, Path::new("y.yaml"), "s").expect("parses");
        assert_eq!(cases[0].steps[1].op, serde_json::json!(["process", "no"]));
    }

    #[test]
    fn id_not_first_is_reported() {
        let text = FILE.replace(
            "  - id: first   # a comment\n    title: One\n",
            "  - title: One\n    id: first\n",
        );
        let err = parse(&text, Path::new("o.yaml"), "s").expect_err("id must come first");
        assert!(err.reason.contains("first line of every case"), "{err}");
    }
}

#[cfg(test)]
mod schema_tests {
    use serde_json::Value;

    /// The JSON Schema editors use must list exactly the fields the loader accepts.
    #[test]
    fn schema_lists_the_loaders_fields() {
        let schema: Value = serde_json::from_str(include_str!("../spec/case.schema.json"))
            .expect("spec/case.schema.json is JSON");
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v["properties"]
                .as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            k.sort();
            k
        };
        assert_eq!(keys(&schema), ["cases", "part"]);
        assert_eq!(
            keys(&schema["$defs"]["case"]),
            [
                "id",
                "notes",
                "origin",
                "recorded",
                "rules",
                "situations",
                "steps",
                "ticket",
                "title"
            ]
        );
        assert_eq!(
            keys(&schema["$defs"]["step"]),
            ["clarified", "expect", "op", "spelling"]
        );
    }
}
