//! What `check` runs apart from the selected public cases: the grader's hidden cases
//! (`--hidden`), loaded and checked as any case folder, and the generated workloads
//! (`--generated`), which `Graded::settle` runs on each implementation once its cases are done.

use super::{CheckOptions, ConfigError};
use crate::case::Case;
use crate::corpus::Corpus;

/// The cases of a run: the selected public cases, then the hidden ones.
#[derive(Clone, Copy)]
pub(super) struct Cases<'a> {
    pub all: &'a [Case],
    pub public: usize,
}

impl<'a> Cases<'a> {
    pub fn public(&self) -> &'a [Case] {
        &self.all[..self.public]
    }

    pub fn hidden(&self) -> usize {
        self.all.len() - self.public
    }
}

/// The grader's hidden cases (`--hidden DIR`), held to what `hookcheck lint` holds any case to,
/// none with the id of a public case (selected or not).
pub(super) fn hidden(opts: &CheckOptions) -> Result<Vec<Case>, ConfigError> {
    let Some(dir) = &opts.hidden else {
        return Ok(Vec::new());
    };
    let shown = || crate::inert::terminal_line(&dir.display().to_string());
    let corpus = Corpus::load(dir);
    for warning in &corpus.warnings {
        eprintln!("warning: {}", crate::inert::terminal_line(warning));
    }
    if !corpus.errors.is_empty() {
        let errors: Vec<String> = corpus
            .errors
            .iter()
            .map(|e| crate::inert::terminal(&e.to_string()))
            .collect();
        return Err(ConfigError(format!(
            "the hidden cases (--hidden {}) do not load:\n{}",
            shown(),
            errors.join("\n")
        )));
    }
    if corpus.cases.is_empty() {
        return Err(ConfigError(format!(
            "--hidden {}: holds no case (`*.yaml` or `*.yml` files in the case format)",
            shown()
        )));
    }
    let problems = super::lint_problems(&corpus.cases, opts.allow_unreviewed);
    if !problems.is_empty() {
        return Err(ConfigError(format!(
            "the hidden cases do not pass `hookcheck lint`:\n{}",
            problems
                .iter()
                .map(|p| crate::inert::terminal_line(p))
                .collect::<Vec<_>>()
                .join("\n")
        )));
    }
    // Reports and expectations name cases by id: a hidden case taking a public case's id would
    // make one of them unreachable.
    let public = Corpus::gather(&opts.cases).cases;
    for c in &corpus.cases {
        if let Some(p) = public.iter().find(|p| p.id == c.id) {
            return Err(ConfigError(crate::inert::terminal_line(&format!(
                "{}:{}: hidden case {}: id already used by the public case at {}:{}",
                c.file.display(),
                c.line,
                c.id,
                p.file.display(),
                p.line
            ))));
        }
    }
    Ok(corpus.cases)
}

/// The header's line for what runs apart from the public cases, if anything does.
pub(super) fn header(opts: &CheckOptions, all: Cases) -> String {
    let mut lines = Vec::new();
    if let Some(dir) = &opts.hidden {
        lines.push(format!(
            "and {} from {}, reported apart",
            crate::wording::count(all.hidden(), "hidden case", "hidden cases"),
            crate::inert::terminal_line(&dir.display().to_string())
        ));
    }
    if let Some(asked) = opts.generated {
        lines.push(format!(
            "and {} of seed {} judged against the reference (--generated {} --seed {} \
             repeats them)",
            crate::wording::count(
                usize::try_from(asked.count).unwrap_or(usize::MAX),
                "generated workload",
                "generated workloads"
            ),
            asked.seed,
            asked.count,
            asked.seed
        ));
    }
    lines.join("\n")
}
