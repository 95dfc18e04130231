//! `--origin brief` checks only what the brief states: an implementation that decides every
//! clarification differently passes it, and fails the full corpus.

use crate::common;

use hookcheck::case::{Case, Inapplicable, Origin, Part};
use hookcheck::implementation::{Options, Subprocess};
use hookcheck::runner::{Selection, Verdict, check_all};

fn run(selection: &Selection) -> (Vec<Case>, Vec<Verdict>) {
    let cases: Vec<Case> = common::corpus()
        .into_iter()
        .filter(|c| selection.matches(c))
        .collect();
    let command = common::python_impl("tests/fakes/clarification_variant.py");
    let implementation = Subprocess::start(&command, Options::default());
    let verdicts = check_all(&implementation, &cases, selection.scope(), 2);
    (cases, verdicts)
}

#[test]
fn clarification_variant_passes_the_brief_only_run() {
    let selection = Selection {
        origins: vec![Origin::Brief],
        ..Selection::default()
    };
    let (cases, verdicts) = run(&selection);
    assert!(cases.len() >= 40, "only {} brief cases", cases.len());
    // The variant implements the brief's three parts; the roadmap's are not implemented there.
    for (c, v) in cases.iter().zip(&verdicts) {
        if Part::BRIEF.contains(&c.part) {
            assert_eq!(v, &Verdict::Passed, "{}", c.name());
        } else {
            assert_eq!(
                v,
                &Verdict::NotApplicable(Inapplicable::NotImplemented(c.part)),
                "{}",
                c.name()
            );
        }
    }
}

#[test]
fn clarification_variant_fails_the_full_run() {
    let (cases, verdicts) = run(&Selection::default());
    let failed: Vec<String> = cases
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| matches!(v, Verdict::Failed(_)))
        .map(|(c, _)| c.name())
        .collect();
    // Clarification cases fail, and so do brief cases on their `clarified` steps (which the
    // brief-only run above does not compare).
    assert!(failed.len() >= 10, "{failed:?}");
    let origin_of = |name: &String| cases.iter().find(|c| &c.name() == name).map(|c| c.origin);
    assert!(
        failed
            .iter()
            .any(|n| origin_of(n) == Some(Origin::Clarification)),
        "{failed:?}"
    );
    assert!(
        failed.iter().any(|n| origin_of(n) == Some(Origin::Brief)),
        "{failed:?}"
    );
}
