//! `hookcheck check --generated N --seed S`: N of the fuzzer's sequences judged against the
//! reference as cases of their own, so that an implementation that only remembers the corpus
//! fails. Every failure is a case `generated-<seed>-<k>`; the first few are shrunk, as `fuzz`
//! shrinks its findings, and shown in their shrunk form.

use super::{FuzzOptions, Kind, adhoc_case_for, after, search, shrink_finding};
use crate::case::Case;
use crate::implementation::Implementation;
use crate::runner::{Ran, Verdict};
use std::time::{Duration, Instant};

/// The most workloads one run may ask for: each is a case run on every implementation.
pub const MOST: u64 = 10_000;
/// The failures shrunk per implementation (the lowest-numbered); later ones are shown as
/// generated. A lookup table fails nearly every workload, and shrinking each would cost minutes.
pub const SHRUNK: usize = 5;
/// The time the shrinker may take per implementation, for all its shrunk failures together.
pub const SHRINK_TIME: Duration = Duration::from_secs(20);
/// The time the workloads may take per implementation (shrinking aside): those not run by then
/// are reported not run, which fails the implementation as a case not run does.
pub const TIME: Duration = Duration::from_secs(300);
/// The longest workload, in operations: `hookcheck fuzz`'s default.
pub const MAX_OPS: usize = 40;

/// What `--generated` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Asked {
    pub count: u64,
    pub seed: u64,
}

/// One implementation's generated workloads.
#[derive(Clone, Debug)]
pub struct Workloads {
    pub asked: Asked,
    /// How many ran (all of them, unless time ran out or the implementation gave out).
    pub run: u64,
    /// The failing workloads, lowest number first, each as a case with what it gave.
    pub failures: Vec<Generated>,
    /// Why the workloads stopped early, if they did.
    pub stopped: Option<String>,
}

/// A failing workload.
#[derive(Clone, Debug)]
pub struct Generated {
    /// Its number `k` among the seed's workloads.
    pub index: u64,
    /// `generated-<seed>-<k>`, its operations shrunk (or as generated, past [`SHRUNK`]) and
    /// the reference's results as expectations.
    pub case: Case,
    pub ran: Ran,
    /// Its report names the workload, how far it was shrunk, its operations and the diff.
    pub verdict: Verdict,
}

impl Workloads {
    /// The workloads that passed.
    pub fn passed(&self) -> u64 {
        self.run - self.failures.len() as u64
    }

    /// The workloads not run.
    pub fn not_run(&self) -> u64 {
        self.asked.count - self.run
    }

    /// Every workload asked for ran and passed.
    pub fn success(&self) -> bool {
        self.failures.is_empty() && self.not_run() == 0
    }

    /// `generated workloads (seed S): X passed, Y failed`, and the workloads not run.
    pub fn line(&self) -> String {
        let not_run = match self.not_run() {
            0 => String::new(),
            n => format!(", {n} not run"),
        };
        format!(
            "generated workloads (seed {}): {} passed, {} failed{not_run}",
            self.asked.seed,
            self.passed(),
            self.failures.len()
        )
    }
}

/// The name of workload `k` of `seed`: what reports call it and what the implementation is sent.
pub fn id(seed: u64, k: u64) -> String {
    format!("generated-{seed}-{k}")
}

/// How the workloads are judged.
#[derive(Clone, Copy, Debug, Default)]
pub struct Judging {
    pub jobs: usize,
    /// Keep to what the brief fixes (`--origin brief`): the generator stays inside it and
    /// results fixed by clarifications are not compared.
    pub brief_only: bool,
    /// A workload the implementation skips does not fail (`--allow-skips`).
    pub allow_skips: bool,
}

/// Runs the workloads on `implementation`, `jobs` at a time, with only the operations of the
/// parts it declares. A workload that timed out among the others and could not be run again
/// alone before the time ran out is not run: neither passed nor failed.
pub fn run(implementation: &dyn Implementation, asked: Asked, judging: Judging) -> Workloads {
    let Judging {
        jobs,
        brief_only,
        allow_skips,
    } = judging;
    let opts = FuzzOptions {
        seed: asked.seed,
        cases: asked.count,
        max_ops: MAX_OPS,
        time: Some(TIME),
        jobs,
        shrink_time: SHRINK_TIME,
        // Every failure is reported: the search stops only when all have run.
        findings: usize::try_from(asked.count).unwrap_or(usize::MAX),
        brief_only,
    };
    let generator = opts.generator(implementation);
    let seed = asked.seed;
    let skips_fail = !allow_skips;
    let found = search(
        implementation,
        &generator,
        &opts,
        &|_, _, _| {},
        &|k| id(seed, k),
        skips_fail,
    );
    let deadline = after(SHRINK_TIME);
    let failures = found
        .failing
        .into_iter()
        .enumerate()
        .map(|(n, (k, kind, ran))| {
            if n < SHRUNK && Instant::now() < deadline {
                shrunk(
                    implementation,
                    &generator,
                    &opts,
                    (k, kind, skips_fail),
                    deadline,
                )
            } else {
                as_generated(implementation, &generator, &opts, k, ran)
            }
        })
        .collect();
    let run = found.run - found.unconfirmed.len() as u64;
    let mut stopped = found.stopped;
    if stopped.is_none() && run < asked.count {
        stopped = Some(match crate::implementation::interrupt::reason() {
            Some(why) => why,
            None => format!(
                "the generated workloads may take {} s per implementation",
                TIME.as_secs()
            ),
        });
    }
    Workloads {
        asked,
        run,
        failures,
        stopped,
    }
}

/// A failing workload, shrunk as `hookcheck fuzz` shrinks.
fn shrunk(
    implementation: &dyn Implementation,
    generator: &super::Generator,
    opts: &FuzzOptions,
    (k, kind, skips_fail): (u64, Kind, bool),
    deadline: Instant,
) -> Generated {
    let f = shrink_finding(
        implementation,
        generator,
        opts,
        (k, kind, skips_fail),
        &id(opts.seed, k),
        deadline,
    );
    let how = format!(
        "shrunk from {} to {} operations",
        f.original.len(),
        f.shrunk.len()
    );
    let case = named(f.case, opts.seed, k);
    let verdict = judged(implementation, opts, &case, &f.ran);
    let verdict = explained(&case, verdict, &how, opts.seed, k);
    Generated {
        index: k,
        case,
        ran: f.ran,
        verdict,
    }
}

/// A failing workload past the ones shrunk, as generated, with what it gave then: not run
/// again, which would cost a timeout for each one of an implementation that hangs.
fn as_generated(
    implementation: &dyn Implementation,
    generator: &super::Generator,
    opts: &FuzzOptions,
    k: u64,
    ran: Ran,
) -> Generated {
    let ops = generator.sequence(opts.seed, k);
    let case = named(
        adhoc_case_for(&id(opts.seed, k), &ops, opts.brief_only, &generator.parts),
        opts.seed,
        k,
    );
    let verdict = judged(implementation, opts, &case, &ran);
    let how = format!(
        "{} operations, not shrunk (only the first {SHRUNK} failures are)",
        ops.len()
    );
    let verdict = explained(&case, verdict, &how, opts.seed, k);
    Generated {
        index: k,
        case,
        ran,
        verdict,
    }
}

/// The workload as reports name it: `generated::generated-<seed>-<k>`.
fn named(mut case: Case, seed: u64, k: u64) -> Case {
    case.suite = "generated".to_string();
    case.title = format!("generated workload {k} of seed {seed}");
    case
}

fn judged(
    implementation: &dyn Implementation,
    opts: &FuzzOptions,
    case: &Case,
    ran: &Ran,
) -> Verdict {
    crate::runner::judge(
        case,
        ran,
        opts.scope().with_numbers(implementation.numbers()),
    )
}

/// The verdict with the workload's operations before its report. A workload that passes when
/// run again did not fail the same way twice: it stays a failure (it failed once), said so.
fn explained(case: &Case, verdict: Verdict, how: &str, seed: u64, k: u64) -> Verdict {
    let ops: Vec<String> = case
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| format!("  #{} {}", i + 1, s.op))
        .collect();
    let head = format!(
        "generated workload {k} of seed {seed}, {how}; the reference's results are the \
         expectations:\n{}\n\n",
        ops.join("\n")
    );
    match verdict {
        Verdict::Failed(report) => Verdict::Failed(head + &report),
        Verdict::Errored(report) => Verdict::Errored(head + &report),
        Verdict::NotRun(why) => Verdict::NotRun(why),
        // Generated workloads hold operations of declared parts only: a skip is no pass.
        Verdict::Skipped(reason) => Verdict::Errored(format!(
            "{head}the implementation skipped it ({reason}): a workload of the parts it \
             declares, skipped, is not passed (--allow-skips accepts it)"
        )),
        other => Verdict::Failed(format!(
            "{head}it failed when first run, and gave `{}` when run again: the implementation \
             is not deterministic",
            crate::runner::verdict_word(&other)
        )),
    }
}
