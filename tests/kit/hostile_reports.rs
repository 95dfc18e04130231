//! Hostile text in every report: an implementation (`tests/fakes/hostile.py`) whose handshake,
//! results, skip reasons, errors, tracebacks and stderr carry terminal escapes, markup that
//! would end or inject scripts, characters XML forbids, markdown links and images, a carriage
//! return, a backtick and bidi overrides; named by a manifest with the same text, graded beside
//! a submission whose folder has it too, over a suite whose folder has it. Each report must
//! show it all as inert text, and stay small when every result is huge. The rendered checks (a
//! browser running the HTML report, a CommonMark renderer with HTML allowed) are `#[ignore]`d:
//! they need chromium and markdown-it-py, which `.ci/run` installs.

use crate::common;

use common::root;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Kept in step with HOSTILE in tests/fakes/hostile.py.
const HOSTILE: [&str; 11] = [
    "\u{1b}[1A\u{1b}[2KPASSED",
    "<!--<script>",
    "</script><script>document.title='X'</script>",
    "\u{fffe}",
    "<img src=x onerror=\"document.title='X'\">",
    "\r",
    "`",
    "![x](http://127.0.0.1:1/x.png)",
    "[x](javascript:alert(1))",
    "\u{202e}",
    "\u{9b}2J",
];

fn all() -> String {
    HOSTILE.join(" ")
}

fn fake(mode: &str) -> String {
    format!(
        "python3 {} {mode}",
        root().join("tests/fakes/hostile.py").display()
    )
}

/// A grader's folder: a submission and a suite whose folder names are hostile (a folder name
/// cannot hold `/`), and manifests naming the hostile implementation with hostile text, alone
/// (`one.json`) and beside the submission (`many.json`).
fn folder(test: &str) -> PathBuf {
    let dir = common::scratch().join(format!("hookcheck-hostile-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let name: String = HOSTILE
        .iter()
        .filter(|h| !h.contains('/'))
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let submission = dir.join("subs").join(&name);
    std::fs::create_dir_all(&submission).expect("submission folder");
    std::fs::write(submission.join("solution.py"), "").expect("solution");
    let suite = dir.join("cases").join(&name);
    std::fs::create_dir_all(&suite).expect("suite folder");
    // Case ids are unique across the corpus, folders or not.
    let cases = std::fs::read_to_string(root().join("cases/ordering/ordering.yaml"))
        .expect("a case file")
        .replace("- id: ", "- id: hostile-");
    std::fs::write(suite.join("ordering.yaml"), cases).expect("a case file");
    let named = json!({"name": all(), "command": fake("hostile")});
    let globbed = json!({"glob": "subs/*/solution.py", "command": fake("hostile")});
    let write =
        |file: &str, v: Value| std::fs::write(dir.join(file), v.to_string()).expect("manifest");
    write("one.json", json!({"implementation": [named.clone()]}));
    write("many.json", json!({"implementation": [named, globbed]}));
    dir
}

/// What a run wrote: stdout and stderr, and the JUnit, markdown and HTML reports.
struct Reports {
    out: Output,
    junit: String,
    markdown: String,
    html: String,
}

fn check(dir: &Path, tag: &str, args: &[&str]) -> Reports {
    let file = |ext: &str| dir.join(format!("{tag}.{ext}"));
    let out = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .arg("check")
        .args(args)
        .args(["--color", "never", "--junit"])
        .arg(file("xml"))
        .arg("--markdown")
        .arg(file("md"))
        .arg("--html")
        .arg(file("html"))
        .current_dir(dir)
        .output()
        .expect("hookcheck runs");
    let read = |ext: &str| {
        let bytes = std::fs::read(file(ext)).unwrap_or_default();
        String::from_utf8(bytes).expect("reports are UTF-8")
    };
    assert_eq!(
        out.status.code(),
        Some(1),
        "{tag}: a run with failures: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Reports {
        junit: read("xml"),
        markdown: read("md"),
        html: read("html"),
        out,
    }
}

/// Characters that act instead of showing: C0 controls but newline and tab, DEL, C1 controls,
/// bidi embeddings, overrides and isolates.
fn acting(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn assert_no_controls(what: &str, output: &[u8]) {
    let text = String::from_utf8_lossy(output);
    let bad: Vec<(usize, char)> = text.char_indices().filter(|(_, c)| acting(*c)).collect();
    assert!(bad.is_empty(), "{what}: raw controls {bad:?} in\n{text}");
}

fn assert_terminal_inert(what: &str, output: &[u8]) {
    assert_no_controls(what, output);
    let text = String::from_utf8_lossy(output);
    assert!(
        text.contains("\\x1b[1A\\x1b[2KPASSED") && text.contains("\\u{202e}"),
        "{what}: the hostile text is shown, escaped:\n{text}"
    );
}

fn assert_junit_well_formed(what: &str, xml: &str) {
    let bad: Vec<char> = xml
        .chars()
        .filter(|c| (acting(*c) && (*c as u32) < 0x20) || matches!(c, '\u{fffe}' | '\u{ffff}'))
        .collect();
    assert!(bad.is_empty(), "{what}: XML 1.0 forbids {bad:?}");
    let file = write_temp(what, "xml", xml);
    let parsed = Command::new("python3")
        .args([
            "-c",
            "import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); \
             print(len(r.findall('.//testcase')))",
        ])
        .arg(&file)
        .output()
        .expect("python3 runs");
    let _ = std::fs::remove_file(&file);
    assert!(
        parsed.status.success(),
        "{what}: the JUnit does not parse: {}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    let testcases: usize = String::from_utf8_lossy(&parsed.stdout)
        .trim()
        .parse()
        .unwrap_or(0);
    assert!(testcases > 50, "{what}: {testcases} test cases");
    assert!(xml.contains("\\x1b[1A") && xml.contains("&lt;!--&lt;script&gt;"));
}

fn write_temp(what: &str, ext: &str, text: &str) -> PathBuf {
    let path = common::scratch().join(format!(
        "hookcheck-hostile-{}-{}.{ext}",
        what.replace(' ', "-"),
        std::process::id()
    ));
    std::fs::write(&path, text).expect("temp file");
    path
}

/// The characters of `line` that are not backslash-escaped, with their positions.
fn unescaped(line: &str) -> Vec<char> {
    let mut out = Vec::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
        } else {
            out.push(c);
        }
    }
    out
}

fn assert_markdown_inert(what: &str, md: &str) {
    assert!(!md.contains('<'), "{what}: raw `<` in\n{md}");
    assert!(!md.contains('\r'), "{what}: a carriage return");
    assert!(
        !md.contains("](") && !md.contains("!["),
        "{what}: a link or image in\n{md}"
    );
    let mut columns: Option<usize> = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            columns = None;
            continue;
        }
        let chars = unescaped(line);
        // Backticks only as the single-backtick code spans of plain case names.
        let ticks = chars.iter().filter(|c| **c == '`').count();
        assert!(
            ticks % 2 == 0 && !line.contains("``"),
            "{what}: a code span that untrusted text could close: {line}"
        );
        let cells = chars.iter().filter(|c| **c == '|').count();
        match columns {
            None => columns = Some(cells),
            Some(n) => assert_eq!(n, cells, "{what}: a row of another width: {line}"),
        }
    }
    assert!(
        md.contains("\\x1b\\[1A"),
        "{what}: the hostile name is shown"
    );
}

/// The HTML report's embedded data: no `<` in it, so it ends only at its own `</script>`, and
/// it reads as JSON; and only the page's two scripts.
fn assert_html_inert(what: &str, html: &str) {
    assert_eq!(
        html.matches("<script").count(),
        2,
        "{what}: script elements"
    );
    let open = "<script type=\"application/json\" id=\"data\">";
    let start = html.find(open).map(|at| at + open.len()).unwrap_or(0);
    let len = html[start..].find("</script>").unwrap_or(0);
    let data = &html[start..start + len];
    assert!(!data.contains('<'), "{what}: `<` in the script data");
    let parsed: Value = serde_json::from_str(data).expect("the data is JSON");
    assert!(
        parsed["implementations"][0]
            .as_str()
            .unwrap_or("")
            .contains("<!--<script>")
    );
    let bad: Vec<char> = html
        .chars()
        .filter(|c| acting(*c) || *c == '\u{fffe}')
        .collect();
    assert!(bad.is_empty(), "{what}: raw controls {bad:?}");
    assert!(!html.contains("<img") && !html.contains("<!--"));
}

fn holds_escape(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains('\u{1b}'),
        Value::Array(a) => a.iter().any(holds_escape),
        Value::Object(o) => o.values().any(holds_escape),
        _ => false,
    }
}

fn assert_json_lines(what: &str, out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    let mut hostile = false;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{what}: {e}: {line}"));
        hostile |= holds_escape(&v);
    }
    assert!(hostile, "{what}: the hostile text is kept, as JSON escapes");
    assert!(!text.contains('\u{1b}') && text.contains("\\u001b"));
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn every_report_of_many_implementations_shows_hostile_text_inert() {
    let dir = folder("many");
    let base = ["--manifest", "many.json", "--cases", "cases"];
    let human = check(&dir, "human", &[&base[..], &["--verbose"]].concat());
    assert_terminal_inert("grade, human", &human.out.stdout);
    assert_no_controls("grade, stderr", &human.out.stderr);
    assert_junit_well_formed("grade junit", &human.junit);
    assert_markdown_inert("grade markdown", &human.markdown);
    assert_html_inert("grade html", &human.html);
    let json = check(&dir, "json", &[&base[..], &["--format", "json"]].concat());
    assert_json_lines("grade json", &json.out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn every_report_of_one_implementation_shows_hostile_text_inert() {
    let dir = folder("one");
    let base = ["--manifest", "one.json", "--cases", "cases"];
    let human = check(&dir, "human", &[&base[..], &["--verbose"]].concat());
    assert_terminal_inert("check, human", &human.out.stdout);
    assert_no_controls("check, stderr", &human.out.stderr);
    assert_junit_well_formed("check junit", &human.junit);
    assert_markdown_inert("check markdown", &human.markdown);
    assert_html_inert("check html", &human.html);
    let json = check(&dir, "json", &[&base[..], &["--format", "json"]].concat());
    assert_json_lines("check json", &json.out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn reports_of_huge_results_are_clipped_and_stay_small() {
    let dir = folder("huge");
    let impl_ = fake("huge");
    let human = check(&dir, "human", &["--impl", &impl_]);
    let json = check(&dir, "json", &["--impl", &impl_, "--format", "json"]);
    let marker = "… [cut ";
    for (what, text, most) in [
        (
            "human",
            String::from_utf8_lossy(&human.out.stdout).into_owned(),
            4 << 20,
        ),
        (
            "json",
            String::from_utf8_lossy(&json.out.stdout).into_owned(),
            4 << 20,
        ),
        ("junit", human.junit.clone(), 4 << 20),
        ("html", human.html.clone(), 4 << 20),
        ("markdown", human.markdown.clone(), 64 << 10),
    ] {
        assert!(text.len() < most, "{what}: {} bytes", text.len());
        assert!(
            what == "markdown" || text.contains(marker),
            "{what}: says what was cut"
        );
    }
    assert_html_inert_data(&human.html);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Before, `--format json`'s `start` event carried a 300 KB handshake name whole.
#[test]
fn a_huge_handshake_name_is_cut_in_every_report() {
    let dir = folder("bigname");
    let impl_ = fake("bigname");
    let human = check(&dir, "human", &["--impl", &impl_]);
    let json = check(&dir, "json", &["--impl", &impl_, "--format", "json"]);
    let stdout = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    for (what, text) in [
        ("human", stdout(&human.out)),
        ("json", stdout(&json.out)),
        ("junit", human.junit.clone()),
        ("html", human.html.clone()),
        ("markdown", human.markdown.clone()),
    ] {
        // Each of name, language and version is a line of report text: 4 KiB at most.
        assert!(
            !text.contains(&"N".repeat(5 << 10)),
            "{what}: the name is cut"
        );
        assert!(text.len() < 1 << 20, "{what}: {} bytes", text.len());
    }
    let start = stdout(&json.out)
        .lines()
        .find(|l| l.contains("\"event\":\"start\""))
        .map(str::to_string)
        .expect("a start event");
    assert!(start.len() < 16 << 10, "{} bytes", start.len());
    assert!(start.contains("… [cut "), "{start}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The huge run's page still carries data its script can read.
fn assert_html_inert_data(html: &str) {
    let open = "<script type=\"application/json\" id=\"data\">";
    let start = html.find(open).map(|at| at + open.len()).unwrap_or(0);
    let len = html[start..].find("</script>").unwrap_or(0);
    let data: Value = serde_json::from_str(&html[start..start + len]).expect("the data is JSON");
    let details = data["details"].as_object().map_or(0, |d| d.len());
    assert!(details > 50, "{details} failing cells with details");
}

/// The DOM of `file` after headless Chromium ran its scripts (and let images fail to load,
/// which fires `onerror`).
fn dom(dir: &Path, file: &Path) -> String {
    common::headless(
        &dir.join("profile"),
        &format!("file://{}", file.display()),
        "--dump-dom",
        "1280,800",
    )
}

/// The text of the first `<title>` of a dumped DOM.
fn title(dom: &str) -> &str {
    let start = dom.find("<title>").map_or(0, |at| at + "<title>".len());
    let len = dom[start..].find("</title>").unwrap_or(0);
    &dom[start..start + len]
}

/// The number of cells of each row, table by table, of a dumped DOM.
fn table_widths(dom: &str) -> Vec<Vec<usize>> {
    dom.split("<table")
        .skip(1)
        .map(|table| {
            let table = &table[..table.find("</table>").unwrap_or(table.len())];
            table
                .split("<tr")
                .skip(1)
                .map(|row| row.matches("<td").count() + row.matches("<th").count())
                .collect()
        })
        .collect()
}

#[test]
#[ignore = "needs chromium and markdown-it-py: .ci/run installs them and runs ignored tests"]
fn hostile_text_stays_inert_when_the_reports_are_rendered() {
    let dir = folder("rendered");
    check(
        &dir,
        "many",
        &["--manifest", "many.json", "--cases", "cases"],
    );

    // The HTML report: the page's own script ran (it counts the shown cases), nothing injected
    // did (the title is the report's own, no image or script element came from the data).
    let page = dom(&dir, &dir.join("many.html"));
    assert_eq!(title(&page), "hookcheck: implementations × cases");
    assert!(
        page.contains(" cases shown</span>"),
        "the page's script ran:\n{}",
        &page[..page.len().min(3000)]
    );
    assert!(!page.contains("<img"), "an injected image");
    assert_eq!(
        page.matches("<script").count(),
        2,
        "only the page's scripts"
    );

    // The markdown, rendered by a CommonMark renderer with HTML allowed (and tables), then
    // opened in the browser: no injected script ran, no image, no javascript: link, and every
    // row of each table as wide as its header.
    let render = Command::new("python3")
        .args([
            "-c",
            "import sys\n\
             try:\n    from markdown_it import MarkdownIt\n\
             except ImportError:\n    sys.exit('markdown-it-py is not installed: \
             python3 -m pip install markdown-it-py (.ci/run installs it)')\n\
             md = MarkdownIt('commonmark', {'html': True}).enable('table')\n\
             body = md.render(open(sys.argv[1], encoding='utf-8').read())\n\
             sys.stdout.write('<!doctype html><html><head><meta charset=\"utf-8\">\
             <title>rendered</title></head><body>' + body + '</body></html>')",
        ])
        .arg(dir.join("many.md"))
        .output()
        .expect("python3 runs");
    assert!(
        render.status.success(),
        "{}",
        String::from_utf8_lossy(&render.stderr)
    );
    let rendered = dir.join("many.md.html");
    std::fs::write(&rendered, &render.stdout).expect("rendered markdown");
    let page = dom(&dir, &rendered);
    assert_eq!(title(&page), "rendered", "an injected script ran");
    assert!(!page.contains("<img"), "an image in the rendered markdown");
    assert!(
        !page.contains("<script"),
        "a script in the rendered markdown"
    );
    assert!(
        !page.contains("href=\"javascript:") && !page.contains("<a "),
        "a link in the rendered markdown"
    );
    let widths = table_widths(&page);
    assert_eq!(widths.len(), 2, "the grade and the cases tables");
    for rows in &widths {
        assert!(rows.len() > 2, "{rows:?}");
        assert!(
            rows.iter().all(|n| *n == rows[0]),
            "rows of other widths: {rows:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
