//! Result bundles (`check --bundle FILE`): one versioned JSON file holding what a run (or one
//! shard of it) gave: the run's identity (hookcheck version, corpus digest and the digest of each
//! case file, the cases selected, filters, scope, flags that change verdicts), the shard, and
//! for every implementation and case the raw results, the verdict and its report. `merge`
//! checks that bundles are shards of one run and joins them; every report is then rendered from
//! the joined results, judged again on the same cases, so a merged run reports what one machine
//! would have. The format is `spec/bundle.schema.json`.

use crate::case::{Case, Inapplicable, Part};
use crate::compare::{Numbers, Scope};
use crate::expect::Expectations;
use crate::grade::{Cost, Graded, StartedInfo};
use crate::implementation::Failure;
use crate::manifest::Entry;
use crate::report::Judged;
use crate::runner::{Ran, verdict_word};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The `format` of every bundle: what a reader checks first.
pub const FORMAT: &str = "hookcheck-bundle";
/// The bundle format's version; a reader refuses a newer one by name.
pub const VERSION: u64 = 1;
/// The most implementations a merged run may have.
pub const MAX_IMPLEMENTATIONS: usize = 1 << 20;
/// The largest bundle read: far above a grade of a thousand submissions, far below memory.
pub const MAX_BYTES: u64 = 512 << 20;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    pub format: String,
    pub version: u64,
    /// The hookcheck that wrote it.
    pub hookcheck: String,
    /// The protocol version it speaks with implementations.
    pub protocol: u64,
    /// What every shard of one run shares.
    pub run: Run,
    /// Which shard this is; `None` for a whole run.
    pub shard: Option<ShardRecord>,
    /// The command line, start (UTC, RFC 3339) and duration of this run or shard.
    pub command: String,
    pub started: String,
    pub seconds: f64,
    /// How many cases ran at a time here.
    pub jobs: usize,
    pub implementations: Vec<Implementation>,
}

/// A run's identity: two bundles with different ones are not shards of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// The digest of the selected public cases (as every report's provenance shows it).
    pub corpus: String,
    /// Where the cases came from, as the reports say it (`the built-in corpus`).
    pub sources: String,
    /// Each case file used, with the digest of its selected cases.
    pub case_files: BTreeMap<String, String>,
    /// The selected public cases, `suite::id`, in the run's order (every shard's, whole).
    pub cases: Vec<String>,
    pub filters: String,
    /// `full`, or `brief` for `--origin brief`.
    pub scope: String,
    pub strict: bool,
    pub allow_skips: bool,
    /// How many implementations the whole run checks, and whether it checked one alone (whose
    /// reports take the one-implementation form).
    pub implementations: usize,
    pub single: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardRecord {
    pub index: usize,
    pub count: usize,
    /// `slice` or `hash`.
    pub method: String,
    /// `implementation` or `case`.
    pub by: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Implementation {
    /// Its place among the whole run's implementations.
    pub index: usize,
    pub name: String,
    pub command: Option<String>,
    pub require_parts: Vec<String>,
    pub started: Started,
    pub expectations: Option<Expectations>,
    /// Cases its expectations list that the corpus does not have.
    pub unknown: Vec<String>,
    /// This run's verdict on it, for a reader; a merge judges again.
    pub passed: bool,
    pub cases: Vec<CaseResult>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Started {
    Ok {
        describe: String,
        parts: Vec<String>,
        numbers: String,
        numbers_refused: bool,
    },
    Error(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseResult {
    /// `suite::id`.
    pub case: String,
    /// As `--format json` words it (`passed`, `failed`, ...), in the run's scope.
    pub verdict: String,
    /// The verdict's report (the diff of a failure), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    pub ran: RanRecord,
    /// It timed out with the others and passed when run again alone.
    #[serde(default)]
    pub slow: bool,
    /// It did not pass in an earlier run and passed when run again (`check --rerun-failed`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
    /// The wall time spent on it, its run alone after a timeout included.
    #[serde(default)]
    pub seconds: f64,
    /// Processes started while serving it to replace one lost to a fault.
    #[serde(default)]
    pub restarts: u32,
    /// Times it was sent again (to a fresh process after the one it went to had exited, or
    /// alone after a timeout).
    #[serde(default)]
    pub retries: u32,
}

/// What running the case gave, before it is judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RanRecord {
    Results { results: Vec<Value> },
    NotImplemented { part: String },
    Offers { part: String },
    Spelling,
    Skipped { reason: String },
    Errored { message: String, detail: String },
    TimedOut { message: String, detail: String },
    NotRun { reason: String },
}

impl RanRecord {
    pub fn of(ran: &Ran) -> RanRecord {
        match ran {
            Ran::Results(r) => RanRecord::Results { results: r.clone() },
            Ran::NotApplicable(Inapplicable::NotImplemented(p)) => RanRecord::NotImplemented {
                part: p.as_str().to_string(),
            },
            Ran::NotApplicable(Inapplicable::Offers(p)) => RanRecord::Offers {
                part: p.as_str().to_string(),
            },
            Ran::NotApplicable(Inapplicable::Spelling) => RanRecord::Spelling,
            Ran::Failed(Failure::Skipped(reason)) => RanRecord::Skipped {
                reason: reason.clone(),
            },
            Ran::Failed(Failure::Errored { message, detail }) => RanRecord::Errored {
                message: message.clone(),
                detail: detail.clone(),
            },
            Ran::Failed(Failure::TimedOut { message, detail }) => RanRecord::TimedOut {
                message: message.clone(),
                detail: detail.clone(),
            },
            Ran::Failed(Failure::NotRun(reason)) => RanRecord::NotRun {
                reason: reason.clone(),
            },
        }
    }

    fn into_ran(self) -> Result<Ran, String> {
        let part = |p: &str| Part::parse(p).ok_or_else(|| format!("`{p}` is not a part"));
        Ok(match self {
            RanRecord::Results { results } => Ran::Results(results),
            RanRecord::NotImplemented { part: p } => {
                Ran::NotApplicable(Inapplicable::NotImplemented(part(&p)?))
            }
            RanRecord::Offers { part: p } => Ran::NotApplicable(Inapplicable::Offers(part(&p)?)),
            RanRecord::Spelling => Ran::NotApplicable(Inapplicable::Spelling),
            RanRecord::Skipped { reason } => Ran::Failed(Failure::Skipped(reason)),
            RanRecord::Errored { message, detail } => {
                Ran::Failed(Failure::Errored { message, detail })
            }
            RanRecord::TimedOut { message, detail } => {
                Ran::Failed(Failure::TimedOut { message, detail })
            }
            RanRecord::NotRun { reason } => Ran::Failed(Failure::NotRun(reason)),
        })
    }
}

impl Implementation {
    /// The record of `g` (judged as `judged`), the `index`-th implementation of the run, whose
    /// expectations list `unknown` cases the corpus lacks.
    pub fn of(
        g: &Graded,
        judged: &Judged,
        cases: &[Case],
        index: usize,
        unknown: &[String],
    ) -> Implementation {
        Implementation {
            index,
            name: g.entry.name.clone(),
            command: g.entry.command.clone(),
            require_parts: g
                .entry
                .options
                .require_parts
                .iter()
                .map(|p| p.as_str().to_string())
                .collect(),
            started: match &g.started {
                Ok(s) => Started::Ok {
                    describe: s.describe.clone(),
                    parts: s.parts.iter().map(|p| p.as_str().to_string()).collect(),
                    numbers: s.numbers.as_str().to_string(),
                    numbers_refused: s.numbers_refused,
                },
                Err(e) => Started::Error(e.clone()),
            },
            expectations: g.expectations.clone(),
            unknown: unknown.to_vec(),
            passed: g.passed,
            cases: cases
                .iter()
                .zip(&judged.verdicts)
                .zip(g.ran.iter().zip(&g.slow))
                .enumerate()
                .map(|(i, ((c, v), (ran, slow)))| {
                    let report = crate::report::message(v);
                    let cost = g.cost(i);
                    CaseResult {
                        case: c.name(),
                        verdict: verdict_word(v).to_string(),
                        report: (!report.is_empty()).then(|| report.into_owned()),
                        ran: RanRecord::of(ran),
                        slow: *slow,
                        flaky: g.flaky.get(i).copied().unwrap_or(false),
                        seconds: cost.seconds,
                        restarts: cost.restarts,
                        retries: cost.retries,
                    }
                })
                .collect(),
        }
    }
}

impl Bundle {
    /// The bundle as written: JSON, one line.
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a bundle, refusing anything that is not one with a message naming the file.
    pub fn load(path: &Path) -> Result<Bundle, String> {
        let shown = path.display();
        let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("{shown}: not a regular file"));
        }
        if meta.len() > MAX_BYTES {
            return Err(format!(
                "{shown}: {} bytes, above the {} MiB a bundle may hold",
                meta.len(),
                MAX_BYTES >> 20
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
        Bundle::parse(&bytes).map_err(|e| format!("{shown}: {e}"))
    }

    /// A bundle from its text: the format and version are checked before the rest, so that a
    /// newer bundle is named as such rather than as malformed.
    pub fn parse(bytes: &[u8]) -> Result<Bundle, String> {
        /// The two fields read first; the rest is skipped, not built.
        #[derive(Deserialize)]
        struct Head {
            format: Option<Value>,
            version: Option<Value>,
        }
        let head: Head = serde_json::from_slice(bytes).map_err(|e| {
            format!(
                "not a bundle: not a JSON object at line {}, column {} ({e})",
                e.line(),
                e.column()
            )
        })?;
        if head.format.as_ref().and_then(Value::as_str) != Some(FORMAT) {
            return Err(format!(
                "not a bundle: its `format` is not \"{FORMAT}\" (write one with check --bundle)"
            ));
        }
        match head.version.as_ref().and_then(Value::as_u64) {
            Some(VERSION) => {}
            Some(v) if v > VERSION => {
                return Err(format!(
                    "a bundle of version {v}, written by a newer hookcheck; this one reads version \
                     {VERSION}"
                ));
            }
            _ => return Err(format!("not a bundle of version {VERSION}")),
        }
        serde_json::from_slice(bytes).map_err(|e| format!("not a valid bundle: {e}"))
    }
}

impl Run {
    /// The run's cases, by name, from `sources`: refused unless they are the cases the run ran
    /// (the same digest), since a bundle holds their names and digests, not their text.
    pub fn cases_in(&self, sources: &crate::corpus::Sources) -> Result<Vec<Case>, String> {
        let described = sources.describe();
        let corpus = crate::corpus::Corpus::gather(sources);
        let by_name: std::collections::HashMap<String, &Case> =
            corpus.cases.iter().map(|c| (c.name(), c)).collect();
        let cases = self
            .cases
            .iter()
            .map(|name| {
                by_name.get(name).map(|c| (*c).clone()).ok_or_else(|| {
                    format!(
                        "the bundles ran `{name}`, which {described} does not hold: give the \
                         --cases the check was given"
                    )
                })
            })
            .collect::<Result<Vec<Case>, String>>()?;
        let digest = crate::provenance::digest(&cases);
        if digest != self.corpus {
            return Err(format!(
                "the cases here are not the ones the bundles ran (corpus {digest} here, {} in the \
                 bundles): use the hookcheck and the --cases the check was given",
                self.corpus
            ));
        }
        Ok(cases)
    }
}

/// Bundles joined: the whole run's implementations in order, each with every case.
#[derive(Debug)]
pub struct Merged {
    pub run: Run,
    pub implementations: Vec<Implementation>,
    /// The earliest start and the longest shard: a run's start and its wall time.
    pub started: String,
    pub seconds: f64,
    pub jobs: usize,
}

/// Joins bundles that are the shards of one run (or one whole run). Refuses bundles of other
/// runs, versions or filters naming the difference, a shard missing or given twice, and any
/// implementation and case given twice or not at all.
pub fn merge(bundles: Vec<(PathBuf, Bundle)>) -> Result<Merged, String> {
    let Some((first_path, first)) = bundles.first() else {
        return Err("no bundle to merge".to_string());
    };
    let version = env!("CARGO_PKG_VERSION");
    for (path, b) in &bundles {
        if b.hookcheck != version {
            return Err(format!(
                "{}: written by hookcheck {}, and this is {version}: merge with the hookcheck \
                 that wrote the bundles",
                path.display(),
                b.hookcheck
            ));
        }
        if let Some(what) = difference(&first.run, &b.run) {
            return Err(format!(
                "{} and {} are not shards of one run: their {what} differ",
                first_path.display(),
                path.display()
            ));
        }
    }
    // Counts a hostile bundle could set to anything: bounded before anything is sized by them.
    if first.run.implementations > MAX_IMPLEMENTATIONS {
        return Err(format!(
            "{}: a run of {} implementations, above the {MAX_IMPLEMENTATIONS} a merge takes",
            first_path.display(),
            first.run.implementations
        ));
    }
    shards_complete(&bundles)?;
    let run = first.run.clone();
    let started = bundles
        .iter()
        .map(|(_, b)| b.started.clone())
        .min()
        .unwrap_or_default();
    let seconds = bundles.iter().map(|(_, b)| b.seconds).fold(0.0, f64::max);
    let jobs = first.jobs;
    let known: BTreeMap<&str, usize> = run
        .cases
        .iter()
        .enumerate()
        .map(|(i, c)| (c.as_str(), i))
        .collect();
    // Per implementation of the run: its record, and where each case's result came from. The
    // bundles are taken apart as they are joined: a thousand of them are held once, not twice.
    let mut joined: Vec<Option<Joined>> = vec![None; run.implementations];
    for (path, b) in bundles {
        for mut imp in b.implementations {
            let slot = joined.get_mut(imp.index).ok_or_else(|| {
                format!(
                    "{}: implementation #{} of a run of {}",
                    path.display(),
                    imp.index.saturating_add(1),
                    run.implementations
                )
            })?;
            let cases = std::mem::take(&mut imp.cases);
            let name = imp.name.clone();
            let (_, results, _) = match slot {
                Some(joined) => {
                    let (record, _, from) = &*joined;
                    // The command may differ between shards (a solution file's adapter is
                    // written to a fresh temporary folder each time); the name, expectations
                    // and requirements may not.
                    if record.name != imp.name
                        || record.expectations != imp.expectations
                        || record.require_parts != imp.require_parts
                    {
                        return Err(format!(
                            "{} and {}: implementation #{} is not the same implementation in both",
                            from.display(),
                            path.display(),
                            imp.index.saturating_add(1)
                        ));
                    }
                    joined
                }
                None => slot.insert((imp, vec![None; run.cases.len()], path.clone())),
            };
            for result in cases {
                let Some(&i) = known.get(result.case.as_str()) else {
                    return Err(format!(
                        "{}: `{name}` has a result for `{}`, which is not a case of the run",
                        path.display(),
                        result.case
                    ));
                };
                if results[i].is_some() {
                    return Err(format!(
                        "{}: `{name}` on `{}` is given twice",
                        path.display(),
                        result.case
                    ));
                }
                results[i] = Some(result);
            }
        }
    }
    let mut implementations = Vec::with_capacity(run.implementations);
    for (index, slot) in joined.into_iter().enumerate() {
        let Some((mut record, results, _)) = slot else {
            return Err(format!(
                "implementation #{} of {} is in none of the bundles",
                index + 1,
                run.implementations
            ));
        };
        for (result, case) in results.into_iter().zip(&run.cases) {
            record.cases.push(result.ok_or_else(|| {
                format!("`{}` on `{case}` is in none of the bundles", record.name)
            })?);
        }
        implementations.push(record);
    }
    Ok(Merged {
        started,
        seconds,
        jobs,
        run,
        implementations,
    })
}

/// An implementation's record while bundles are joined: its cases' results in the run's order
/// (none yet where no bundle gave one), and the bundle it was first met in.
type Joined = (Implementation, Vec<Option<CaseResult>>, PathBuf);

/// The first field in which two runs differ, by the name a user knows it by.
fn difference(a: &Run, b: &Run) -> Option<&'static str> {
    [
        (
            a.corpus != b.corpus || a.case_files != b.case_files,
            "corpora",
        ),
        (a.cases != b.cases, "selected cases"),
        (a.filters != b.filters, "filters"),
        (a.scope != b.scope, "scopes"),
        (a.strict != b.strict, "--strict flags"),
        (a.allow_skips != b.allow_skips, "--allow-skips flags"),
        (
            a.implementations != b.implementations || a.single != b.single,
            "implementations",
        ),
        (a.sources != b.sources, "case sources"),
    ]
    .into_iter()
    .find_map(|(differs, what)| differs.then_some(what))
}

/// Every shard of the run once: all bundles of one split (count, method, by), each index once.
fn shards_complete(bundles: &[(PathBuf, Bundle)]) -> Result<(), String> {
    let whole = bundles.iter().filter(|(_, b)| b.shard.is_none()).count();
    if whole > 0 {
        return if bundles.len() == 1 {
            Ok(())
        } else {
            Err(
                "a whole run's bundle merges alone: to compare two runs, use hookcheck diff"
                    .to_string(),
            )
        };
    }
    let Some(first) = bundles.first().and_then(|(_, b)| b.shard.as_ref()) else {
        return Ok(());
    };
    if first.count > crate::shard::MAX_SHARDS {
        return Err(format!(
            "a run of {} shards, above the {} a run may be split into",
            first.count,
            crate::shard::MAX_SHARDS
        ));
    }
    let mut given: Vec<Option<&Path>> = vec![None; first.count];
    for (path, b) in bundles {
        let Some(s) = &b.shard else { continue };
        if (s.count, &s.method, &s.by) != (first.count, &first.method, &first.by) {
            return Err(format!(
                "{}: shard {}/{} by {} ({}), where the others are of {} by {} ({})",
                path.display(),
                s.index,
                s.count,
                s.by,
                s.method,
                first.count,
                first.by,
                first.method
            ));
        }
        let slot = s
            .index
            .checked_sub(1)
            .and_then(|i| given.get_mut(i))
            .ok_or_else(|| format!("{}: shard {} of {}", path.display(), s.index, s.count))?;
        if let Some(other) = slot {
            return Err(format!(
                "shard {}/{} is given twice: {} and {}",
                s.index,
                s.count,
                other.display(),
                path.display()
            ));
        }
        *slot = Some(path);
    }
    let missing: Vec<String> = given
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_none())
        .map(|(i, _)| format!("{}/{}", i + 1, first.count))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        let (s, are) = if missing.len() == 1 {
            ("", "is")
        } else {
            ("s", "are")
        };
        Err(format!(
            "shard{s} {} {are} missing: every shard's bundle is needed",
            missing.join(", ")
        ))
    }
}

impl Merged {
    /// The implementations' results as a run holds them, on `cases` (the run's selected cases,
    /// in its order), with each one's unknown expectations; judged later as any run's.
    pub fn into_graded(self, cases: &[Case]) -> Result<Vec<(Graded, Vec<String>)>, String> {
        let scope = if self.run.scope == "brief" {
            Scope::BRIEF
        } else {
            Scope::FULL
        };
        self.implementations
            .into_iter()
            .map(|imp| {
                let parts = |names: &[String]| -> Result<Vec<Part>, String> {
                    names
                        .iter()
                        .map(|n| Part::parse(n).ok_or_else(|| format!("`{n}` is not a part")))
                        .collect()
                };
                let started = match &imp.started {
                    Started::Ok {
                        describe,
                        parts: declared,
                        numbers,
                        numbers_refused,
                    } => Ok(StartedInfo {
                        describe: describe.clone(),
                        parts: parts(declared)?,
                        numbers: Numbers::parse(numbers)
                            .ok_or_else(|| format!("`{numbers}` is not a way to read numbers"))?,
                        numbers_refused: *numbers_refused,
                    }),
                    Started::Error(e) => Err(e.clone()),
                };
                let mut entry = Entry {
                    name: imp.name.clone(),
                    command: imp.command.clone(),
                    ..Entry::reference()
                };
                entry.options.require_parts = parts(&imp.require_parts)?;
                if imp.cases.len() != cases.len() {
                    return Err(format!("`{}`: not one result per case", imp.name));
                }
                let slow = imp.cases.iter().map(|c| c.slow).collect();
                let costs = imp
                    .cases
                    .iter()
                    .map(|c| Cost {
                        // A hostile bundle's time is shown, never computed with: kept finite
                        // and non-negative so that sums and renderings stay numbers.
                        seconds: if c.seconds.is_finite() {
                            c.seconds.max(0.0)
                        } else {
                            0.0
                        },
                        restarts: c.restarts,
                        retries: c.retries,
                    })
                    .collect();
                let flaky: Vec<bool> = imp.cases.iter().map(|c| c.flaky).collect();
                let flaky = if flaky.contains(&true) {
                    flaky
                } else {
                    Vec::new()
                };
                let ran = imp
                    .cases
                    .into_iter()
                    .map(|c| c.ran.into_ran())
                    .collect::<Result<Vec<Ran>, String>>()
                    .map_err(|e| format!("`{}`: {e}", imp.name))?;
                let graded = Graded {
                    entry,
                    started,
                    ran,
                    slow,
                    costs,
                    flaky,
                    expectations: imp.expectations,
                    scope,
                    passed: false,
                    apart: Default::default(),
                };
                Ok((graded, imp.unknown))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(shard: Option<(usize, usize)>, indices: &[usize]) -> Bundle {
        Bundle {
            format: FORMAT.to_string(),
            version: VERSION,
            hookcheck: env!("CARGO_PKG_VERSION").to_string(),
            protocol: 1,
            run: Run {
                corpus: "c".into(),
                sources: "the built-in corpus".into(),
                case_files: BTreeMap::new(),
                cases: vec!["a::one".into(), "a::two".into()],
                filters: String::new(),
                scope: "full".into(),
                strict: false,
                allow_skips: false,
                implementations: 3,
                single: false,
            },
            shard: shard.map(|(index, count)| ShardRecord {
                index,
                count,
                method: "slice".into(),
                by: "implementation".into(),
            }),
            command: "hookcheck check".into(),
            started: "2026-12-03T00:00:00Z".into(),
            seconds: 1.0,
            jobs: 2,
            implementations: indices
                .iter()
                .map(|&index| Implementation {
                    index,
                    name: format!("impl-{index}"),
                    command: Some("x".into()),
                    require_parts: Vec::new(),
                    started: Started::Error("no".into()),
                    expectations: None,
                    unknown: Vec::new(),
                    passed: false,
                    cases: ["a::one", "a::two"]
                        .iter()
                        .map(|c| CaseResult {
                            case: c.to_string(),
                            verdict: "not_run".into(),
                            report: None,
                            ran: RanRecord::NotRun { reason: "x".into() },
                            slow: false,
                            flaky: false,
                            seconds: 0.0,
                            restarts: 0,
                            retries: 0,
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    fn named(bundles: Vec<Bundle>) -> Vec<(PathBuf, Bundle)> {
        bundles
            .into_iter()
            .enumerate()
            .map(|(i, b)| (PathBuf::from(format!("b{i}.json")), b))
            .collect()
    }

    #[test]
    fn shards_join_into_the_whole_run_in_its_order() {
        let merged = merge(named(vec![
            bundle(Some((2, 2)), &[2]),
            bundle(Some((1, 2)), &[0, 1]),
        ]))
        .expect("merges");
        let names: Vec<&str> = merged
            .implementations
            .iter()
            .map(|i| i.name.as_str())
            .collect();
        assert_eq!(names, ["impl-0", "impl-1", "impl-2"]);
    }

    #[test]
    fn a_missing_or_doubled_shard_or_pair_is_named() {
        let e = merge(named(vec![
            bundle(Some((1, 3)), &[0]),
            bundle(Some((3, 3)), &[2]),
        ]))
        .expect_err("a shard is missing");
        assert!(e.contains("shard 2/3 is missing"), "{e}");
        let e = merge(named(vec![
            bundle(Some((1, 2)), &[0, 1]),
            bundle(Some((1, 2)), &[2]),
        ]))
        .expect_err("a shard twice");
        assert!(e.contains("given twice"), "{e}");
        let e = merge(named(vec![
            bundle(Some((1, 2)), &[0, 1]),
            bundle(Some((2, 2)), &[1, 2]),
        ]))
        .expect_err("a pair twice");
        assert!(e.contains("`impl-1` on `a::one` is given twice"), "{e}");
        let e = merge(named(vec![
            bundle(Some((1, 2)), &[0]),
            bundle(Some((2, 2)), &[2]),
        ]))
        .expect_err("an implementation in no shard");
        assert!(e.contains("#2 of 3 is in none"), "{e}");
    }

    #[test]
    fn bundles_of_other_runs_are_refused_naming_the_difference() {
        let mut other = bundle(Some((2, 2)), &[2]);
        other.run.corpus = "d".into();
        let e = merge(named(vec![bundle(Some((1, 2)), &[0, 1]), other])).expect_err("corpora");
        assert!(e.contains("corpora differ"), "{e}");
        let mut other = bundle(Some((2, 2)), &[2]);
        other.run.filters = "part retries".into();
        let e = merge(named(vec![bundle(Some((1, 2)), &[0, 1]), other])).expect_err("filters");
        assert!(e.contains("filters differ"), "{e}");
        let mut other = bundle(Some((2, 2)), &[2]);
        other.hookcheck = "0.0.0-other".into();
        let e = merge(named(vec![bundle(Some((1, 2)), &[0, 1]), other])).expect_err("versions");
        assert!(e.contains("written by hookcheck 0.0.0-other"), "{e}");
    }

    #[test]
    fn hostile_text_is_refused_with_a_message_never_a_panic() {
        let good = bundle(None, &[0, 1, 2]).to_text();
        for bad in [
            String::new(),
            "[]".to_string(),
            good[..good.len() / 2].to_string(),
            good.replace(FORMAT, "something-else"),
            good.replace("\"version\":1", "\"version\":99"),
            good.replace("\"jobs\":2", "\"jobs\":-2"),
            good.replace("\"jobs\":2", "\"jobs\":2,\"extra\":1"),
            "\u{feff}{}".to_string(),
        ] {
            assert!(Bundle::parse(bad.as_bytes()).is_err(), "{bad:.80}");
        }
        let e = Bundle::parse(good.replace("\"version\":1", "\"version\":99").as_bytes())
            .expect_err("newer");
        assert!(e.contains("newer hookcheck"), "{e}");
        let back = Bundle::parse(good.as_bytes()).expect("a bundle reads back");
        assert_eq!(back.to_text(), good);
        // An index far out of the run is an error naming it, not a panic.
        let mut far = bundle(None, &[0, 1, 2]);
        far.implementations[0].index = usize::MAX;
        let e = merge(named(vec![far])).expect_err("out of the run");
        assert!(e.contains("of a run of 3"), "{e}");
        // Counts that would size an allocation are bounded first.
        let mut huge = bundle(None, &[0]);
        huge.run.implementations = usize::MAX;
        let e = merge(named(vec![huge])).expect_err("too many implementations");
        assert!(e.contains("above the"), "{e}");
        let e = merge(named(vec![bundle(Some((1, usize::MAX)), &[0, 1, 2])]))
            .expect_err("too many shards");
        assert!(e.contains("above the"), "{e}");
    }

    /// A pair's cost is shown, never computed with as written: a negative time reads as none,
    /// and counts beyond their type are refused rather than wrapped.
    #[test]
    fn hostile_costs_are_inert_or_refused() {
        let good = bundle(None, &[0, 1, 2]).to_text();
        let negative = good.replacen("\"seconds\":0.0", "\"seconds\":-1e300", 1);
        assert_ne!(negative, good);
        let merged = merge(named(vec![
            Bundle::parse(negative.as_bytes()).expect("reads"),
        ]))
        .expect("merges");
        let cases: Vec<Case> = crate::corpus::Corpus::builtin()
            .cases
            .into_iter()
            .take(2)
            .collect();
        let graded = merged.into_graded(&cases).expect("results");
        assert_eq!(graded[0].0.cost(0).seconds, 0.0);
        let huge = good.replacen("\"restarts\":0", "\"restarts\":99999999999", 1);
        assert_ne!(huge, good);
        let e = Bundle::parse(huge.as_bytes()).expect_err("beyond u32");
        assert!(e.contains("not a valid bundle"), "{e}");
    }
}
