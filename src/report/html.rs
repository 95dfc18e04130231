//! One self-contained HTML file (no network, no external assets): the grade table (a score and
//! a pass/fail mark first, sortable by any column, a startup error shown in its row), then a
//! matrix of cases × implementations with a colour and a symbol per verdict, filters by part,
//! rule, origin, name and implementation (an implementation's failing cases listed with their
//! first differing step), and, for a selected cell, the case's file and line, the operation, the
//! expected and the actual result and the diff. The tables are written as HTML (they read
//! without script); the script adds sorting, the filters and the details, and selects the cell
//! named in the address (`#cell=<implementation>|<case>`, each part URI-encoded), so a link can
//! point at one failure.

use super::mark;
use super::{Model, message, verdict_word};
use crate::case::{Case, Part};
use crate::compare::compare;
use crate::grade::Graded;
use crate::inert::{self, LINE_LIMIT, clip, clip_report, markup};
use crate::runner::{Ran, Verdict};
use crate::score::Score;
use serde_json::{Value, json};
use std::fmt::Write as _;

pub fn html(model: &Model, title: &str, apart: &str) -> String {
    let (cases, graded, provenance) = (model.cases, model.graded, model.provenance);
    let verdicts: Vec<&[Verdict]> = model.judged.iter().map(|j| j.verdicts.as_slice()).collect();
    let mut out = String::with_capacity(64 << 10);
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header><h1>{}</h1>\
         <p>{} implementation{} × {} cases. Click a name for its failing cases, a cell for its \
         details. <a href=\"#filters\">Go to the matrix</a>.</p>\
         <p class=\"provenance\">{}</p></header>\n",
        esc(title),
        esc(title),
        graded.len(),
        if graded.len() == 1 { "" } else { "s" },
        cases.len(),
        esc(&provenance.line())
    );
    grade_table(&mut out, model);
    // Next to the grade, which counts them: the hidden cases and generated workloads
    // (`apart::html`, which makes every text in it inert).
    out.push_str(apart);
    let dead = graded.iter().filter(|g| g.started.is_err()).count();
    filters(&mut out, cases, graded, dead);
    matrix(&mut out, cases, graded, &verdicts);
    out.push_str(
        "<aside id=\"detail\" hidden><button id=\"close\" aria-label=\"close\">×</button>\
         <h2 id=\"d-title\"></h2><p id=\"d-verdict\"></p><p id=\"d-where\"></p>\
         <dl id=\"d-step\"></dl><pre id=\"d-report\"></pre></aside>\n",
    );
    let details = details(cases, graded, &verdicts);
    // Names as the matrix shows them, so that a `#cell=` link made from the page finds its cell.
    let data = json!({
        "implementations": graded.iter().map(|g| shown(&g.entry.name)).collect::<Vec<_>>(),
        "started": graded.iter().map(|g| g.started.is_ok()).collect::<Vec<_>>(),
        "cases": cases.iter().map(|c| shown(&c.name())).collect::<Vec<_>>(),
        "details": details,
        // For a script or a reader of the file: where the report comes from. The command line
        // holds folder names, so its text is made visible like every other string of the data.
        "provenance": inert_strings(provenance.to_json()),
    });
    let data = inert::script_json(&data);
    let _ = write!(
        out,
        "<script type=\"application/json\" id=\"data\">{data}</script>\n<script>{SCRIPT}</script>\n\
         </body>\n</html>\n"
    );
    out
}

/// Every string in `value` bounded and with its controls visible.
fn inert_strings(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(shown(&s)),
        Value::Array(a) => Value::Array(a.into_iter().map(inert_strings).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, inert_strings(v))).collect())
        }
        other => other,
    }
}

/// A score's cell: its percent and count, and the exact share as the sort key (-1 when no case
/// applies, so those sort apart from a zero).
fn score_cell(s: Score, percent: bool) -> String {
    let class = if s.total == 0 {
        "na"
    } else if s.passed == s.total {
        "ok"
    } else {
        "bad"
    };
    #[allow(clippy::cast_precision_loss)] // counts of cases, far below 2^52
    let key = if s.total == 0 {
        -1.0
    } else {
        s.passed as f64 / s.total as f64
    };
    let text = match s.percent() {
        Some(p) if percent => format!("{p}% ({})", s.show()),
        _ => s.show(),
    };
    format!("<td class=\"num {class}\" data-sort=\"{key:.6}\">{text}</td>")
}

fn grade_table(out: &mut String, model: &Model) {
    // A column per part in full, then per part for the brief alone.
    let numbers: Vec<usize> = Part::ALL.iter().map(|p| p.number()).collect();
    let headers: Vec<(String, &str)> = [("implementation", "text"), ("verdict", "num")]
        .into_iter()
        .chain([("score", "num"), ("brief score", "num")])
        .map(|(h, kind)| (h.to_string(), kind))
        .chain(numbers.iter().map(|n| (format!("Part {n}"), "num")))
        .chain(numbers.iter().map(|n| (format!("brief {n}"), "num")))
        .chain([("in the brief's terms".to_string(), "text")])
        .collect();
    out.push_str(
        "<section id=\"grade\"><details open><summary><h2>Grade</h2></summary>\
         <table id=\"grades\"><thead><tr>",
    );
    // Buttons in the headers: focusable and pressed with Enter or Space, so sorting works
    // from the keyboard.
    for (k, (name, kind)) in headers.iter().enumerate() {
        let _ = write!(
            out,
            "<th aria-sort=\"none\"><button class=\"sort\" data-col=\"{k}\" data-type=\"{kind}\">\
             {name}<span class=\"arrow\" aria-hidden=\"true\"></span></button></th>"
        );
    }
    out.push_str("</tr></thead><tbody>\n");
    for (i, (g, judged)) in model.rows().enumerate() {
        let grade = &judged.grade;
        let (score, brief) = grade.score();
        let _ = write!(
            out,
            "<tr data-impl=\"{i}\"><th><button class=\"name\" data-impl=\"{i}\" \
             title=\"show its failing cases\">{}</button></th>{}",
            line(&g.entry.name),
            if g.passed {
                "<td class=\"verdict ok\" data-sort=\"1\">✓ pass</td>"
            } else {
                "<td class=\"verdict bad\" data-sort=\"0\">✗ fail</td>"
            }
        );
        out.push_str(&score_cell(score, true));
        out.push_str(&score_cell(brief, true));
        for (p, s) in grade.full.iter().enumerate() {
            if grade.not_implemented(p) {
                // Sorted with the parts no case applies to.
                out.push_str("<td class=\"num na\" data-sort=\"-1.000000\">not implemented</td>");
            } else {
                out.push_str(&score_cell(*s, false));
            }
        }
        for s in &grade.brief {
            out.push_str(&score_cell(*s, false));
        }
        match &g.started {
            // Two lines at most, so a row stays a row whatever the width; the whole line on
            // hover (its title) and when the cell is clicked or focused.
            Ok(_) => {
                let terms = esc(&judged.line);
                let _ = writeln!(
                    out,
                    "<td class=\"terms\"><div class=\"clamp\" tabindex=\"0\" title=\"{terms}\">{terms}</div></td></tr>"
                );
            }
            // The cause first: a teacher sees why in the row, not after a click.
            Err(why) => {
                let _ = writeln!(
                    out,
                    "<td class=\"dead\"><strong>could not start</strong><pre class=\"why\">{}</pre></td></tr>",
                    markup(&startup_reason(why))
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "</tbody></table><p class=\"note\"><em>score</em>: cases passed of the cases that \
         apply, all parts together (in the run's scope); <em>brief score</em>: the brief's own \
         cases, judged by what the brief states alone. <em>verdict</em>: the run's (expectations \
         and flags applied). {}: cases passed of those that apply; <em>not implemented</em>: a \
         part the implementation does not declare. Click a column's header to sort by it (again \
         to reverse), a name for its failing cases.</p></details></section>",
        esc(&super::grade::part_legend())
    );
}

/// The first lines of a startup error (the command and how it ended) and the last lines of its
/// stderr, where the error itself is: each line and the number of lines bounded.
fn startup_reason(why: &str) -> String {
    const HEAD: usize = 3;
    const TAIL: usize = 5;
    let lines: Vec<&str> = why.lines().collect();
    let kept: Vec<&str> = if lines.len() <= HEAD + TAIL + 1 {
        lines
    } else {
        let mut kept = lines[..HEAD].to_vec();
        kept.push("…");
        kept.extend_from_slice(&lines[lines.len() - TAIL..]);
        kept
    };
    kept.iter()
        .map(|l| clip(l, 240).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

fn filters(out: &mut String, cases: &[Case], graded: &[Graded], dead: usize) {
    let mut rules: Vec<&str> = cases
        .iter()
        .flat_map(|c| c.rules.iter().map(String::as_str))
        .collect();
    rules.sort_unstable();
    rules.dedup();
    let options = |values: &[&str]| -> String {
        values
            .iter()
            .map(|v| format!("<option value=\"{0}\">{0}</option>", esc(v)))
            .collect()
    };
    let mut origins: Vec<&str> = cases.iter().map(|c| c.origin.as_str()).collect();
    origins.sort_unstable();
    origins.dedup();
    let implementations: String = graded
        .iter()
        .enumerate()
        .map(|(i, g)| format!("<option value=\"{i}\">{}</option>", line(&g.entry.name)))
        .collect();
    let dead_note = match dead {
        0 => String::from("(implementations that could not start are not counted)"),
        n => format!(
            "(not counting the {} that could not start)",
            crate::wording::count(n, "implementation", "implementations")
        ),
    };
    let _ = writeln!(
        out,
        "<section id=\"filters\"><h2>Cases</h2>\
         <label>part <select id=\"f-part\"><option value=\"\">all</option>{}</select></label> \
         <label>rule <select id=\"f-rule\"><option value=\"\">all</option>{}</select></label> \
         <label>origin <select id=\"f-origin\"><option value=\"\">all</option>{}</select></label> \
         <label>name <input id=\"f-name\" type=\"search\" placeholder=\"retries, rule or title\"></label> \
         <label>failing for <select id=\"f-impl\"><option value=\"\">any</option>{implementations}</select></label> \
         <label><input id=\"f-failing\" type=\"checkbox\"> only cases that do not pass everywhere \
         <span id=\"dead-note\">{dead_note}</span></label> \
         <span id=\"shown\"></span>\
         <p class=\"legend\">{}</p>\
         <div id=\"impl-view\" hidden><h3 id=\"iv-title\"></h3><p id=\"iv-why\"></p><ol id=\"iv-list\"></ol></div>\
         </section>",
        options(&Part::ALL.map(Part::as_str)),
        options(&rules),
        options(&origins),
        legend()
    );
}

/// Every verdict with its symbol (the markdown report's marks) and its colour: the symbol reads
/// without colour.
fn legend() -> String {
    [
        (Verdict::Passed, "passed"),
        (Verdict::Failed(String::new()), "failed"),
        (Verdict::Errored(String::new()), "errored"),
        (Verdict::NotRun(String::new()), "not run"),
        (Verdict::Skipped(String::new()), "skipped"),
        (
            Verdict::NotApplicable(crate::case::Inapplicable::Spelling),
            "not applicable",
        ),
        (
            Verdict::ExpectedFailure {
                report: String::new(),
                reason: String::new(),
            },
            "failed as expected",
        ),
        (
            Verdict::UnexpectedPass {
                reason: String::new(),
            },
            "passed though expected to fail",
        ),
    ]
    .iter()
    .map(|(v, label)| {
        format!(
            "<span class=\"key\"><span class=\"cell v-{}\">{}</span> {label}</span>",
            verdict_word(v),
            mark(v)
        )
    })
    .chain(std::iter::once(format!(
        "<span class=\"key\"><span class=\"cell v-passed flaky\">{}</span> passed when run \
         again after failing (flaky)</span>",
        super::FLAKY_MARK
    )))
    .collect::<Vec<_>>()
    .join(" ")
}

fn matrix(out: &mut String, cases: &[Case], graded: &[Graded], verdicts: &[&[Verdict]]) {
    out.push_str("<div id=\"scroll\"><table id=\"matrix\"><thead><tr><th class=\"case\">case</th>");
    for (i, g) in graded.iter().enumerate() {
        let failing = verdicts[i].iter().filter(|v| !v.is_success()).count();
        let _ = write!(
            out,
            "<th class=\"impl\" data-impl=\"{i}\" data-failing=\"{failing}\" data-started=\"{}\" title=\"{}\">\
             <span class=\"count\">{}</span><button class=\"name\" data-impl=\"{i}\">{}</button></th>",
            g.started.is_ok(),
            line(&g.entry.name),
            if g.started.is_ok() {
                format!("{failing} failing")
            } else {
                "could not start".to_string()
            },
            line(&g.entry.name)
        );
    }
    out.push_str("</tr></thead><tbody>\n");
    for (j, c) in cases.iter().enumerate() {
        let _ = write!(
            out,
            "<tr data-case=\"{j}\" data-part=\"{}\" data-origin=\"{}\" data-rules=\"{}\">\
             <th class=\"case\" title=\"{}\">{}</th>",
            c.part.as_str(),
            c.origin.as_str(),
            esc(&c.rules.join(" ")),
            esc(&c.title),
            esc(&c.name())
        );
        for (i, v) in verdicts.iter().enumerate() {
            let word = verdict_word(&v[j]);
            // A case that does not apply says why in its title: `not applicable (not
            // implemented)` for a part the implementation does not declare.
            let flaky = graded[i].flaky_at(j) && v[j].is_success();
            let label = match &v[j] {
                Verdict::NotApplicable(why) => format!("not applicable ({})", why.short()),
                _ if flaky => format!("{} (flaky: it did not pass in the earlier run)", word),
                _ => word.replace('_', " "),
            };
            let _ = write!(
                out,
                "<td class=\"cell v-{word}{}\" data-impl=\"{i}\" data-case=\"{j}\" \
                 data-verdict=\"{word}\" tabindex=\"0\" title=\"{}: {}\">{}</td>",
                if flaky { " flaky" } else { "" },
                markup(&clip(&graded[i].entry.name, CELL_NAME)),
                esc(&label),
                super::mark_of(&v[j], flaky)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// For every cell that did not pass: its verdict, the report, and for a result that differs,
/// the step's file and line, operation, expected and actual result.
/// The most the failing cells' details (report, step, title) take in all, shared evenly between
/// the implementations: a thousand implementations failing every case with long diffs would
/// otherwise make a file of gigabytes that no browser opens.
pub const DETAILS_LIMIT: usize = 64 << 20;

fn details(cases: &[Case], graded: &[Graded], verdicts: &[&[Verdict]]) -> Value {
    let mut map = serde_json::Map::new();
    let share = DETAILS_LIMIT / graded.len().max(1);
    for (i, g) in graded.iter().enumerate() {
        let scope = g.scope.with_numbers(g.numbers());
        let mut used = 0;
        for (j, c) in cases.iter().enumerate() {
            let v = &verdicts[i][j];
            if matches!(v, Verdict::Passed | Verdict::NotApplicable(_)) {
                continue;
            }
            let verdict = verdict_word(v).replace('_', " ");
            let file = shown(&c.file.display().to_string());
            if used >= share {
                map.insert(
                    format!("{i}/{j}"),
                    json!({
                        "verdict": verdict,
                        "report": format!(
                            "(not shown: the report keeps {} bytes of details for each of its {} \
                             implementations, and this one's are used up; check it alone for \
                             this case's report)",
                            inert::thousands(share),
                            graded.len()
                        ),
                        "file": file,
                        "line": c.line,
                        "title": inert::data(&clip(&c.title, 240)),
                        "origin": super::origin_phrase(c),
                    }),
                );
                continue;
            }
            let mut d = json!({
                "verdict": verdict,
                "report": inert::data(&clip_report(&message(v))),
                "file": file,
                "line": c.line,
                "title": shown(&c.title),
                "origin": super::origin_phrase(c),
            });
            if let Ran::Results(actual) = &g.ran[j]
                && let Err(m) = compare(c, actual, scope)
                && let Some(step) = c.steps.get(m.step)
            {
                d["step"] = json!({
                    "number": m.step + 1,
                    "line": step.line,
                    "op": shown(&step.op.to_string()),
                    "expected": shown(&step.expect.to_string()),
                    "actual": actual.get(m.step).map_or("(no result)".to_string(), |a| shown(&a.to_string())),
                });
            }
            used += d.to_string().len();
            map.insert(format!("{i}/{j}"), d);
        }
    }
    Value::Object(map)
}

/// Untrusted one-line text for the page's data, bounded and with its controls visible.
fn shown(text: &str) -> String {
    inert::data(&clip(text, LINE_LIMIT))
}

/// The most of a name a cell's title repeats: a thousand columns of long names would otherwise
/// repeat every name on every row.
const CELL_NAME: usize = 60;

/// An untrusted line (a name) for the page's markup, bounded as lines are, and escaped.
fn line(text: &str) -> String {
    markup(&clip(text, LINE_LIMIT))
}

/// Untrusted text for the page's markup, bounded and escaped.
fn esc(text: &str) -> String {
    markup(&clip_report(text))
}

const STYLE: &str = r#"
:root { font-family: system-ui, sans-serif; font-size: 14px; color: #1d232a; }
body { margin: 0 1.5rem 2rem; }
h1 { font-size: 1.4rem; margin: 1rem 0 .2rem; } h2 { font-size: 1.1rem; margin: 1.2rem 0 .4rem; }
h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
table { border-collapse: collapse; }
#grade td, #grade th { padding: .2rem .6rem; border-bottom: 1px solid #e3e6ea; text-align: left; vertical-align: top; }
#grade td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
#grade td.ok { color: #19692c; } #grade td.bad { color: #b3261e; font-weight: 600; } #grade td.na { color: #999; }
#grade td.verdict { white-space: nowrap; }
#grade thead button { border: none; background: none; font: inherit; font-weight: 600; cursor: pointer; padding: 0; }
#grade thead button:focus-visible, button.name:focus-visible { outline: 2px solid #1a73e8; }
#grade th[aria-sort="ascending"] .arrow::after { content: " ▲"; }
#grade th[aria-sort="descending"] .arrow::after { content: " ▼"; }
button.name { border: none; background: none; font: inherit; color: #1a57b8; text-decoration: underline;
  cursor: pointer; padding: 0; text-align: left; }
td.dead strong { color: #b3261e; }
#grade .clamp { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; line-clamp: 2;
  overflow: hidden; min-width: 24rem; max-width: 60rem; cursor: pointer; }
#grade .clamp:focus { -webkit-line-clamp: unset; line-clamp: none; outline: 2px solid #1a73e8; }
#grade { overflow-x: auto; }
pre.why { margin: .2rem 0 0; max-height: 9rem; max-width: 60rem; overflow: auto; white-space: pre-wrap;
  overflow-wrap: anywhere; font-size: 12px; background: #fbf1f0; padding: .3rem .5rem; }
.note, .legend, header p, #dead-note { color: #555; }
.legend .key { white-space: nowrap; margin-right: .6rem; }
#filters label { margin-right: 1rem; white-space: nowrap; }
#impl-view { border: 1px solid #e3e6ea; padding: .2rem .8rem .6rem; margin-bottom: .6rem; max-height: 40vh; overflow: auto; }
#impl-view li { margin: .25rem 0; } #impl-view .step { font-family: ui-monospace, monospace; font-size: 12px;
  color: #444; overflow-wrap: anywhere; }
#scroll { overflow: auto; max-height: 75vh; border: 1px solid #e3e6ea; }
#matrix { border-collapse: separate; border-spacing: 0; }
#matrix th, #matrix td { border: 1px solid #fff; }
#matrix thead th { position: sticky; top: 0; background: #f6f7f9; z-index: 2; }
#matrix th.case { position: sticky; left: 0; background: #f6f7f9; text-align: left; font-weight: normal;
  font-family: ui-monospace, monospace; font-size: 12px; padding: 0 .5rem; white-space: nowrap; z-index: 1; }
#matrix thead th.case { z-index: 3; }
#matrix th.impl { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: normal; padding: .3rem 0;
  max-height: 10rem; font-size: 12px; white-space: nowrap; }
#matrix th.impl .count { color: #b3261e; margin-bottom: .4rem; font-size: 11px; }
#matrix th.impl .name { display: inline-block; max-height: 8rem; overflow: hidden; text-overflow: ellipsis; font-size: 12px; }
#matrix th.impl[data-failing="0"] .count { color: #19692c; }
#matrix th.impl.current { background: #dbe7fb; }
.cell { display: inline-block; width: 18px; height: 18px; min-width: 18px; cursor: pointer; text-align: center;
  line-height: 18px; font-size: 11px; font-weight: 700; color: #fff; }
td.cell { display: table-cell; padding: 0; }
.v-passed { background: #2e9f4b; } .v-passed.flaky { background: #8fbf3f; color: #1d232a; } .v-failed { background: #d93025; } .v-errored { background: #f29900; color: #1d232a; }
.v-not_run { background: #7b8794; } .v-skipped { background: #c6cbd1; color: #1d232a; }
.v-not_applicable { background: #eef0f2; color: #777; }
.v-expected_failure { background: #9c6ade; } .v-unexpected_pass { background: #f5d90a; color: #1d232a; }
td.cell:focus, td.cell.selected { outline: 3px solid #1a73e8; outline-offset: -3px; }
tr.hidden { display: none; }
#detail { position: fixed; right: 1rem; bottom: 1rem; width: min(44rem, 46vw); max-height: 70vh; overflow: auto;
  background: #fff; border: 1px solid #c6cbd1; box-shadow: 0 4px 18px rgba(0,0,0,.18); padding: .8rem 1rem; }
#detail.left { right: auto; left: 1rem; } #detail.top { bottom: auto; top: 1rem; }
@media (max-width: 700px) { #detail { width: 92vw; max-height: 45vh; } }
#detail h2 { margin-top: 0; font-size: 1rem; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
#detail dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem .8rem; }
#detail dt { color: #555; } #detail dd { margin: 0; font-family: ui-monospace, monospace; word-break: break-all; }
#detail pre { background: #f6f7f9; padding: .5rem; overflow: auto; font-size: 12px; white-space: pre-wrap;
  overflow-wrap: anywhere; }
#d-report .del { color: #b3261e; background: #fdecea; } #d-report .add { color: #19692c; background: #e6f4ea; }
#d-report:empty { display: none; }
#grade summary { cursor: pointer; } #grade summary h2 { display: inline; }
#close { float: right; border: none; background: none; font-size: 1.3rem; cursor: pointer; }
"#;

const SCRIPT: &str = r#"
(function () {
  const data = JSON.parse(document.getElementById('data').textContent);
  const rows = Array.from(document.querySelectorAll('#matrix tbody tr'));
  const f = (id) => document.getElementById(id);
  const passing = (v) => ['passed', 'not_applicable', 'skipped'].includes(v);
  const cellOf = (row, i) => row.querySelector('td.cell[data-impl="' + i + '"]');
  function apply() {
    const part = f('f-part').value, rule = f('f-rule').value, origin = f('f-origin').value;
    const name = f('f-name').value.trim().toLowerCase(), failing = f('f-failing').checked;
    const impl = f('f-impl').value;
    let shown = 0;
    for (const row of rows) {
      // An implementation that could not start fails every case: it would make every case
      // "not pass everywhere", so it is left out of that filter.
      const fails = Array.from(row.querySelectorAll('td.cell'))
        .some((c) => data.started[c.dataset.impl] && !passing(c.dataset.verdict));
      const head = row.querySelector('th');
      const text = (head.textContent + ' ' + row.dataset.rules + ' ' + head.title).toLowerCase();
      const ok = (!part || row.dataset.part === part)
        && (!rule || row.dataset.rules.split(' ').includes(rule))
        && (!origin || row.dataset.origin === origin)
        && (!name || text.includes(name))
        && (!failing || fails)
        && (!impl || !passing(cellOf(row, impl).dataset.verdict));
      row.classList.toggle('hidden', !ok);
      if (ok) shown++;
    }
    f('shown').textContent = shown + ' of ' + rows.length + ' cases shown';
    document.querySelectorAll('#matrix th.impl').forEach((th) => th.classList.toggle('current', th.dataset.impl === impl));
    implView(impl);
  }
  function where(d) {
    const line = d.step ? d.step.line : d.line;
    return d.file + ':' + line + (d.step ? ' (step ' + d.step.number + ')' : '');
  }
  // The implementation's non-passing cases, each with its first differing step (or the first
  // line of its report), in the order of the matrix and under the same filters.
  function implView(impl) {
    const view = f('impl-view');
    if (impl === '') { view.hidden = true; return; }
    const list = f('iv-list');
    list.replaceChildren();
    let n = 0;
    for (const row of rows) {
      if (row.classList.contains('hidden')) continue;
      const cell = cellOf(row, impl);
      const d = data.details[impl + '/' + row.dataset.case];
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.className = 'name'; b.dataset.impl = impl; b.dataset.case = row.dataset.case;
      b.textContent = cell.textContent + ' ' + data.cases[row.dataset.case];
      const step = document.createElement('div');
      step.className = 'step';
      if (d && d.step) {
        step.textContent = d.verdict + ' at ' + where(d) + ': ' + d.step.op + ' expected ' + d.step.expected + ', got ' + d.step.actual;
      } else if (d) {
        step.textContent = d.verdict + ': ' + (d.report.split('\n')[0] || where(d));
      }
      li.append(b, step);
      list.append(li);
      n++;
    }
    f('iv-title').textContent = data.implementations[impl] + ': ' + n + (n === 1 ? ' case does' : ' cases do') + ' not pass';
    f('iv-why').textContent = data.started[impl] ? '' : 'It could not start (the reason is in the grade table): no case ran.';
    view.hidden = false;
  }
  function showImpl(i) {
    f('f-impl').value = String(i);
    apply();
    history.replaceState(null, '', '#impl=' + encodeURIComponent(data.implementations[i]));
    f('filters').scrollIntoView({block: 'start'});
  }
  function text(id, value) { f(id).textContent = value; }
  // The panel on the side of the window away from the cell, so that it does not hide it.
  function place(cell) {
    const r = cell.getBoundingClientRect(), panel = f('detail');
    panel.classList.toggle('left', r.left + r.width / 2 > innerWidth / 2);
    panel.classList.toggle('top', innerWidth <= 700 && r.top + r.height / 2 > innerHeight / 2);
  }
  function diff(report) {
    const pre = f('d-report');
    pre.replaceChildren();
    for (const line of report.split('\n')) {
      const span = document.createElement('span');
      if (line.startsWith('-') && !line.startsWith('---')) span.className = 'del';
      else if (line.startsWith('+') && !line.startsWith('+++')) span.className = 'add';
      span.textContent = line + '\n';
      pre.append(span);
    }
    if (!report) pre.replaceChildren();
  }
  function select(cell) {
    document.querySelectorAll('td.cell.selected').forEach((c) => c.classList.remove('selected'));
    cell.classList.add('selected');
    const i = cell.dataset.impl, j = cell.dataset.case;
    const impl = data.implementations[i], name = data.cases[j];
    const d = data.details[i + '/' + j];
    text('d-title', name);
    text('d-verdict', impl + ': ' + (d ? d.verdict + (d.origin ? ', ' + d.origin : '') : cell.dataset.verdict.replace('_', ' ')));
    const dl = f('d-step');
    dl.replaceChildren();
    f('d-where').textContent = '';
    diff(d ? d.report : '');
    if (d) {
      f('d-where').textContent = where(d) + ' — ' + d.title;
      if (d.step) {
        for (const [k, v] of [['operation', d.step.op], ['expected', d.step.expected], ['actual', d.step.actual]]) {
          const dt = document.createElement('dt'); dt.textContent = k;
          const dd = document.createElement('dd'); dd.textContent = v; dd.className = 'd-' + k;
          dl.append(dt, dd);
        }
      }
    }
    f('detail').hidden = false;
    place(cell);
    // Each name encoded on its own: `|` is encoded inside them, so the one raw `|` separates.
    history.replaceState(null, '', '#cell=' + encodeURIComponent(impl) + '|' + encodeURIComponent(name));
  }
  // The cell into view: centred in the part of the matrix's own scrolling box that the window
  // shows (across and down, so the last column of a wide matrix too), then the page moved
  // only if the cell is still out of the window (a page scrolled for nothing also comes out
  // blank in headless screenshots).
  function reveal(cell) {
    const box = f('scroll');
    let r = cell.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    const top = Math.max(b.top, 0), bottom = Math.min(b.top + box.clientHeight, innerHeight);
    const left = Math.max(b.left, 0), right = Math.min(b.left + box.clientWidth, innerWidth);
    if (bottom - top > 2 * r.height) box.scrollTop += r.top + r.height / 2 - (top + bottom) / 2;
    else box.scrollTop += r.top - b.top - box.clientHeight / 2;
    if (right - left > 2 * r.width) box.scrollLeft += r.left + r.width / 2 - (left + right) / 2;
    else box.scrollLeft += r.left - b.left - box.clientWidth / 2;
    r = cell.getBoundingClientRect();
    if (r.top < 0 || r.bottom > innerHeight) window.scrollBy(0, r.top - innerHeight / 2);
    if (r.left < 0 || r.right > innerWidth) window.scrollBy(r.left - innerWidth / 2, 0);
  }
  function decode(s) { try { return decodeURIComponent(s); } catch (e) { return null; } }
  // The cell a `#cell=` address names: `impl|case` with each part encoded (what the page
  // writes), or the whole encoded or written raw (older and hand-written links), where a name
  // may hold `|`: every split is tried, and a malformed `%` sequence finds nothing.
  function findCell(raw) {
    const pairs = [];
    const splits = (s, dec) => {
      for (let k = s.indexOf('|'); k >= 0; k = s.indexOf('|', k + 1)) {
        pairs.push(dec ? [decode(s.slice(0, k)), decode(s.slice(k + 1))] : [s.slice(0, k), s.slice(k + 1)]);
      }
    };
    splits(raw, true);
    const whole = decode(raw);
    if (whole !== null) splits(whole, false);
    for (const [impl, name] of pairs) {
      const i = data.implementations.indexOf(impl), j = data.cases.indexOf(name);
      if (impl !== null && name !== null && i >= 0 && j >= 0) {
        return document.querySelector('td.cell[data-impl="' + i + '"][data-case="' + j + '"]');
      }
    }
    return null;
  }
  document.getElementById('matrix').addEventListener('click', (e) => {
    const name = e.target.closest('button.name');
    if (name) { showImpl(name.dataset.impl); return; }
    const cell = e.target.closest('td.cell');
    if (cell) select(cell);
  });
  document.getElementById('matrix').addEventListener('keydown', (e) => {
    const cell = e.target.closest('td.cell');
    if (cell && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); select(cell); }
  });
  f('grades').querySelectorAll('tbody button.name').forEach((b) => b.addEventListener('click', () => showImpl(b.dataset.impl)));
  f('iv-list').addEventListener('click', (e) => {
    const b = e.target.closest('button.name');
    const cell = b && document.querySelector('td.cell[data-impl="' + b.dataset.impl + '"][data-case="' + b.dataset.case + '"]');
    if (cell) { reveal(cell); select(cell); }
  });
  // Sorting the grade table: numbers by their data-sort key, text by its letters; the same
  // column again reverses; ties keep the table's first order.
  const body = f('grades').tBodies[0];
  const first = Array.from(body.rows);
  let sorted = {col: -1, dir: 1};
  f('grades').querySelectorAll('thead button.sort').forEach((b) => b.addEventListener('click', () => {
    const col = Number(b.dataset.col), num = b.dataset.type === 'num';
    sorted = {col, dir: sorted.col === col ? -sorted.dir : 1};
    const key = (row) => {
      const c = row.cells[col];
      return num ? parseFloat(c.dataset.sort) : c.textContent.trim().toLowerCase();
    };
    const order = first.slice().sort((a, b) => {
      const x = key(a), y = key(b);
      const by = num ? x - y : x.localeCompare(y);
      return by * sorted.dir || first.indexOf(a) - first.indexOf(b);
    });
    body.append(...order);
    f('grades').querySelectorAll('thead th').forEach((th, k) => th.setAttribute('aria-sort',
      k === col ? (sorted.dir > 0 ? 'ascending' : 'descending') : 'none'));
  }));
  f('close').addEventListener('click', () => { f('detail').hidden = true; });
  for (const id of ['f-part', 'f-rule', 'f-origin', 'f-name', 'f-failing', 'f-impl']) {
    f(id).addEventListener('input', apply);
    f(id).addEventListener('change', apply);
  }
  apply();
  const hash = location.hash;
  if (hash.startsWith('#cell=')) {
    const cell = findCell(hash.slice('#cell='.length));
    if (cell) {
      // The cell into view, then the panel beside it.
      reveal(cell);
      select(cell);
    }
  } else if (hash.startsWith('#impl=')) {
    const i = data.implementations.indexOf(decode(hash.slice('#impl='.length)));
    if (i >= 0) showImpl(i);
  }
  document.body.dataset.ready = 'true';
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::implementation::Failure;

    /// 1,000 implementations, each failing 20 cases with reports over the 16 KiB a report
    /// keeps, under names of 6 KB of markup: before, every failing cell kept its whole report
    /// (over 320 MiB of details) and every cell's title repeated its column's name.
    #[test]
    #[ignore = "slow: .ci/run runs it with --ignored"]
    fn a_thousand_failing_implementations_keep_the_page_bounded() {
        let cases: Vec<Case> = super::super::fixtures::cases()
            .into_iter()
            .take(20)
            .collect();
        let long = "<b>".repeat(2_000);
        let mut graded =
            super::super::fixtures::graded(&cases, 1_000, |i| format!("sub-{i:04}-{long}"));
        let report = "a failure report line\n".repeat(800);
        for g in &mut graded {
            g.ran = cases
                .iter()
                .map(|_| {
                    Ran::Failed(Failure::Errored {
                        message: report.clone(),
                        detail: String::new(),
                    })
                })
                .collect();
            g.passed = false;
        }
        let provenance = crate::provenance::Provenance::new(&cases, String::new(), false);
        let page =
            super::super::fixtures::render(&cases, &graded, &provenance, |m| html(m, "t", ""));
        let cells = cases.len() * graded.len();
        let bound = DETAILS_LIMIT + cells * 1_024 + graded.len() * (64 << 10);
        assert!(page.len() < bound, "{} bytes, bound {bound}", page.len());
        assert!(
            page.contains("(not shown: the report keeps 67,108 bytes of details"),
            "says so"
        );
        assert!(!page.contains(&"&lt;b&gt;".repeat(2_000)), "names are cut");
    }

    #[test]
    fn text_is_escaped_and_the_data_cannot_end_its_script() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let provenance = crate::provenance::Provenance::new(&[], String::new(), false);
        let page =
            super::super::fixtures::render(&[], &[], &provenance, |m| html(m, "t</script><b>", ""));
        assert!(page.contains("<title>t&lt;/script&gt;&lt;b&gt;</title>"));
        assert_eq!(
            page.matches("</script>").count(),
            2,
            "only the two script elements end"
        );
        assert_eq!(page.matches("<script").count(), 2);
        assert!(
            !page.contains("http://") && !page.contains("https://"),
            "no external assets"
        );
        assert!(page.contains("\"provenance\":{"), "provenance in the data");
    }

    #[test]
    fn a_startup_error_is_cut_to_its_head_and_the_end_of_stderr() {
        let mut why = String::from("cannot start: `cmd`\nexit status: 1\nlast lines of stderr:\n");
        for n in 0..40 {
            why.push_str(&format!("frame {n}\n"));
        }
        why.push_str(&format!("SyntaxError: {}", "x".repeat(1000)));
        let shown = startup_reason(&why);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), 9, "{shown}");
        assert_eq!(
            lines[..3],
            [
                "cannot start: `cmd`",
                "exit status: 1",
                "last lines of stderr:"
            ]
        );
        assert_eq!(lines[3], "…");
        assert!(lines[8].starts_with("SyntaxError: ") && lines[8].contains("[cut "));
        assert!(lines[8].len() < 300);
        assert_eq!(startup_reason("one\ntwo"), "one\ntwo");
    }
}
