//! `--sandbox` against hostile submissions: each is the example dispatcher with something
//! hostile done at import time, which exits the submission (`ESCAPED`) when it works, so a
//! contained attempt leaves a submission that passes every case. Where it is safe to, the same
//! submission is also run without the sandbox, to show the attempt is real.
//!
//! They need bwrap; `.ci/run` installs bubblewrap and runs them with `--ignored`.

use crate::common;

use common::{hookcheck, root, text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// A folder of its own per test (tests run in parallel).
fn folder(test: &str) -> PathBuf {
    common::scratch().join(format!("hookcheck-sandbox-{test}-{}", std::process::id()))
}

/// `folder(test)`, made afresh, holding `sub/solution.py`: `hostile` then the example.
fn submission(test: &str, hostile: &str) -> (PathBuf, PathBuf) {
    let dir = folder(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).expect("folder");
    let example =
        std::fs::read_to_string(root().join("examples/python/dispatcher.py")).expect("example");
    let solution = dir.join("sub/solution.py");
    std::fs::write(&solution, format!("{hostile}\n{example}")).expect("solution");
    (dir, solution)
}

fn adapter() -> String {
    root()
        .join("harness/adapters/python/hookcheck_adapter.py")
        .display()
        .to_string()
}

/// `hookcheck check` of every `sub/solution.py` of `dir` (one here) through the adapter, JSON
/// events out, one case at a time.
fn check(dir: &Path, more: &[&str]) -> Output {
    let command = format!("python3 {} {{path}}", adapter());
    let mut args = vec![
        "check", "--impl", &command, "--each", "sub/*.py", "--format", "json", "--jobs", "1",
    ];
    args.extend(more);
    hookcheck(dir, &args)
}

fn summary(o: &Output) -> Value {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["event"] == "summary")
        .unwrap_or(Value::Null)
}

/// The run went on to a verdict, and every case passed: the hostile part changed nothing.
#[track_caller]
fn assert_contained(o: &Output) {
    let s = summary(o);
    assert_eq!(s["success"], true, "{}", text(o));
    assert_eq!(s["total"]["errored"], 0, "{}", text(o));
    assert!(s["total"]["passed"].as_u64() > Some(50), "{}", text(o));
}

/// The run could not start the submission: it exited, saying ESCAPED.
#[track_caller]
fn assert_escaped(o: &Output) {
    assert_eq!(o.status.code(), Some(2), "{}", text(o));
    assert!(text(o).contains("ESCAPED"), "{}", text(o));
}

/// Pids of the processes whose command line holds `token`.
fn processes_with(token: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(token))
        })
        .collect()
}

fn process_count() -> usize {
    std::fs::read_dir("/proc").map_or(0, |d| {
        d.flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .count()
    })
}

#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn writing_home_or_the_real_home_is_contained() {
    let real = std::env::var("HOME").unwrap_or_else(|_| "/root".to_string());
    let token = format!("hookcheck-sandbox-{}", std::process::id());
    let (dir, _) = submission(
        "home",
        &format!(
            r#"
import os
for path in [os.path.join(os.environ["HOME"], "{token}"), "{real}/{token}", "/root/{token}"]:
    try:
        with open(path, "w") as f:
            f.write("x")
    except OSError:
        continue
    if not path.startswith("/tmp/"):
        raise SystemExit("ESCAPED: wrote " + path)
"#
        ),
    );
    let out = check(&dir, &["--sandbox"]);
    assert_contained(&out);
    for home in [real.as_str(), "/root"] {
        let written = Path::new(home).join(&token);
        assert!(!written.exists(), "{} was written", written.display());
    }
}

#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn reading_a_file_outside_the_submission_s_folder_is_contained() {
    let secret = folder("secret").join("other/secret.txt");
    let (dir, _) = submission(
        "secret",
        &format!(
            r#"
try:
    leaked = open("{}").read()
except OSError:
    leaked = None
if leaked is not None:
    raise SystemExit("ESCAPED: read " + leaked)
"#,
            secret.display()
        ),
    );
    std::fs::create_dir_all(dir.join("other")).expect("folder");
    std::fs::write(&secret, "the other submission's answers").expect("secret");
    // The manifest's key, and its glob: the submission's folder is sub/, not dir.
    std::fs::write(
        dir.join("grading.toml"),
        format!(
            "[[implementation]]\nglob = \"sub/*.py\"\ncommand = \"python3 {} {{path}}\"\nsandbox = true\n",
            adapter()
        ),
    )
    .expect("manifest");
    let out = hookcheck(
        &dir,
        &[
            "check",
            "--manifest",
            "grading.toml",
            "--format",
            "json",
            "--jobs",
            "1",
        ],
    );
    assert_contained(&out);
    assert_escaped(&check(&dir, &[]));
}

#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn connecting_to_the_grader_s_machine_is_contained() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listens");
    let port = listener.local_addr().expect("address").port();
    let (dir, _) = submission(
        "network",
        &format!(
            r#"
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
except OSError:
    pass
else:
    raise SystemExit("ESCAPED: connected to port {port}")
"#
        ),
    );
    let out = check(&dir, &["--sandbox"]);
    assert_contained(&out);
    listener.set_nonblocking(true).expect("non-blocking");
    assert!(
        listener.accept().is_err(),
        "a connection came from the sandbox"
    );
    assert_escaped(&check(&dir, &[]));
}

#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn a_fork_bomb_is_contained_and_the_run_goes_on() {
    let (dir, solution) = submission(
        "fork",
        r#"
import os, time
forked = 0
for _ in range(10000):
    try:
        pid = os.fork()
    except OSError:
        continue
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    forked += 1
if forked >= 10000:
    raise SystemExit("ESCAPED: forked 10000 processes")
"#,
    );
    let before = process_count();
    let done = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicUsize::new(before));
    let watcher = {
        let (done, peak) = (Arc::clone(&done), Arc::clone(&peak));
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                peak.fetch_max(process_count(), Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let out = check(&dir, &["--sandbox", "--sandbox-processes", "100"]);
    done.store(true, Ordering::SeqCst);
    let _ = watcher.join();
    assert_contained(&out);
    let peak = peak.load(Ordering::SeqCst);
    // 100 in the sandbox, and whatever else the machine started meanwhile.
    assert!(
        peak < before + 500,
        "{before} processes before, {peak} at the peak"
    );
    let token = solution.display().to_string();
    assert_eq!(processes_with(&token), Vec::<u32>::new(), "left running");
}

/// The child moves to a session of its own, says it started, and would write its marker 2 s
/// later. Contained with the sandbox (its PID namespace) and, since hookcheck is the subreaper of
/// what it starts, without it too.
#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn a_setsid_child_dies_with_the_sandbox() {
    let token = format!("hookcheck-setsid-{}", std::process::id());
    let marker = folder("setsid").join("marker");
    let started = folder("setsid-started").join("up");
    let _ = std::fs::remove_dir_all(folder("setsid-started"));
    std::fs::create_dir_all(folder("setsid-started")).expect("folder");
    let (dir, _) = submission(
        "setsid",
        &format!(
            r#"
import os
if os.fork() == 0:
    os.setsid()
    os.execvp("sh", ["sh", "-c", 'echo up >> "$2"; sleep 2; echo alive > "$1"', "{token}", "{}", "{}"])
"#,
            marker.display(),
            started.display()
        ),
    );
    for sandboxed in [true, false] {
        let flags: &[&str] = if sandboxed { &["--sandbox"] } else { &[] };
        let out = check(&dir, flags);
        assert_contained(&out);
        assert_eq!(
            processes_with(&token),
            Vec::<u32>::new(),
            "outlived the run (sandbox: {sandboxed})"
        );
        std::thread::sleep(Duration::from_secs(3));
        assert!(
            !marker.exists(),
            "the setsid child wrote its marker (sandbox: {sandboxed})"
        );
    }
    // The attack did run (without the sandbox, where it can write outside its folder).
    assert!(started.exists(), "the test's child never started");
}

/// The events of a run that depend on the implementation's answers only: the case verdicts and
/// the totals.
fn verdicts(o: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|mut e| match e["event"].as_str() {
            // Its time is the run's own: never the same twice.
            Some("case") => {
                e.as_object_mut().map(|m| m.remove("seconds"));
                Some(e)
            }
            Some("summary") => Some(e["total"].clone()),
            _ => None,
        })
        .collect()
}

#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn a_correct_submission_passes_the_same_cases_sandboxed() {
    let python = format!("python3 {} examples/python/dispatcher.py", adapter());
    // Per-case mode starts a sandbox per case: the reference served once per case, declaring
    // every part it offers (per-case mode has no handshake to say so).
    let per_case = format!("{} serve --per-case", env!("CARGO_BIN_EXE_hookcheck"));
    let every_part = hookcheck::case::Part::ALL
        .map(hookcheck::case::Part::as_str)
        .join(",");
    let per_case_mode = ["--per-case", "--parts", every_part.as_str()];
    for (command, mode) in [(&python, &[][..]), (&per_case, &per_case_mode[..])] {
        let mut plain = vec!["check", "--impl", command, "--format", "json"];
        plain.extend(mode);
        let mut sandboxed = plain.clone();
        sandboxed.push("--sandbox");
        let (a, b) = (hookcheck(root(), &plain), hookcheck(root(), &sandboxed));
        assert_eq!(summary(&a)["success"], true, "{}", text(&a));
        assert_eq!(verdicts(&a), verdicts(&b), "{command}\n{}", text(&b));
    }
}

#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn without_bwrap_sandbox_is_a_configuration_error_naming_the_package() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(["check", "--sandbox", "--impl", "true"])
        .env("PATH", "/nonexistent")
        .output()
        .expect("hookcheck runs");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("bubblewrap"), "{}", text(&out));
}

/// A glob of folders (`subs/*` with `cd {path}`): each sandbox holds its own folder, not the
/// folder of all of them. Each submission reads the other's solution when it can see it.
#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn a_glob_of_folders_shows_each_submission_only_its_own() {
    let (dir, solution) = submission(
        "folders",
        r#"
import os
here = os.path.basename(os.getcwd())
for other in ("alice", "bob"):
    try:
        leaked = open(f"../{other}/solution.py").read() if other != here else None
    except OSError:
        leaked = None
    if leaked is not None:
        raise SystemExit(f"ESCAPED: {here} read {other}'s solution")
"#,
    );
    for who in ["alice", "bob"] {
        std::fs::create_dir_all(dir.join("subs").join(who)).expect("folder");
        std::fs::copy(&solution, dir.join("subs").join(who).join("solution.py")).expect("copy");
    }
    let manifest = |sandbox: &str| {
        format!(
            "[[implementation]]\nglob = \"subs/*\"\nname = \"{{stem}}\"\n\
             command = \"cd {{path}} && python3 {} solution.py\"\n{sandbox}",
            adapter()
        )
    };
    std::fs::write(dir.join("grading.toml"), manifest("sandbox = true\n")).expect("manifest");
    let args = ["check", "--manifest", "grading.toml", "--format", "json"];
    let out = hookcheck(&dir, &args);
    assert_eq!(summary(&out)["passing"], 2, "{}", text(&out));
    std::fs::write(dir.join("grading.toml"), manifest("")).expect("manifest");
    let out = hookcheck(&dir, &args);
    assert_eq!(summary(&out)["could_not_start"], 2, "{}", text(&out));
    assert!(text(&out).contains("ESCAPED"), "{}", text(&out));
}

/// A key in the grader's session keyring (an SSH agent's, a cloud login's, Kerberos tickets live
/// there) is out of the submission's reach: the sandbox starts with a session keyring of its
/// own. Without the sandbox the same submission reads the key. The key is added to a session
/// keyring this test thread joins, which hookcheck inherits as a grader's shell would pass it on.
#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn the_grader_s_session_keyring_is_out_of_reach() {
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    const KEY_SPEC_SESSION_KEYRING: libc::c_long = -3;
    let name =
        std::ffi::CString::new(format!("hookcheck-test-{}", std::process::id())).expect("a name");
    let description =
        std::ffi::CString::new(format!("hookcheck-secret-{}", std::process::id())).expect("text");
    let secret = b"the grader's token";
    // SAFETY: keyctl and add_key read the NUL-terminated strings and the payload they are given.
    let (joined, serial) = unsafe {
        let joined = libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, name.as_ptr());
        let serial = libc::syscall(
            libc::SYS_add_key,
            c"user".as_ptr(),
            description.as_ptr(),
            secret.as_ptr(),
            secret.len(),
            KEY_SPEC_SESSION_KEYRING,
        );
        (joined, serial)
    };
    assert!(
        joined >= 0 && serial >= 0,
        "keyrings are not available on this machine (keyctl: {}), so this cannot be tested here",
        std::io::Error::last_os_error()
    );
    let (dir, _) = submission(
        "keyring",
        &format!(
            r#"
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
SYS_keyctl = {sys_keyctl}
KEYCTL_SEARCH, KEYCTL_READ, KEY_SPEC_SESSION_KEYRING = 10, 11, -3
found = []
for key in (libc.syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, b"user",
                         b"{description}", 0), {serial}):
    buf = ctypes.create_string_buffer(256)
    n = libc.syscall(SYS_keyctl, KEYCTL_READ, key, buf, 256)
    if n > 0:
        found.append(buf.raw[:n].decode(errors="replace"))
if found:
    raise SystemExit("ESCAPED: read the grader's key: " + found[0])
"#,
            description = description.to_string_lossy(),
            sys_keyctl = libc::SYS_keyctl
        ),
    );
    let out = check(&dir, &["--sandbox"]);
    assert_contained(&out);
    let plain = check(&dir, &[]);
    assert_escaped(&plain);
    assert!(
        text(&plain).contains("the grader's token"),
        "{}",
        text(&plain)
    );
}

/// A submission ended by one of the sandbox's limits is reported as ended by that limit. Before,
/// the CPU limit read "exit status: 137", and the memory limit as any exit.
#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn a_process_ended_by_a_limit_is_reported_as_ended_by_that_limit() {
    let (dir, _) = submission("cpu", "while True:\n    pass\n");
    let out = check(&dir, &["--sandbox", "--sandbox-cpu", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("killed by the CPU limit of 1 s of CPU time per process"),
        "{}",
        text(&out)
    );
    let (dir, _) = submission(
        "memory",
        "hoard = []\nwhile True:\n    hoard.append(bytearray(16 << 20))\n",
    );
    let out = check(&dir, &["--sandbox", "--sandbox-memory", "128"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("out of memory under the memory limit of 128 MiB"),
        "{}",
        text(&out)
    );
}

/// Inside the sandbox bwrap holds stdout too, while it watches the sandbox: a submission that
/// closes its own is still seen to have closed it. Before, it was a timeout.
#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn a_sandboxed_submission_that_closes_stdout_is_named() {
    let (dir, _) = submission(
        "closed",
        "import os, time\nos.close(0)\nos.close(1)\ntime.sleep(60)\n",
    );
    let out = check(&dir, &["--sandbox", "--timeout", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("the implementation closed its output (stdout) and is still running")
            && text(&out).contains("`bwrap` (pid "),
        "{}",
        text(&out)
    );
}

/// Before, a JVM that could not reserve its heap under the address-space limit "could not
/// start" with "nothing on stderr" (it says why on stdout), and nothing pointed at the limit.
#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn a_runtime_that_cannot_reserve_its_memory_is_pointed_at_the_memory_limit() {
    let dir = common::fresh("sandbox-jvm-like");
    std::fs::write(
        dir.join("jvm.py"),
        "import sys\nprint('Error occurred during initialization of VM')\n\
         print('Could not reserve enough space for object heap')\nsys.exit(1)\n",
    )
    .expect("a fake");
    let o = hookcheck(
        &dir,
        &[
            "check",
            "--color",
            "never",
            "--sandbox",
            "--impl",
            "python3 jvm.py",
        ],
    );
    common::says(&o, 2, "Error occurred during initialization of VM");
    common::says(
        &o,
        2,
        "each process has 2048 MiB of address space (--sandbox-memory)",
    );
    // Unsandboxed, there is no limit to name.
    let o = hookcheck(
        &dir,
        &["check", "--color", "never", "--impl", "python3 jvm.py"],
    );
    assert!(!text(&o).contains("--sandbox-memory"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
