//! `cargo test --test conformance`: one libtest-mimic trial per case, named `<suite>::<case id>`,
//! plus `corpus::*` trials that check the corpus against the spec.
//!
//! `HOOKCHECK_IMPL="<command>"` (or a solution file, as `hookcheck check --impl` takes it)
//! checks that implementation (spec/protocol.md) instead of the reference; `HOOKCHECK_PER_CASE=1`
//! starts it once per case (`HOOKCHECK_PARTS=retries,ordering` and `HOOKCHECK_NUMBERS=values`
//! then declare what its handshake would), `HOOKCHECK_TIMEOUT` sets the seconds per case. Cases of parts it does not declare are listed as ignored; a case for
//! implementations without a part it declares (`without:`) is ignored when it runs, with the
//! reason (the reference declares every part, so those cases are always ignored here).
//! `HOOKCHECK_ORIGIN=brief` checks only what the brief states, as `hookcheck check --origin
//! brief`: the other cases are listed as ignored.
//!
//! Trials are listed from a text scan of the case files and each file is parsed only when one
//! of its cases runs, so `--list`, nextest and `--exact` stay fast; a file that does not parse
//! fails its own trials with file:line:column and the reason.

use hookcheck::case::{self, Case, LoadError, Source};
use hookcheck::compare::Scope;
use hookcheck::conformance::completion;
use hookcheck::corpus::{self, Corpus, coverage, problems, situation_gaps};
use hookcheck::implementation::{Implementation, Options, Reference, Subprocess};
use hookcheck::runner::{Selection, check};
use hookcheck::spec;
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// A case file, parsed at most once, by whichever trial needs it first.
struct LazyFile {
    source: Source,
    parsed: OnceLock<Result<Vec<Case>, LoadError>>,
}

impl LazyFile {
    fn cases(&self) -> &Result<Vec<Case>, LoadError> {
        self.parsed.get_or_init(|| {
            corpus::with_problems(case::load(&self.source.path, &self.source.suite))
        })
    }
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    // Paths in reports are relative to the package, where `cases/` lives.
    if let Err(e) = std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")) {
        eprintln!("conformance: cannot enter the package folder: {e}");
        return ExitCode::from(2);
    }
    let implementation: Arc<dyn Implementation + Send> = match std::env::var("HOOKCHECK_IMPL") {
        Ok(command) if !command.trim().is_empty() => {
            let mut options = Options {
                per_case: std::env::var("HOOKCHECK_PER_CASE").is_ok_and(|v| v == "1"),
                ..Options::default()
            };
            if let Ok(t) = std::env::var("HOOKCHECK_TIMEOUT") {
                match t.parse::<f64>() {
                    Ok(s) if s.is_finite() && (0.01..=86_400.0).contains(&s) => {
                        options.timeout = Duration::from_secs_f64(s)
                    }
                    _ => {
                        eprintln!(
                            "conformance: HOOKCHECK_TIMEOUT is a number of seconds from 0.01 to \
                             86400, not `{t}`"
                        );
                        return ExitCode::from(2);
                    }
                }
            }
            if let Err(e) = declared(&mut options) {
                eprintln!("conformance: {e}");
                return ExitCode::from(2);
            }
            // Read as `hookcheck check --impl` reads it: a solution file runs through its
            // built-in adapter.
            let entry = match hookcheck::manifest::from_commands(&[command], None, &options) {
                Ok(entries) => entries.into_iter().next(),
                Err(e) => {
                    eprintln!("conformance: HOOKCHECK_IMPL: {e}");
                    return ExitCode::from(2);
                }
            };
            let Some(entry) = entry else {
                eprintln!("conformance: HOOKCHECK_IMPL names no implementation");
                return ExitCode::from(2);
            };
            let command = entry.command.unwrap_or_default();
            Arc::new(Subprocess::start(&command, entry.options))
        }
        _ => Arc::new(Reference),
    };
    let selection = match std::env::var("HOOKCHECK_ORIGIN").as_deref() {
        Ok("brief") => Selection::brief(),
        Ok("") | Err(_) => Selection::default(),
        Ok(other) => {
            eprintln!("conformance: HOOKCHECK_ORIGIN is `brief` or unset, not `{other}`");
            return ExitCode::from(2);
        }
    };
    let mut trials = Vec::new();
    match case::discover(Path::new("cases")) {
        Ok(sources) => {
            for source in sources {
                let file = Arc::new(LazyFile {
                    source,
                    parsed: OnceLock::new(),
                });
                trials.extend(case_trials(&file, &implementation, &selection));
            }
        }
        Err(e) => trials.push(Trial::test("corpus::load", move || {
            Err(e.to_string().into())
        })),
    }
    trials.extend(corpus_trials());
    let code = libtest_mimic::run(&args, trials).exit_code();
    hookcheck::adapters::cleanup();
    code
}

/// `HOOKCHECK_PARTS` and `HOOKCHECK_NUMBERS`, as `hookcheck check --per-case --parts ...
/// --numbers ...`: what a per-case command cannot say in a handshake. In lines mode the
/// handshake says it, so they are refused there rather than ignored.
fn declared(options: &mut Options) -> Result<(), String> {
    let parts = std::env::var("HOOKCHECK_PARTS").ok();
    let numbers = std::env::var("HOOKCHECK_NUMBERS").ok();
    if (parts.is_some() || numbers.is_some()) && !options.per_case {
        return Err(
            "HOOKCHECK_PARTS and HOOKCHECK_NUMBERS declare what a per-case command \
                    cannot (set HOOKCHECK_PER_CASE=1 too); in lines mode the implementation \
                    declares them in its handshake (a solution's HOOKCHECK_PARTS = [...], or the \
                    adapter's --parts in HOOKCHECK_IMPL)"
                .to_string(),
        );
    }
    if let Some(parts) = parts {
        let mut declared = Vec::new();
        for name in parts.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let part = case::Part::parse(name).ok_or_else(|| {
                format!(
                    "HOOKCHECK_PARTS: unknown part `{}` (parts are {})",
                    hookcheck::inert::terminal_line(name),
                    case::Part::names()
                )
            })?;
            declared.push(part);
        }
        case::Part::check_declared(&declared).map_err(|why| format!("HOOKCHECK_PARTS: {why}"))?;
        options.parts = declared;
    }
    if let Some(numbers) = numbers {
        options.numbers = hookcheck::compare::Numbers::parse(&numbers).ok_or_else(|| {
            format!(
                "HOOKCHECK_NUMBERS is `spelling` or `values`, not `{}`",
                hookcheck::inert::terminal_line(&numbers)
            )
        })?;
    }
    Ok(())
}

fn case_trials(
    file: &Arc<LazyFile>,
    implementation: &Arc<dyn Implementation + Send>,
    selection: &Selection,
) -> Vec<Trial> {
    let scope = selection.scope();
    let suite = &file.source.suite;
    if file.source.ids.is_empty() {
        // No case id could be seen: one trial stands for the file, so a broken file still fails.
        let name = file
            .source
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let file = Arc::clone(file);
        return vec![Trial::test(
            format!("{suite}::{name}"),
            move || match file.cases() {
                Ok(cases) if cases.is_empty() => {
                    Err(format!("{}: holds no case", file.source.path.display()).into())
                }
                Ok(_) => Ok(()),
                Err(e) => Err(e.to_string().into()),
            },
        )];
    }
    // A case of a part the implementation does not declare is not applicable: listed, ignored.
    let applicable = file
        .source
        .part
        .is_none_or(|p| implementation.parts().contains(&p));
    // A selection by origin needs the cases parsed to list them (the origin is not in the scan);
    // without one, files stay unparsed until a trial runs.
    let selected = |id: &str| {
        selection.origins.is_empty()
            || file
                .cases()
                .as_ref()
                .is_ok_and(|cases| cases.iter().any(|c| c.id == id && selection.matches(c)))
    };
    file.source
        .ids
        .iter()
        .map(|id| {
            let ignored = !applicable || !selected(id);
            let (file, implementation, id) =
                (Arc::clone(file), Arc::clone(implementation), id.clone());
            Trial::ignorable_test(format!("{suite}::{id}"), move || {
                run_case(&file, implementation.as_ref(), &id, scope)
            })
            .with_ignored_flag(ignored)
        })
        .collect()
}

fn run_case(
    file: &LazyFile,
    implementation: &(dyn Implementation + Send),
    id: &str,
    scope: Scope,
) -> Result<Completion, Failed> {
    let cases = file
        .cases()
        .as_ref()
        .map_err(|e| Failed::from(e.to_string()))?;
    let case = cases.iter().find(|c| c.id == id).ok_or_else(|| {
        format!(
            "{}: case {id} not found after parsing",
            file.source.path.display()
        )
    })?;
    completion(check(implementation, case, scope))
}

/// Checks of the corpus as a whole; each loads every case file.
fn corpus_trials() -> Vec<Trial> {
    let corpus = Arc::new(OnceLock::<Corpus>::new());
    let load = move || -> Arc<OnceLock<Corpus>> { Arc::clone(&corpus) };
    let (a, b, c) = (load(), load(), load());
    vec![
        Trial::test("corpus::sound", move || {
            let corpus = a.get_or_init(|| Corpus::load(Path::new("cases")));
            let mut found: Vec<String> = corpus.errors.iter().map(ToString::to_string).collect();
            found.extend(problems(&corpus.cases, &spec::rules()));
            if found.is_empty() {
                Ok(())
            } else {
                Err(found.join("\n").into())
            }
        }),
        Trial::test("corpus::every-rule-covered", move || {
            let corpus = b.get_or_init(|| Corpus::load(Path::new("cases")));
            let rules = spec::rules();
            let missing: Vec<String> = coverage(&corpus.cases, &rules)
                .into_iter()
                .filter(|(_, n)| *n == 0)
                .map(|(r, _)| format!("spec/dispatcher.md:{}: rule `{}` has no case", r.line, r.id))
                .collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(missing.join("\n").into())
            }
        }),
        Trial::test("corpus::every-situation-covered", move || {
            let corpus = c.get_or_init(|| Corpus::load(Path::new("cases")));
            let missing: Vec<String> = situation_gaps(&corpus.cases, &spec::grid())
                .into_iter()
                .map(|(cell, line)| {
                    format!("spec/situations.md:{line}: no case checks `{cell}` (rule@situation)")
                })
                .collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(missing.join("\n").into())
            }
        }),
    ]
}
