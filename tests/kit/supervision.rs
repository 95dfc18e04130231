//! Supervision without `--sandbox`: what an implementation starts dies with the run, even a chain
//! that keeps re-forking into new sessions, and even when hookcheck itself is killed with SIGKILL.

use crate::common;

use common::{root, text};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn fake() -> String {
    root()
        .join("tests/fakes/fake_impl.py")
        .display()
        .to_string()
}

/// `hookcheck check` of the ordering cases on `impls`, in `dir`; the chain of `refork` keeps its
/// pid in `chain`.
fn start(dir: &Path, impls: &[String], timeout: &str, chain: &Path) -> Child {
    let mut args = vec!["check".to_string()];
    for command in impls {
        args.extend(["--impl".to_string(), command.clone()]);
    }
    args.extend(["--part", "ordering", "--timeout", timeout].map(String::from));
    Command::new(env!("CARGO_BIN_EXE_hookcheck"))
        .args(&args)
        .current_dir(dir)
        .env("FAKE_MARKER", dir.join("marker"))
        .env("FAKE_CHAIN", chain)
        // The chain forks as fast as it can.
        .env("FAKE_PAUSE", "0")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hookcheck starts")
}

/// Whether `pid` runs (a zombie has ended).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next());
        !matches!(state, Some("Z" | "X") | None)
    })
}

/// The name, state and parent of `pid`, from its `status`, to tell who let a chain live on.
fn status(pid: u32) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let lines: Vec<&str> = status
        .lines()
        .filter(|l| {
            ["Name:", "State:", "PPid:"]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .collect();
    lines.join(", ")
}

fn pid_in(file: &Path) -> Option<u32> {
    std::fs::read_to_string(file).ok()?.trim().parse().ok()
}

/// The chain has stopped: the pid it keeps in `pidfile` no longer changes, and that process has
/// ended.
#[track_caller]
fn assert_chain_stopped(pidfile: &Path, how: &str) {
    std::thread::sleep(Duration::from_millis(300));
    let first = pid_in(pidfile);
    assert!(first.is_some(), "{how}: the chain never started");
    std::thread::sleep(Duration::from_millis(700));
    let later = pid_in(pidfile);
    let last = later.unwrap_or(0);
    let stopped = first == later && !alive(last);
    let (alive_then, status_then) = (alive(last), status(last));
    if !stopped {
        end_chain(pidfile);
    }
    assert!(
        stopped,
        "{how}: the chain lives on: pid {first:?}, then {later:?} (alive: {}; {})",
        alive_then, status_then
    );
}

/// Ends a chain that lived on, so that it does not load the machine for every test after this
/// one: each generation writes its pid before it forks, so killing the pid in the file over and
/// over catches one before it forks.
fn end_chain(pidfile: &Path) {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        // The pid may be another process's by now: only a generation of the fake is killed.
        if let Some(pid) = pid_in(pidfile).filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("fake_impl"))
        }) {
            // SAFETY: kill only sends a signal, to a generation of the chain this test started.
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The chain of `fake_impl.py refork`: every generation moves to a new session, forks the next
/// and exits, so no walk of the process table ever holds the one that runs by the time it is
/// read. Before, it outlived a clean run and a run ended by SIGTERM.
#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn a_chain_re_forking_into_new_sessions_dies_with_the_run() {
    let dir = common::fresh("supervision-refork");
    for signal in [None, Some(libc::SIGTERM)] {
        let how = if signal.is_some() { "sigterm" } else { "clean" };
        let pidfile = dir.join(format!("chain-{how}"));
        let mut impls = vec![format!("python3 {} refork @@", fake())];
        if signal.is_some() {
            impls.push(format!("python3 {} hang ordering-brief", fake()));
        }
        let child = start(&dir, &impls, "30", &pidfile);
        if let Some(signal) = signal {
            let until = Instant::now() + Duration::from_secs(30);
            while pid_in(&pidfile).is_none() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(50));
            }
            std::thread::sleep(Duration::from_millis(500));
            assert!(
                pid_in(&pidfile).is_some(),
                "{how}: the chain should run before the signal"
            );
            // SAFETY: kill only sends a signal, to the process this test started.
            unsafe {
                libc::kill(child.id() as i32, signal);
            }
        }
        let out = child.wait_with_output().expect("hookcheck ends");
        let expected = if signal.is_some() { 143 } else { 0 };
        assert_eq!(out.status.code(), Some(expected), "{how}: {}", text(&out));
        assert_chain_stopped(&pidfile, how);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGKILL gives hookcheck no chance to clean up: the implementation it started (behind `sh` and
/// whatever launcher `python3` is here), what that one moved to a session of its own, and the
/// re-forking chain all die with it all the same. Before, every one of them lived on.
#[test]
fn implementations_die_with_hookcheck_killed_by_sigkill() {
    let dir = common::fresh("supervision-sigkill");
    let tag = format!("sigkill-tag-{}", std::process::id());
    let pidfile = dir.join("chain");
    let impls = [
        format!("python3 {} orphans {tag}", fake()),
        format!("python3 {} hang ordering-brief {tag}", fake()),
        format!("python3 {} refork @@ {tag}", fake()),
    ];
    let mut child = start(&dir, &impls, "30", &pidfile);
    let until = Instant::now() + Duration::from_secs(30);
    while (survivors(&tag).len() < 5 || pid_in(&pidfile).is_none()) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = survivors(&tag);
    // The three implementations and the two processes `orphans` leaves.
    assert!(before.len() >= 5, "not all running yet: {before:?}");
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let until = Instant::now() + Duration::from_secs(3);
    while !survivors(&tag).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = survivors(&tag);
    assert!(left.is_empty(), "lived on after SIGKILL: {left:?}");
    assert_chain_stopped(&pidfile, "sigkill");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The running processes whose command line holds `tag`.
fn survivors(tag: &str) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| alive(*pid))
        .filter_map(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(tag))
        .collect()
}
