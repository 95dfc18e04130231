//! `hookcheck merge`: the bundles of a run's shards joined (`bundle::merge`), judged again on
//! the same cases, and reported exactly as `check` reports a run on one machine, through the
//! same code.

use super::{CheckOptions, ConfigError, Expected, Identity, Lenient, Work, many, one};
use crate::bundle::Bundle;
use crate::outputs::Input;
use crate::provenance::Provenance;
use crate::runner::Selection;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Merges `bundles` and reports the whole run with `opts`'s reports and case sources (the
/// bundles hold the cases' names and digests, not their text); what changes verdicts (scope,
/// `--strict`, `--allow-skips`) is the run's own. `Ok(false)` when an implementation fails.
pub fn merge(
    bundles: &[PathBuf],
    opts: CheckOptions,
    out: &mut impl Write,
) -> Result<bool, ConfigError> {
    let read: Vec<Input> = bundles.iter().map(|b| Input::new("a bundle", b)).collect();
    super::writable(&opts, &read)?;
    let bundles = bundles
        .iter()
        .map(|path| Bundle::load(path).map(|b| (path.clone(), b)))
        .collect::<Result<Vec<_>, String>>()
        .map_err(ConfigError)?;
    let merged = crate::bundle::merge(bundles).map_err(ConfigError)?;
    let opts = CheckOptions {
        selection: if merged.run.scope == "brief" {
            Selection::brief()
        } else {
            Selection::default()
        },
        jobs: merged.jobs,
        strict: merged.run.strict,
        allow_skips: merged.run.allow_skips,
        ..opts
    };
    report(&opts, merged, out)
}

/// Reports the results of a whole run held in `merged` as `check` reports a run, with `opts`'s
/// outputs; the cases are loaded by name from `opts.cases` and must be the run's.
pub(super) fn report(
    opts: &CheckOptions,
    merged: crate::bundle::Merged,
    out: &mut impl Write,
) -> Result<bool, ConfigError> {
    let cases = merged.run.cases_in(&opts.cases).map_err(ConfigError)?;
    let (run, started, seconds, jobs) = (
        merged.run.clone(),
        merged.started.clone(),
        merged.seconds,
        merged.jobs,
    );
    let given = merged.into_graded(&cases).map_err(ConfigError)?;
    let (mut graded, mut unknown): (Vec<_>, Vec<_>) = given.into_iter().unzip();
    let run = &run;
    let brief_only = run.scope == "brief";
    let provenance = Provenance {
        version: env!("CARGO_PKG_VERSION"),
        corpus: run.corpus.clone(),
        command: crate::provenance::command_line(),
        filters: run.filters.clone(),
        scope: if brief_only { "brief" } else { "full" },
        started,
        seconds,
    };
    let identity = opts.bundle.as_ref().map(|_| Identity {
        run: run.clone(),
        shard: None,
        indices: (0..graded.len()).collect(),
        jobs,
    });
    let all = super::apart::Cases {
        all: &cases,
        public: cases.len(),
    };
    let expectations: Vec<_> = graded.iter().map(|g| g.expectations.clone()).collect();
    let out = &mut Lenient(out);
    let timing = (Instant::now(), provenance);
    if run.single && graded.len() == 1 {
        let expected = Expected {
            expectations: expectations.into_iter().next().flatten(),
            unknown: unknown.pop().unwrap_or_default(),
        };
        let g = graded.remove(0);
        one(
            opts,
            Work::Given(g),
            expected,
            all,
            timing,
            identity.as_ref(),
            out,
        )
    } else {
        many(
            opts,
            Work::Given(graded),
            Expected::each(expectations, unknown),
            all,
            timing,
            identity.as_ref(),
            out,
        )
    }
}
