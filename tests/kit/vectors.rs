//! The Standard Webhooks vectors of `spec/vectors/` hold: the independent checker recomputes
//! every signature and verification with Python's standard library, the roadmap's known answer
//! is among them, and a vector with one wrong character is caught.

use crate::common::{root, scratch};
use std::process::{Command, Output};

fn checker(args: &[&str], stdin: Option<&std::path::Path>) -> Output {
    let mut c = Command::new("python3");
    c.arg(root().join("harness/vectors/check_signatures.py"))
        .args(args)
        .current_dir(root());
    if let Some(file) = stdin {
        c.stdin(std::fs::File::open(file).expect("the input"));
    }
    c.output().expect("python3 runs")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

#[test]
fn the_vectors_and_the_fixture_recompute_and_hold_the_known_answer() {
    let vectors = root().join("spec/vectors/signatures.json");
    let out = checker(&["--vectors", &vectors.display().to_string()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains(": 0 mismatches"), "{}", text(&out));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&vectors).expect("the vectors"))
            .expect("JSON");
    let known = json["sign"]
        .as_array()
        .expect("signing vectors")
        .iter()
        .find(|v| v["name"] == "known-answer")
        .expect("the known answer");
    assert_eq!(known["secret"], "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    assert_eq!(known["id"], "msg_p5jXN8AQM9LWM0D4loKWxJek");
    assert_eq!(known["timestamp"], "1614265330");
    assert_eq!(known["body"], r#"{"test": 2432232314}"#);
    assert_eq!(
        known["signature"],
        "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    );
    let fixture = root().join("harness/vectors/fixture.json");
    let out = checker(&[], Some(&fixture));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains(": 0 mismatches"), "{}", text(&out));
}

#[test]
fn a_vector_with_one_wrong_character_is_caught() {
    let text_of =
        std::fs::read_to_string(root().join("spec/vectors/signatures.json")).expect("the vectors");
    let planted = text_of.replacen("g0hM9SsE", "g0hM9SsF", 1);
    assert_ne!(planted, text_of);
    let file = scratch().join("planted-signatures.json");
    std::fs::write(&file, planted).expect("a copy");
    let out = checker(&["--vectors", &file.display().to_string()], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("known-answer"), "{}", text(&out));
}

/// Every `signature` and `verify` expectation of the corpus's Part 8 cases, recomputed by the
/// independent checker (Python's `hmac`, from the spec's text): the kit's expectations do not
/// come from the reference.
#[test]
fn every_signature_case_of_the_corpus_recomputes() {
    let corpus = hookcheck::corpus::Corpus::builtin();
    assert!(corpus.errors.is_empty(), "{:?}", corpus.errors);
    let cases: Vec<serde_json::Value> = corpus
        .cases
        .iter()
        .filter(|c| c.part == hookcheck::case::Part::Signatures)
        .map(|c| {
            let steps: Vec<serde_json::Value> = c
                .steps
                .iter()
                .map(|s| serde_json::json!({"op": s.op, "expect": s.expect}))
                .collect();
            serde_json::json!({"name": c.name(), "steps": steps})
        })
        .collect();
    assert!(cases.len() >= 15, "{} signature cases", cases.len());
    let file = scratch().join("signature-cases.json");
    let doc = serde_json::json!({ "cases": cases });
    std::fs::write(&file, doc.to_string()).expect("the cases as JSON");
    let out = checker(&[], Some(&file));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains(": 0 mismatches"), "{said}");
    // The count line names how many steps were recomputed: most of the part's steps.
    let checked: usize = said
        .lines()
        .last()
        .and_then(|line| line.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(checked >= 100, "only {checked} steps recomputed: {said}");
}
