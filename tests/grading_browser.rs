//! The HTML grade report in a real browser: headless Chromium loads the file written by
//! `hookcheck check --manifest ... --html`, runs its script, and the rendered DOM is checked:
//! the failing cells counted per implementation agree with the JSON report of the same run, and
//! a selected failing cell shows its case's diff (file:line of the differing step, operation,
//! expected, actual). A screenshot is taken; `HOOKCHECK_BLESS=1` writes it to
//! `examples/grading/report.png`, the README's picture.

mod common;

use common::{chromium, grader_folder, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs headless Chromium on `url` with a profile of its own under `dir`; `what` is
/// `--dump-dom` or `--screenshot=FILE`. Returns stdout.
fn browse(dir: &Path, url: &str, what: &str) -> String {
    let profile = dir.join(format!("profile-{}", what.len()));
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1400,900",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(what)
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `attr="value"` of every element in `dom` that has `marker` in its start tag.
fn attributes(dom: &str, marker: &str, attr: &str) -> Vec<String> {
    dom.split('<')
        .filter(|tag| tag.contains(marker))
        .filter_map(|tag| {
            let start = tag.find(&format!("{attr}=\""))? + attr.len() + 2;
            let len = tag[start..].find('"')?;
            Some(tag[start..start + len].to_string())
        })
        .collect()
}

/// The text of the element with `id`, entities decoded.
fn text_of(dom: &str, id: &str) -> String {
    let Some(at) = dom.find(&format!("id=\"{id}\"")) else {
        return String::new();
    };
    let Some(open) = dom[at..].find('>') else {
        return String::new();
    };
    let rest = &dom[at + open + 1..];
    let end = rest.find("</").unwrap_or(rest.len());
    unescape(&rest[..end])
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The `dd` of class `d-{what}` in the detail panel.
fn detail(dom: &str, what: &str) -> String {
    let marker = format!("class=\"d-{what}\">");
    dom.find(&marker)
        .map(|at| {
            let rest = &dom[at + marker.len()..];
            unescape(&rest[..rest.find("</dd>").unwrap_or(rest.len())])
        })
        .unwrap_or_default()
}

fn url(file: &Path, fragment: &str) -> String {
    let encoded: String = fragment
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("file://{}#cell={encoded}", file.display())
}

#[test]
#[ignore = "needs chromium: .ci/run installs it and runs ignored tests"]
fn the_html_report_renders_the_matrix_and_a_selected_cells_diff() {
    let dir = grader_folder("browser");
    let report = dir.join("grade.html");
    let out = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(["check", "--manifest", "grading.toml", "--format", "json"])
        .arg("--html")
        .arg(&report)
        .current_dir(&dir)
        .output()
        .expect("hookcheck runs");
    assert_eq!(out.status.code(), Some(1));
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &Value| v["event"] == "implementation")
        .collect();
    let names: Vec<&str> = events.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names, ["capped", "good", "hangs", "crashes"]);
    let failing_in_json: Vec<usize> = events
        .iter()
        .map(|e| {
            e["cases"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["verdict"] != "passed")
                .count()
        })
        .collect();
    assert_eq!(&failing_in_json[1..], [0, 1, 1]);

    // The case that fails for the capped submission, and where its first difference is.
    let capped_case = "retries::schedule-full-run-dies-on-sixth";
    let message = events[0]["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["name"] == capped_case)
        .and_then(|c| c["message"].as_str())
        .unwrap_or_default()
        .to_string();
    let step_at = message.split(": ").next().unwrap_or_default().to_string();
    assert!(step_at.starts_with("cases/retries/"), "{message}");

    let dom = browse(
        &dir,
        &url(&report, &format!("capped|{capped_case}")),
        "--dump-dom",
    );
    // Column headers and cells, as rendered, agree with the JSON report.
    let headers: Vec<usize> = attributes(&dom, "class=\"impl\"", "data-failing")
        .iter()
        .map(|n| n.parse().unwrap_or(usize::MAX))
        .collect();
    assert_eq!(headers, failing_in_json);
    for (i, expected) in failing_in_json.iter().enumerate() {
        let cells = attributes(
            &dom,
            &format!("data-impl=\"{i}\" data-case="),
            "data-verdict",
        );
        let failing = cells
            .iter()
            .filter(|v| !["passed", "not_applicable", "skipped"].contains(&v.as_str()))
            .count();
        assert_eq!(failing, *expected, "implementation {i}");
        assert!(cells.len() > 50, "a row per case: {}", cells.len());
    }
    assert!(
        text_of(&dom, "shown").ends_with(" cases shown"),
        "the filters ran"
    );

    // The selected cell's diff in the detail panel.
    assert!(!dom.contains("id=\"detail\" hidden"), "the panel is open");
    assert_eq!(text_of(&dom, "d-title"), capped_case);
    assert_eq!(text_of(&dom, "d-verdict"), "capped: failed");
    let place = text_of(&dom, "d-where");
    assert!(place.starts_with(&format!("{step_at} (step ")), "{place}");
    let operation = detail(&dom, "operation");
    assert!(operation.starts_with("[\""), "{operation}");
    let (expected, actual) = (detail(&dom, "expected"), detail(&dom, "actual"));
    assert!(!expected.is_empty() && !actual.is_empty() && expected != actual);
    assert!(
        dom.contains("class=\"cell v-failed selected\""),
        "the cell is marked"
    );

    // An errored cell: its message (the timeout) and no step.
    let dom = browse(
        &dir,
        &url(&report, "hangs|ordering::ordering-brief-example"),
        "--dump-dom",
    );
    assert_eq!(text_of(&dom, "d-verdict"), "hangs: errored");
    assert!(text_of(&dom, "d-report").contains("no answer within 1 s"));

    let shot: PathBuf = if std::env::var_os("HOOKCHECK_BLESS").is_some() {
        root().join("examples/grading/report.png")
    } else {
        dir.join("report.png")
    };
    browse(
        &dir,
        &url(&report, &format!("capped|{capped_case}")),
        &format!("--screenshot={}", shot.display()),
    );
    let png = std::fs::read(&shot).unwrap_or_default();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "a screenshot"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
