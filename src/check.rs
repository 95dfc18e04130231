//! `hookcheck check`: load the corpus, select cases, run them on one implementation or many,
//! apply expectations, report. Front end for the runner and the grade; `main.rs` only parses
//! flags into [`CheckOptions`].

use crate::case::{Case, Recorded};
use crate::corpus::{Corpus, Sources};
use crate::expect::Expectations;
use crate::fuzz::workloads::Asked;
use crate::grade::{Graded, Settling, run_all_streaming, start};
use crate::manifest::Entry;
use crate::outputs;
use crate::provenance::Provenance;
use crate::report::{self, HiddenDetail, Judged, Model, Style};
use crate::runner::{Selection, Verdict};
use crate::shard::{By, Shard};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

mod apart;
mod merge;
mod rerun;

pub use merge::merge;

use apart::{Cases, header as apart_header, hidden};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
}

pub struct CheckOptions {
    pub cases: Sources,
    /// A grader's folder of hidden cases (`--hidden`): run besides the selected public cases
    /// and reported apart.
    pub hidden: Option<PathBuf>,
    /// What the report files show of a failing hidden case (`--hidden-detail`).
    pub hidden_detail: HiddenDetail,
    /// Random workloads judged against the reference (`--generated N --seed S`).
    pub generated: Option<Asked>,
    /// The manifest the implementations come from, if any: an input no report may overwrite.
    pub manifest: Option<PathBuf>,
    /// The implementations to check: the built-in reference when none is given.
    pub entries: Vec<Entry>,
    pub selection: Selection,
    pub jobs: usize,
    pub format: Format,
    pub junit: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub html: Option<PathBuf>,
    /// Known failures of the one implementation checked (`--expect`).
    pub expect: Option<PathBuf>,
    /// An unexpected pass, or a listed case the corpus does not have, fails the run.
    pub strict: bool,
    /// Cases the implementation skips (in parts it declares) do not fail the run.
    pub allow_skips: bool,
    /// Recorded cases not yet reviewed against the spec run instead of stopping the run.
    pub allow_unreviewed: bool,
    /// Writes the current failures as a starting expectations file.
    pub write_expectations: Option<PathBuf>,
    pub color: bool,
    pub verbose: bool,
    /// Draw a live progress line on stderr (a terminal, human output, no `--quiet`).
    pub progress: bool,
    /// Write the run's results as a bundle (`--bundle`), for `hookcheck merge` and `diff`.
    pub bundle: Option<PathBuf>,
    /// Run only this shard of the run (`--shard K/N`), split as `shard_by` says.
    pub shard: Option<Shard>,
    pub shard_by: By,
    /// GitHub Actions output (`--format github`): after the human report, an annotation per
    /// failing case, and the markdown grade appended to `$GITHUB_STEP_SUMMARY`.
    pub github: bool,
    /// A folder to write a shields.io endpoint badge per implementation into (`--badge`).
    pub badge: Option<PathBuf>,
    /// An earlier run's bundle: run again only the pairs that did not pass in it, and report
    /// the whole run with them (`--rerun-failed`).
    pub rerun_failed: Option<PathBuf>,
}

/// The built-in corpus on the built-in reference, one case at a time, a human report and no
/// file: what a check is before its flags say otherwise.
impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            cases: Sources::default(),
            hidden: None,
            hidden_detail: HiddenDetail::default(),
            generated: None,
            manifest: None,
            entries: Vec::new(),
            selection: Selection::default(),
            jobs: 1,
            format: Format::Human,
            junit: None,
            markdown: None,
            html: None,
            expect: None,
            strict: false,
            allow_skips: false,
            allow_unreviewed: false,
            write_expectations: None,
            color: false,
            verbose: false,
            progress: false,
            bundle: None,
            shard: None,
            shard_by: By::default(),
            github: false,
            badge: None,
            rerun_failed: None,
        }
    }
}

/// A problem with the run's configuration (exit status 2), as opposed to failing cases.
#[derive(Debug)]
pub struct ConfigError(pub String);

fn io(e: std::io::Error) -> ConfigError {
    ConfigError(format!("cannot write the report: {e}"))
}

/// Runs the check and writes its report; `Ok(true)` when every implementation passed (failures
/// it is expected to have allowed).
pub fn run(opts: &CheckOptions, out: &mut impl Write) -> Result<bool, ConfigError> {
    if (opts.shard.is_some() || opts.bundle.is_some())
        && (opts.hidden.is_some() || opts.generated.is_some())
    {
        return Err(ConfigError(
            "--shard and --bundle do not carry hidden cases or generated workloads yet: run \
             --hidden and --generated on one machine"
                .to_string(),
        ));
    }
    if let Some(old) = &opts.rerun_failed {
        return rerun::rerun(opts, old, out);
    }
    let (mut cases, mut known) = select(opts)?;
    // Taken now, so that `started` is when the run started, and of the whole selection, which
    // every shard shares. Of the public cases only: the digest of the hidden ones would tell a
    // submitter when they change.
    let mut provenance = provenance(opts, &cases);
    let whole = run_identity(opts, &cases, &provenance);
    if let (Some(shard), By::Case) = (opts.shard, opts.shard_by) {
        let total = cases.len();
        let names: Vec<String> = cases.iter().map(Case::name).collect();
        let mut position = 0;
        cases.retain(|_| {
            position += 1;
            shard.keeps(position - 1, total, &names[position - 1])
        });
    }
    let public = cases.len();
    let hidden = hidden(opts)?;
    known.extend(hidden.iter().map(Case::name));
    // The hidden cases follow the public ones: one run, split apart after (`Graded::set_apart`).
    cases.extend(hidden);
    let mut entries = opts.entries.clone();
    if entries.is_empty() {
        entries.push(Entry::reference());
    }
    let total = entries.len();
    let mut indices: Vec<usize> = (0..total).collect();
    if let (Some(shard), By::Implementation) = (opts.shard, opts.shard_by) {
        let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
        indices.retain(|&i| shard.keeps(i, total, &names[i]));
        let mut position = 0;
        entries.retain(|_| {
            position += 1;
            indices.contains(&(position - 1))
        });
    }
    let read = outputs::inputs(
        opts.manifest.as_deref(),
        opts.expect.as_deref(),
        &entries,
        &cases,
    );
    writable(opts, &read)?;
    if opts.expect.is_some() && entries.iter().any(|e| e.expect.is_some()) {
        return Err(ConfigError(
            "--expect and a manifest entry's own `expect` both name known failures: keep one"
                .to_string(),
        ));
    }
    if total > 1 && (opts.expect.is_some() || opts.write_expectations.is_some()) {
        return Err(ConfigError(
            "--expect and --write-expectations go with one implementation; give each \
             implementation of a manifest its own `expect` file"
                .to_string(),
        ));
    }
    let expectations = entries
        .iter()
        .map(|e| {
            e.expect
                .as_deref()
                .or(opts.expect.as_deref())
                .map(Expectations::load)
                .transpose()
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(ConfigError)?;
    // Listed cases the corpus does not have: warned of, and with --strict they fail the run.
    let unknown: Vec<Vec<String>> = expectations
        .iter()
        .map(|e| {
            e.as_ref().map_or_else(Vec::new, |e| {
                e.unknown(&known).into_iter().map(str::to_string).collect()
            })
        })
        .collect();
    let started_at = Instant::now();
    let identity = opts.bundle.as_ref().map(|_| Identity {
        run: crate::bundle::Run {
            implementations: total,
            single: total == 1,
            ..whole
        },
        shard: opts.shard.map(|s| crate::bundle::ShardRecord {
            index: s.index,
            count: s.count,
            method: s.method_str().to_string(),
            by: opts.shard_by.as_str().to_string(),
        }),
        indices,
        jobs: opts.jobs,
    });
    if let Some(shard) = opts.shard {
        // The shard's own reports say which share of the run they hold.
        let share = format!("shard {shard} by {}", opts.shard_by.as_str());
        provenance.filters = if provenance.filters.is_empty() {
            share
        } else {
            format!("{}; {share}", provenance.filters)
        };
    }
    // A shard with nothing to run still writes its bundle, so that the merge finds every shard.
    if entries.is_empty() || public == 0 {
        return empty_shard(opts, identity.as_ref(), &provenance, out);
    }
    let cases = Cases {
        all: &cases,
        public,
    };
    // A reader that stopped early (`| head`) does not change the verdict.
    let out = &mut Lenient(out);
    if total == 1 {
        let expected = Expected {
            expectations: expectations.into_iter().next().flatten(),
            unknown: unknown.into_iter().next().unwrap_or_default(),
        };
        one(
            opts,
            Work::Run(entries.remove(0)),
            expected,
            cases,
            (started_at, provenance),
            identity.as_ref(),
            out,
        )
    } else {
        many(
            opts,
            Work::Run(entries),
            Expected::each(expectations, unknown),
            cases,
            (started_at, provenance),
            identity.as_ref(),
            out,
        )
    }
}

/// What a check reports on: the implementations to run, or results already run (a merge of
/// bundles), reported the same way.
enum Work<R, G> {
    Run(R),
    Given(G),
}

/// What the one-implementation report says of it first.
struct Header {
    describe: String,
    parts: Vec<crate::case::Part>,
    warning: Option<String>,
}

/// What a bundle records beside the model: the run's identity, the shard, and each reported
/// implementation's place among the run's.
pub(crate) struct Identity {
    run: crate::bundle::Run,
    shard: Option<crate::bundle::ShardRecord>,
    indices: Vec<usize>,
    jobs: usize,
}

/// The identity of the run whose selected public cases are `cases`, as its bundles record it
/// (the implementations are counted later).
fn run_identity(
    opts: &CheckOptions,
    cases: &[Case],
    provenance: &Provenance,
) -> crate::bundle::Run {
    let mut by_file: BTreeMap<String, Vec<Case>> = BTreeMap::new();
    for c in cases {
        by_file
            .entry(c.file.display().to_string())
            .or_default()
            .push(c.clone());
    }
    crate::bundle::Run {
        corpus: provenance.corpus.clone(),
        sources: opts.cases.describe(),
        case_files: by_file
            .into_iter()
            .map(|(file, cases)| (file, crate::provenance::digest(&cases)))
            .collect(),
        cases: cases.iter().map(Case::name).collect(),
        filters: provenance.filters.clone(),
        scope: provenance.scope.to_string(),
        strict: opts.strict,
        allow_skips: opts.allow_skips,
        implementations: 0,
        single: false,
    }
}

/// A shard that holds no implementation or no case: nothing runs, and its bundle says so.
fn empty_shard(
    opts: &CheckOptions,
    identity: Option<&Identity>,
    provenance: &Provenance,
    out: &mut impl Write,
) -> Result<bool, ConfigError> {
    if let (Some(path), Some(identity)) = (&opts.bundle, identity) {
        let bundle = identity.bundle(provenance, Vec::new());
        outputs::write(path, &bundle.to_text(), true).map_err(ConfigError)?;
    }
    if opts.format == Format::Human {
        writeln!(
            out,
            "hookcheck check: {} holds nothing to run",
            provenance.filters
        )
        .map_err(io)?;
    }
    Ok(true)
}

impl Identity {
    /// The bundle of these implementations' results.
    fn bundle(
        &self,
        provenance: &Provenance,
        implementations: Vec<crate::bundle::Implementation>,
    ) -> crate::bundle::Bundle {
        crate::bundle::Bundle {
            format: crate::bundle::FORMAT.to_string(),
            version: crate::bundle::VERSION,
            hookcheck: provenance.version.to_string(),
            protocol: crate::implementation::PROTOCOL,
            run: self.run.clone(),
            shard: self.shard.clone(),
            command: provenance.command.clone(),
            started: provenance.started.clone(),
            seconds: provenance.seconds,
            jobs: self.jobs,
            implementations,
        }
    }
}

/// One implementation's expectations, and the cases they list that the corpus does not have.
struct Expected {
    expectations: Option<Expectations>,
    unknown: Vec<String>,
}

impl Expected {
    /// Each implementation's, from its expectations and its unknown cases, in the same order.
    fn each(expectations: Vec<Option<Expectations>>, unknown: Vec<Vec<String>>) -> Vec<Expected> {
        expectations
            .into_iter()
            .zip(unknown)
            .map(|(expectations, unknown)| Expected {
                expectations,
                unknown,
            })
            .collect()
    }
}

/// Output whose reader may go away: writes after a broken pipe are dropped, not errors.
struct Lenient<'a, W: Write>(&'a mut W);

impl<W: Write> Write for Lenient<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.0.write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(buf.len()),
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.0.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        }
    }
}

/// The corpus, checked for ids used twice, then the cases the filters select, and the names of
/// all its cases.
fn select(opts: &CheckOptions) -> Result<(Vec<Case>, BTreeSet<String>), ConfigError> {
    let corpus = Corpus::gather(&opts.cases);
    // What the walk skipped (a FIFO named `.yaml`, a folder reached twice) is said, not hidden;
    // on stderr, so that `--format json` stays one event per line.
    for warning in &corpus.warnings {
        eprintln!("warning: {}", crate::inert::terminal_line(warning));
    }
    if !corpus.errors.is_empty() {
        let errors: Vec<String> = corpus.errors.iter().map(ToString::to_string).collect();
        return Err(ConfigError(format!(
            "the case corpus does not load:\n{}",
            errors.join("\n")
        )));
    }
    // Local cases are held to what `hookcheck lint` holds them to: a case citing an unknown rule
    // or marked the wrong way would otherwise pass or fail for nothing.
    let problems = lint_problems(&corpus.cases, opts.allow_unreviewed);
    if !problems.is_empty() {
        let unreviewed = if problems.iter().any(|p| p.contains("not yet reviewed")) {
            " (--allow-unreviewed runs recorded cases not yet reviewed)"
        } else {
            ""
        };
        return Err(ConfigError(format!(
            "the cases do not pass `hookcheck lint`{unreviewed}:\n{}",
            problems
                .iter()
                .map(|p| crate::inert::terminal_line(p))
                .collect::<Vec<_>>()
                .join("\n")
        )));
    }
    // Reports name cases by id: a local case may not take a built-in case's id.
    let mut seen = BTreeMap::new();
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
    let known = corpus.cases.iter().map(Case::name).collect();
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
    Ok((cases, known))
}

/// One implementation: a failure report per case and a table per part. One that cannot start
/// is a configuration error.
fn one(
    opts: &CheckOptions,
    work: Work<Entry, Graded>,
    expected: Expected,
    all: Cases,
    (started_at, mut provenance): (Instant, Provenance),
    identity: Option<&Identity>,
    out: &mut impl Write,
) -> Result<bool, ConfigError> {
    let cases = all.public();
    let how = settling(opts, all);
    let (started, given) = match work {
        Work::Run(entry) => {
            let started = start(&entry).map_err(ConfigError)?;
            let header = Header {
                describe: started.describe.clone(),
                parts: started.parts.clone(),
                warning: started.warning.clone(),
            };
            (Some((entry, started)), Err(header))
        }
        Work::Given(g) => {
            let header = match &g.started {
                Ok(s) => Header {
                    describe: s.describe.clone(),
                    parts: s.parts.clone(),
                    warning: None,
                },
                Err(e) => return Err(ConfigError(e.clone())),
            };
            (None, Ok((g, header)))
        }
    };
    let header = match &given {
        Ok((_, h)) | Err(h) => h,
    };
    let scope = opts.selection.scope();
    let style = Style { color: opts.color };
    let parts: Vec<&str> = header.parts.iter().map(|p| p.as_str()).collect();
    let scope_word = if scope.brief_only { "brief" } else { "full" };
    match opts.format {
        Format::Human => {
            let plural = if cases.len() == 1 { "case" } else { "cases" };
            let brief = if scope.brief_only {
                "; brief rules only, steps fixed by clarifications are not compared"
            } else {
                ""
            };
            writeln!(
                out,
                "hookcheck check: {} (parts: {})\n{} {plural} from {}, {} at a time{brief}\n",
                crate::inert::terminal_line(&header.describe),
                if parts.is_empty() {
                    "none".to_string()
                } else {
                    parts.join(", ")
                },
                cases.len(),
                crate::inert::terminal_line(&opts.cases.describe()),
                opts.jobs
            )
            .map_err(io)?;
            let apart = apart_header(opts, all);
            if !apart.is_empty() {
                writeln!(out, "{apart}\n").map_err(io)?;
            }
            if let Some(warning) = &header.warning {
                let warning = crate::inert::terminal(warning);
                writeln!(out, "{}\n", style.warn(&format!("warning: {warning}"))).map_err(io)?;
            }
        }
        Format::Json => {
            let describe = crate::inert::clip(&header.describe, crate::inert::LINE_LIMIT);
            let mut start = serde_json::json!({"event": "start", "implementation": describe,
                "parts": parts, "cases": cases.len(), "jobs": opts.jobs, "scope": scope_word});
            if opts.hidden.is_some() {
                start["hidden"] = all.hidden().into();
            }
            if let Some(asked) = opts.generated {
                start["generated"] =
                    serde_json::json!({"workloads": asked.count, "seed": asked.seed});
            }
            writeln!(out, "{}", start_event(start, &provenance)).map_err(io)?;
        }
    }
    let mut g = match (started, given) {
        (Some((entry, started)), _) => {
            let mut graded = run_with_progress(opts, vec![(entry, Some(started))], all.all);
            let Some(g) = graded.pop() else {
                return Err(ConfigError("the run gave no result".to_string()));
            };
            provenance.seconds = started_at.elapsed().as_secs_f64();
            g
        }
        (None, Ok((g, _))) => g,
        (None, Err(_)) => return Err(ConfigError("the run gave no result".to_string())),
    };
    let (numbers, declared, refused) = match &g.started {
        Ok(s) => (s.numbers, s.parts.clone(), s.numbers_refused),
        Err(_) => (crate::compare::Numbers::Spelling, Vec::new(), false),
    };
    let Expected {
        expectations,
        unknown,
    } = expected;
    g.settle(expectations, how);
    let seconds = provenance.seconds;
    // The failures as a starting list of expectations: judged without the expectations given.
    let fresh = opts.write_expectations.as_deref().map(|path| {
        let raw = Graded {
            expectations: None,
            ..g.clone()
        }
        .verdicts(cases, scope);
        (path, Expectations::from_failures(cases, &raw).to_toml())
    });
    let judged = Judged::of(&g, cases);
    let verdicts = &judged.verdicts;
    let offered = report::Offered {
        parts: &declared,
        spelling_steps: crate::runner::spelling_steps_of(&declared, numbers, cases),
        numbers_refused: refused,
    };
    let total = judged.tally;
    let passed = total.success(opts.allow_skips)
        && (!opts.strict || (total.unexpected_passes == 0 && unknown.is_empty()))
        && g.apart.success(opts.allow_skips);
    g.passed = passed;
    let model = Model {
        cases,
        graded: std::slice::from_ref(&g),
        judged: std::slice::from_ref(&judged),
        provenance: &provenance,
    };
    // A report that cannot be written is told after the others and the human report, which
    // are written all the same: a run is never lost to one bad path.
    let unwritten = write_files(
        opts,
        &model,
        true,
        fresh,
        identity,
        std::slice::from_ref(&unknown),
    );
    let slow = g.slow.iter().filter(|s| **s).count();
    match opts.format {
        Format::Human => {
            for (c, v) in cases.iter().zip(verdicts) {
                write!(out, "{}", report::human_case(c, v, style, opts.verbose)).map_err(io)?;
            }
            write!(
                out,
                "{}",
                report::human_apart(&g.apart, style, opts.verbose)
            )
            .map_err(io)?;
            for name in &unknown {
                writeln!(
                    out,
                    "{}",
                    style.warn(&format!(
                        "warning: the expectations list `{}`, which is not a case (renamed or retired?)",
                        crate::inert::terminal_line(name)
                    ))
                )
                .map_err(io)?;
            }
            let mut notes = Vec::new();
            if slow > 0 {
                notes.push(slow_note(slow));
            }
            let flaky = g.flaky.iter().filter(|f| **f).count();
            if flaky > 0 {
                notes.push(style.warn(&flaky_note(flaky)));
            }
            let grade = &judged.grade;
            // The summary says on a line of its own how numbers were judged.
            notes.push(format!("in the brief's terms: {}", grade.in_brief_terms()));
            if let Some(note) = beyond_brief_note(grade, scope.brief_only) {
                notes.push(note);
            }
            if let Some(note) = spelling_note(cases, &g, verdicts) {
                notes.push(note);
            }
            if let Some(why) = total.why_not_passed(opts.allow_skips) {
                notes.push(style.warn(&format!("not passed: {why}")));
            }
            notes.extend(report::apart_lines(&g.apart, style));
            if total.success(opts.allow_skips) && !g.apart.success(opts.allow_skips) {
                notes.push(style.warn(
                    "not passed: the public cases pass, and what was checked apart from them \
                     fails (above): cases the implementation never saw",
                ));
            }
            write!(
                out,
                "{}",
                report::human_summary(cases, verdicts, style, seconds, &offered, passed, &notes)
            )
            .map_err(io)?;
        }
        Format::Json => {
            let scope = g.scope.with_numbers(g.numbers());
            for (i, ((c, v), (ran, slow))) in cases
                .iter()
                .zip(verdicts)
                .zip(g.ran.iter().zip(&g.slow))
                .enumerate()
            {
                let event =
                    report::json::flagged(report::json::case_event(c, v, ran, scope, *slow), &g, i);
                writeln!(out, "{}", report::json::line(&event)).map_err(io)?;
            }
            for event in report::json::apart_cases(&g.apart, scope) {
                writeln!(out, "{}", report::json::line(&event)).map_err(io)?;
            }
            writeln!(
                out,
                "{}",
                report::json_summary(cases, verdicts, &offered, passed, &provenance, &g.apart)
            )
            .map_err(io)?;
        }
    }
    github(opts, &model, out)?;
    unwritten_error(unwritten)?;
    Ok(passed)
}

/// When every failing case first differs at a step whose expectation depends on how a number is
/// written (`spelling: true`), the declaration that leaves those steps out for a JSON reader that
/// keeps number values only.
fn spelling_note(cases: &[Case], g: &crate::grade::Graded, verdicts: &[Verdict]) -> Option<String> {
    if g.numbers() == crate::compare::Numbers::Values {
        return None;
    }
    let scope = g.scope.with_numbers(g.numbers());
    let mut failing = 0;
    for ((c, v), ran) in cases.iter().zip(verdicts).zip(&g.ran) {
        if !matches!(v, Verdict::Failed(_)) {
            continue;
        }
        failing += 1;
        let crate::runner::Ran::Results(actual) = ran else {
            return None;
        };
        match crate::compare::compare(c, actual, scope) {
            Err(m) if c.steps.get(m.step).is_some_and(|s| s.spelling) => {}
            _ => return None,
        }
    }
    (failing > 0).then(|| {
        format!(
            "every failing case first differs at a step that depends on how a number is written \
             (`spelling: true`, spec/dispatcher.md \"Number spelling\"): if the implementation's \
             JSON reader keeps number values only, it declares `\"numbers\": \"values\"` in its \
             handshake (`--numbers values` with `--per-case`) and those steps are left out ({})",
            crate::wording::count(failing, "case", "cases")
        )
    })
}

/// When every failure is beyond the brief's own cases, where they come from; and, only when the
/// run holds brief cases, the flag that checks those alone (advice that selects nothing is none).
fn beyond_brief_note(grade: &crate::grade::Grade, brief_only: bool) -> Option<String> {
    let beyond = grade.beyond_brief;
    let brief_clean = grade.brief_failing.iter().all(Vec::is_empty);
    if brief_only || !brief_clean || beyond.total() == 0 {
        return None;
    }
    let mut note = format!(
        "every failure is beyond what the brief states: {}",
        beyond.describe()
    );
    if beyond.clarification > 0 {
        note.push_str(
            " (a clarification decides what the brief leaves open, in spec/dispatcher.md)",
        );
    }
    if beyond.regression > 0 {
        note.push_str(" (a regression case is a support ticket turned into a case)");
    }
    if grade.brief.iter().any(|s| s.total > 0) {
        note.push_str("; `--origin brief` checks only what the brief states");
    }
    Some(note)
}

/// Where the reports come from: the run's version, cases, command line, filters and scope;
/// `seconds` is set at the end.
fn provenance(opts: &CheckOptions, cases: &[Case]) -> Provenance {
    let s = &opts.selection;
    let mut filters: Vec<String> = Vec::new();
    if !s.parts.is_empty() {
        let parts: Vec<&str> = s.parts.iter().map(|p| p.as_str()).collect();
        filters.push(format!("part {}", parts.join(",")));
    }
    if !s.rules.is_empty() {
        filters.push(format!("rule {}", s.rules.join(",")));
    }
    if !s.origins.is_empty() {
        let origins: Vec<&str> = s.origins.iter().map(|o| o.as_str()).collect();
        filters.push(format!("origin {}", origins.join(",")));
    }
    if !s.patterns.is_empty() {
        filters.push(format!("names {}", s.patterns.join(",")));
    }
    Provenance::new(cases, filters.join("; "), s.scope().brief_only)
}

/// A `start` event with the hookcheck version and the corpus digest, known before anything runs.
fn start_event(mut event: serde_json::Value, provenance: &Provenance) -> String {
    event["version"] = provenance.version.into();
    event["corpus"] = provenance.corpus.clone().into();
    report::json::line(&event)
}

/// Runs every case, with the live progress line when asked for.
fn run_with_progress(
    opts: &CheckOptions,
    entries: Vec<(Entry, Option<crate::grade::Started>)>,
    cases: &[Case],
) -> Vec<Graded> {
    run_streaming(opts, entries, cases, &|_, _| {})
}

/// As [`run_with_progress`], handing each implementation's results to `finished` once final.
fn run_streaming(
    opts: &CheckOptions,
    entries: Vec<(Entry, Option<crate::grade::Started>)>,
    cases: &[Case],
    finished: &(dyn Fn(usize, Graded) + Sync),
) -> Vec<Graded> {
    let progress = std::sync::Arc::new(crate::progress::Progress::default());
    let line = opts
        .progress
        .then(|| crate::progress::show(std::sync::Arc::clone(&progress)));
    let graded = run_all_streaming(entries, cases, opts.jobs, &progress, finished);
    drop(line);
    graded
}

/// How the run settles each implementation's results once its cases ran.
fn settling<'a>(opts: &CheckOptions, all: Cases<'a>) -> Settling<'a> {
    let scope = opts.selection.scope();
    Settling {
        cases: all.all,
        public: all.public,
        scope,
        generated: opts.generated.map(|asked| {
            let judging = crate::fuzz::workloads::Judging {
                jobs: opts.jobs,
                brief_only: scope.brief_only,
                allow_skips: opts.allow_skips,
            };
            (asked, judging)
        }),
        progress: opts.progress,
    }
}

/// What a pass after a timeout means, for the closing lines.
fn slow_note(slow: usize) -> String {
    format!(
        "{slow} of the passes {} slow: {} timed out with the others and passed when run again \
         alone (the machine was busy, or the implementation is close to --timeout)",
        if slow == 1 { "was" } else { "were" },
        if slow == 1 { "it" } else { "they" }
    )
}

/// What a pass after a failure in the earlier run means (`--rerun-failed`), for the closing lines.
fn flaky_note(flaky: usize) -> String {
    format!(
        "{flaky} of the passes {} flaky: {} did not pass in the earlier run and passed when run \
         again (a flaky pass is still a pass; the implementation's answers change between runs)",
        if flaky == 1 { "was" } else { "were" },
        if flaky == 1 { "it" } else { "they" }
    )
}

/// Many implementations: their grade, in a table and in the brief's terms.
fn many(
    opts: &CheckOptions,
    work: Work<Vec<Entry>, Vec<Graded>>,
    expected: Vec<Expected>,
    all: Cases,
    (started_at, mut provenance): (Instant, Provenance),
    identity: Option<&Identity>,
    out: &mut impl Write,
) -> Result<bool, ConfigError> {
    let cases = all.public();
    let how = settling(opts, all);
    let style = Style { color: opts.color };
    let count = match &work {
        Work::Run(entries) => entries.len(),
        Work::Given(graded) => graded.len(),
    };
    // The verdict on an implementation, as every report tells it: expectations, scope, `--strict`
    // and `--allow-skips` applied, its hidden cases set apart and its generated workloads run.
    // Judged and graded here, once: every report renders these.
    let settle = |i: usize, g: &mut Graded| -> Judged {
        g.settle(expected.get(i).and_then(|e| e.expectations.clone()), how);
        let judged = Judged::of(g, cases);
        let unknown = expected.get(i).is_none_or(|e| e.unknown.is_empty());
        g.passed = g.started.is_ok()
            && judged.success(opts.strict, opts.allow_skips)
            && (!opts.strict || unknown)
            && g.apart.success(opts.allow_skips);
        judged
    };
    match opts.format {
        Format::Human => writeln!(
            out,
            "hookcheck check: {count} implementations, {} each from {}, {} at a time\n",
            crate::wording::count(cases.len(), "case", "cases"),
            crate::inert::terminal_line(&opts.cases.describe()),
            opts.jobs
        )
        .and_then(|()| {
            let apart = apart_header(opts, all);
            if apart.is_empty() {
                Ok(())
            } else {
                writeln!(out, "{apart}\n")
            }
        })
        .map_err(io)?,
        Format::Json => {
            let mut start = serde_json::json!({"event": "start", "implementations": count,
                "cases": cases.len(), "jobs": opts.jobs, "scope": provenance.scope});
            if opts.hidden.is_some() {
                start["hidden"] = all.hidden().into();
            }
            if let Some(asked) = opts.generated {
                start["generated"] =
                    serde_json::json!({"workloads": asked.count, "seed": asked.seed});
            }
            writeln!(out, "{}", start_event(start, &provenance)).map_err(io)?;
            out.flush().map_err(io)?;
        }
    }
    let (graded, judged, streamed) = match work {
        Work::Run(entries) => {
            let entries = entries.into_iter().map(|e| (e, None)).collect();
            let done = if opts.format == Format::Json {
                stream(opts, entries, all.all, cases, &settle, out)
            } else {
                let mut graded = run_with_progress(opts, entries, all.all);
                let judged = graded
                    .iter_mut()
                    .enumerate()
                    .map(|(i, g)| settle(i, g))
                    .collect();
                (graded, judged, Ok(()))
            };
            provenance.seconds = started_at.elapsed().as_secs_f64();
            done
        }
        Work::Given(mut graded) => {
            let judged: Vec<Judged> = graded
                .iter_mut()
                .enumerate()
                .map(|(i, g)| settle(i, g))
                .collect();
            let mut written = Ok(());
            if opts.format == Format::Json {
                for (i, (g, j)) in graded.iter().zip(&judged).enumerate() {
                    let event = report::json_implementation(cases, g, j, i);
                    written = written.and_then(|()| writeln!(out, "{event}"));
                }
            }
            (graded, judged, written)
        }
    };
    let seconds = provenance.seconds;
    let passed: Vec<bool> = graded.iter().map(|g| g.passed).collect();
    let model = Model {
        cases,
        graded: &graded,
        judged: &judged,
        provenance: &provenance,
    };
    let unknown: Vec<Vec<String>> = expected.into_iter().map(|e| e.unknown).collect();
    let unwritten = write_files(opts, &model, false, None, identity, &unknown);
    let passing = passed.iter().filter(|p| **p).count();
    match opts.format {
        Format::Human => {
            for (g, names) in graded.iter().zip(&unknown) {
                for name in names {
                    let warning = format!(
                        "warning: {}'s expectations list `{}`, which is not a case \
                         (renamed or retired?)",
                        crate::inert::terminal_line(&g.entry.name),
                        crate::inert::terminal_line(name)
                    );
                    writeln!(out, "{}", style.warn(&warning)).map_err(io)?;
                }
            }
            write!(
                out,
                "{}",
                report::grade_human(&model, style, opts.verbose, seconds)
            )
            .map_err(io)?;
            for g in &graded {
                let name = crate::inert::terminal_line(&g.entry.name);
                let slow = g.slow.iter().filter(|s| **s).count();
                if slow > 0 {
                    writeln!(out, "{name}: {}", slow_note(slow)).map_err(io)?;
                }
                let flaky = g.flaky.iter().filter(|f| **f).count();
                if flaky > 0 {
                    writeln!(out, "{name}: {}", style.warn(&flaky_note(flaky))).map_err(io)?;
                }
            }
        }
        Format::Json => {
            // Told after the report files, which are written all the same.
            streamed.map_err(io)?;
            let dead = graded.iter().filter(|g| g.started.is_err()).count();
            let summary = serde_json::json!({"event": "summary", "implementations": count,
                "passing": passing, "failing": count - passing - dead, "could_not_start": dead,
                "success": passing == count, "seconds": seconds,
                "provenance": provenance.to_json()});
            writeln!(out, "{}", report::json::line(&summary)).map_err(io)?;
        }
    }
    github(opts, &model, out)?;
    unwritten_error(unwritten)?;
    Ok(passing == count)
}

/// The files the run will write, checked before anything runs against the files it reads
/// (`read`): `outputs::destinations`, and `--badge DIR` a folder that exists.
fn writable(opts: &CheckOptions, read: &[outputs::Input]) -> Result<(), ConfigError> {
    let reports = [
        ("--junit", opts.junit.as_deref()),
        ("--markdown", opts.markdown.as_deref()),
        ("--html", opts.html.as_deref()),
        ("--write-expectations", opts.write_expectations.as_deref()),
        ("--bundle", opts.bundle.as_deref()),
    ];
    outputs::destinations(&reports, read).map_err(ConfigError)?;
    match opts.badge.as_deref() {
        Some(d) if !d.is_dir() => Err(ConfigError(format!(
            "--badge {}: not a folder (make it first)",
            d.display()
        ))),
        _ => Ok(()),
    }
}

/// With `--format github`: the annotations after the report, and the grade in the step
/// summary when the runner names one.
fn github(opts: &CheckOptions, model: &Model, out: &mut impl Write) -> Result<(), ConfigError> {
    if !opts.github {
        return Ok(());
    }
    write!(out, "{}", report::github::annotations(model)).map_err(io)?;
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        let appended = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .and_then(|mut f| f.write_all(report::markdown(model).as_bytes()));
        appended.map_err(|e| {
            ConfigError(format!(
                "cannot append to $GITHUB_STEP_SUMMARY ({}): {e}",
                std::path::Path::new(&path).display()
            ))
        })?;
    }
    Ok(())
}

/// Runs every case of many implementations, writing each one's `implementation` event as soon
/// as its verdict is final (`settle` makes it so) while the others run. A write that fails stops
/// the stream, not the run: the error is returned beside the results.
/// `all` are the cases run, `cases` the public ones the events list. What is returned is
/// settled, each implementation once.
fn stream(
    opts: &CheckOptions,
    entries: Vec<(Entry, Option<crate::grade::Started>)>,
    all: &[Case],
    cases: &[Case],
    settle: &(impl Fn(usize, &mut Graded) -> Judged + Sync),
    out: &mut impl Write,
) -> (Vec<Graded>, Vec<Judged>, std::io::Result<()>) {
    let (sender, finished) = std::sync::mpsc::channel::<(usize, Graded)>();
    let mut written = Ok(());
    let mut settled: Vec<Option<(Graded, Judged)>> = Vec::new();
    let graded = std::thread::scope(|s| {
        let run = s.spawn(move || {
            run_streaming(opts, entries, all, &move |i, g| {
                let _ = sender.send((i, g));
            })
        });
        // Ends when the run ends and drops the sender.
        for (i, mut g) in finished {
            let judged = settle(i, &mut g);
            if written.is_ok() {
                let event = report::json_implementation(cases, &g, &judged, i);
                written = writeln!(out, "{event}").and_then(|()| out.flush());
            }
            if settled.len() <= i {
                settled.resize_with(i + 1, || None);
            }
            settled[i] = Some((g, judged));
        }
        run.join()
    });
    let graded = graded.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    // Every implementation is handed over once; one that was not is settled here.
    let (graded, judged) = graded
        .into_iter()
        .enumerate()
        .map(|(i, mut g)| {
            settled
                .get_mut(i)
                .and_then(Option::take)
                .unwrap_or_else(|| {
                    let judged = settle(i, &mut g);
                    (g, judged)
                })
        })
        .unzip();
    (graded, judged, written)
}

/// The report files asked for: JUnit, markdown, HTML, rendered from `model`; `one` is a check of
/// one implementation, whose JUnit report has a suite per case folder. Each is written whatever
/// became of the others; the ones that could not be are returned.
fn write_files(
    opts: &CheckOptions,
    model: &Model,
    one: bool,
    fresh: Option<(&std::path::Path, String)>,
    identity: Option<&Identity>,
    unknown: &[Vec<String>],
) -> Vec<ConfigError> {
    let mut files: Vec<(PathBuf, String, bool)> = Vec::new();
    if let Some((path, text)) = fresh {
        // Expectations are never written over an existing file.
        files.push((path.to_path_buf(), text, false));
    }
    files.extend(
        rendered(opts, model, one)
            .into_iter()
            .map(|(path, text)| (path.to_path_buf(), text, true)),
    );
    let mut refused = Vec::new();
    if let Some(dir) = &opts.badge {
        for (name, text) in report::github::badges(model) {
            let path = dir.join(name);
            // The folder may hold anything (bundles, cases): only a badge is written over.
            let other = std::fs::read(&path)
                .is_ok_and(|old| !old.starts_with(report::github::BADGE_START.as_bytes()));
            if other {
                refused.push(ConfigError(format!(
                    "--badge: {} exists and is not a hookcheck badge: it is left as it was",
                    path.display()
                )));
            } else {
                files.push((path, text, true));
            }
        }
    }
    if let (Some(path), Some(identity)) = (&opts.bundle, identity) {
        let implementations = model
            .rows()
            .enumerate()
            .map(|(i, (g, judged))| {
                let index = identity.indices.get(i).copied().unwrap_or(i);
                let unknown = unknown.get(i).map_or(&[][..], Vec::as_slice);
                crate::bundle::Implementation::of(g, judged, model.cases, index, unknown)
            })
            .collect();
        let bundle = identity.bundle(model.provenance, implementations);
        files.push((path.clone(), bundle.to_text(), true));
    }
    refused.extend(files.into_iter().filter_map(|(path, text, replace)| {
        outputs::write(&path, &text, replace).err().map(ConfigError)
    }));
    refused
}

/// The report files asked for, each rendered from `model`, with where it goes.
fn rendered<'a>(
    opts: &'a CheckOptions,
    model: &Model,
    one: bool,
) -> Vec<(&'a std::path::Path, String)> {
    let (cases, graded) = (model.cases, model.graded);
    let seconds = model.provenance.seconds;
    let mut out = Vec::new();
    let detail = opts.hidden_detail;
    if let Some(path) = &opts.junit {
        let xml = match model.judged.first().filter(|_| one) {
            Some(judged) => {
                let apart: String = graded
                    .iter()
                    .map(|g| report::apart::junit(g, detail, None))
                    .collect();
                report::junit(
                    cases,
                    &judged.verdicts,
                    graded.first(),
                    judged.tally,
                    seconds,
                    &apart,
                )
            }
            None => {
                let apart: String = graded
                    .iter()
                    .map(|g| report::apart::junit(g, detail, Some(&g.entry.name)))
                    .collect();
                report::junit_many(model, seconds, &apart)
            }
        };
        out.push((path.as_path(), xml));
    }
    if let Some(path) = &opts.markdown {
        out.push((path.as_path(), report::markdown(model)));
    }
    if let Some(path) = &opts.html {
        out.push((
            path.as_path(),
            report::html(
                model,
                "hookcheck: implementations × cases",
                &report::apart::html(graded, detail),
            ),
        ));
    }
    out
}

fn unwritten_error(unwritten: Vec<ConfigError>) -> Result<(), ConfigError> {
    if unwritten.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = unwritten.into_iter().map(|e| e.0).collect();
    Err(ConfigError(format!(
        "the report above is complete, but {}",
        lines.join("; ")
    )))
}

/// What `hookcheck lint` says of cases a run was given, recorded cases not yet reviewed let
/// through with `allow_unreviewed`.
fn lint_problems(cases: &[Case], allow_unreviewed: bool) -> Vec<String> {
    let lintable: Vec<Case> = cases
        .iter()
        .filter(|c| !(allow_unreviewed && c.recorded == Some(Recorded::Unreviewed)))
        .cloned()
        .collect();
    crate::corpus::problems(&lintable, &crate::spec::rules())
}
