//! `check --rerun-failed OLD`: the pairs of an earlier run that did not pass (failed, errored,
//! skipped, not run) are run again, and nothing else; the whole run is then reported as `check`
//! reports it, each pair rerun with its new result and every other pair as the earlier run left
//! it. A pair that did not pass before and passes now is a flaky pass, and every report that
//! shows a pass apart (the terminal, JSON, the bundle) says so.

use super::{CheckOptions, ConfigError, Settling, run_with_progress};
use crate::bundle::{Bundle, Implementation, Merged};
use crate::diff::passes;
use crate::manifest::Entry;
use crate::report::Judged;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

pub(super) fn rerun(
    opts: &CheckOptions,
    old_path: &Path,
    out: &mut impl Write,
) -> Result<bool, ConfigError> {
    if opts.shard.is_some()
        || opts.hidden.is_some()
        || opts.generated.is_some()
        || opts.expect.is_some()
        || opts.write_expectations.is_some()
    {
        return Err(ConfigError(
            "--rerun-failed reruns an earlier run as it was: without --shard, --hidden, \
             --generated, --expect or --write-expectations (the bundle holds the expectations)"
                .to_string(),
        ));
    }
    let old = Bundle::load(old_path).map_err(ConfigError)?;
    if let Some(s) = &old.shard {
        return Err(ConfigError(format!(
            "{} is shard {}/{}: merge the shards first (hookcheck merge --bundle FILE ...)",
            old_path.display(),
            s.index,
            s.count
        )));
    }
    let run = &old.run;
    if (
        opts.strict,
        opts.allow_skips,
        opts.selection.scope().brief_only,
    ) != (run.strict, run.allow_skips, run.scope == "brief")
    {
        return Err(ConfigError(format!(
            "{} was run with --strict {}, --allow-skips {} and scope {}: rerun it with the same",
            old_path.display(),
            run.strict,
            run.allow_skips,
            run.scope
        )));
    }
    let cases = run.cases_in(&opts.cases).map_err(ConfigError)?;
    // Checked before anything runs, as a check checks them.
    super::writable(
        opts,
        &[crate::outputs::Input::new(
            "the earlier run's bundle",
            old_path,
        )],
    )?;
    // What did not pass, per implementation of the earlier run.
    let failing: BTreeMap<&str, BTreeSet<&str>> = old
        .implementations
        .iter()
        .map(|imp| {
            let cases = imp
                .cases
                .iter()
                .filter(|c| !passes(&c.verdict))
                .map(|c| c.case.as_str())
                .collect();
            (imp.name.as_str(), cases)
        })
        .collect();
    let mut entries = opts.entries.clone();
    if entries.is_empty() {
        entries.push(Entry::reference());
    }
    if let Some(stranger) = entries
        .iter()
        .find(|e| !failing.contains_key(e.name.as_str()))
    {
        return Err(ConfigError(format!(
            "`{}` is not an implementation of {}: rerun it with the implementations it checked",
            stranger.name,
            old_path.display()
        )));
    }
    entries.retain(|e| failing.get(e.name.as_str()).is_some_and(|f| !f.is_empty()));
    let again: BTreeSet<&str> = entries
        .iter()
        .flat_map(|e| failing[e.name.as_str()].iter().copied())
        .collect();
    let rerun_cases: Vec<_> = cases
        .iter()
        .filter(|c| again.contains(c.name().as_str()))
        .cloned()
        .collect();
    let started = crate::provenance::rfc3339(std::time::SystemTime::now());
    let clock = std::time::Instant::now();
    let mut fresh: BTreeMap<String, Implementation> = BTreeMap::new();
    if !entries.is_empty() {
        let graded = run_with_progress(
            opts,
            entries.into_iter().map(|e| (e, None)).collect(),
            &rerun_cases,
        );
        let how = Settling {
            cases: &rerun_cases,
            public: rerun_cases.len(),
            scope: opts.selection.scope(),
            generated: None,
            progress: false,
        };
        for mut g in graded {
            let expectations = old
                .implementations
                .iter()
                .find(|i| i.name == g.entry.name)
                .and_then(|i| i.expectations.clone());
            g.settle(expectations, how);
            let judged = Judged::of(&g, &rerun_cases);
            let record = Implementation::of(&g, &judged, &rerun_cases, 0, &[]);
            fresh.insert(g.entry.name.clone(), record);
        }
    }
    // The whole run: the pairs rerun with their new results, the others as they were.
    let mut implementations = old.implementations.clone();
    for imp in &mut implementations {
        let Some(new) = fresh.get(&imp.name) else {
            continue;
        };
        let again = &failing[imp.name.as_str()];
        imp.started = new.started.clone();
        for result in imp.cases.iter_mut() {
            if !again.contains(result.case.as_str()) {
                continue;
            }
            if let Some(now) = new.cases.iter().find(|c| c.case == result.case) {
                *result = now.clone();
                result.flaky = passes(&result.verdict);
            }
        }
    }
    let merged = Merged {
        run: old.run.clone(),
        implementations,
        started,
        seconds: clock.elapsed().as_secs_f64(),
        jobs: opts.jobs,
    };
    super::merge::report(opts, merged, out)
}
