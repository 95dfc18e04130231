//! A run split into shards on one machine, the shards in parallel, then merged: the merged
//! reports are the single run's (times aside), for every count of shards, split by
//! implementation and by case, and every implementation and case is in exactly one shard.

use crate::common::{self, fresh, hookcheck, python_impl, says, text};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// A manifest of three implementations: one that passes (the reference behind the protocol),
/// one with a planted bug, one that cannot start.
fn manifest(dir: &Path) -> String {
    let text = format!(
        "[[implementation]]\nname = \"good\"\ncommand = \"{} serve\"\n\n\
         [[implementation]]\nname = \"bad\"\ncommand = \"{}\"\n\n\
         [[implementation]]\nname = \"dead\"\ncommand = \"exit 3\"\n",
        env!("CARGO_BIN_EXE_hookcheck"),
        python_impl("tests/fakes/subtle_bug.py")
    );
    std::fs::write(dir.join("grading.toml"), text).expect("a manifest");
    "grading.toml".to_string()
}

/// The reports a run writes, with what differs between runs of the same results (times, the
/// command line, the start) taken out.
#[derive(Debug, PartialEq)]
struct Reports {
    human: String,
    json: Vec<Value>,
    markdown: String,
    junit: String,
}

fn timeless(text: &str) -> String {
    // `2.99 s` and `time="0.123"`: durations, which two runs never share.
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("time=\"") {
        out.push_str(&rest[..i + 6]);
        rest = &rest[i + 6..];
        rest = rest.find('"').map_or("", |j| &rest[j..]);
    }
    out.push_str(rest);
    out.split(' ')
        .map(|w| {
            let digits = w.trim_start_matches('(');
            if !digits.is_empty()
                && digits.contains('.')
                && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
            {
                "T"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Takes out every `seconds` (a run's, each case's) and the provenance, at any depth.
fn untimed(v: &mut Value) {
    match v {
        Value::Object(fields) => {
            for key in ["seconds", "provenance"] {
                fields.remove(key);
            }
            fields.values_mut().for_each(untimed);
        }
        Value::Array(items) => items.iter_mut().for_each(untimed),
        _ => {}
    }
}

fn json_timeless(stdout: &[u8]) -> Vec<Value> {
    let mut events: Vec<Value> = String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON event"))
        .collect();
    for e in &mut events {
        untimed(e);
    }
    // Implementations are told as each finishes: their order is the machine's.
    events.sort_by_key(|e| e.to_string());
    events
}

fn reports(dir: &Path, args: &[&str], tag: &str) -> Reports {
    let (md, xml) = (format!("{tag}.md"), format!("{tag}.xml"));
    let mut human_args = args.to_vec();
    human_args.extend(["--markdown", &md, "--junit", &xml]);
    let human = hookcheck(dir, &human_args);
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let json = hookcheck(dir, &json_args);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect("a report");
    Reports {
        human: timeless(&String::from_utf8_lossy(&human.stdout)),
        json: json_timeless(&json.stdout),
        // The last line is the provenance: command, start and duration.
        markdown: read(&md)
            .lines()
            .filter(|l| !l.starts_with("*hookcheck "))
            .collect::<Vec<_>>()
            .join("\n"),
        junit: timeless(&read(&xml)),
    }
}

/// Runs the `count` shards of `run` at once, each writing its bundle; their names.
fn shards(dir: &Path, run: &[&str], by: &str, count: usize) -> Vec<String> {
    let children: Vec<(String, std::process::Child)> = (1..=count)
        .map(|k| {
            let bundle = format!("{by}-{k}-of-{count}.json");
            let shard = format!("{k}/{count}");
            let child = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
                .args(run)
                .args(["--shard", &shard, "--shard-by", by, "--bundle", &bundle])
                .current_dir(dir)
                .env("TMPDIR", common::scratch())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("a shard starts");
            (bundle, child)
        })
        .collect();
    children
        .into_iter()
        .map(|(bundle, child)| {
            let out: Output = child.wait_with_output().expect("a shard ends");
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{bundle}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            bundle
        })
        .collect()
}

/// Every (implementation, case) pair of the bundles, with how many bundles hold it.
fn pairs(dir: &Path, bundles: &[String]) -> BTreeMap<(u64, String), usize> {
    let mut seen = BTreeMap::new();
    for b in bundles {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(b)).expect("bundle"))
            .expect("a bundle is JSON");
        for imp in v["implementations"].as_array().expect("implementations") {
            for case in imp["cases"].as_array().expect("cases") {
                let key = (
                    imp["index"].as_u64().expect("an index"),
                    case["case"].as_str().expect("a name").to_string(),
                );
                *seen.entry(key).or_insert(0) += 1;
            }
        }
    }
    seen
}

fn merged_equals_single(counts: &[usize]) {
    let dir = fresh("shards");
    let manifest = manifest(&dir);
    let run = ["check", "--manifest", manifest.as_str(), "--color", "never"];
    let single = reports(&dir, &run, "single");
    assert!(
        single.human.contains("good") && single.markdown.contains("dead") && single.json.len() > 3,
        "{single:?}"
    );
    let whole = hookcheck(&dir, &[&run[..], &["--bundle", "whole.json"]].concat());
    assert_eq!(whole.status.code(), Some(1), "{}", text(&whole));
    let all = pairs(&dir, &["whole.json".to_string()]);
    assert_eq!(
        all.len(),
        3 * single_cases(&dir),
        "every pair in the whole run's bundle"
    );
    for by in ["implementation", "case"] {
        for &count in counts {
            let bundles = shards(&dir, &run, by, count);
            assert_eq!(
                pairs(&dir, &bundles),
                all,
                "{count} shards by {by}: each pair in exactly one shard"
            );
            let mut merge: Vec<&str> = vec!["merge", "--color", "never"];
            merge.extend(bundles.iter().map(String::as_str));
            let merged = reports(&dir, &merge, &format!("merged-{by}-{count}"));
            assert_eq!(merged, single, "{count} shards by {by}");
        }
    }
}

/// How many cases the whole run's bundle says it selected.
fn single_cases(dir: &Path) -> usize {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("whole.json")).expect("bundle"))
            .expect("JSON");
    v["run"]["cases"].as_array().expect("cases").len()
}

#[test]
fn shards_merge_into_the_single_run() {
    merged_equals_single(&[1, 2]);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn shards_merge_into_the_single_run_for_every_count_up_to_eight() {
    merged_equals_single(&[3, 4, 5, 6, 7, 8]);
}

#[test]
fn one_implementation_split_by_case_merges_into_its_single_report() {
    let dir = fresh("shards-one");
    let bad = python_impl("tests/fakes/subtle_bug.py");
    let run = ["check", "--impl", bad.as_str(), "--color", "never"];
    let single = reports(&dir, &run, "single");
    let bundles = shards(&dir, &run, "case", 3);
    let mut merge: Vec<&str> = vec!["merge", "--color", "never"];
    merge.extend(bundles.iter().map(String::as_str));
    assert_eq!(reports(&dir, &merge, "merged"), single);
}

#[test]
fn a_merge_refuses_a_missing_shard_another_run_and_writing_over_a_bundle() {
    let dir = fresh("shards-refused");
    let manifest = manifest(&dir);
    let run = ["check", "--manifest", manifest.as_str(), "--color", "never"];
    let bundles = shards(&dir, &run, "implementation", 3);
    let out = hookcheck(&dir, &["merge", &bundles[0], &bundles[2]]);
    says(&out, 2, "shard 2/3 is missing");
    let out = hookcheck(&dir, &["merge", &bundles[0], &bundles[1], &bundles[1]]);
    says(&out, 2, "given twice");
    let other = hookcheck(
        &dir,
        &[
            &run[..],
            &[
                "--part",
                "retries",
                "--shard",
                "2/3",
                "--bundle",
                "other.json",
            ],
        ]
        .concat(),
    );
    assert!(
        matches!(other.status.code(), Some(0 | 1)),
        "{}",
        text(&other)
    );
    let out = hookcheck(&dir, &["merge", &bundles[0], "other.json", &bundles[2]]);
    says(&out, 2, "are not shards of one run");
    let out = hookcheck(
        &dir,
        &[
            "merge",
            &bundles[0],
            &bundles[1],
            &bundles[2],
            "--html",
            &bundles[1],
        ],
    );
    says(&out, 2, "--html");
    std::fs::write(
        dir.join("cut.json"),
        b"{\"format\":\"hookcheck-bundle\",\"version\":1,\"hook",
    )
    .expect("a cut bundle");
    let out = hookcheck(&dir, &["merge", "cut.json"]);
    says(
        &out,
        2,
        "cut.json: not a bundle: not a JSON object at line 1",
    );
    let out = hookcheck(&dir, &["check", "--shard", "3/2"]);
    says(&out, 2, "K/N");
}

#[test]
fn diff_exits_one_on_a_planted_regression_and_zero_on_its_fix() {
    let dir = fresh("shards-diff");
    for (file, solution) in [
        ("good.toml", "examples/python/dispatcher.py"),
        ("bad.toml", "tests/fakes/subtle_bug.py"),
    ] {
        // One name in both runs: the diff matches implementations by name.
        let manifest = format!(
            "[[implementation]]\nname = \"service\"\ncommand = \"{}\"\n",
            python_impl(solution)
        );
        std::fs::write(dir.join(file), manifest).expect("a manifest");
        let bundle = file.replace(".toml", ".json");
        let out = hookcheck(
            &dir,
            &[
                "check",
                "--manifest",
                file,
                "--part",
                "pause",
                "--bundle",
                &bundle,
            ],
        );
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    }
    let out = hookcheck(
        &dir,
        &["diff", "good.json", "bad.json", "--markdown", "d.md"],
    );
    says(&out, 1, "REGRESSED");
    says(
        &out,
        1,
        "pause::pause-replay-ahead-of-a-fresh-head  passed -> failed",
    );
    let md = std::fs::read_to_string(dir.join("d.md")).expect("the markdown");
    assert!(md.starts_with("# hookcheck diff: regressed"), "{md}");
    let out = hookcheck(&dir, &["diff", "bad.json", "good.json"]);
    says(&out, 0, "NO REGRESSION");
    says(&out, 0, "fixes (failed before, pass now)");
    let out = hookcheck(&dir, &["diff", "good.json", "good.json"]);
    says(&out, 0, "NO REGRESSION: no change");
    let out = hookcheck(
        &dir,
        &["diff", "good.json", "bad.json", "--markdown", "good.json"],
    );
    says(&out, 2, "--markdown");
}

/// The examples/ci files, run as CI would: every shard of the GitHub Actions matrix (its `run`
/// text with the matrix value put in), then its merge step; the Indexed Job's command for every
/// completion index, then the merge its comment gives.
#[test]
#[ignore = "needs node (the example manifest grades the Node example): .ci/run installs it and runs ignored tests"]
fn the_ci_examples_shard_and_merge_as_written() {
    let dir = fresh("shards-ci");
    std::os::unix::fs::symlink(common::root().join("examples"), dir.join("examples"))
        .expect("a link to the examples");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("a bin folder");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hookcheck"), bin.join("hookcheck"))
        .expect("a link to hookcheck");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let sh = |script: &str, envs: &[(&str, String)]| {
        let out = Command::new("sh")
            .args(["-c", script])
            .current_dir(&dir)
            .env("PATH", &path)
            .env("TMPDIR", common::scratch())
            .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
            .output()
            .expect("sh runs");
        assert!(out.status.success(), "{script}\n{}", text(&out));
    };
    let read = |file: &str| -> Value {
        let yaml = std::fs::read_to_string(common::root().join(file)).expect("the example");
        serde_saphyr::from_str(&yaml).expect("the example is YAML")
    };
    let workflow = read("examples/ci/github-actions.yml");
    let shards = workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"]
        .as_array()
        .expect("a matrix of shards")
        .clone();
    let steps = |job: &str| -> Vec<String> {
        workflow["jobs"][job]["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .filter_map(|s| s["run"].as_str())
            .filter(|r| r.contains("hookcheck ") && !r.contains("cargo install"))
            .map(str::to_string)
            .collect()
    };
    for shard in &shards {
        for run in steps("shard") {
            sh(&run.replace("${{ matrix.shard }}", &shard.to_string()), &[]);
        }
    }
    let summary = dir.join("summary.md");
    for run in steps("merge") {
        sh(
            &run,
            &[("GITHUB_STEP_SUMMARY", summary.display().to_string())],
        );
    }
    let md = std::fs::read_to_string(&summary).expect("the step summary");
    assert!(
        md.contains("node, per case") && md.contains("✓ pass"),
        "{md}"
    );
    // The Indexed Job: its completions, and the command each pod runs.
    let job = read("examples/ci/k8s-indexed-job.yaml");
    let completions = job["spec"]["completions"].as_u64().expect("completions");
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    let script = container["args"][0].as_str().expect("the pod's script");
    assert!(script.contains(&format!("/{completions}\"")), "{script}");
    let bundles = dir.join("bundles");
    std::fs::create_dir_all(&bundles).expect("the shared volume");
    for index in 0..completions {
        let local = script
            .replace("/grading/grading.toml", "examples/grading/grading.toml")
            .replace("/bundles/", &format!("{}/", bundles.display()));
        sh(&local, &[("JOB_COMPLETION_INDEX", index.to_string())]);
    }
    sh(
        &format!(
            "hookcheck merge {}/shard-*.json --color never",
            bundles.display()
        ),
        &[],
    );
}

#[test]
fn github_format_annotates_failing_cases_fills_the_step_summary_and_writes_badges() {
    let dir = fresh("shards-github");
    // A name that tries to end the workflow command and start another.
    let manifest = format!(
        "[[implementation]]\nname = \"bad\\n::error::forged,x\"\ncommand = \"{}\"\n\n\
         [[implementation]]\nname = \"good\"\ncommand = \"{} serve\"\n",
        python_impl("tests/fakes/subtle_bug.py"),
        env!("CARGO_BIN_EXE_hookcheck")
    );
    std::fs::write(dir.join("grading.toml"), manifest).expect("a manifest");
    std::fs::create_dir_all(dir.join("badges")).expect("a badge folder");
    std::fs::write(dir.join("badges/good.json"), "not a badge").expect("a file in the way");
    let summary = dir.join("summary.md");
    let out = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(["check", "--manifest", "grading.toml", "--part", "pause"])
        .args(["--format", "github", "--badge", "badges"])
        .current_dir(&dir)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("TMPDIR", common::scratch())
        .output()
        .expect("hookcheck runs");
    assert_eq!(
        out.status.code(),
        Some(2),
        "a badge in the way: {}",
        text(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let commands: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(commands.len(), 3, "{stdout}");
    for c in &commands {
        assert!(
            c.starts_with("::error file=cases/pause/") && c.contains(",line=") && c.contains("%0A"),
            "{c}"
        );
        assert!(!c.contains("::error::forged"), "{c}");
    }
    says(
        &out,
        2,
        "badges/good.json exists and is not a hookcheck badge",
    );
    let md = std::fs::read_to_string(&summary).expect("the step summary");
    assert!(md.starts_with("# hookcheck:"), "{md:.200}");
    let badges: Vec<String> = std::fs::read_dir(dir.join("badges"))
        .expect("badges")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(badges.len(), 2, "{badges:?}");
    let bad = badges
        .iter()
        .find(|b| b.starts_with("bad"))
        .expect("the bad one's badge");
    assert!(!bad.contains('/') && !bad.contains('\n'), "{bad}");
    let badge: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("badges").join(bad)).expect("a badge"),
    )
    .expect("a badge is JSON");
    assert_eq!(badge["schemaVersion"], 1);
    assert_eq!(badge["color"], "red");
    assert_eq!(
        std::fs::read_to_string(dir.join("badges/good.json")).expect("left"),
        "not a badge"
    );
}

/// A solution that fails every case of an odd number of operations until `FLAKY_PASS=1`, and
/// then logs each case it is sent.
const FLAKY: &str = r#"
import os, sys
sys.path.insert(0, os.environ["EXAMPLES"])
from dispatcher import run as good, HOOKCHECK_PARTS

def run(operations):
    results = good(operations)
    if os.environ.get("FLAKY_PASS") == "1":
        with open(os.environ["SENT_LOG"], "a") as log:
            log.write("case\n")
        return results
    if len(operations) % 2 == 1:
        return results[:-1] + ["wrong"]
    return results
"#;

#[test]
fn rerun_failed_runs_only_what_failed_and_marks_its_passes_flaky() {
    let dir = fresh("shards-rerun");
    std::fs::write(dir.join("flaky.py"), FLAKY).expect("the solution");
    let manifest = format!(
        "[[implementation]]\nname = \"svc\"\ncommand = \"{}\"\n",
        python_impl("examples/python/dispatcher.py").replace(
            &common::root()
                .join("examples/python/dispatcher.py")
                .display()
                .to_string(),
            &dir.join("flaky.py").display().to_string()
        )
    );
    std::fs::write(dir.join("grading.toml"), manifest).expect("a manifest");
    let log = dir.join("sent.log");
    let run = |args: &[&str], pass: &str| -> Output {
        Command::new(env!("CARGO_BIN_EXE_hookcheck"))
            .args(["check", "--manifest", "grading.toml", "--part", "pause"])
            .args(args)
            .current_dir(&dir)
            .env("FLAKY_PASS", pass)
            .env("SENT_LOG", &log)
            .env("EXAMPLES", common::root().join("examples/python"))
            .env("TMPDIR", common::scratch())
            .output()
            .expect("hookcheck runs")
    };
    let first = run(&["--bundle", "old.json"], "0");
    assert_eq!(first.status.code(), Some(1), "{}", text(&first));
    let old: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("old.json")).expect("a bundle"))
            .expect("JSON");
    let failed: Vec<String> = old["implementations"][0]["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["verdict"] == "failed")
        .map(|c| c["case"].as_str().expect("a name").to_string())
        .collect();
    let all = old["run"]["cases"].as_array().expect("cases").len();
    assert!(
        !failed.is_empty() && failed.len() < all,
        "{} of {all}",
        failed.len()
    );
    let again = run(
        &[
            "--rerun-failed",
            "old.json",
            "--bundle",
            "new.json",
            "--format",
            "json",
        ],
        "1",
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let sent = std::fs::read_to_string(&log).expect("the log of cases sent");
    assert_eq!(
        sent.lines().count(),
        failed.len(),
        "only the failed pairs ran"
    );
    // One implementation: the one-implementation report, a `case` event per case.
    let events: Vec<Value> = String::from_utf8_lossy(&again.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON event"))
        .collect();
    let flaky: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "case" && e["flaky"] == true)
        .map(|c| c["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(
        flaky, failed,
        "every pass of a rerun failure is flaky, and only those"
    );
    let human = run(
        &[
            "--rerun-failed",
            "old.json",
            "--markdown",
            "r.md",
            "--html",
            "r.html",
            "--junit",
            "r.xml",
        ],
        "1",
    );
    says(&human, 0, "flaky: they did not pass in the earlier run");
    // Every report tells the flaky passes apart, and only those.
    let report = |f: &str| std::fs::read_to_string(dir.join(f)).expect("a report");
    let md = report("r.md");
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `")).collect();
    let flaky_rows: Vec<&str> = rows.iter().copied().filter(|l| l.contains(" ≈ ")).collect();
    assert_eq!(flaky_rows.len(), failed.len(), "{md}");
    for name in &failed {
        assert!(
            flaky_rows.iter().any(|r| r.contains(&format!("`{name}`"))),
            "{name}: {md}"
        );
    }
    let html = report("r.html");
    assert_eq!(
        html.matches("class=\"cell v-passed flaky\" data-impl")
            .count(),
        failed.len(),
        "{html}"
    );
    let xml = report("r.xml");
    assert_eq!(
        xml.matches("<system-out>flaky: ").count(),
        failed.len(),
        "{xml}"
    );
    let out = hookcheck(&dir, &["diff", "old.json", "new.json"]);
    says(&out, 0, "fixes (failed before, pass now)");
    let out = run(&["--rerun-failed", "old.json", "--bundle", "old.json"], "1");
    says(&out, 2, "--bundle");
}
