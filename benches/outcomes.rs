//! One `enqueue` with a long `outcomes` list through the whole `hookcheck run` process: 10k,
//! 100k and 1M outcomes, as a JSON array and as one JSON line, read from the file and piped
//! through standard input (a pipe hands out 64 KiB a read, so an operation longer than that is
//! seen a piece at a time). Time must grow linearly with the list: at most 12 times the time for
//! 10 times the outcomes. Before the fix, 100k outcomes took 5.9 s and 200k 22 s (each status
//! appended copied the list).
//!
//! `cargo bench --bench outcomes`. Inputs are written to `target/bench-outcomes/`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];

/// A register, one enqueue of `n` outcomes (all retried but the last, so the script is read to
/// the policy's limit) and two process calls, as an array and as lines.
fn generate(n: usize, dir: &Path) -> (PathBuf, PathBuf) {
    let mut list = String::with_capacity(5 * n);
    for i in 0..n {
        let _ = write!(list, "{}{}", if i == 0 { "" } else { "," }, 500 + i % 100);
    }
    let ops = [
        r#"["register",0,"shop","https://shop.example/hooks"]"#.to_string(),
        format!(r#"["enqueue",0,"shop","evt-1",[{list}]]"#),
        r#"["process",0]"#.to_string(),
        r#"["process",30]"#.to_string(),
    ];
    let array = dir.join(format!("outcomes-{n}.json"));
    let lines = dir.join(format!("outcomes-{n}.jsonl"));
    std::fs::write(&array, format!("[{}]\n", ops.join(",\n"))).expect("write");
    std::fs::write(&lines, ops.join("\n") + "\n").expect("write");
    (array, lines)
}

/// Wall seconds of `hookcheck run`, reading `input` as a file argument or piped to stdin.
fn once(hookcheck: &str, input: &Path, piped: bool) -> f64 {
    let started = Instant::now();
    let status = if piped {
        let file = std::fs::File::open(input).expect("open");
        Command::new(hookcheck)
            .arg("run")
            .stdin(Stdio::from(file))
            .stdout(Stdio::null())
            .status()
    } else {
        Command::new(hookcheck)
            .arg("run")
            .arg(input)
            .stdout(Stdio::null())
            .status()
    };
    let seconds = started.elapsed().as_secs_f64();
    assert!(status.is_ok_and(|s| s.success()), "hookcheck run failed");
    seconds
}

/// `cat file | hookcheck run`: a real pipe, so reads come 64 KiB at a time.
fn through_pipe(hookcheck: &str, input: &Path) -> f64 {
    let started = Instant::now();
    let mut cat = Command::new("cat")
        .arg(input)
        .stdout(Stdio::piped())
        .spawn()
        .expect("cat starts");
    let status = Command::new(hookcheck)
        .arg("run")
        .stdin(Stdio::from(cat.stdout.take().expect("pipe")))
        .stdout(Stdio::null())
        .status();
    let _ = cat.wait();
    let seconds = started.elapsed().as_secs_f64();
    assert!(status.is_ok_and(|s| s.success()), "hookcheck run failed");
    seconds
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let hookcheck = env!("CARGO_BIN_EXE_hookcheck");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-outcomes");
    std::fs::create_dir_all(&dir).expect("create the bench directory");
    println!(
        "{:>9} {:>6} {:>6} {:>10} {:>10} {:>10}",
        "outcomes", "input", "MB", "file s", "stdin s", "pipe s"
    );
    let mut times: Vec<[f64; 6]> = Vec::new();
    for n in SIZES {
        let (array, lines) = generate(n, &dir);
        let mut row = [0.0; 6];
        for (k, (name, path)) in [("array", &array), ("lines", &lines)].iter().enumerate() {
            let runs = 9;
            let file = median((0..runs).map(|_| once(hookcheck, path, false)).collect());
            let stdin = median((0..runs).map(|_| once(hookcheck, path, true)).collect());
            let pipe = median((0..runs).map(|_| through_pipe(hookcheck, path)).collect());
            let mb = std::fs::metadata(path).map_or(0, |m| m.len()) as f64 / 1e6;
            println!("{n:>9} {name:>6} {mb:>6.2} {file:>10.4} {stdin:>10.4} {pipe:>10.4}");
            row[3 * k..3 * k + 3].copy_from_slice(&[file, stdin, pipe]);
        }
        times.push(row);
    }
    println!("\ntime ratios for 10x the outcomes (linear is 10, the bound is 12):");
    let columns = [
        "array file",
        "array stdin",
        "array pipe",
        "lines file",
        "lines stdin",
        "lines pipe",
    ];
    let mut worst: f64 = 0.0;
    for (c, name) in columns.iter().enumerate() {
        let steps: Vec<f64> = times.windows(2).map(|w| w[1][c] / w[0][c]).collect();
        let whole = times[times.len() - 1][c] / times[0][c];
        worst = worst.max(steps.iter().copied().fold(0.0, f64::max));
        let shown: Vec<String> = steps.iter().map(|r| format!("{r:.1}")).collect();
        println!(
            "  {name:<12} {} ; 1M/10k: {whole:.1} (bound 144)",
            shown.join(", ")
        );
    }
    println!(
        "worst step: {worst:.1} ({})",
        if worst <= 12.0 {
            "linear"
        } else {
            "NOT LINEAR"
        }
    );
}
