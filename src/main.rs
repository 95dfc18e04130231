//! The `hookcheck` command line: wiring only; the work lives in the library.

use clap::{Parser, Subcommand, ValueEnum};
use hookcheck::case::{Origin, Part};
use hookcheck::check::{self as checking, CheckOptions};
use hookcheck::corpus::{Corpus, coverage_report};
use hookcheck::input::{Format, RunError, run_stream};
use hookcheck::runner::Selection;
use hookcheck::target::Options;
use std::fs::File;
use std::io::IsTerminal;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "hookcheck",
    version,
    about = "Reference webhook dispatcher and conformance kit"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run operations on the reference dispatcher and print one result per operation.
    ///
    /// Input is either the brief's JSON array of operations, answered with a JSON array, or one
    /// operation per line (JSON lines), answered one result per line and streamed, for inputs of
    /// any size.
    Run {
        /// File to read; `-` or nothing reads standard input.
        file: Option<PathBuf>,
        /// Input format; `auto` picks `lines` when the first line is one whole operation.
        #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
        input: InputFormat,
    },
    /// Check an implementation against every case (the built-in reference by default).
    ///
    /// Exit status: 0 when every selected case passes, 1 when any fails, errors or is not run,
    /// 2 for usage or configuration errors.
    Check(Box<CheckArgs>),
    /// Serve the reference dispatcher over the implementation protocol (spec/protocol.md), for
    /// checking and timing the process path: `hookcheck check --impl "hookcheck serve"`.
    Serve {
        /// Per-case mode: read one operations array from stdin, print the results, exit.
        #[arg(long)]
        per_case: bool,
    },
    /// Print, for every rule of spec/dispatcher.md, how many cases cite it, and the rules no case
    /// covers. Exits 1 when a rule is uncovered or a case file does not load.
    Coverage {
        /// The cases folder.
        #[arg(long, default_value = "cases")]
        cases: PathBuf,
    },
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Only cases whose name (`<suite>::<id>`) contains one of these.
    patterns: Vec<String>,
    /// The implementation's command, run by `sh -c`; it speaks spec/protocol.md. Without it,
    /// the built-in reference is checked.
    #[arg(long = "impl", value_name = "COMMAND")]
    implementation: Option<String>,
    /// Start the command once per case: operations on stdin, results on stdout, no handshake.
    #[arg(long)]
    per_case: bool,
    /// Parts a --per-case implementation implements (comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "PART",
        default_value = "retries,ordering,pause"
    )]
    parts: Vec<PartArg>,
    /// Cases in flight at once, each in its own implementation process [default: cores].
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Seconds an implementation may take for one case.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    timeout: f64,
    /// Implementation processes killed for faults before the remaining cases are not run.
    #[arg(long, default_value_t = 10)]
    max_restarts: usize,
    /// Only cases of these parts (comma-separated or repeated).
    #[arg(long = "part", value_delimiter = ',', value_name = "PART")]
    only_parts: Vec<PartArg>,
    /// Only cases citing one of these rule ids.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    rule: Vec<String>,
    /// Only cases of these origins; `--origin brief` alone checks only what the brief states.
    #[arg(long, value_delimiter = ',', value_name = "ORIGIN")]
    origin: Vec<OriginArg>,
    /// The cases folder.
    #[arg(long, default_value = "cases")]
    cases: PathBuf,
    /// Report format on stdout.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,
    /// Also write a JUnit XML report to this file.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Colour: auto (a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    /// Also list passed and skipped cases.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum PartArg {
    Retries,
    Ordering,
    Pause,
}

#[derive(Clone, Copy, ValueEnum)]
enum OriginArg {
    Brief,
    Clarification,
    Regression,
    Fuzz,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum InputFormat {
    Auto,
    Array,
    Lines,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { file, input } => run(file, input),
        Command::Check(args) => check(*args),
        Command::Coverage { cases } => coverage(&cases),
        Command::Serve { per_case } => serve(per_case),
    }
}

fn serve(per_case: bool) -> ExitCode {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = if per_case {
        let mut input = String::new();
        io::Read::read_to_string(&mut io::stdin(), &mut input)
            .map_err(|e| e.to_string())
            .and_then(|_| hookcheck::serve::serve_once(&input, &mut out))
    } else {
        hookcheck::serve::serve_lines(io::stdin().lock(), &mut out).map_err(|e| e.to_string())
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hookcheck serve: {e}");
            ExitCode::from(2)
        }
    }
}

fn check(args: CheckArgs) -> ExitCode {
    let part = |p: &PartArg| match p {
        PartArg::Retries => Part::Retries,
        PartArg::Ordering => Part::Ordering,
        PartArg::Pause => Part::Pause,
    };
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        eprintln!("hookcheck check: --timeout must be a positive number of seconds");
        return ExitCode::from(2);
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let opts = CheckOptions {
        cases: args.cases,
        implementation: args.implementation,
        target: Options {
            timeout: Duration::from_secs_f64(args.timeout),
            max_restarts: args.max_restarts,
            per_case: args.per_case,
            parts: args.parts.iter().map(part).collect(),
        },
        selection: Selection {
            parts: args.only_parts.iter().map(part).collect(),
            rules: args.rule,
            origins: args
                .origin
                .iter()
                .map(|o| match o {
                    OriginArg::Brief => Origin::Brief,
                    OriginArg::Clarification => Origin::Clarification,
                    OriginArg::Regression => Origin::Regression,
                    OriginArg::Fuzz => Origin::Fuzz,
                })
                .collect(),
            patterns: args.patterns,
        },
        jobs: jobs.max(1),
        format: match args.format {
            FormatArg::Human => checking::Format::Human,
            FormatArg::Json => checking::Format::Json,
        },
        junit: args.junit,
        color,
        verbose: args.verbose,
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match hookcheck::check::run(&opts, &mut out) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            let _ = out.flush();
            eprintln!("hookcheck check: {}", e.0);
            ExitCode::from(2)
        }
    }
}

fn coverage(cases: &Path) -> ExitCode {
    let corpus = Corpus::load(cases);
    for e in &corpus.errors {
        eprintln!("hookcheck coverage: {e}");
    }
    let (table, uncovered) = coverage_report(&corpus.cases, &hookcheck::spec::rules());
    print!("{table}");
    if uncovered.is_empty() && corpus.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn run(file: Option<PathBuf>, input: InputFormat) -> ExitCode {
    let format = match input {
        InputFormat::Auto => Format::Auto,
        InputFormat::Array => Format::Array,
        InputFormat::Lines => Format::Lines,
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = match file.filter(|p| p.as_os_str() != "-") {
        Some(path) => match File::open(&path) {
            Ok(f) => run_stream(BufReader::new(f), &mut out, format),
            Err(e) => {
                eprintln!("hookcheck run: cannot open {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => run_stream(io::stdin().lock(), &mut out, format),
    };
    let flushed = out.flush();
    match (result, flushed) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(RunError::Io(e)), _) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        (Err(e), _) => {
            eprintln!("hookcheck run: {e}");
            ExitCode::from(2)
        }
        (Ok(()), Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        (Ok(()), Err(e)) => {
            eprintln!("hookcheck run: cannot write output: {e}");
            ExitCode::from(2)
        }
    }
}
