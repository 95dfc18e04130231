//! The `hookcheck` command line: wiring only; the work lives in the library.

use clap::{Parser, Subcommand, ValueEnum};
use hookcheck::corpus::{Corpus, coverage_report};
use hookcheck::input::{Format, RunError, run_stream};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
    /// Print, for every rule of spec/dispatcher.md, how many cases cite it, and the rules no case
    /// covers. Exits 1 when a rule is uncovered or a case file does not load.
    Coverage {
        /// The cases folder.
        #[arg(long, default_value = "cases")]
        cases: PathBuf,
    },
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
        Command::Coverage { cases } => coverage(&cases),
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
