//! The command line's flags and subcommands (clap); `main.rs` turns them into library calls.

use clap::{Parser, Subcommand, ValueEnum};
use hookcheck::case::{Origin, Part};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "hookcheck",
    version,
    about = "Reference webhook dispatcher and conformance kit"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run operations on the reference dispatcher and print one result per operation.
    ///
    /// Input is either the brief's JSON array of operations, answered with a JSON array, or one
    /// operation per line (JSON lines), answered one result per line and streamed, for inputs of
    /// any size.
    ///
    /// A UTF-8 byte order mark (EF BB BF) at the very start of the input is skipped (RFC 8259
    /// allows a parser to ignore it); one anywhere else is an error that names it. Input that
    /// starts with anything but `[` is rejected from its first character, with its line and
    /// column, and exits 2; so do input that stops being JSON and a failed write ("cannot write
    /// output").
    Run {
        /// File to read; `-` or nothing reads standard input.
        file: Option<PathBuf>,
        /// Input format; `auto` picks `lines` when the first line is one whole operation.
        #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
        input: InputFormat,
    },
    /// Check an implementation against every case (the built-in reference by default), or grade
    /// many at once (--impl repeated, --each, --manifest).
    ///
    /// Exit status: 0 when every selected case passes on every implementation (failures listed
    /// by --expect allowed), 1 when any fails, errors or is not run (or, with --strict, a listed
    /// case passes), 2 for usage or configuration errors.
    Check(Box<CheckArgs>),
    /// Differential fuzzing: random operation sequences on the implementation and on the
    /// reference; the first mismatch is shrunk and printed as a case file.
    ///
    /// Exit status: 0 when no mismatch was found, 1 when one was, 2 for usage errors.
    Fuzz(Box<FuzzArgs>),
    /// Join the bundles of a run's shards (check --shard K/N --bundle FILE) and print the
    /// reports `check` prints for the whole run; refuses bundles of different runs, versions or
    /// filters, and names a shard missing or given twice.
    ///
    /// Exit status: as `check`'s for the whole run: 0 when every implementation passes, 1 when
    /// any does not, 2 when the bundles cannot be merged.
    Merge(Box<MergeArgs>),
    /// Compare two runs' bundles (check --bundle, or merge --bundle): per implementation and
    /// case, the regressions (passed before, not now), new cases that fail, fixes, failures
    /// whose report changed, cases and implementations added or removed.
    ///
    /// Exit status: 1 when anything regressed or a new case fails, 0 otherwise, 2 when a
    /// bundle cannot be read.
    Diff {
        /// The earlier run's bundle.
        old: PathBuf,
        /// The later run's bundle.
        new: PathBuf,
        /// Also write the changes as markdown (for a pull-request comment) to this file.
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
    },
    /// Turn a JSON operations list (from a ticket) into a case file whose expectations are the
    /// reference's results, marked `recorded: unreviewed` until a person checks them.
    Record {
        /// The new case's id (lower-case letters, digits, dashes).
        #[arg(long)]
        id: String,
        /// The ticket the operations come from.
        #[arg(long)]
        ticket: String,
        /// JSON array of operations, or one operation per line; `-` or nothing reads stdin.
        file: Option<PathBuf>,
        /// One-line title [default: "Recorded from ticket <TICKET>"].
        #[arg(long)]
        title: Option<String>,
        /// Rule ids the case checks (comma-separated or repeated).
        #[arg(long, value_delimiter = ',')]
        rule: Vec<String>,
        /// Write the case file here instead of stdout (never overwrites).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Validate every case file: parsing, unique ids, known rule ids, brief/clarification marks,
    /// no unreviewed recorded case. Exits 1 on any problem.
    Lint(CorpusArgs),
    /// The guard `check` and `fuzz` start: once the hookcheck process WATCHED is gone, however
    /// it died, it kills every implementation process that run started.
    #[command(hide = true)]
    Guard { watched: u32 },
    /// Serve the reference dispatcher over the implementation protocol (spec/protocol.md), for
    /// checking and timing the process path: `hookcheck check --impl "hookcheck serve"`.
    Serve {
        /// Per-case mode: read one operations array from stdin, print the results, exit.
        #[arg(long)]
        per_case: bool,
    },
    /// Print, for every rule of spec/dispatcher.md, how many cases cite it, and the rules no case
    /// covers. Exits 1 when a rule is uncovered or a case file does not load.
    Coverage(CorpusArgs),
    /// Write a built-in adapter into a folder, to read or vendor it. `--impl solution.py` (or
    /// `.js`, `.mjs`, `.cjs`) uses the built-in adapters without writing them anywhere.
    Adapter {
        /// Which adapter.
        #[arg(value_enum)]
        language: LanguageArg,
        /// The folder to write into (made if missing; an existing file is never overwritten).
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Write the built-in spec/ and cases/ into a folder, to read the case a report points at.
    Export {
        /// The folder to write into (created if missing; existing files are never overwritten).
        #[arg(default_value = "hookcheck-corpus")]
        dir: PathBuf,
    },
}

/// Which cases: the built-in corpus and any folders of one's own.
#[derive(clap::Args)]
pub struct CorpusArgs {
    /// A folder of case files to add to the built-in corpus (repeatable); same format, rules
    /// and unique ids (spec/case-format.md).
    #[arg(long = "cases", value_name = "DIR")]
    pub folders: Vec<PathBuf>,
    /// Leave the built-in corpus out: only the --cases folders.
    #[arg(long)]
    pub no_builtin: bool,
}

impl CorpusArgs {
    pub fn sources(&self) -> hookcheck::corpus::Sources {
        hookcheck::corpus::Sources {
            builtin: !self.no_builtin,
            folders: self.folders.clone(),
        }
    }
}

/// How to run an implementation: shared by `check` and `fuzz`.
#[derive(clap::Args)]
pub struct ImplArgs {
    /// The implementation's command, run by `sh -c` (it speaks spec/protocol.md, which `hookcheck
    /// export` writes out), or a solution file (.py, .js, .mjs, .cjs) run through the
    /// built-in adapter. `check` takes it more than once to grade several (and without it checks
    /// the built-in reference), with `{path}`, `{dir}` and `{stem}` filled from each file of
    /// --each; `fuzz` takes one.
    #[arg(long = "impl", value_name = "COMMAND")]
    pub implementation: Vec<String>,
    /// Start the command once per case: operations on stdin, results on stdout, no handshake.
    #[arg(long)]
    pub per_case: bool,
    /// Parts a --per-case implementation implements (comma-separated) [default: the brief's
    /// three, retries,ordering,pause]; in lines mode the handshake declares them. A part of the
    /// roadmap needs the parts it builds on (spec/protocol.md, "Parts"); one declared without
    /// them is refused.
    #[arg(
        long,
        visible_alias = "declare",
        value_parser = part_parser(),
        value_delimiter = ',',
        value_name = "PART"
    )]
    pub parts: Option<Vec<Part>>,
    /// How numbers are judged. With --per-case, `spelling` or `values` says how the
    /// implementation's JSON reader sees them (in lines mode the handshake declares it):
    /// `values` when `10.0` and `10` read the same (JavaScript, Go), which leaves out the steps
    /// that depend on spelling [default: spelling]. `strict`, for graders, in any mode: a
    /// declaration of `values` is refused, and every step is sent and judged, so an
    /// implementation that cannot tell `10.0` from `10` fails those steps.
    #[arg(long, value_enum)]
    pub numbers: Option<NumbersArg>,
    /// Cases in flight at once, each in its own implementation process [default: cores; at
    /// most four per core: more would only make cases time out].
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// Seconds an implementation may take for one case, writing the case included (0.01 to
    /// 86400). A case that times out is run once more, alone, after the others, before it is
    /// reported errored.
    #[arg(
        long,
        default_value_t = 5.0,
        value_name = "SECONDS",
        allow_negative_numbers = true
    )]
    pub timeout: f64,
    /// Starts in a row that may fail (the command does not start, or fails the handshake)
    /// before the remaining cases are not run. A crash or a hang while serving a case errors
    /// that case only, and the next case gets a fresh process.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub max_restarts: usize,
    /// The longest answer to one case, in MiB (1 to 1024); a longer one errors the case.
    #[arg(long, default_value_t = 1, value_name = "MIB")]
    pub max_answer: usize,
    /// Run each implementation process under bubblewrap (`bwrap`): the system folders, the
    /// submission's folder and the paths its command names read-only, a private /tmp, no
    /// network, limits below; its processes all die with it (spec/guide/untrusted.md, also
    /// written out by `hookcheck export`).
    #[arg(long)]
    pub sandbox: bool,
    /// Address space of each sandboxed process, MiB (also the size of its /tmp) [default:
    /// 2048]. With --sandbox or a manifest's `sandbox = true` only.
    #[arg(long, value_name = "MIB")]
    pub sandbox_memory: Option<u64>,
    /// CPU seconds each sandboxed process may use [default: 60].
    #[arg(long, value_name = "SECONDS")]
    pub sandbox_cpu: Option<u64>,
    /// Processes and threads a sandbox may have at once [default: 256].
    #[arg(long, value_name = "N")]
    pub sandbox_processes: Option<u64>,
    /// A path to make visible read-only in the sandbox, at the same place (a venv, a toolchain
    /// in $HOME); repeatable. `/` and a folder holding other submissions are refused.
    #[arg(long, value_name = "PATH")]
    pub sandbox_bind: Vec<PathBuf>,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Only cases whose name (`<suite>::<id>`) contains one of these.
    pub patterns: Vec<String>,
    #[command(flatten)]
    pub run: ImplArgs,
    /// One more implementation to check, started once per case (as --per-case, for this one
    /// command only): mixes per-case and lines-mode implementations in one grade. Repeatable.
    #[arg(long = "impl-per-case", value_name = "COMMAND")]
    pub implementation_per_case: Vec<String>,
    /// Only cases of these parts (comma-separated or repeated).
    #[arg(long = "part", value_parser = part_parser(), value_delimiter = ',', value_name = "PART")]
    pub only_parts: Vec<Part>,
    /// Only cases citing one of these rule ids.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub rule: Vec<String>,
    /// Only cases of these origins; `--origin brief` alone checks only what the brief states.
    #[arg(long, value_delimiter = ',', value_name = "ORIGIN")]
    pub origin: Vec<OriginArg>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    /// A grader's folder of hidden cases, in the case format (every check of `hookcheck lint`
    /// applies; no id of a public case): run besides the selected public cases, whatever the
    /// filters, and reported apart ("hidden cases: X passed, Y failed"). The terminal and
    /// --format json show a failing one in full; the report files as --hidden-detail says.
    #[arg(long, value_name = "DIR")]
    pub hidden: Option<PathBuf>,
    /// What --junit, --markdown and --html, which may reach the submitters, show of a hidden
    /// case: `none`, its name and verdict only, or `diff`, its report too [default: none].
    #[arg(long, value_enum, value_name = "DETAIL", requires = "hidden")]
    pub hidden_detail: Option<HiddenDetailArg>,
    /// Also judge N random workloads (1 to 10000) of `hookcheck fuzz`'s generator against the
    /// reference, each with operations of the parts the implementation declares only: a
    /// failing one is the case `generated-<seed>-<k>`, reported apart, the first five shrunk.
    /// A submission that only remembers the corpus fails them.
    #[arg(long, value_name = "N")]
    pub generated: Option<u64>,
    /// The seed of --generated's workloads: the same seed and parts give the same workloads
    /// [default: from the clock, printed].
    #[arg(long, value_name = "S", requires = "generated")]
    pub seed: Option<u64>,
    /// Makes each --impl with a placeholder one implementation per matching file, named by its
    /// folder: --impl "python3 adapter.py {path}" --each "submissions/*/solution.py".
    #[arg(long, value_name = "GLOB")]
    pub each: Option<String>,
    /// A manifest (TOML, or JSON for a .json file) of implementations to check, each an
    /// `[[implementation]]` with `command` and optionally `name`, `glob` (one implementation
    /// per matching file, `{path}` in the command), `per_case`, `parts`, `numbers`,
    /// `require_parts`, `timeout`, `max_restarts`, `expect` and `sandbox`. Relative paths are
    /// taken from the manifest's folder, where its commands run.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Known failures (TOML, `[[failure]] case = ... reason = ...`): they do not fail the run;
    /// a listed case that passes is reported.
    #[arg(long, value_name = "FILE")]
    pub expect: Option<PathBuf>,
    /// With --expect: a listed case that passes, or one the corpus does not have (renamed, retired), fails the run.
    #[arg(long)]
    pub strict: bool,
    /// Parts every implementation must declare (comma-separated): for graders. A case of a
    /// required part the implementation does not declare fails; without this, a part declared
    /// away is reported "not implemented" and does not fail the run.
    #[arg(long, value_parser = part_parser(), value_delimiter = ',', value_name = "PART")]
    pub require_parts: Vec<Part>,
    /// Cases an implementation skips (answers `skipped`) in parts it declares do not fail the
    /// run: for an implementer mid-way. They still count as not passed in the grade.
    #[arg(long)]
    pub allow_skips: bool,
    /// Run recorded cases not yet reviewed against the spec (`recorded: unreviewed`), as a
    /// support engineer checking a fresh recording; otherwise they stop the run, as lint does.
    #[arg(long)]
    pub allow_unreviewed: bool,
    /// Write the cases that fail now as a starting expectations file (never overwrites).
    #[arg(long, value_name = "FILE")]
    pub write_expectations: Option<PathBuf>,
    /// No live progress line (it is drawn only on a terminal, never in a pipe or with JSON).
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub reports: ReportArgs,
    /// Run only shard K of N of the run: K/N or slice:K/N (contiguous shares), hash:K/N (by a
    /// stable hash of the name). Taken after the filters; every shard's --bundle merges into
    /// the whole run (`hookcheck merge`).
    #[arg(long, value_name = "K/N", value_parser = shard_parser)]
    pub shard: Option<hookcheck::shard::Shard>,
    /// Run again only the pairs that did not pass in this earlier run's bundle (same
    /// implementations, flags and cases), then report the whole run: a pair that passes now is
    /// reported as flaky, never as a plain pass.
    #[arg(long, value_name = "BUNDLE")]
    pub rerun_failed: Option<PathBuf>,
    /// What --shard splits: each implementation into one shard (the default), or the cases,
    /// every implementation running in every shard on its share.
    #[arg(long, value_name = "WHAT", value_parser = ["implementation", "case"], requires = "shard")]
    pub shard_by: Option<String>,
}

fn shard_parser(text: &str) -> Result<hookcheck::shard::Shard, String> {
    hookcheck::shard::Shard::parse(text)
}

/// What a run reports and where: the same for `check` and `merge`.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// Report format on stdout.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    pub format: FormatArg,
    /// Also write the grade and a case × implementation table as markdown to this file.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Also write a self-contained HTML report (matrix, filters, each failure's diff).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Also write a JUnit XML report to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write the results as a bundle (one versioned JSON file, spec/bundle.schema.json),
    /// for `hookcheck merge` and `hookcheck diff`.
    #[arg(long, value_name = "FILE")]
    pub bundle: Option<PathBuf>,
    /// Write a shields.io endpoint badge (JSON) per implementation into this folder: its score
    /// and verdict, named after it (only a hookcheck badge is written over).
    #[arg(long, value_name = "DIR")]
    pub badge: Option<PathBuf>,
    /// Colour: auto (a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// Also list passed and skipped cases; with many implementations, every failure report.
    #[arg(long, short)]
    pub verbose: bool,
}

/// `hookcheck merge`: bundles in, the reports `check` writes out.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// The bundles: every shard of one run (or one whole run).
    #[arg(required = true, value_name = "BUNDLE")]
    pub bundles: Vec<PathBuf>,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub reports: ReportArgs,
}

#[derive(clap::Args)]
pub struct FuzzArgs {
    #[command(flatten)]
    pub run: ImplArgs,
    /// Seed of the generator [default: from the clock, printed].
    #[arg(long)]
    pub seed: Option<u64>,
    /// How many sequences to try at most (a count: `--cases` is a folder everywhere else).
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub sequences: u64,
    /// Longest sequence, in operations.
    #[arg(long, default_value_t = 40)]
    pub max_ops: usize,
    /// Stop after this many seconds.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub time: Option<f64>,
    /// Seconds the shrinker may take.
    #[arg(
        long,
        default_value_t = 30.0,
        value_name = "SECONDS",
        allow_negative_numbers = true
    )]
    pub shrink_time: f64,
    /// Only what the brief states: no sequence whose results depend on a clarification, and
    /// what disable and enable return is not compared.
    #[arg(long)]
    pub brief: bool,
    /// Shrink the first N failing sequences and print the smallest result.
    #[arg(long, default_value_t = 5)]
    pub findings: usize,
    /// No progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also write the shrunk case file into this folder (made if missing; an existing case file
    /// is never overwritten: a taken name gets -2, -3, ...).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum LanguageArg {
    Python,
    Node,
}

impl LanguageArg {
    pub fn name(self) -> &'static str {
        match self {
            LanguageArg::Python => "python",
            LanguageArg::Node => "node",
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum OriginArg {
    Brief,
    Clarification,
    Regression,
    Fuzz,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum HiddenDetailArg {
    None,
    Diff,
}

impl HiddenDetailArg {
    pub fn detail(self) -> hookcheck::report::HiddenDetail {
        match self {
            HiddenDetailArg::None => hookcheck::report::HiddenDetail::None,
            HiddenDetailArg::Diff => hookcheck::report::HiddenDetail::Diff,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum NumbersArg {
    Spelling,
    Values,
    Strict,
}

impl NumbersArg {
    /// What a per-case implementation declares; `None` for `strict`, which declares nothing.
    pub fn numbers(self) -> Option<hookcheck::compare::Numbers> {
        match self {
            NumbersArg::Spelling => Some(hookcheck::compare::Numbers::Spelling),
            NumbersArg::Values => Some(hookcheck::compare::Numbers::Values),
            NumbersArg::Strict => None,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Human,
    Json,
    /// The human report, then a GitHub Actions annotation per failing case (on the case file's
    /// line) and the markdown grade appended to $GITHUB_STEP_SUMMARY.
    Github,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum InputFormat {
    Auto,
    Array,
    Lines,
}

impl OriginArg {
    pub fn origin(self) -> Origin {
        match self {
            OriginArg::Brief => Origin::Brief,
            OriginArg::Clarification => Origin::Clarification,
            OriginArg::Regression => Origin::Regression,
            OriginArg::Fuzz => Origin::Fuzz,
        }
    }
}

/// The flags that take parts (`--parts`, `--part`, `--require-parts`) take exactly the names of
/// [`Part::ALL`], and their help lists them, whatever parts there are.
fn part_parser() -> impl clap::builder::TypedValueParser<Value = Part> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Part::ALL.map(Part::as_str))
        .try_map(|name| Part::parse(&name).ok_or_else(|| format!("no part is named `{name}`")))
}
