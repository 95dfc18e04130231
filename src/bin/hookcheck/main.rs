//! The `hookcheck` command line: wiring only; the work lives in the library.

mod args;

use args::{
    CheckArgs, Cli, ColorArg, Command, FormatArg, FuzzArgs, HiddenDetailArg, ImplArgs, InputFormat,
    MergeArgs, NumbersArg, ReportArgs,
};
use clap::Parser;
use hookcheck::case::Part;
use hookcheck::check::{self as checking, CheckOptions};
use hookcheck::corpus::{Corpus, Sources, coverage_report};
use hookcheck::fuzz::FuzzOptions;
use hookcheck::fuzz::workloads::{self, Asked};
use hookcheck::implementation::{Implementation, Options, Sandbox, Subprocess};
use hookcheck::input::{Afterwards, Format, RunError, run_sized_then};
use hookcheck::manifest;
use hookcheck::report::HiddenDetail;
use hookcheck::runner::Selection;
use std::fs::File;
use std::io::IsTerminal;
use std::io::{self, BufReader, BufWriter, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// A line of hookcheck's own on stderr. What it quotes (a path, a name, a message that holds
/// them) is shown inert, so a file named with a terminal escape cannot act on the terminal.
macro_rules! say_err {
    ($($arg:tt)*) => {
        eprintln!("{}", hookcheck::inert::terminal(&format!($($arg)*)))
    };
}

/// A line of hookcheck's own on stdout, inert as [`say_err`]'s.
macro_rules! say {
    ($($arg:tt)*) => {
        println!("{}", hookcheck::inert::terminal(&format!($($arg)*)))
    };
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { file, input } => run(file, input),
        Command::Check(args) => with_implementations(|| check(*args)),
        Command::Coverage(corpus) => coverage(&corpus.sources()),
        Command::Export { dir } => export(&dir),
        Command::Adapter { language, dir } => adapter(language.name(), &dir),
        Command::Serve { per_case } => serve(per_case),
        Command::Fuzz(args) => with_implementations(|| fuzz(*args)),
        Command::Merge(args) => merge(*args),
        Command::Diff { old, new, markdown } => diff(&old, &new, markdown.as_deref()),
        Command::Record {
            id,
            ticket,
            file,
            title,
            rule,
            out,
        } => record(&id, &ticket, file, title, &rule, out),
        Command::Lint(corpus) => lint(&corpus.sources()),
        Command::Guard { watched } => {
            hookcheck::implementation::keep_watch(watched);
            ExitCode::SUCCESS
        }
    }
}

/// Runs a command that starts implementation processes: Ctrl-C and SIGTERM end them and the
/// report of what ran is still printed (exit 130 or 143), and nothing they started outlives
/// hookcheck.
fn with_implementations(command: impl FnOnce() -> ExitCode) -> ExitCode {
    hookcheck::implementation::interrupt::install();
    // `/proc/self/exe` opens this very program, even if its file was replaced since it started.
    hookcheck::implementation::guard(Path::new("/proc/self/exe"));
    let code = command();
    hookcheck::implementation::sweep();
    hookcheck::adapters::cleanup();
    match hookcheck::implementation::interrupt::exit_status() {
        Some(status) => {
            say_err!(
                "hookcheck: {}; the report above covers what ran",
                hookcheck::implementation::interrupt::reason().unwrap_or_default()
            );
            ExitCode::from(status)
        }
        None => code,
    }
}

/// A number of seconds from a flag, within `range` (checked here so that no later `Duration`
/// or `Instant` arithmetic can overflow).
fn seconds(
    value: f64,
    flag: &str,
    range: std::ops::RangeInclusive<f64>,
) -> Result<Duration, ExitCode> {
    if value.is_finite() && range.contains(&value) {
        Ok(Duration::from_secs_f64(value))
    } else {
        say_err!(
            "hookcheck: {flag} is a number of seconds from {} to {}, not {value}",
            range.start(),
            range.end()
        );
        Err(ExitCode::from(2))
    }
}

/// The longest `--timeout`: a day.
const DAY: f64 = 86_400.0;

impl ImplArgs {
    /// The process implementation's options and the number of jobs, or a usage error.
    fn options(&self) -> Result<(Options, usize), ExitCode> {
        if !(1..=1024).contains(&self.max_answer) {
            say_err!(
                "hookcheck: --max-answer is a size in MiB from 1 to 1024, not {}",
                self.max_answer
            );
            return Err(ExitCode::from(2));
        }
        // Declarations a handshake makes: refused in lines mode with what to use instead, never
        // ignored.
        if !self.per_case {
            if self.parts.is_some() {
                say_err!(
                    "hookcheck: --parts (also --declare) declares the parts of a --per-case \
                     command; a lines-mode implementation declares them in its handshake \
                     (after a solution file: --impl \"sol.py --parts retries,ordering\"). To run \
                     only some parts' cases, filter with --part"
                );
                return Err(ExitCode::from(2));
            }
            if let Some(numbers) = self.numbers.and_then(NumbersArg::numbers) {
                say_err!(
                    "hookcheck: --numbers {} declares how a --per-case command reads numbers; a \
                     lines-mode implementation declares it in its handshake (\"numbers\": \
                     \"values\"), as the Node adapter does. --numbers strict (a grader's \
                     refusal of `values`) applies in any mode",
                    numbers.as_str()
                );
                return Err(ExitCode::from(2));
            }
        }
        let sandbox = self.configured_sandbox()?;
        // Refused as a handshake declaring the same would be, before anything starts.
        if let Some(parts) = &self.parts
            && let Err(why) = Part::check_declared(parts)
        {
            say_err!("hookcheck: --parts: {why}");
            return Err(ExitCode::from(2));
        }
        let declared = self.numbers.and_then(NumbersArg::numbers);
        let options = Options {
            timeout: seconds(self.timeout, "--timeout", 0.01..=DAY)?,
            max_restarts: self.max_restarts,
            per_case: self.per_case,
            parts: self
                .parts
                .clone()
                .unwrap_or_else(|| Options::default().parts),
            numbers: declared.unwrap_or(Options::default().numbers),
            strict_numbers: matches!(self.numbers, Some(NumbersArg::Strict)),
            max_answer: self.max_answer << 20,
            sandbox: self.sandbox.then_some(sandbox),
            ..Options::default()
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // More processes than the cores can run only make cases time out: overload is not the
        // implementation's failure.
        let cap = cores * 4;
        let jobs = match self.jobs {
            Some(0) => {
                say_err!("hookcheck: --jobs is at least 1");
                return Err(ExitCode::from(2));
            }
            Some(j) if j > cap => {
                say_err!(
                    "hookcheck: warning: --jobs {j} is more than this machine's {cores} cores can \
                     run; using {cap} (four per core)"
                );
                cap
            }
            Some(j) => j,
            None => cores,
        };
        Ok((options, jobs))
    }

    /// The sandbox of `--sandbox` and of manifest entries with `sandbox = true`: validated
    /// whether or not it is used, so a wrong limit is an error before any case runs.
    fn configured_sandbox(&self) -> Result<Sandbox, ExitCode> {
        use hookcheck::implementation::sandbox as s;
        Sandbox::new(
            self.sandbox_memory.unwrap_or(s::DEFAULT_MEMORY_MIB),
            self.sandbox_cpu.unwrap_or(s::DEFAULT_CPU_SECONDS),
            self.sandbox_processes.unwrap_or(s::DEFAULT_PROCESSES),
            &self.sandbox_bind,
        )
        .map_err(|e| {
            say_err!("hookcheck: {e}");
            ExitCode::from(2)
        })
    }
}

impl ImplArgs {
    /// The first sandbox flag given, if any: they mean nothing to an implementation that runs
    /// without a sandbox, and taking them in silence would let a grader believe it had one.
    fn sandbox_flag(&self) -> Option<&'static str> {
        [
            ("--sandbox-memory", self.sandbox_memory.is_some()),
            ("--sandbox-cpu", self.sandbox_cpu.is_some()),
            ("--sandbox-processes", self.sandbox_processes.is_some()),
            ("--sandbox-bind", !self.sandbox_bind.is_empty()),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag))
    }
}

/// A usage error when a sandbox flag was given and nothing runs sandboxed.
fn sandbox_flags_used<'a>(
    args: &ImplArgs,
    mut options: impl Iterator<Item = &'a Options>,
    command: &str,
) -> Result<(), ExitCode> {
    match args.sandbox_flag() {
        Some(flag) if !options.any(|o| o.sandbox.is_some()) => {
            say_err!(
                "hookcheck {command}: {flag} applies to sandboxed implementations only, and none \
                 runs sandboxed: add --sandbox (or `sandbox = true` to a manifest entry)"
            );
            Err(ExitCode::from(2))
        }
        _ => Ok(()),
    }
}

/// One look, before any case, for what sandboxes need: a configuration error (exit 2) without,
/// never a run without a sandbox.
fn sandbox_ready<'a>(
    mut options: impl Iterator<Item = &'a Options>,
    command: &str,
) -> Result<(), ExitCode> {
    if !options.any(|o| o.sandbox.is_some()) {
        return Ok(());
    }
    hookcheck::implementation::sandbox::check_available().map_err(|e| {
        say_err!("hookcheck {command}: {e}");
        ExitCode::from(2)
    })
}

fn fuzz(args: FuzzArgs) -> ExitCode {
    let ((options, jobs), shrink_time) = match (
        args.run.options(),
        seconds(args.shrink_time, "--shrink-time", 0.0..=DAY),
    ) {
        (Ok(o), Ok(s)) => (o, s),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    if let Some(dir) = &args.out
        && let Err(e) = hookcheck::fuzz::out::prepare(dir)
    {
        say_err!("hookcheck fuzz: {e}");
        return ExitCode::from(2);
    }
    let [command] = args.run.implementation.as_slice() else {
        say_err!(
            "hookcheck fuzz: give one --impl: the implementation to compare with the reference"
        );
        return ExitCode::from(2);
    };
    let time = match args
        .time
        .map(|t| seconds(t, "--time", 0.0..=365.0 * DAY))
        .transpose()
    {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let Err(code) = sandbox_flags_used(&args.run, std::iter::once(&options), "fuzz")
        .and_then(|()| sandbox_ready(std::iter::once(&options), "fuzz"))
    {
        return code;
    }
    let seed = args.seed.unwrap_or_else(clock_seed);
    // The same reading of the command as `check`: a solution file runs through its built-in
    // adapter.
    let started = manifest::from_commands(std::slice::from_ref(command), None, &options).and_then(
        |entries| {
            let entry = entries
                .into_iter()
                .next()
                .ok_or_else(|| "no implementation".to_string())?;
            let command = entry.command.unwrap_or_default();
            Subprocess::start_or_give_up(&command, entry.options)
        },
    );
    let implementation = match started {
        Ok(implementation) => implementation,
        Err(e) => {
            say_err!("hookcheck fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    // What the implementation calls itself is its own text: shown inert, on one line.
    let describe = hookcheck::inert::terminal_line(&implementation.describe());
    let parts: Vec<&str> = implementation.parts().iter().map(|p| p.as_str()).collect();
    say!(
        "hookcheck fuzz: {describe} (parts: {}), seed {seed}, up to {} sequences of at most {} operations, {jobs} at a time",
        parts.join(", "),
        args.sequences,
        args.max_ops
    );
    let opts = FuzzOptions {
        seed,
        cases: args.sequences,
        max_ops: args.max_ops,
        time,
        jobs,
        shrink_time,
        findings: args.findings,
        brief_only: args.brief,
    };
    // A live line on a terminal only: nothing of it in a pipe or a CI log.
    let live = !args.quiet && io::stderr().is_terminal();
    let progress = |n: u64, found: usize, s: f64| {
        if live {
            eprint!(
                "\r\x1b[Kfuzz: {n} sequences, {:.0}/s, {found} failing so far ({s:.0} s)",
                n as f64 / s.max(0.001)
            );
        }
    };
    let report = hookcheck::fuzz::fuzz(&implementation, &opts, &progress);
    if live {
        eprint!("\r\x1b[K");
    }
    print!(
        "{}",
        hookcheck::inert::terminal(&report.human(seed, &describe))
    );
    let Some(finding) = report.finding else {
        return if report.stopped.is_some() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
    };
    let file = finding.case_file(seed, &describe);
    say!("{file}");
    if let Some(dir) = args.out {
        match hookcheck::fuzz::out::write_new(&dir, &finding.case.id, &file) {
            Ok(path) => say!("written to {}", path.display()),
            Err(e) => {
                say_err!("hookcheck fuzz: {e}");
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::from(1)
}

fn record(
    id: &str,
    ticket: &str,
    file: Option<PathBuf>,
    title: Option<String>,
    rules: &[String],
    out: Option<PathBuf>,
) -> ExitCode {
    let text = match file.filter(|p| p.as_os_str() != "-") {
        Some(path) => File::open(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
            .and_then(|f| hookcheck::record::read_input(f, &path.display().to_string())),
        None => hookcheck::record::read_input(io::stdin().lock(), "stdin"),
    };
    let file = match text
        .and_then(|t| hookcheck::record::record(&t, id, ticket, title.as_deref(), rules))
    {
        Ok(file) => file,
        Err(e) => {
            say_err!("hookcheck record: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(path) = out else {
        // Redirected, it is the case file; on a terminal, text to read, shown inert.
        if io::stdout().is_terminal() {
            print!("{}", hookcheck::inert::terminal(&file));
        } else {
            print!("{file}");
        }
        return ExitCode::SUCCESS;
    };
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| io::Write::write_all(&mut f, file.as_bytes()));
    match written {
        Ok(()) => {
            say_err!(
                "hookcheck record: wrote {} (recorded: unreviewed; check each expect against spec/dispatcher.md)",
                path.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            say_err!("hookcheck record: cannot create {}: {e}", path.display());
            ExitCode::from(2)
        }
    }
}

fn lint(sources: &Sources) -> ExitCode {
    let (text, problems) = hookcheck::corpus::lint(sources);
    // Case files' names and what they hold are the user's text.
    print!("{}", hookcheck::inert::terminal(&text));
    if problems == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn serve(per_case: bool) -> ExitCode {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let result = if per_case {
        hookcheck::serve::serve_once(io::stdin().lock(), &mut out)
    } else {
        hookcheck::serve::serve_lines(io::stdin().lock(), &mut out).map_err(|e| e.to_string())
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say_err!("hookcheck serve: {e}");
            ExitCode::from(2)
        }
    }
}

fn check(args: CheckArgs) -> ExitCode {
    let (mut options, jobs) = match args.run.options() {
        Ok(o) => o,
        Err(code) => return code,
    };
    options.require_parts = args.require_parts;
    let configured = match args.run.configured_sandbox() {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut entries = match args
        .manifest
        .as_deref()
        .map(|m| manifest::load(m, &options, &configured))
    {
        Some(Ok(entries)) => entries,
        Some(Err(e)) => {
            say_err!("hookcheck check: {}", hookcheck::inert::terminal(&e));
            return ExitCode::from(2);
        }
        None => Vec::new(),
    };
    match manifest::from_command_lists(
        &args.run.implementation,
        &args.implementation_per_case,
        args.each.as_deref(),
        &options,
    )
    .and_then(|more| {
        entries.extend(more);
        manifest::unique_names(&entries)?;
        manifest::check_binds(&entries)
    }) {
        Ok(()) => {}
        Err(e) => {
            say_err!("hookcheck check: {}", hookcheck::inert::terminal(&e));
            return ExitCode::from(2);
        }
    }
    if let Err(code) = sandbox_flags_used(&args.run, entries.iter().map(|e| &e.options), "check")
        .and_then(|()| sandbox_ready(entries.iter().map(|e| &e.options), "check"))
    {
        return code;
    }
    if args.strict && args.expect.is_none() && entries.iter().all(|e| e.expect.is_none()) {
        say_err!(
            "hookcheck check: --strict applies to expectations, and there are none: give \
             --expect FILE (or `expect` in a manifest entry)"
        );
        return ExitCode::from(2);
    }
    let generated = match generated(args.generated, args.seed) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let progress = !args.quiet
        && io::stderr().is_terminal()
        && matches!(args.reports.format, FormatArg::Human);
    let opts = CheckOptions {
        cases: args.corpus.sources(),
        hidden: args.hidden,
        hidden_detail: args
            .hidden_detail
            .map_or(HiddenDetail::default(), HiddenDetailArg::detail),
        generated,
        manifest: args.manifest.clone(),
        entries,
        selection: Selection {
            parts: args.only_parts,
            rules: args.rule,
            origins: args.origin.iter().map(|o| o.origin()).collect(),
            patterns: args.patterns,
        },
        jobs,
        expect: args.expect,
        strict: args.strict,
        allow_skips: args.allow_skips,
        allow_unreviewed: args.allow_unreviewed,
        write_expectations: args.write_expectations,
        progress,
        shard: args.shard,
        shard_by: args
            .shard_by
            .as_deref()
            .and_then(hookcheck::shard::By::parse)
            .unwrap_or_default(),
        rerun_failed: args.rerun_failed,
        ..report_options(args.reports)
    };
    reported("check", |out| hookcheck::check::run(&opts, out))
}

/// Runs a reporting command on stdout: exit status 0 when everything passed, 1 when something
/// did not, 2 with the message for a usage or configuration error.
fn reported(
    name: &str,
    report: impl FnOnce(&mut io::StdoutLock) -> Result<bool, hookcheck::check::ConfigError>,
) -> ExitCode {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match report(&mut out) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            let _ = out.flush();
            // The message can carry an implementation's stderr (a failed handshake).
            say_err!("hookcheck {name}: {}", hookcheck::inert::terminal(&e.0));
            ExitCode::from(2)
        }
    }
}

/// Whether stdout gets colour: `auto` is a terminal without `NO_COLOR`.
fn color_of(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// What `--format`, the report files and the colour flags say, on a check's defaults.
fn report_options(r: ReportArgs) -> CheckOptions {
    CheckOptions {
        format: match r.format {
            FormatArg::Human | FormatArg::Github => checking::Format::Human,
            FormatArg::Json => checking::Format::Json,
        },
        github: matches!(r.format, FormatArg::Github),
        junit: r.junit,
        markdown: r.markdown,
        html: r.html,
        bundle: r.bundle,
        badge: r.badge,
        color: color_of(r.color),
        verbose: r.verbose,
        ..CheckOptions::default()
    }
}

fn merge(args: MergeArgs) -> ExitCode {
    let opts = CheckOptions {
        cases: args.corpus.sources(),
        ..report_options(args.reports)
    };
    reported("merge", |out| {
        hookcheck::check::merge(&args.bundles, opts, out)
    })
}

fn diff(old: &Path, new: &Path, markdown: Option<&Path>) -> ExitCode {
    let loaded = hookcheck::bundle::Bundle::load(old).and_then(|o| {
        hookcheck::bundle::Bundle::load(new).and_then(|n| hookcheck::diff::diff(&o, &n))
    });
    let d = match loaded {
        Ok(d) => d,
        Err(e) => {
            say_err!("hookcheck diff: {}", hookcheck::inert::terminal(&e));
            return ExitCode::from(2);
        }
    };
    if let Some(path) = markdown {
        let inputs = [
            hookcheck::outputs::Input::new("the old bundle", old),
            hookcheck::outputs::Input::new("the new bundle", new),
        ];
        let written = hookcheck::outputs::destinations(&[("--markdown", Some(path))], &inputs)
            .and_then(|()| hookcheck::outputs::write(path, &d.markdown(), true));
        if let Err(e) = written {
            say_err!("hookcheck diff: {}", hookcheck::inert::terminal(&e));
            return ExitCode::from(2);
        }
    }
    // A reader that went away (`| head`) does not change the verdict.
    let _ = io::stdout().lock().write_all(d.human().as_bytes());
    if d.regressed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `--generated N` and `--seed S`, checked: N from 1 to the most one run takes.
fn generated(count: Option<u64>, seed: Option<u64>) -> Result<Option<Asked>, ExitCode> {
    let Some(count) = count else {
        return Ok(None);
    };
    if !(1..=workloads::MOST).contains(&count) {
        say_err!(
            "hookcheck check: --generated is a number of workloads from 1 to {}, not {count}",
            workloads::MOST
        );
        return Err(ExitCode::from(2));
    }
    Ok(Some(Asked {
        count,
        seed: seed.unwrap_or_else(clock_seed),
    }))
}

/// A seed from the clock, for a run that gives none (it is printed, so the run can be repeated).
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64 % 1_000_000_000)
}

fn adapter(language: &str, dir: &Path) -> ExitCode {
    let written = hookcheck::adapters::by_language(language)
        .ok_or_else(|| format!("no adapter for {language}"))
        .and_then(|a| a.write_into(dir));
    match written {
        Ok(path) => {
            say!("wrote {}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            say_err!("hookcheck adapter: {e}");
            ExitCode::from(2)
        }
    }
}

fn export(dir: &Path) -> ExitCode {
    match hookcheck::builtin::export(dir) {
        Ok(files) => {
            say!(
                "wrote {} files of the built-in spec and corpus into {}",
                files.len(),
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            // The error names the path and says what happened (builtin::export).
            say_err!("hookcheck export: {e}");
            ExitCode::from(2)
        }
    }
}

fn coverage(sources: &Sources) -> ExitCode {
    let corpus = Corpus::gather(sources);
    for e in &corpus.errors {
        say_err!("hookcheck coverage: {e}");
    }
    for w in &corpus.warnings {
        say_err!("hookcheck coverage: warning: {w}");
    }
    let (table, uncovered) = coverage_report(&corpus.cases, &hookcheck::spec::rules());
    print!("{}", hookcheck::inert::terminal(&table));
    if uncovered.is_empty() && corpus.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The size of `f` when it is a regular file (not a pipe, a terminal or a device), which
/// `hookcheck run` takes as a hint of how many events its input may hold.
fn file_size(f: &File) -> Option<u64> {
    f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len())
}

fn run(file: Option<PathBuf>, input: InputFormat) -> ExitCode {
    let format = match input {
        InputFormat::Auto => Format::Auto,
        InputFormat::Array => Format::Array,
        InputFormat::Lines => Format::Lines,
    };
    // Unlocked, so the results can be written from a thread of their own.
    let mut out = BufWriter::new(io::stdout());
    let result = match file.filter(|p| p.as_os_str() != "-") {
        Some(path) => match File::open(&path) {
            Ok(f) => {
                let size = file_size(&f);
                run_sized_then(BufReader::new(f), size, &mut out, format, Afterwards::Exit)
            }
            Err(e) => {
                say_err!("hookcheck run: cannot open {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => {
            // Standard input redirected from a file has a size too.
            let size = io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .ok()
                .and_then(|fd| file_size(&File::from(fd)));
            run_sized_then(io::stdin(), size, &mut out, format, Afterwards::Exit)
        }
    };
    let flushed = out.flush();
    match (result, flushed) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(RunError::Io(e) | RunError::Write(e)), _) if e.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        (Err(e), _) => {
            say_err!("hookcheck run: {e}");
            ExitCode::from(2)
        }
        (Ok(()), Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        (Ok(()), Err(e)) => {
            say_err!("hookcheck run: cannot write output: {e}");
            ExitCode::from(2)
        }
    }
}
