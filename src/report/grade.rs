//! Reports of a run over many implementations: the grade table (implementation × part, in
//! full and for the brief alone), one line per implementation in the brief's terms, and the same
//! as JSON lines, one event per implementation.

use super::{Judged, Model, Style};
use crate::case::Part;
use crate::grade::{self, Grade, Graded};
use crate::inert::{LINE_LIMIT, clip, clip_report, terminal_line};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// The human report: one line per implementation, then the grade table, then (verbose) every
/// failure report by implementation.
pub fn human(model: &Model, style: Style, verbose: bool, seconds: f64) -> String {
    let (cases, graded) = (model.cases, model.graded);
    let passed: Vec<bool> = graded.iter().map(|g| g.passed).collect();
    let mut out = String::new();
    // Names come from manifests and folder names: shown inert, and measured as shown.
    let shown: Vec<String> = graded
        .iter()
        .map(|g| terminal_line(&clip(&g.entry.name, LINE_LIMIT)))
        .collect();
    let width = shown
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(14)
        .clamp(14, 32);
    let name = |n: &str| -> String {
        if n.chars().count() <= width {
            n.to_string()
        } else {
            // Both ends: names of one folder share a start, commands differ at the end.
            let chars: Vec<char> = n.chars().collect();
            let head = (width - 1) / 2;
            let tail = width - 1 - head;
            let (start, end): (String, String) = (
                chars[..head].iter().collect(),
                chars[chars.len() - tail..].iter().collect(),
            );
            format!("{start}…{end}")
        }
    };
    for ((g, judged), shown) in model.rows().zip(&shown) {
        let text = terminal_line(&clip(&judged.line, LINE_LIMIT));
        let line = if g.started.is_err() {
            style.red(&text)
        } else if judged.grade.all_passed() {
            style.green(&text)
        } else {
            text
        };
        let _ = writeln!(out, "{:<width$}  {line}", name(shown));
    }
    // A column per part in full, then one per part for the brief alone, each as wide as its
    // widest cell: "not implemented" widens only the columns of a part some implementation
    // leaves out.
    let headers: Vec<String> = Part::ALL
        .iter()
        .map(|p| format!("Part {}", p.number()))
        .chain(Part::ALL.iter().map(|p| format!("brief {}", p.number())))
        .collect();
    let rows: Vec<Vec<(String, bool)>> =
        model.judged.iter().map(|j| score_cells(&j.grade)).collect();
    let widths: Vec<usize> = (0..headers.len())
        .map(|k| {
            rows.iter()
                .map(|r| r[k].0.chars().count())
                .chain([headers[k].len(), 9])
                .max()
                .unwrap_or(9)
        })
        .collect();
    // The full columns, then a wider gap, then the brief columns.
    let join = |cells: Vec<String>| -> String {
        let (full, brief) = cells.split_at(grade::PARTS);
        format!("{}   {}", full.join(" "), brief.join(" "))
    };
    let _ = writeln!(
        out,
        "\n{:<width$}  {:<6} {:>6} {:>6}   {}",
        "grade",
        "",
        "score",
        "brief",
        join(
            headers
                .iter()
                .zip(&widths)
                .map(|(h, w)| format!("{h:>w$}"))
                .collect()
        )
    );
    for (((judged, shown), verdict), cells) in
        model.judged.iter().zip(&shown).zip(&passed).zip(&rows)
    {
        let (score, brief) = judged.grade.score();
        let percent =
            |s: crate::grade::Score| s.percent().map_or("-".to_string(), |p| format!("{p}%"));
        let mark = if *verdict {
            style.green("✓ pass")
        } else {
            style.red("✗ fail")
        };
        let cells: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|((text, failing), w)| {
                let text = format!("{text:>w$}");
                if *failing { style.red(&text) } else { text }
            })
            .collect();
        let _ = writeln!(
            out,
            "{:<width$}  {mark} {:>6} {:>6}   {}",
            name(shown),
            percent(score),
            percent(brief),
            join(cells)
        );
    }
    let _ = writeln!(
        out,
        "{:<width$}  (score: cases passed of those that apply, all parts; brief: the brief's own cases \
         judged by the brief alone; {}; not implemented: a part the implementation does not \
         declare)",
        "",
        part_legend()
    );
    // Why an implementation could not start is its whole story: said in full, not only with
    // --verbose.
    for (g, shown) in graded.iter().zip(&shown) {
        if let Err(why) = &g.started {
            let command = g.entry.command.as_deref().unwrap_or("the reference");
            let _ = write!(
                out,
                "\n[{shown}] could not start: `{}`\n{}\n",
                terminal_line(command),
                crate::inert::terminal(&crate::inert::clip_report(why))
                    .lines()
                    .map(|l| format!("  {l}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
    // What each implementation made of the cases graded apart: a line each, the failures
    // themselves with --verbose.
    let apart: Vec<String> = graded
        .iter()
        .zip(&shown)
        .flat_map(|(g, shown)| {
            super::apart::lines(&g.apart, style)
                .into_iter()
                .map(move |line| format!("{:<width$}  {line}", name(shown)))
        })
        .collect();
    if !apart.is_empty() {
        let _ = write!(out, "\n{}\n", apart.join("\n"));
    }
    if verbose {
        for ((g, judged), shown) in model.rows().zip(&shown) {
            for (c, v) in cases.iter().zip(&judged.verdicts) {
                let text = super::human_case(c, v, style, false);
                if !text.is_empty() {
                    let _ = write!(out, "\n[{shown}] {text}");
                }
            }
            let text = super::apart::human(&g.apart, style, false);
            if !text.is_empty() {
                let _ = write!(out, "\n[{shown}]{text}");
            }
        }
    }
    let passing = passed.iter().filter(|p| **p).count();
    let dead = graded.iter().filter(|g| g.started.is_err()).count();
    let verdict = if passing == graded.len() {
        style.green("PASSED")
    } else {
        style.red("FAILED")
    };
    let _ = writeln!(
        out,
        "\n{verdict}: {} implementations, {passing} pass every case, {} fail some, {dead} could not start \
         ({} each, {seconds:.2} s)",
        graded.len(),
        graded.len() - passing - dead,
        crate::wording::count(cases.len(), "case", "cases")
    );
    out
}

/// The grade's cells, part by part in full then for the brief alone, each with whether it shows
/// failures: a part the implementation does not declare is `not implemented` in full (and `-`,
/// no case, for the brief alone).
pub fn score_cells(grade: &Grade) -> Vec<(String, bool)> {
    let full = grade.full.iter().enumerate().map(|(p, s)| {
        if grade.not_implemented(p) {
            ("not implemented".to_string(), false)
        } else {
            (s.show(), s.total > 0 && s.passed < s.total)
        }
    });
    let brief = grade
        .brief
        .iter()
        .map(|s| (s.show(), s.total > 0 && s.passed < s.total));
    full.chain(brief).collect()
}

/// `Part 1 retries, Part 2 ordering, ...`: what the numbered columns are.
pub fn part_legend() -> String {
    Part::ALL
        .iter()
        .map(|p| format!("Part {} {p}", p.number()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One JSON object per implementation: its name and command, how it started, the run's verdict
/// on it, its grade and its grade in the brief's terms, and every case as in a single run.
/// `index`: its place in the run's order of implementations (events come as each finishes).
pub fn json_implementation(
    cases: &[crate::case::Case],
    g: &Graded,
    judged: &Judged,
    index: usize,
) -> String {
    let (verdicts, tally, grade) = (&judged.verdicts, judged.tally, &judged.grade);
    let scores = |scores: &[crate::grade::Score; crate::grade::PARTS]| -> Value {
        Part::ALL
            .iter()
            .zip(scores)
            .map(|(p, s)| {
                (
                    p.as_str().to_string(),
                    json!({"passed": s.passed, "total": s.total, "not_run": s.not_run}),
                )
            })
            .collect::<serde_json::Map<String, Value>>()
            .into()
    };
    let scope = g.scope.with_numbers(g.numbers());
    // Parts it does not declare; none is known of one that could not start.
    let not_implemented: Vec<&str> = (0..grade::PARTS)
        .filter(|p| grade.not_implemented(*p))
        .map(|p| Part::ALL[p].as_str())
        .collect();
    let mut event = json!({
        "event": "implementation",
        "index": index,
        "name": clip(&g.entry.name, LINE_LIMIT),
        "command": g.entry.command,
        "started": g.started.is_ok(),
        "passed": g.passed,
        "describe": g.started.as_ref().map(|s| clip(&s.describe, LINE_LIMIT)).ok(),
        "startup_error": g.started.as_ref().err().map(|e| clip_report(e)),
        "grade": {"full": scores(&grade.full), "brief": scores(&grade.brief)},
        "not_implemented": not_implemented,
        "numbers": g.started.as_ref().ok().map(|s| s.numbers.as_str()),
        "numbers_refused": g.started.as_ref().is_ok_and(|s| s.numbers_refused),
        "steps_not_applicable": judged.left_out,
        "brief_terms": grade.in_brief_terms(),
        "total": tally.to_json(),
        "cases": cases.iter().zip(verdicts).zip(g.ran.iter().zip(&g.slow)).enumerate()
            .map(|(i, ((c, v), (ran, slow)))| super::json::flagged(
                super::json::case(c, v, ran, scope, *slow),
                g,
                i,
            ))
            .collect::<Vec<Value>>(),
    });
    super::json::apart_fields(&mut event, &g.apart);
    let apart = super::json::apart_cases(&g.apart, scope);
    if !apart.is_empty() {
        // The same case fields as `cases`, without the `event` a single run's events carry.
        event["apart"] = apart
            .into_iter()
            .map(|mut c| {
                if let Value::Object(fields) = &mut c {
                    fields.remove("event");
                }
                c
            })
            .collect::<Vec<Value>>()
            .into();
    }
    super::json::line(&event)
}
