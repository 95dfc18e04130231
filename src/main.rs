//! The `hookcheck` command line: wiring only; the work lives in the library.

use clap::{Parser, Subcommand, ValueEnum};
use hookcheck::input::{Format, RunError, run_stream};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;
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
