//! `hookcheck check`: load the corpus, select cases, run them on an implementation, report. Front end for
//! the runner; `main.rs` only parses flags into [`CheckOptions`].

use crate::case::Case;
use crate::corpus::{Corpus, Sources};
use crate::implementation::{Implementation, Options, Reference, Subprocess};
use crate::report::{self, Style};
use crate::runner::{Selection, check_all};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
}

pub struct CheckOptions {
    pub cases: Sources,
    /// The implementation's command; `None` checks the built-in reference.
    pub implementation: Option<String>,
    /// How to run it when it is a command.
    pub options: Options,
    pub selection: Selection,
    pub jobs: usize,
    pub format: Format,
    pub junit: Option<PathBuf>,
    pub color: bool,
    pub verbose: bool,
}

/// A problem with the run's configuration (exit status 2), as opposed to failing cases.
#[derive(Debug)]
pub struct ConfigError(pub String);

/// Runs the check and writes its report; `Ok(true)` when every selected case passed.
pub fn run(opts: &CheckOptions, out: &mut impl Write) -> Result<bool, ConfigError> {
    let corpus = Corpus::gather(&opts.cases);
    if !corpus.errors.is_empty() {
        let errors: Vec<String> = corpus.errors.iter().map(ToString::to_string).collect();
        return Err(ConfigError(format!(
            "the case corpus does not load:\n{}",
            errors.join("\n")
        )));
    }
    // Reports name cases by id: a local case may not take a built-in case's id.
    let mut seen = std::collections::BTreeMap::new();
    for c in &corpus.cases {
        if let Some(first) = seen.insert(c.id.as_str(), c) {
            return Err(ConfigError(format!(
                "{}:{}: case {}: id already used at {}:{}",
                c.file.display(),
                c.line,
                c.id,
                first.file.display(),
                first.line
            )));
        }
    }
    let cases: Vec<Case> = corpus
        .cases
        .into_iter()
        .filter(|c| opts.selection.matches(c))
        .collect();
    if cases.is_empty() {
        return Err(ConfigError(format!(
            "no case in {} matches the filters",
            opts.cases.describe()
        )));
    }
    let started = Instant::now();
    let implementation: Box<dyn Implementation> = match &opts.implementation {
        None => Box::new(Reference),
        Some(command) => Box::new(
            Subprocess::start_or_give_up(command, opts.options.clone()).map_err(ConfigError)?,
        ),
    };
    let scope = opts.selection.scope();
    let style = Style { color: opts.color };
    let io = |e: std::io::Error| ConfigError(format!("cannot write the report: {e}"));
    if opts.format == Format::Human {
        let mut parts: Vec<&str> = implementation.parts().iter().map(|p| p.as_str()).collect();
        if parts.is_empty() {
            parts.push("none");
        }
        writeln!(
            out,
            "hookcheck check: {} (parts: {})",
            implementation.describe(),
            parts.join(", ")
        )
        .map_err(io)?;
        let brief = if scope == crate::compare::Scope::BRIEF {
            "; brief rules only, steps fixed by clarifications are not compared"
        } else {
            ""
        };
        let plural = if cases.len() == 1 { "case" } else { "cases" };
        let n = cases.len();
        writeln!(out, "{n} {plural}, {} at a time{brief}\n", opts.jobs).map_err(io)?;
        if let Some(warning) = implementation.warning() {
            writeln!(out, "{}\n", style.warn(&format!("warning: {warning}"))).map_err(io)?;
        }
    }
    if opts.format == Format::Json {
        let parts: Vec<&str> = implementation.parts().iter().map(|p| p.as_str()).collect();
        let scope = if scope == crate::compare::Scope::BRIEF {
            "brief"
        } else {
            "full"
        };
        let start = serde_json::json!({"event": "start", "implementation": implementation.describe(),
            "parts": parts, "cases": cases.len(), "jobs": opts.jobs, "scope": scope});
        writeln!(out, "{start}").map_err(io)?;
    }
    let verdicts = check_all(implementation.as_ref(), &cases, scope, opts.jobs);
    let spelling_steps = crate::runner::spelling_steps(implementation.as_ref(), &cases);
    // Stop the implementation's processes before reporting, so the time counts them too.
    drop(implementation);
    let seconds = started.elapsed().as_secs_f64();
    let (_, total) = report::tally_by_part(&cases, &verdicts);
    if let Some(path) = &opts.junit {
        std::fs::write(path, report::junit(&cases, &verdicts, seconds))
            .map_err(|e| ConfigError(format!("cannot write {}: {e}", path.display())))?;
    }
    let totals = Totals {
        seconds,
        spelling_steps,
    };
    match write_report(opts, &cases, &verdicts, style, totals, out) {
        // A reader that stopped early (`| head`) does not change the verdict.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(io(e)),
        _ => Ok(total.success()),
    }
}

/// What the closing lines say besides the verdicts.
#[derive(Clone, Copy)]
struct Totals {
    seconds: f64,
    spelling_steps: usize,
}

fn write_report(
    opts: &CheckOptions,
    cases: &[Case],
    verdicts: &[crate::runner::Verdict],
    style: Style,
    Totals {
        seconds,
        spelling_steps,
    }: Totals,
    out: &mut impl Write,
) -> std::io::Result<()> {
    match opts.format {
        Format::Human => {
            for (c, v) in cases.iter().zip(verdicts) {
                write!(out, "{}", report::human_case(c, v, style, opts.verbose))?;
            }
            write!(
                out,
                "{}",
                report::human_summary(cases, verdicts, style, seconds, spelling_steps)
            )
        }
        Format::Json => {
            for (c, v) in cases.iter().zip(verdicts) {
                writeln!(out, "{}", report::json_case(c, v))?;
            }
            writeln!(
                out,
                "{}",
                report::json_summary(cases, verdicts, seconds, spelling_steps)
            )
        }
    }
}
