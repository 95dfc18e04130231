//! One self-contained HTML file (no network, no external assets): the grade table, then a
//! matrix of cases × implementations with a colour per verdict, filters by part, rule, origin
//! and name, and, for a selected cell, the case's file and line, the operation, the expected and
//! the actual result and the diff. The matrix is written as HTML (it reads without script);
//! the script adds the filters and the details, and selects the cell named in the address
//! (`#cell=<implementation>|<case>`), so a link can point at one failure.

use super::inert::{self, LINE_LIMIT, clip, clip_report, markup};
use super::{message, verdict_word};
use crate::case::Case;
use crate::compare::compare;
use crate::grade::Graded;
use crate::runner::{Ran, Verdict};
use serde_json::{Value, json};
use std::fmt::Write as _;

pub fn html(
    cases: &[Case],
    graded: &[Graded],
    title: &str,
    provenance: &crate::provenance::Provenance,
) -> String {
    let verdicts: Vec<Vec<Verdict>> = graded.iter().map(|g| g.judged(cases)).collect();
    let mut out = String::with_capacity(64 << 10);
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header><h1>{}</h1>\
         <p>{} implementation{} × {} cases. Click a cell for its details. \
         <a href=\"#filters\">Go to the matrix</a>.</p>\
         <p class=\"provenance\">{}</p></header>\n",
        esc(title),
        esc(title),
        graded.len(),
        if graded.len() == 1 { "" } else { "s" },
        cases.len(),
        esc(&provenance.line())
    );
    grade_table(&mut out, cases, graded);
    filters(&mut out, cases);
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
        "cases": cases.iter().map(|c| shown(&c.name())).collect::<Vec<_>>(),
        "details": details,
    });
    let data = inert::script_json(&data);
    let _ = write!(
        out,
        "<script type=\"application/json\" id=\"data\">{data}</script>\n<script>{SCRIPT}</script>\n\
         </body>\n</html>\n"
    );
    out
}

fn grade_table(out: &mut String, cases: &[Case], graded: &[Graded]) {
    out.push_str(
        "<section id=\"grade\"><details open><summary><h2>Grade</h2></summary><table><thead><tr><th>implementation</th>\
         <th>Part 1</th><th>Part 2</th><th>Part 3</th><th>brief 1</th><th>brief 2</th>\
         <th>brief 3</th><th>in the brief's terms</th></tr></thead><tbody>\n",
    );
    for g in graded {
        let grade = g.grade(cases);
        let terms = g.verdict_line(&grade);
        let _ = write!(out, "<tr><th>{}</th>", esc(&g.entry.name));
        for s in grade.full.iter().chain(&grade.brief) {
            let class = if s.total == 0 {
                "na"
            } else if s.passed == s.total {
                "ok"
            } else {
                "bad"
            };
            let _ = write!(out, "<td class=\"{class}\">{}</td>", s.show());
        }
        let _ = writeln!(out, "<td>{}</td></tr>", esc(&terms));
    }
    out.push_str(
        "</tbody></table><p class=\"note\">Parts: 1 retries, 2 ordering, 3 pause; cases passed \
         of those that apply. <em>brief</em>: the brief's own cases, judged by what the brief \
         states alone.</p></details></section>\n",
    );
}

fn filters(out: &mut String, cases: &[Case]) {
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
    let _ = writeln!(
        out,
        "<section id=\"filters\"><h2>Cases</h2>\
         <label>part <select id=\"f-part\"><option value=\"\">all</option>{}</select></label> \
         <label>rule <select id=\"f-rule\"><option value=\"\">all</option>{}</select></label> \
         <label>origin <select id=\"f-origin\"><option value=\"\">all</option>{}</select></label> \
         <label>name <input id=\"f-name\" type=\"search\" placeholder=\"retries::\"></label> \
         <label><input id=\"f-failing\" type=\"checkbox\"> only cases that do not pass everywhere</label> \
         <span id=\"shown\"></span>\
         <p class=\"legend\">{}</p></section>",
        options(&["retries", "ordering", "pause"]),
        options(&rules),
        options(&origins),
        LEGEND
    );
}

const LEGEND: &str = "<span class=\"cell v-passed\"></span> passed \
    <span class=\"cell v-failed\"></span> failed \
    <span class=\"cell v-errored\"></span> errored \
    <span class=\"cell v-not_run\"></span> not run \
    <span class=\"cell v-skipped\"></span> skipped \
    <span class=\"cell v-not_applicable\"></span> not applicable \
    <span class=\"cell v-expected_failure\"></span> failed as expected \
    <span class=\"cell v-unexpected_pass\"></span> passed though expected to fail";

fn matrix(out: &mut String, cases: &[Case], graded: &[Graded], verdicts: &[Vec<Verdict>]) {
    out.push_str("<div id=\"scroll\"><table id=\"matrix\"><thead><tr><th class=\"case\">case</th>");
    for (i, g) in graded.iter().enumerate() {
        let failing = verdicts[i].iter().filter(|v| !v.is_success()).count();
        let _ = write!(
            out,
            "<th class=\"impl\" data-impl=\"{i}\" data-failing=\"{failing}\" title=\"{}\">\
             <span class=\"count\">{failing} failing</span><span class=\"name\">{}</span></th>",
            esc(&g.entry.name),
            esc(&g.entry.name)
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
            let _ = write!(
                out,
                "<td class=\"cell v-{word}\" data-impl=\"{i}\" data-case=\"{j}\" \
                 data-verdict=\"{word}\" tabindex=\"0\" title=\"{}: {}\"></td>",
                esc(&graded[i].entry.name),
                word.replace('_', " ")
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// For every cell that did not pass: its verdict, the report, and for a result that differs,
/// the step's file and line, operation, expected and actual result.
fn details(cases: &[Case], graded: &[Graded], verdicts: &[Vec<Verdict>]) -> Value {
    let mut map = serde_json::Map::new();
    for (i, g) in graded.iter().enumerate() {
        let scope = g.scope.with_numbers(g.numbers());
        for (j, c) in cases.iter().enumerate() {
            let v = &verdicts[i][j];
            if matches!(v, Verdict::Passed | Verdict::NotApplicable) {
                continue;
            }
            let mut d = json!({
                "verdict": verdict_word(v).replace('_', " "),
                "report": inert::data(&message(v)),
                "file": shown(&c.file.display().to_string()),
                "line": c.line,
                "title": shown(&c.title),
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
            map.insert(format!("{i}/{j}"), d);
        }
    }
    Value::Object(map)
}

/// Untrusted one-line text for the page's data, bounded and with its controls visible.
fn shown(text: &str) -> String {
    inert::data(&clip(text, LINE_LIMIT))
}

/// Untrusted text for the page's markup, bounded and escaped.
fn esc(text: &str) -> String {
    markup(&clip_report(text))
}

const STYLE: &str = r#"
:root { font-family: system-ui, sans-serif; font-size: 14px; color: #1d232a; }
body { margin: 0 1.5rem 2rem; }
h1 { font-size: 1.4rem; margin: 1rem 0 .2rem; } h2 { font-size: 1.1rem; margin: 1.2rem 0 .4rem; }
table { border-collapse: collapse; }
#grade td, #grade th { padding: .2rem .6rem; border-bottom: 1px solid #e3e6ea; text-align: left; }
#grade td.ok { color: #19692c; } #grade td.bad { color: #b3261e; font-weight: 600; } #grade td.na { color: #999; }
.note, .legend, header p { color: #555; }
#filters label { margin-right: 1rem; white-space: nowrap; }
#scroll { overflow: auto; max-height: 75vh; border: 1px solid #e3e6ea; }
#matrix th, #matrix td { border: 1px solid #fff; }
#matrix thead th { position: sticky; top: 0; background: #f6f7f9; z-index: 2; }
#matrix th.case { position: sticky; left: 0; background: #f6f7f9; text-align: left; font-weight: normal;
  font-family: ui-monospace, monospace; font-size: 12px; padding: 0 .5rem; white-space: nowrap; z-index: 1; }
#matrix thead th.case { z-index: 3; }
#matrix th.impl { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: normal; padding: .3rem 0;
  max-height: 10rem; font-size: 12px; white-space: nowrap; }
#matrix th.impl .count { color: #b3261e; margin-bottom: .4rem; font-size: 11px; }
#matrix th.impl .name { display: inline-block; max-height: 8rem; overflow: hidden; text-overflow: ellipsis; }
#matrix th.impl[data-failing="0"] .count { color: #19692c; }
.cell { display: inline-block; width: 18px; height: 18px; min-width: 18px; cursor: pointer; }
td.cell { display: table-cell; }
.v-passed { background: #2e9f4b; } .v-failed { background: #d93025; } .v-errored { background: #f29900; }
.v-not_run { background: #7b8794; } .v-skipped { background: #c6cbd1; } .v-not_applicable { background: #eef0f2; }
.v-expected_failure { background: #9c6ade; } .v-unexpected_pass { background: #f5d90a; }
td.cell:focus, td.cell.selected { outline: 3px solid #1a73e8; outline-offset: -3px; }
tr.hidden { display: none; }
#detail { position: fixed; right: 1rem; bottom: 1rem; width: min(46rem, 92vw); max-height: 70vh; overflow: auto;
  background: #fff; border: 1px solid #c6cbd1; box-shadow: 0 4px 18px rgba(0,0,0,.18); padding: .8rem 1rem; }
#detail h2 { margin-top: 0; font-size: 1rem; font-family: ui-monospace, monospace; }
#detail dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem .8rem; }
#detail dt { color: #555; } #detail dd { margin: 0; font-family: ui-monospace, monospace; word-break: break-all; }
#detail pre { background: #f6f7f9; padding: .5rem; overflow: auto; font-size: 12px; }
#d-report:empty { display: none; }
#grade summary { cursor: pointer; } #grade summary h2 { display: inline; }
#close { float: right; border: none; background: none; font-size: 1.3rem; cursor: pointer; }
"#;

const SCRIPT: &str = r#"
(function () {
  const data = JSON.parse(document.getElementById('data').textContent);
  const rows = Array.from(document.querySelectorAll('#matrix tbody tr'));
  const f = (id) => document.getElementById(id);
  function apply() {
    const part = f('f-part').value, rule = f('f-rule').value, origin = f('f-origin').value;
    const name = f('f-name').value.trim(), failing = f('f-failing').checked;
    let shown = 0;
    for (const row of rows) {
      const cells = row.querySelectorAll('td.cell');
      const fails = Array.from(cells).some((c) => !['passed', 'not_applicable', 'skipped'].includes(c.dataset.verdict));
      const ok = (!part || row.dataset.part === part)
        && (!rule || row.dataset.rules.split(' ').includes(rule))
        && (!origin || row.dataset.origin === origin)
        && (!name || row.querySelector('th').textContent.includes(name))
        && (!failing || fails);
      row.classList.toggle('hidden', !ok);
      if (ok) shown++;
    }
    f('shown').textContent = shown + ' of ' + rows.length + ' cases shown';
  }
  function text(id, value) { f(id).textContent = value; }
  function select(cell) {
    document.querySelectorAll('td.cell.selected').forEach((c) => c.classList.remove('selected'));
    cell.classList.add('selected');
    const i = cell.dataset.impl, j = cell.dataset.case;
    const impl = data.implementations[i], name = data.cases[j];
    const d = data.details[i + '/' + j];
    text('d-title', name);
    text('d-verdict', impl + ': ' + (d ? d.verdict : cell.dataset.verdict.replace('_', ' ')));
    const dl = f('d-step');
    dl.replaceChildren();
    f('d-where').textContent = '';
    f('d-report').textContent = d ? d.report : '';
    if (d) {
      const line = d.step ? d.step.line : d.line;
      f('d-where').textContent = d.file + ':' + line + (d.step ? ' (step ' + d.step.number + ')' : '') + ' — ' + d.title;
      if (d.step) {
        for (const [k, v] of [['operation', d.step.op], ['expected', d.step.expected], ['actual', d.step.actual]]) {
          const dt = document.createElement('dt'); dt.textContent = k;
          const dd = document.createElement('dd'); dd.textContent = v; dd.className = 'd-' + k;
          dl.append(dt, dd);
        }
      }
    }
    f('detail').hidden = false;
    history.replaceState(null, '', '#cell=' + encodeURIComponent(impl + '|' + name));
  }
  document.getElementById('matrix').addEventListener('click', (e) => {
    const cell = e.target.closest('td.cell');
    if (cell) select(cell);
  });
  document.getElementById('matrix').addEventListener('keydown', (e) => {
    const cell = e.target.closest('td.cell');
    if (cell && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); select(cell); }
  });
  f('close').addEventListener('click', () => { f('detail').hidden = true; });
  for (const id of ['f-part', 'f-rule', 'f-origin', 'f-name', 'f-failing']) {
    f(id).addEventListener('input', apply);
    f(id).addEventListener('change', apply);
  }
  apply();
  const wanted = decodeURIComponent(location.hash.replace(/^#cell=/, ''));
  if (wanted && wanted !== location.hash) {
    const [impl, name] = wanted.split('|');
    const i = data.implementations.indexOf(impl), j = data.cases.indexOf(name);
    const cell = document.querySelector('td.cell[data-impl="' + i + '"][data-case="' + j + '"]');
    if (cell) {
      select(cell);
      // The cell into view within the matrix; the detail panel is fixed, so the page stays
      // where it is (and headless screenshots of a scrolled page come out blank).
      const box = f('scroll');
      box.scrollTop = cell.offsetTop - box.clientHeight / 2;
      box.scrollLeft = cell.offsetLeft - box.clientWidth / 2;
    }
  }
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_the_data_cannot_end_its_script() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let provenance = crate::provenance::Provenance::new(&[], String::new(), false);
        let page = html(&[], &[], "t</script><b>", &provenance);
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
    }
}
