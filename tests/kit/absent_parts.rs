//! What a roadmap part's absence means (`op.unknown-name`, `policy.strict`,
//! `outcomes.objects-strict`), judged for every declaration of parts that holds together: an
//! implementation that declares fewer parts than it answers fails exactly the corpus's cases
//! written `without` a part it leaves out, and one that answers as its declaration says passes
//! them all.
//!
//! The one that answers too much is the Python example (which offers every part) declaring
//! fewer through the adapter's `--parts`; the one that answers as declared is the fake, which
//! turns what an undeclared part would accept into what the example rejects (`within_parts` in
//! `tests/fakes/fake_impl.py`).

use crate::common;

use common::{root, text};
use hookcheck::case::Part;
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Output;

/// The roadmap's parts built so far.
const ROADMAP: [Part; 8] = [
    Part::Policy,
    Part::RetryAfter,
    Part::AutoDisable,
    Part::DeadLetters,
    Part::Signatures,
    Part::Throttle,
    Part::Breaker,
    Part::Expiry,
];

/// Every declaration of the brief's three parts and some of the roadmap's that
/// `Part::check_declared` accepts.
fn declarations() -> Vec<Vec<Part>> {
    (0..1u32 << ROADMAP.len())
        .map(|bits| {
            let mut parts = Part::BRIEF.to_vec();
            parts.extend(
                (0..ROADMAP.len())
                    .filter(|i| bits & 1 << i != 0)
                    .map(|i| ROADMAP[i]),
            );
            parts
        })
        .filter(|parts| Part::check_declared(parts).is_ok())
        .collect()
}

fn check(command: &str, fake_parts: &str) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(["check", "--impl", command, "--format", "json"])
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("TMPDIR", common::scratch())
        .env("FAKE_PARTS", fake_parts)
        .output()
        .expect("hookcheck runs")
}

/// The ids of the cases the run judged with `verdict`.
fn judged(o: &Output, verdict: &str) -> BTreeSet<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "case" && e["verdict"] == verdict)
        .filter_map(|e| e["id"].as_str().map(str::to_string))
        .collect()
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn every_declaration_of_fewer_parts_is_held_to_what_their_absence_means() {
    let declarations = declarations();
    // None; 4 with any of 5, 6 and 9 (eight); each of those with 7, and each with 8.
    assert_eq!(declarations.len(), 76, "{declarations:?}");
    held_to_their_absence(declarations);
}

/// The declaration that leaves out every roadmap part, and so is judged by every absence case.
#[test]
fn the_brief_s_parts_alone_are_held_to_what_the_roadmap_s_absence_means() {
    let brief = declarations().swap_remove(0);
    assert_eq!(brief, Part::BRIEF.to_vec());
    held_to_their_absence(vec![brief]);
}

fn held_to_their_absence(declarations: Vec<Vec<Part>>) {
    let corpus = common::corpus();
    for parts in declarations {
        let names: Vec<&str> = parts.iter().map(|p| p.as_str()).collect();
        let list = names.join(",");
        // The cases about an absence that apply to this declaration.
        let absent: BTreeSet<String> = corpus
            .iter()
            .filter(|c| !c.without.is_empty() && c.inapplicable(&parts).is_none())
            .map(|c| c.id.clone())
            .collect();
        // Each roadmap part left out is judged by at least one case of its own absence; Parts 9
        // to 11 only beside Part 4, as their one sign is a key of Part 4's policy (without
        // Part 4, `set_policy` is unknown and Part 4's own cases judge that).
        let observable = |p: &&Part| {
            !matches!(**p, Part::Throttle | Part::Breaker | Part::Expiry)
                || parts.contains(&Part::Policy)
        };
        for left_out in ROADMAP
            .iter()
            .filter(|p| !parts.contains(p))
            .filter(observable)
        {
            assert!(
                corpus.iter().any(|c| c.without.contains(left_out)
                    && absent.contains(&c.id)
                    && !c.steps.is_empty()),
                "{list}: no case judges the absence of `{left_out}`"
            );
        }

        let example = format!(
            "python3 {} {} --parts {list}",
            root()
                .join("harness/adapters/python/hookcheck_adapter.py")
                .display(),
            root().join("examples/python/dispatcher.py").display()
        );
        let too_much = check(&example, "");
        let failed = judged(&too_much, "failed");
        assert_eq!(
            failed,
            absent,
            "{list}: the example answering every part fails exactly the absence cases\n{}",
            text(&too_much)
        );
        assert_eq!(
            too_much.status.code(),
            Some(u8::from(!absent.is_empty()).into()),
            "{list}"
        );

        let fake = format!(
            "python3 {} none no-case-has-this-name",
            root().join("tests/fakes/fake_impl.py").display()
        );
        let as_declared = check(&fake, &list);
        assert_eq!(
            as_declared.status.code(),
            Some(0),
            "{list}: {}",
            text(&as_declared)
        );
        let passed = judged(&as_declared, "passed");
        assert!(
            absent.is_subset(&passed),
            "{list}: {:?} not passed",
            absent.difference(&passed).collect::<Vec<_>>()
        );
    }
}

fn fuzz(command: &str, fake_parts: &str, out: &std::path::Path) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args([
            "fuzz",
            "--impl",
            command,
            "--sequences",
            "256",
            "--seed",
            "7",
        ])
        .args(["--jobs", "2", "--findings", "1", "--out"])
        .arg(out)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("TMPDIR", common::scratch())
        .env("FAKE_PARTS", fake_parts)
        .output()
        .expect("hookcheck runs")
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn fuzz_holds_every_declaration_of_fewer_parts_to_their_absence() {
    let dir = common::fresh("absent-parts-fuzz");
    for parts in declarations() {
        if parts.len() == Part::ALL.len() {
            continue;
        }
        let list = parts
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(",");
        let fake = format!(
            "python3 {} none no-case-has-this-name",
            root().join("tests/fakes/fake_impl.py").display()
        );
        let as_declared = fuzz(&fake, &list, &dir.join("fake"));
        assert_eq!(
            as_declared.status.code(),
            Some(0),
            "{list}: {}",
            text(&as_declared)
        );
        // The example answers every part: the probes of those left out find it.
        let example = format!(
            "python3 {} {} --parts {list}",
            root()
                .join("harness/adapters/python/hookcheck_adapter.py")
                .display(),
            root().join("examples/python/dispatcher.py").display()
        );
        let out = dir.join(list.replace(',', "-"));
        let too_much = fuzz(&example, "", &out);
        assert_eq!(
            too_much.status.code(),
            Some(1),
            "{list}: {}",
            text(&too_much)
        );
        assert!(text(&too_much).contains("MISMATCH"), "{}", text(&too_much));
        // The finding is a case for implementations without the parts its probes are of.
        let found: String = std::fs::read_dir(&out)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .collect();
        let without = found
            .lines()
            .find_map(|l| l.trim().strip_prefix("without: "))
            .unwrap_or_else(|| panic!("{list}: no `without` in\n{found}"));
        assert!(
            Part::ALL
                .iter()
                .filter(|p| !parts.contains(p))
                .any(|p| without.contains(p.as_str())),
            "{list}: {without}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
