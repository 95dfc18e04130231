//! `hookcheck check --format json` against spec/report-events.schema.json: real output of a
//! single and a many-implementation run validates, line by line, and an implementation's event
//! arrives while another is still running.
//!
//! The validator is the subset of JSON Schema the schema uses (type, enum, const, required,
//! properties, additionalProperties, items, oneOf, local $ref, minimum); a test holds the schema
//! to that subset, so that no keyword is silently ignored.

use crate::common;

use common::{python_impl, root};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn schema() -> Value {
    let text = std::fs::read_to_string(root().join("spec/report-events.schema.json"))
        .expect("the schema is there");
    serde_json::from_str(&text).expect("the schema is JSON")
}

/// Where `value` breaks `schema`, as `path: why` lines; empty when it validates.
fn errors(root: &Value, schema: &Value, value: &Value, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let fail = |why: String| vec![format!("{path}: {why}")];
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let name = target.strip_prefix("#/$defs/").expect("a local $ref");
        out.extend(errors(root, &root["$defs"][name], value, path));
    }
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            t => t.as_str().into_iter().collect(),
        };
        let is = |t: &str| match t {
            "null" => value.is_null(),
            "boolean" => value.is_boolean(),
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "number" => value.is_number(),
            "integer" => value.is_i64() || value.is_u64(),
            other => panic!("type {other} is not JSON Schema"),
        };
        if !types.iter().any(|t| is(t)) {
            return fail(format!("{value} is not of type {types:?}"));
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        out.extend(fail(format!("{value} is not one of {allowed:?}")));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        out.extend(fail(format!("{value} is not {constant}")));
    }
    if let (Some(min), Some(n)) = (
        schema.get("minimum").and_then(Value::as_f64),
        value.as_f64(),
    ) && n < min
    {
        out.extend(fail(format!("{n} is below {min}")));
    }
    if let Some(object) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(name) {
                out.extend(fail(format!("`{name}` is missing")));
            }
        }
        for (name, v) in object {
            match properties.and_then(|p| p.get(name)) {
                Some(s) => out.extend(errors(root, s, v, &format!("{path}.{name}"))),
                None if schema.get("additionalProperties") == Some(&json!(false)) => {
                    out.extend(fail(format!("`{name}` is not allowed")));
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, v) in array.iter().enumerate() {
            out.extend(errors(root, items, v, &format!("{path}[{i}]")));
        }
    }
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let matching = options
            .iter()
            .filter(|s| errors(root, s, value, path).is_empty())
            .count();
        if matching != 1 {
            out.extend(fail(format!(
                "matches {matching} of the {} oneOf schemas, not one",
                options.len()
            )));
        }
    }
    out
}

/// Every line of a run's stdout: one event, valid against the schema, with no raw Unicode line
/// end; the events in order.
fn validated(stdout: &str) -> Vec<Value> {
    let schema = schema();
    stdout
        .split('\n')
        .filter(|l| !l.is_empty())
        .map(|line| {
            assert!(!line.contains(['\u{2028}', '\u{2029}', '\r']), "{line}");
            let event: Value = serde_json::from_str(line).expect("each line is JSON");
            let problems = errors(&schema, &schema, &event, "$");
            assert!(problems.is_empty(), "{problems:#?}\nin {line}");
            event
        })
        .collect()
}

fn hookcheck(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("hookcheck runs")
}

/// A name pattern that matches no case: it puts U+2028 and U+2029 in the command line, which
/// every run's provenance repeats.
const LINE_ENDS: &str = "no-such-case-\u{2028}\u{2029}";

#[test]
fn the_schema_uses_only_what_the_validator_knows() {
    fn walk(schema: &Value, at: &str) {
        let known = [
            "$schema",
            "$id",
            "$ref",
            "$defs",
            "title",
            "description",
            "type",
            "enum",
            "const",
            "required",
            "properties",
            "additionalProperties",
            "items",
            "oneOf",
            "minimum",
        ];
        let Some(object) = schema.as_object() else {
            panic!("{at}: a schema is an object");
        };
        for (key, value) in object {
            assert!(
                known.contains(&key.as_str()),
                "{at}: `{key}` is not checked"
            );
            match key.as_str() {
                "$defs" | "properties" => {
                    for (name, s) in value.as_object().into_iter().flatten() {
                        walk(s, &format!("{at}/{key}/{name}"));
                    }
                }
                "items" => walk(value, &format!("{at}/items")),
                "additionalProperties" => assert_eq!(value, &json!(false), "{at}"),
                "oneOf" => {
                    for (i, s) in value.as_array().into_iter().flatten().enumerate() {
                        walk(s, &format!("{at}/oneOf/{i}"));
                    }
                }
                _ => {}
            }
        }
    }
    walk(&schema(), "#");
}

/// Every place the events name parts lists exactly hookcheck's parts, in number order: a part
/// the schema does not know would make real output invalid, one it knows and hookcheck does not
/// would promise what never comes.
#[test]
fn the_schema_names_every_part() {
    let schema = schema();
    let parts: Vec<&str> = hookcheck::case::Part::ALL
        .iter()
        .map(|p| p.as_str())
        .collect();
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let defs = &schema["$defs"];
    assert_eq!(names(&defs["part"]["enum"]), parts);
    assert_eq!(names(&defs["scores"]["required"]), parts);
    let mut rows = parts.clone();
    rows.push("errors");
    assert_eq!(
        names(&defs["summary_one"]["properties"]["parts"]["required"]),
        rows
    );
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let schema = schema();
    let check = |v: Value| errors(&schema, &schema, &v, "$");
    let start = json!({"event": "start", "implementations": 2, "cases": 3, "jobs": 1,
                       "scope": "full", "version": "0.1.0", "corpus": "00"});
    assert_eq!(check(start.clone()), Vec::<String>::new());
    let mut missing = start.clone();
    missing.as_object_mut().map(|o| o.remove("version"));
    assert!(!check(missing).is_empty());
    let mut extra = start.clone();
    extra["surprise"] = json!(1);
    assert!(!check(extra).is_empty());
    let mut wrong = start;
    wrong["scope"] = json!("half");
    assert!(!check(wrong).is_empty());
    assert!(!check(json!({"event": "case"})).is_empty());
}

#[test]
fn a_single_run_matches_the_schema_and_names_the_differing_step() {
    let out = hookcheck(&[
        "check",
        "--impl",
        "tests/fakes/subtle_bug.py",
        "--format",
        "json",
        "pause",
        LINE_ENDS,
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let events = validated(&String::from_utf8_lossy(&out.stdout));
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"start"));
    assert_eq!(kinds.last(), Some(&"summary"));
    let cases: Vec<&Value> = events.iter().filter(|e| e["event"] == "case").collect();
    assert_eq!(Some(cases.len() as u64), events[0]["cases"].as_u64());
    assert_eq!(events[0]["version"], env!("CARGO_PKG_VERSION"));
    let failed: Vec<&&Value> = cases.iter().filter(|c| c["verdict"] == "failed").collect();
    assert!(!failed.is_empty(), "the planted bug fails some pause case");
    for c in failed {
        let step = &c["step"];
        assert!(
            step["index"].is_u64() && step["operation"].is_array(),
            "{c}"
        );
        assert_ne!(step["expected"], step["actual"], "{c}");
    }
    let summary = &events[events.len() - 1];
    let provenance = &summary["provenance"];
    assert_eq!(provenance["corpus"], events[0]["corpus"]);
    assert!(
        provenance["command"]
            .as_str()
            .is_some_and(|c| c.contains('\u{2028}')),
        "the raw line end is in the command, escaped in the line: {provenance}"
    );
    assert_eq!(summary["success"], false);
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_many_run_matches_the_schema_and_counts_what_could_not_start() {
    let dead = format!("exit 3 # {LINE_ENDS}");
    let out = hookcheck(&[
        "check",
        "--impl",
        "examples/python/dispatcher.py",
        "--impl",
        "tests/fakes/subtle_bug.py",
        "--impl",
        &dead,
        "--format",
        "json",
        "pause",
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let events = validated(&String::from_utf8_lossy(&out.stdout));
    let mut implementations: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "implementation")
        .collect();
    implementations.sort_by_key(|e| e["index"].as_u64());
    let passed: Vec<&Value> = implementations.iter().map(|e| &e["passed"]).collect();
    assert_eq!(passed, [&json!(true), &json!(false), &json!(false)]);
    assert_eq!(implementations[2]["command"], dead.as_str());
    let failed_step = implementations[1]["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["verdict"] == "failed")
        .map(|c| c["step"].clone());
    assert!(
        failed_step.is_some_and(|s| s["operation"].is_array()),
        "{}",
        implementations[1]
    );
    let summary = events.last().expect("a summary");
    assert_eq!(
        (
            &summary["passing"],
            &summary["failing"],
            &summary["could_not_start"]
        ),
        (&json!(1), &json!(1), &json!(1))
    );
    assert_eq!(summary["provenance"]["version"], events[0]["version"]);
}

/// With two implementations, one that answers and one that hangs on a case with a long timeout,
/// the first one's event is read while the run goes on; SIGTERM then ends the run, which still
/// reports the other and the summary.
#[test]
fn an_implementation_is_reported_while_another_still_runs() {
    let hangs = format!(
        "python3 {} hang classify-retryable-statuses",
        root().join("tests/fakes/fake_impl.py").display()
    );
    let answers = python_impl("examples/python/dispatcher.py");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args([
            "check",
            "--impl",
            &answers,
            "--impl",
            &hangs,
            "--timeout",
            "120",
            "--jobs",
            "2",
            "--format",
            "json",
            "retries",
        ])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("hookcheck starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (lines, read) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let began = Instant::now();
    let mut seen = Vec::new();
    let first = loop {
        let Ok(line) = read.recv_timeout(Duration::from_secs(60)) else {
            // SIGTERM, not SIGKILL: hookcheck then stops the hanging implementation too.
            terminate(&child);
            let _ = child.wait();
            panic!("no implementation event within 60 s: {seen:?}");
        };
        let event: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        seen.push(line);
        if event["event"] == "implementation" {
            break event;
        }
    };
    let still_running = matches!(child.try_wait(), Ok(None));
    let waited = began.elapsed();
    terminate(&child);
    seen.extend(read.iter());
    let _ = child.wait();
    assert!(still_running, "the run had ended already: {seen:?}");
    assert!(waited < Duration::from_secs(60), "{waited:?}");
    assert_eq!(first["index"], 0, "{first}");
    assert_eq!(first["passed"], true, "{first}");
    let events = validated(&seen.join("\n"));
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(
        kinds,
        ["start", "implementation", "implementation", "summary"],
        "{seen:?}"
    );
    assert_eq!(events[2]["index"], 1);
    assert_eq!(events[2]["passed"], false);
}

fn terminate(child: &std::process::Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
}

/// A hidden case (the brief's worked example under another id) in a folder of its own.
fn hidden_folder(test: &str) -> std::path::PathBuf {
    let dir = common::fresh(&format!("events-hidden-{test}"));
    let example = std::fs::read_to_string(root().join("cases/retries/worked-example.yaml"))
        .expect("the worked example");
    let hidden = example.replace("id: brief-worked-example", "id: grader-worked-example");
    assert_ne!(hidden, example);
    std::fs::write(dir.join("hidden.yaml"), hidden).expect("hidden case");
    dir
}

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn hidden_cases_and_generated_workloads_match_the_schema() {
    let hidden = hidden_folder("one");
    let hidden = hidden.to_str().expect("utf-8 path");
    let apart = ["--hidden", hidden, "--generated", "30", "--seed", "4"];
    let one = [
        &[
            "check",
            "--impl",
            "tests/fakes/subtle_bug.py",
            "--format",
            "json",
        ][..],
        &apart,
    ]
    .concat();
    let out = hookcheck(&one);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let events = validated(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(events[0]["hidden"], 1);
    let groups: Vec<&Value> = events.iter().map(|e| &e["group"]).collect();
    assert!(groups.contains(&&json!("hidden")), "{events:?}");
    assert!(
        groups.contains(&&json!("generated")),
        "the planted bug fails a workload"
    );
    let summary = events.last().expect("a summary");
    assert_eq!(summary["hidden"]["passed"], 1);
    assert_eq!(summary["generated"]["workloads"], 30);

    let many = [
        &[
            "check",
            "--impl",
            "tests/fakes/subtle_bug.py",
            "--impl",
            "exit 3",
            "--format",
            "json",
        ][..],
        &apart,
    ]
    .concat();
    let out = hookcheck(&many);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let events = validated(&String::from_utf8_lossy(&out.stdout));
    let dead = events
        .iter()
        .find(|e| e["event"] == "implementation" && e["started"] == false)
        .expect("the dead one");
    assert_eq!(dead["generated"]["run"], 0);
    assert_eq!(dead["generated"]["not_run"], 30);
    assert_eq!(dead["hidden"]["not_run"], 1);
}

/// A bundle of a run with a passing, a failing and a dead implementation, one with
/// expectations, validates against spec/bundle.schema.json; so does a single run's.
#[test]
fn bundles_validate_against_their_schema() {
    let text = std::fs::read_to_string(root().join("spec/bundle.schema.json")).expect("schema");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    let dir = common::fresh("bundle-schema");
    std::fs::write(
        dir.join("known.toml"),
        "[[failure]]\ncase = \"pause::pause-replay-ahead-of-a-fresh-head\"\nreason = \"r\"\n",
    )
    .expect("expectations");
    std::fs::write(
        dir.join("grading.toml"),
        format!(
            "[[implementation]]\nname = \"good\"\ncommand = \"{} serve\"\n\n\
             [[implementation]]\nname = \"bad\"\ncommand = \"{}\"\nexpect = \"known.toml\"\n\n\
             [[implementation]]\nname = \"dead\"\ncommand = \"exit 3\"\n",
            env!("CARGO_BIN_EXE_hookcheck"),
            python_impl("tests/fakes/subtle_bug.py")
        ),
    )
    .expect("a manifest");
    for (args, bundle) in [
        (&["--manifest", "grading.toml"][..], "many.json"),
        (&["--part", "retries"][..], "one.json"),
        (
            &["--manifest", "grading.toml", "--shard", "hash:2/2"][..],
            "shard.json",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_hookcheck"))
            .arg("check")
            .args(args)
            .args(["--bundle", bundle])
            .current_dir(&dir)
            .output()
            .expect("hookcheck runs");
        assert!(matches!(out.status.code(), Some(0 | 1)), "{out:?}");
        let value: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(bundle)).expect("a bundle"))
                .expect("a bundle is JSON");
        let problems = errors(&schema, &schema, &value, "$");
        assert!(problems.is_empty(), "{bundle}: {problems:#?}");
    }
}
