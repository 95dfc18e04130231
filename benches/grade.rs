//! Grading a folder of submissions: 20 Python solutions (copies of `examples/python/dispatcher.py`,
//! half of them with one of the planted bugs of `harness/mutation/python_bugs.py`) graded by one
//! `hookcheck check --each` run, against 20 sequential single-implementation checks, on every
//! core (`--jobs` default). Reports wall time, hookcheck's own CPU time (the hookcheck process
//! alone, read from /proc when it has exited and before it is reaped) and the CPU time of the
//! whole run (hookcheck and the implementations it waited for), medians of 3 rounds.
//!
//! `cargo build --release && cargo bench --bench grade` (Linux: reads /proc).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SUBMISSIONS: usize = 20;
const ROUNDS: usize = 3;

/// What one hookcheck process cost.
#[derive(Clone, Copy, Default)]
struct Cost {
    wall: f64,
    /// The hookcheck process alone.
    own_cpu: f64,
    /// hookcheck and every process it waited for.
    total_cpu: f64,
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, o: Cost) {
        self.wall += o.wall;
        self.own_cpu += o.own_cpu;
        self.total_cpu += o.total_cpu;
    }
}

/// utime, stime, cutime, cstime in seconds, and whether the process has exited.
fn proc_times(pid: u32) -> Option<([f64; 4], bool)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = 100.0; // USER_HZ is 100 on Linux
    let at = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .map(|t| t / tick)
    };
    // rest starts at field 3 (state); utime is field 14.
    Some((
        [at(11)?, at(12)?, at(13)?, at(14)?],
        fields.first() == Some(&"Z"),
    ))
}

fn measure(args: &[String], dir: &Path) -> Cost {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("hookcheck starts");
    let mut last = [0.0; 4];
    while let Some((times, exited)) = proc_times(child.id()) {
        last = times;
        if exited {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let status = child.wait().expect("hookcheck ends");
    let wall = started.elapsed().as_secs_f64();
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "hookcheck failed to run: {status}"
    );
    Cost {
        wall,
        own_cpu: last[0] + last[1],
        total_cpu: last.iter().sum(),
    }
}

/// The submissions: `s01`..`s20`; the even ones carry a planted bug each.
fn submissions(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("folder");
    let script = r#"
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "harness", "mutation"))
import python_bugs
original = open(os.path.join(sys.argv[1], "examples", "python", "dispatcher.py")).read()
bugs = list(python_bugs.BUGS.items())
count, out = int(sys.argv[2]), sys.argv[3]
for i in range(1, count + 1):
    text = original
    if i % 2 == 0:
        name, edits = bugs[(i // 2 - 1) * 3 % len(bugs)]
        for old, new in edits:
            assert old in text, name
            text = text.replace(old, new, 1)
    folder = os.path.join(out, "s%02d" % i)
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, "solution.py"), "w").write(text)
"#;
    let made = Command::new("python3")
        .args(["-c", script])
        .arg(root)
        .arg(SUBMISSIONS.to_string())
        .arg(dir)
        .status()
        .expect("python3 runs");
    assert!(made.success(), "the submissions are written");
    (1..=SUBMISSIONS)
        .map(|i| dir.join(format!("s{i:02}/solution.py")))
        .collect()
}

fn median(mut xs: Vec<Cost>, key: fn(&Cost) -> f64) -> f64 {
    xs.sort_by(|a, b| key(a).total_cmp(&key(b)));
    key(&xs[xs.len() / 2])
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target/grade-bench");
    let files = submissions(root, &dir.join("submissions"));
    let adapter = root.join("harness/adapters/python/hookcheck_adapter.py");
    let template = format!("python3 {} {{path}}", adapter.display());
    let each = dir.join("submissions/*/solution.py").display().to_string();
    let html = dir.join("grade.html").display().to_string();
    let one_run: Vec<String> = [
        "check", "--impl", &template, "--each", &each, "--html", &html,
    ]
    .map(String::from)
    .to_vec();

    let (mut together, mut apart) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        together.push(measure(&one_run, root));
        let mut sum = Cost::default();
        for f in &files {
            let command = format!("python3 {} {}", adapter.display(), f.display());
            sum += measure(&["check".to_string(), "--impl".to_string(), command], root);
        }
        apart.push(sum);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{SUBMISSIONS} Python submissions, half with a planted bug; {cores} cores; median of {ROUNDS}"
    );
    println!(
        "{:<38} {:>8} {:>14} {:>14} {:>10}",
        "", "wall s", "hookcheck CPU", "run CPU s", "own share"
    );
    for (name, runs) in [
        ("one run (--each, all 20)", &together),
        ("20 sequential single checks", &apart),
    ] {
        let (wall, own, total) = (
            median(runs.clone(), |c| c.wall),
            median(runs.clone(), |c| c.own_cpu),
            median(runs.clone(), |c| c.total_cpu),
        );
        println!(
            "{name:<38} {wall:>8.2} {own:>14.2} {total:>14.2} {:>9.1}%",
            100.0 * own / total
        );
    }
    let size = std::fs::metadata(&html).map_or(0, |m| m.len());
    println!(
        "HTML report of the one run: {html} ({:.0} KiB)",
        size as f64 / 1024.0
    );
}
