//! Case files (`spec/case-format.md`): the model, discovery under `cases/`, loading with line
//! numbers, and a cheap text scan of case ids so a harness can list cases without parsing YAML.

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use hookcheck_reference::Part;

/// Why a case does not apply to an implementation. Such a case is counted apart, never failed,
/// and not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inapplicable {
    /// The case needs a part the implementation does not declare.
    NotImplemented(Part),
    /// The case is for implementations without this part (its `without` list), and the
    /// implementation declares it.
    Offers(Part),
    /// Every step depends on how a number is written, and the implementation sees values only.
    Spelling,
}

impl Inapplicable {
    /// A few words for a table cell or a title: `not implemented`, `offers retry-after`.
    pub fn short(self) -> String {
        match self {
            Inapplicable::NotImplemented(_) => "not implemented".to_string(),
            Inapplicable::Offers(p) => format!("offers {p}"),
            Inapplicable::Spelling => "number spelling".to_string(),
        }
    }
}

impl fmt::Display for Inapplicable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inapplicable::NotImplemented(p) => write!(
                f,
                "not implemented: the case needs part `{p}` (Part {}), which the implementation \
                 does not declare",
                p.number()
            ),
            Inapplicable::Offers(p) => write!(
                f,
                "not applicable: the case is for implementations without part `{p}` (Part {}), \
                 and this one declares it",
                p.number()
            ),
            Inapplicable::Spelling => f.write_str(
                "not applicable: every step depends on how a number is written, and the \
                 implementation reads number values",
            ),
        }
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
    /// Read as text and checked after the cases, so that a misspelled part does not hide the
    /// file's other problems.
    part: Spanned<String>,
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
    /// Read as text and checked after the cases, as the file's `part` is.
    #[serde(default)]
    without: Vec<Spanned<String>>,
    /// Read as `without` is.
    #[serde(default)]
    also: Vec<Spanned<String>>,
    steps: Vec<RawStep>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    op: Spanned<Node>,
    expect: Spanned<Node>,
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
    /// The case applies only to implementations that offer none of these parts: what it
    /// expects is what the brief says without them (an outcomes object is invalid outcomes
    /// without Part 5, valid with it).
    pub without: Vec<Part>,
    /// Parts the case needs besides its own (`also: [retry-after]` on a case of `auto-disable`
    /// that shows a 410 under `disable_on_gone` reaching the threshold): it applies only to
    /// implementations that offer them all.
    pub also: Vec<Part>,
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

    /// Why the case does not apply to an implementation offering `parts`, if it does not: its
    /// part is not among them, or one of its `without` parts is.
    pub fn inapplicable(&self, parts: &[Part]) -> Option<Inapplicable> {
        if let Some(missing) = std::iter::once(&self.part)
            .chain(&self.also)
            .find(|p| !parts.contains(p))
        {
            return Some(Inapplicable::NotImplemented(*missing));
        }
        self.without
            .iter()
            .find(|p| parts.contains(p))
            .map(|p| Inapplicable::Offers(*p))
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
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    pub file: PathBuf,
    pub line: u64,
    pub column: u64,
    pub reason: String,
    /// The cases that parsed all the same (an unknown part leaves them whole), so that the layer
    /// that knows the spec's rules tells their problems too (`corpus::with_problems`), not only
    /// after the part is fixed.
    pub parsed: Vec<Case>,
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

/// The largest case file hookcheck reads: far above any hand-written or recorded file (100,000
/// recorded steps take about 8 MiB), and small enough that parsing it cannot exhaust memory.
pub const MAX_CASE_FILE_BYTES: u64 = crate::textfile::MAX_BYTES;

/// What a walk of a cases folder found: the case files, and what it skipped, each as a warning
/// naming the path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Discovery {
    pub sources: Vec<Source>,
    pub warnings: Vec<String>,
}

/// Every case file below `root`, sorted by path; the suite is the first folder below `root`
/// (files directly in `root` have the suite `cases`). See [`discover_all`] for what is skipped.
pub fn discover(root: &Path) -> Result<Vec<Source>, LoadError> {
    discover_all(root).map(|d| d.sources)
}

/// Every case file below `root`, and a warning for each thing skipped.
///
/// Case files end in `.yaml` or `.yml`, lower case, as `build.rs` takes them for the built-in
/// corpus; a file whose extension differs only in case is skipped with a warning, so a
/// `CASE.YAML` is never silently ignored. Only regular files are read: a FIFO would block the
/// reader forever and a device such as `/dev/zero` never ends, so they are skipped with a
/// warning. Symbolic links are followed, but each folder and file is visited at most once (by
/// device and inode), so links to a parent folder cannot loop or fan out.
pub fn discover_all(root: &Path) -> Result<Discovery, LoadError> {
    let fail = |path: &Path, e: std::io::Error| LoadError {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        reason: format!("cannot read the cases folder: {e}"),
        parsed: Vec::new(),
    };
    let root_meta = std::fs::metadata(root).map_err(|e| fail(root, e))?;
    if !root_meta.is_dir() {
        return Err(fail(
            root,
            std::io::Error::other("not a folder (give the folder that holds the case files)"),
        ));
    }
    let mut warnings = Vec::new();
    let mut seen = std::collections::HashSet::new();
    seen.insert(identity(&root_meta));
    // A link to a folder that holds the root (`up -> ..`) would read the cases' neighbours,
    // whatever they are: the root and every folder above it count as read already.
    if let Ok(real) = std::fs::canonicalize(root) {
        for above in real.ancestors().skip(1) {
            if let Ok(meta) = std::fs::metadata(above) {
                seen.insert(identity(&meta));
            }
        }
    }
    let mut paths = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(dir) = folders.pop() {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| fail(&dir, e))? {
            entries.push(entry.map_err(|e| fail(&dir, e))?.path());
        }
        entries.sort();
        for path in entries {
            // `metadata` follows symbolic links: what matters is what reading would reach.
            let meta = match std::fs::metadata(&path) {
                Ok(m) => m,
                Err(e) => {
                    warnings.push(format!("{}: skipped: {e}", path.display()));
                    continue;
                }
            };
            if meta.is_dir() {
                if seen.insert(identity(&meta)) {
                    folders.push(path);
                } else {
                    warnings.push(format!(
                        "{}: skipped: a link to a parent folder, or to a folder already read",
                        path.display()
                    ));
                }
                continue;
            }
            let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !matches!(extension, "yaml" | "yml") {
                if matches!(extension.to_ascii_lowercase().as_str(), "yaml" | "yml") {
                    warnings.push(format!(
                        "{}: skipped: case files end in `.yaml` or `.yml`, lower case (rename it)",
                        path.display()
                    ));
                }
                continue;
            }
            if !meta.is_file() {
                warnings.push(format!(
                    "{}: skipped: {}, not a regular file",
                    path.display(),
                    crate::textfile::kind(&meta)
                ));
            } else if seen.insert(identity(&meta)) {
                paths.push(path);
            } else {
                warnings.push(format!(
                    "{}: skipped: a file already read (through a link)",
                    path.display()
                ));
            }
        }
    }
    paths.sort();
    // A file at the top of the folder is named after the folder itself (`my-cases::...`), as one
    // in a sub-folder is after that sub-folder; the built-in corpus's top is `cases`.
    let top = std::path::absolute(root)
        .ok()
        .and_then(|r| {
            r.components()
                .next_back()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
        })
        .filter(|n| !n.is_empty() && n != "." && n != "/")
        .unwrap_or_else(|| "cases".to_string());
    let sources = paths
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
                .unwrap_or_else(|| top.clone());
            // A file that cannot be read is scanned as empty; loading it reports why.
            let text = read_case_file(&path).unwrap_or_default();
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
        .collect();
    Ok(Discovery { sources, warnings })
}

fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt as _;
    (meta.dev(), meta.ino())
}

/// Reads a case file as text, refusing anything but a regular file of at most
/// [`MAX_CASE_FILE_BYTES`]: the file is opened without blocking (a FIFO swapped in after the
/// folder walk cannot hang the open) and checked on the open handle, then read through a
/// bounded reader. A leading byte order mark is dropped (editors on Windows write one).
pub fn read_case_file(path: &Path) -> Result<String, LoadError> {
    crate::textfile::read(path, "a case file", "split it into several files").map_err(|reason| {
        LoadError {
            file: path.to_path_buf(),
            line: 0,
            column: 0,
            reason,
            parsed: Vec::new(),
        }
    })
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

/// The parts a case's `without` or `also` list names; the first name that is no part is kept
/// in `unknown` (with where it stands), to be told once the cases are parsed.
fn parts_named(
    names: Vec<Spanned<String>>,
    unknown: &mut Option<(serde_saphyr::Location, String)>,
) -> Vec<Part> {
    let mut parts = Vec::with_capacity(names.len());
    for name in names {
        match Part::parse(name.value.trim()) {
            Some(p) => parts.push(p),
            None => {
                unknown.get_or_insert((name.referenced, name.value));
            }
        }
    }
    parts
}

/// Parses one case file. `suite` names the cases in it.
pub fn load(path: &Path, suite: &str) -> Result<Vec<Case>, LoadError> {
    let text = read_case_file(path)?;
    parse(&text, path, suite)
}

/// Parses case-file text; `path` is used for positions and stored in each case.
pub fn parse(text: &str, path: &Path, suite: &str) -> Result<Vec<Case>, LoadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut options = serde_saphyr::options! {
        strict_booleans: true,
        // Non-finite and overflowing floats reach `Node` as numbers; it takes every number
        // from its text, so `1e400` is kept as written and `.inf` is refused in our words.
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
        // A case file is plain data: a tag (`!!python/object`, `!foo`) would otherwise be
        // dropped and the value read as if it were untagged, so its author never learns.
        reject_unsupported_tags: true,
        reject_tagged_field_names: true,
    };
    options.budget = Some(budget_for(text));
    let raw: RawFile = serde_saphyr::from_str_with_options(text, options)
        .map_err(|e| yaml_error(&e, path, text))?;
    let part = Part::parse(raw.part.value.trim());
    let file: Arc<Path> = Arc::from(path);
    let at = |location: &serde_saphyr::Location, reason: String| LoadError {
        file: path.to_path_buf(),
        line: location.line(),
        column: location.column(),
        reason,
        parsed: Vec::new(),
    };
    let mut cases = Vec::with_capacity(raw.cases.len());
    // The first name in a `without` or `also` list that is no part, told once the cases are
    // parsed.
    let mut unknown_without = None;
    let mut unknown_also = None;
    for c in raw.cases {
        let without = parts_named(c.without, &mut unknown_without);
        let also = parts_named(c.also, &mut unknown_also);
        let mut steps = Vec::with_capacity(c.steps.len());
        for s in c.steps {
            let line = line_of(&s.op.referenced);
            let op = to_value(s.op, text).map_err(|(l, reason)| at(&l, reason))?;
            let expect = to_value(s.expect, text).map_err(|(l, reason)| at(&l, reason))?;
            steps.push(Step {
                line,
                op,
                expect,
                clarified: s.clarified,
                spelling: s.spelling,
            });
        }
        cases.push(Case {
            line: line_of(&c.id.referenced),
            id: c.id.value,
            title: c.title,
            rules: c.rules,
            origin: c.origin,
            ticket: c.ticket,
            notes: c.notes,
            recorded: c.recorded,
            situations: c.situations,
            without,
            also,
            steps,
            part: part.unwrap_or(Part::Retries),
            suite: suite.to_string(),
            file: Arc::clone(&file),
        });
    }
    let unknown = if part.is_none() {
        Some((raw.part.referenced, raw.part.value, ""))
    } else {
        unknown_without
            .map(|(location, name)| (location, name, " in `without`"))
            .or_else(|| unknown_also.map(|(location, name)| (location, name, " in `also`")))
    };
    if let Some((location, name, place)) = unknown {
        let near = crate::spec::closest(name.trim(), Part::ALL.map(Part::as_str))
            .map(|n| format!(": did you mean `{n}`?"))
            .unwrap_or_default();
        let mut error = at(
            &location,
            format!(
                "unknown part `{name}`{place}, expected one of {}{near}",
                Part::names()
            ),
        );
        error.parsed = cases;
        return Err(error);
    }
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
            parsed: Vec::new(),
        });
    }
    Ok(cases)
}

/// The deepest nesting of a case file, far above what operations need.
const MAX_DEPTH: usize = 32;

/// serde-saphyr's default budget (250,000 nodes, 1,000,000 events) refuses files that
/// `hookcheck record` writes for long tickets (100,000 steps). Every node and event takes at
/// least one byte of text, and files are at most `MAX_CASE_FILE_BYTES`, so a budget of one per
/// byte refuses nothing a file of that size can hold while keeping the library's other limits
/// (alias expansion, nesting depth) in force.
fn budget_for(text: &str) -> serde_saphyr::Budget {
    let mut budget = serde_saphyr::Budget::default();
    let scaled = text.len().saturating_add(64);
    budget.max_nodes = budget.max_nodes.max(scaled);
    budget.max_events = budget.max_events.max(scaled);
    // Operations nest a few levels; the library's 255 levels of flow nesting overflow a
    // thread's stack in a debug build before its depth limit is checked.
    budget.flow_nesting_limit = MAX_DEPTH;
    budget.max_depth = MAX_DEPTH;
    budget
}

/// A serde-saphyr error in hookcheck's words, with its position. The library's own wording
/// names its types and options (`set DuplicateKeyPolicy in Options`, `budget breached: Nodes
/// { nodes: 250001 }`), which mean nothing to someone editing a case file.
fn yaml_error(error: &serde_saphyr::Error, path: &Path, text: &str) -> LoadError {
    use serde_saphyr::Error as E;
    use serde_saphyr::budget::BudgetBreach as B;
    let location = error.location();
    let mut inner = error.without_snippet();
    while let E::AliasError { error, .. } | E::WithSnippet { error, .. } = inner {
        inner = error;
    }
    let reason = match inner {
        E::DuplicateMappingKey { key, .. } => match key {
            Some(k) => format!("duplicate key `{k}` (each key once per mapping)"),
            None => "duplicate key (each key once per mapping)".to_string(),
        },
        E::Budget { breach, .. } => match breach {
            B::Depth { .. } => too_deep(),
            B::Aliases { .. } | B::Anchors { .. } => {
                "too many anchors or aliases (`&name`, `*name`) for a case file".to_string()
            }
            B::Documents { .. } => "a case file holds one YAML document".to_string(),
            _ => "the file is too large for a case file: too many YAML nodes, or aliases \
                  that expand to too many"
                .to_string(),
        },
        E::NonFiniteFloat { value, .. } => non_json_number(value),
        E::UnsupportedTag { tag, .. } | E::TaggedStructFieldName { tag, .. } => format!(
            "the YAML tag `{}` has no meaning in a case file, which is plain data: remove it",
            crate::inert::clip(tag, 100)
        ),
        E::MultipleDocuments { .. } => "a case file holds one YAML document: this `---` starts \
             a second one (put its cases in the first document's `cases:`, or in a file of \
             their own)"
            .to_string(),
        other => {
            let line = first_line(&other.to_string());
            // The parser's own guard against deep flow nesting (`[[[[...`).
            if line.contains("recursion limit exceeded") {
                too_deep()
            } else {
                with_suggestion(line)
            }
        }
    };
    let (mut line, mut column) = location.map_or((0, 0), |l| (l.line(), l.column()));
    let reason = match comment_hint(text, line) {
        Some(hint) if !matches!(inner, E::MultipleDocuments { .. }) => format!("{reason}: {hint}"),
        _ => reason,
    };
    if matches!(inner, E::MultipleDocuments { .. }) {
        // The library points into the second document; the user looks for its `---`.
        let before = usize::try_from(line).unwrap_or(usize::MAX);
        let marker = text
            .lines()
            .take(before)
            .enumerate()
            .filter(|(_, l)| *l == "---" || l.starts_with("--- ") || l.starts_with("---\t"))
            .last()
            .map(|(n, _)| n);
        if let Some(marker) = marker {
            line = u64::try_from(marker + 1).unwrap_or(line);
            column = 1;
        }
    }
    LoadError {
        file: path.to_path_buf(),
        line,
        column,
        reason,
        parsed: Vec::new(),
    }
}

/// When the line of a YAML error holds ` #` outside quotes, YAML read the rest as a comment
/// (`expect: [evt-1 #1 500 retry at 30]` loses its `]`): the error names a bracket, the fix is
/// quotes.
fn comment_hint(text: &str, line: u64) -> Option<String> {
    let index = usize::try_from(line).ok()?.checked_sub(1)?;
    let source = text.lines().nth(index)?;
    let (mut single, mut double) = (false, false);
    let mut previous = ' ';
    for c in source.chars() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single && previous != '\\' => double = !double,
            '#' if !single && !double && previous.is_whitespace() => {
                return Some(
                    "` #` starts a YAML comment, which ends the line here: put the text in \
                     quotes (`\"evt-1 #1 500 retry at 30\"`)"
                        .to_string(),
                );
            }
            _ => {}
        }
        previous = c;
    }
    None
}

/// `unknown variant `retires`, expected one of retries, ordering, pause` gains `: did you mean
/// `retries`?` when one of the choices is close.
fn with_suggestion(message: String) -> String {
    let Some((_, rest)) = message.split_once("unknown variant `") else {
        return message;
    };
    let Some((word, choices)) = rest.split_once("`, expected one of ") else {
        return message;
    };
    let choices: Vec<&str> = choices.split(", ").map(str::trim).collect();
    match crate::spec::closest(word, choices.iter().copied()) {
        Some(near) => format!("{message}: did you mean `{near}`?"),
        None => message,
    }
}

fn too_deep() -> String {
    format!("the file is too deeply nested for a case file: more than {MAX_DEPTH} levels")
}

fn non_json_number(spelling: &str) -> String {
    format!(
        "`{spelling}` is a YAML number that JSON cannot carry as written, so it cannot be sent \
         to implementations: write it as JSON writes numbers (`31`, `-0.5`, `1e+3`), or quote it \
         to send a string"
    )
}

/// An `op` or `expect` node as read, before numbers are taken from the text.
enum Node {
    Null,
    Bool(bool),
    /// A number; its value comes from its spelling in the file.
    Number,
    String(String),
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(String, Spanned<Node>)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
                Node::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Bool(v))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Number)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Number)
            }
            fn visit_i128<E>(self, _: i128) -> Result<Node, E> {
                Ok(Node::Number)
            }
            fn visit_u128<E>(self, _: u128) -> Result<Node, E> {
                Ok(Node::Number)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Number)
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::String(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Node, E> {
                Ok(Node::String(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = a.next_element()? {
                    items.push(item);
                }
                Ok(Node::Seq(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = a.next_entry()? {
                    entries.push(entry);
                }
                Ok(Node::Map(entries))
            }
        }
        d.deserialize_any(Visit)
    }
}

/// The JSON value of a node, each number exactly as the file spells it (serde_json keeps the
/// spelling: `arbitrary_precision`), so `1e+3` reaches implementations as `1e+3`, not `1000.0`.
/// A number JSON cannot send as spelled (`0x1F`, `+1`, `.inf`, `1e3` that it writes `1e+3`) is
/// refused, with its place.
fn to_value(node: Spanned<Node>, text: &str) -> Result<Value, (serde_saphyr::Location, String)> {
    Ok(match node.value {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(b),
        Node::String(s) => Value::String(s),
        Node::Number => {
            let span = node.defined.span();
            let spelling = span
                .byte_offset()
                .zip(span.byte_len())
                .and_then(|(start, len)| {
                    let start = usize::try_from(start).ok()?;
                    text.get(start..start.checked_add(usize::try_from(len).ok()?)?)
                })
                .unwrap_or("")
                .trim();
            // serde_json keeps digits, sign and fraction exactly but writes an exponent as
            // `e+3`: a spelling it would change is refused, so that what a case file says is
            // exactly what implementations receive.
            match serde_json::from_str::<Value>(spelling) {
                Ok(Value::Number(n)) if n.to_string() == spelling => Value::Number(n),
                Ok(Value::Number(n)) => {
                    return Err((
                        node.referenced,
                        format!(
                            "`{spelling}` would reach implementations as `{n}` (how the JSON \
                             they receive is written): write `{n}`, or quote it to send a string"
                        ),
                    ));
                }
                _ => return Err((node.referenced, non_json_number(spelling))),
            }
        }
        Node::Seq(items) => Value::Array(
            items
                .into_iter()
                .map(|i| to_value(i, text))
                .collect::<Result<_, _>>()?,
        ),
        Node::Map(entries) => {
            let mut map = serde_json::Map::new();
            for (k, v) in entries {
                map.insert(k, to_value(v, text)?);
            }
            Value::Object(map)
        }
    })
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

    fn op_of(op: &str) -> Result<Value, LoadError> {
        let text = FILE.replace("[process, 0]", op);
        parse(&text, Path::new("n.yaml"), "s").map(|c| c[0].steps[1].op.clone())
    }

    /// Numbers reach implementations as the file spells them; before, `1e3` was sent as
    /// `1000.0` and `99999999999999999999999999` as `1e+26`.
    #[test]
    fn numbers_keep_their_spelling() {
        for spelling in [
            "99999999999999999999999999",
            "1e+400",
            "-1e+400",
            "-0",
            "-0.0",
            "10.0",
            "0.1",
            "18446744073709551616",
            "-9223372036854775809",
            "2.5e-7",
        ] {
            let op = op_of(&format!("[process, {spelling}]")).expect("loads");
            assert_eq!(op[1].to_string(), spelling);
            let block = op_of(&format!("\n          - process\n          - {spelling}"))
                .expect("block style loads");
            assert_eq!(block[1].to_string(), spelling);
        }
        // An exponent JSON would write another way (`1e3` goes out as `1e+3`) is refused, with
        // the spelling that would be sent: what the file says is what implementations receive.
        for (written, sent) in [("1e3", "1e+3"), ("1E3", "1e+3"), ("2E-2", "2e-2")] {
            let e = op_of(&format!("[process, {written}]")).expect_err("refused");
            assert!(e.reason.contains(&format!("write `{sent}`")), "{e}");
            let op = op_of(&format!("[process, {sent}]")).expect("loads");
            assert_eq!(op[1].to_string(), sent);
        }
        let nested = op_of("[enqueue, 0, a, b, {x: [1e+3, 2.50]}]").expect("loads");
        assert_eq!(
            nested.to_string(),
            r#"["enqueue",0,"a","b",{"x":[1e+3,2.50]}]"#
        );
        let quoted = op_of(r#"[process, "1e3", '0x1F']"#).expect("quoted numbers are strings");
        assert_eq!(quoted, serde_json::json!(["process", "1e3", "0x1F"]));
    }

    #[test]
    fn numbers_json_cannot_spell_are_refused() {
        for spelling in ["0x1F", "+1", ".inf", "-.inf", ".nan", "0o17", "007", ".5"] {
            let err = op_of(&format!("[process, {spelling}]")).expect_err(spelling);
            assert_eq!(err.line, 11, "{err}");
            assert!(
                err.reason.starts_with(&format!(
                    "`{spelling}` is a YAML number that JSON cannot carry"
                )),
                "{err}"
            );
        }
    }

    #[test]
    fn duplicate_keys_are_reported_in_our_words() {
        let text = FILE.replace("    title: One\n", "    title: One\n    title: Again\n");
        let err = parse(&text, Path::new("d.yaml"), "s").expect_err("duplicate key");
        assert_eq!(
            err.to_string(),
            "d.yaml:6:5: duplicate key `title` (each key once per mapping)"
        );
        assert!(!err.reason.contains("DuplicateKeyPolicy"), "{err}");
    }

    #[test]
    fn deep_nesting_is_reported_in_our_words() {
        let deep = format!("{}0{}", "[".repeat(200), "]".repeat(200));
        let err = op_of(&deep).expect_err("too deep");
        assert!(
            err.reason
                .starts_with("the file is too deeply nested for a case file"),
            "{err}"
        );
        assert!(err.line > 0, "{err}");
    }

    /// 300,000 steps: more nodes than serde-saphyr's default budget of 250,000 allows.
    #[test]
    #[ignore = "slow: .ci/run runs it with --ignored"]
    fn long_files_load() {
        let mut text = FILE.to_string();
        for _ in 0..300_000 {
            text.push_str("      - op: [process, 0]\n        expect: []\n");
        }
        let cases = parse(&text, Path::new("l.yaml"), "s").expect("a long file loads");
        assert_eq!(cases[1].steps.len(), 300_001);
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let cases = parse(&format!("\u{feff}{FILE}"), Path::new("b.yaml"), "s").expect("loads");
        assert_eq!(cases.len(), 2);
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
mod part_tests {
    use super::Part;

    #[test]
    fn parts_are_numbered_named_and_read_back() {
        let numbers: Vec<usize> = Part::ALL.iter().map(|p| p.number()).collect();
        // In number order.
        assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        for p in Part::ALL {
            assert_eq!(Part::parse(p.as_str()), Some(p));
        }
        assert_eq!(Part::ALL[..Part::BRIEF.len()], Part::BRIEF);
        assert_eq!(Part::parse("retry-after"), Some(Part::RetryAfter));
        assert_eq!(Part::parse("retry_after"), None);
        assert_eq!(
            Part::RetryAfter.needs(),
            [Part::Retries, Part::Ordering, Part::Pause, Part::Policy]
        );
        assert_eq!(Part::Policy.needs(), Part::BRIEF);
        // Every part of the roadmap builds on the brief's; the brief's on nothing.
        for p in Part::ALL {
            let brief = Part::BRIEF.contains(&p);
            assert_eq!(p.needs().is_empty(), brief, "{p}");
            assert!(
                brief || Part::BRIEF.iter().all(|b| p.needs().contains(b)),
                "{p}"
            );
        }
    }

    #[test]
    fn a_declaration_without_the_parts_it_builds_on_is_refused_naming_them() {
        for ok in [
            &Part::BRIEF[..],
            &Part::ALL,
            &[Part::Retries],
            &[],
            &Part::ALL[..4],
        ] {
            assert_eq!(Part::check_declared(ok), Ok(()), "{ok:?}");
        }
        let mut no_policy = Part::ALL.to_vec();
        no_policy.retain(|p| *p != Part::Policy);
        assert_eq!(
            Part::check_declared(&no_policy),
            Err(
                "part `retry-after` (Part 5) builds on `policy` (Part 4), which is not \
                 declared: declare it too, or leave `retry-after` out; part `auto-disable` \
                 (Part 6) builds on `policy` (Part 4), which is not declared: declare it too, \
                 or leave `auto-disable` out; part `throttle` (Part 9) builds on `policy` \
                 (Part 4), which is not declared: declare it too, or leave `throttle` out; \
                 part `breaker` (Part 10) builds on `policy` (Part 4), which is not declared: \
                 declare it too, or leave `breaker` out; \
                 part `expiry` (Part 11) builds on `policy` (Part 4), which is not declared: \
                 declare it too, or leave `expiry` out"
                    .to_string()
            )
        );
        // Part 7 builds on the brief's three alone.
        let mut dead_letters = Part::BRIEF.to_vec();
        dead_letters.push(Part::DeadLetters);
        assert_eq!(Part::check_declared(&dead_letters), Ok(()));
        // Part 11 builds on Part 4 and Part 7: each named when missing.
        let mut expiry = Part::ALL[..4].to_vec();
        expiry.push(Part::Expiry);
        assert_eq!(
            Part::check_declared(&expiry),
            Err(
                "part `expiry` (Part 11) builds on `dead-letters` (Part 7), which is not \
                 declared: declare it too, or leave `expiry` out"
                    .to_string()
            )
        );
        expiry.push(Part::DeadLetters);
        assert_eq!(Part::check_declared(&expiry), Ok(()));
        let no_pause = [Part::Retries, Part::Ordering, Part::Policy];
        assert_eq!(
            Part::check_declared(&no_pause),
            Err(
                "part `policy` (Part 4) builds on `pause` (Part 3), which is not declared: \
                 declare it too, or leave `policy` out"
                    .to_string()
            )
        );
        let alone = Part::check_declared(&[Part::RetryAfter]).expect_err("refused");
        assert!(
            alone.contains(
                "builds on `retries` (Part 1), `ordering` (Part 2), `pause` (Part 3) \
                            and `policy` (Part 4), which are not declared"
            ),
            "{alone}"
        );
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
                "also",
                "id",
                "notes",
                "origin",
                "recorded",
                "rules",
                "situations",
                "steps",
                "ticket",
                "title",
                "without"
            ]
        );
        // The names editors offer for `part` and `without` are exactly the parts.
        let names: Vec<&str> = schema["$defs"]["part"]["enum"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert_eq!(names, super::Part::ALL.map(super::Part::as_str));
        assert_eq!(
            keys(&schema["$defs"]["step"]),
            ["clarified", "expect", "op", "spelling"]
        );
    }

    #[test]
    fn also_needs_every_part_it_lists() {
        use super::{Inapplicable, Part};
        let text = "part: auto-disable\ncases:\n  - id: a-case\n    title: t\n    rules: \
                    [auto.disable]\n    origin: brief\n    also: [retry-after]\n    steps:\n      \
                    - op: [process, 0]\n        expect: []\n";
        let cases = super::parse(text, std::path::Path::new("a.yaml"), "s").expect("an also case");
        let case = &cases[0];
        assert_eq!(case.also, [Part::RetryAfter]);
        assert_eq!(case.inapplicable(&Part::ALL), None);
        let without_5: Vec<Part> = Part::ALL
            .into_iter()
            .filter(|p| *p != Part::RetryAfter)
            .collect();
        assert_eq!(
            case.inapplicable(&without_5),
            Some(Inapplicable::NotImplemented(Part::RetryAfter))
        );
        let err = super::parse(
            &text.replace("[retry-after]", "[retry-aftr]"),
            std::path::Path::new("a.yaml"),
            "s",
        )
        .expect_err("an unknown part");
        assert!(err.reason.contains("in `also`"), "{err}");
    }

    const WITHOUT: &str = "part: retries\ncases:\n  - id: a-case\n    title: t\n    rules: \
                           [outcomes.valid]\n    origin: clarification\n    without: [retry-after]\n    \
                           steps:\n      - op: [process, 0]\n        expect: []\n";

    #[test]
    fn without_lists_parts_and_makes_the_case_inapplicable_to_implementations_offering_them() {
        use super::{Inapplicable, Part};
        let cases =
            super::parse(WITHOUT, std::path::Path::new("w.yaml"), "s").expect("a without case");
        let case = &cases[0];
        assert_eq!(case.without, [Part::RetryAfter]);
        assert_eq!(case.inapplicable(&Part::BRIEF), None);
        assert_eq!(
            case.inapplicable(&Part::ALL),
            Some(Inapplicable::Offers(Part::RetryAfter))
        );
        assert_eq!(
            case.inapplicable(&[Part::Ordering]),
            Some(Inapplicable::NotImplemented(Part::Retries))
        );
        let misspelled = WITHOUT.replace("[retry-after]", "[retry-afterr]");
        let err = super::parse(&misspelled, std::path::Path::new("w.yaml"), "s")
            .expect_err("an unknown part");
        assert_eq!(err.line, 7, "{err}");
        assert!(
            err.reason
                .starts_with("unknown part `retry-afterr` in `without`, expected one of retries,")
                && err.reason.contains("did you mean `retry-after`?"),
            "{err}"
        );
    }
}
