//! What a submission inherits from the grader: only stdin, stdout and stderr. The grader here
//! holds a secret file and a socket open without close-on-exec (as a CI runner or a shell
//! script may), at known numbers; the submission looks at every descriptor it has and exits
//! saying `ESCAPED` when it finds either, so a contained run is one that passes.
//!
//! The `--sandbox` run needs bwrap; `.ci/run` installs bubblewrap and runs it with `--ignored`.

use crate::common;

use common::{root, scratch, text};
use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

/// The numbers the grader's descriptors have in hookcheck, and so would have in a submission.
const SECRET_FD: i32 = 20;
const SOCKET_FD: i32 = 21;
const SECRET: &str = "the grader's token 7d1f";

/// Every descriptor above 2 that is a socket, or a file holding the secret, ends the
/// submission before it serves a case.
const LOOK: &str = r#"
import os, stat
for fd in range(3, 1024):
    try:
        st = os.fstat(fd)
    except OSError:
        continue
    if stat.S_ISSOCK(st.st_mode):
        raise SystemExit(f"ESCAPED: descriptor {fd} is a socket")
    if stat.S_ISREG(st.st_mode):
        try:
            seen = os.pread(fd, 4096, 0)
        except OSError:
            continue
        if b"SECRET" in seen:
            raise SystemExit(f"ESCAPED: descriptor {fd} reads " + seen.decode())
"#;

fn folder(test: &str) -> PathBuf {
    let dir = scratch().join(format!("hookcheck-fds-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).expect("folder");
    let example =
        std::fs::read_to_string(root().join("examples/python/dispatcher.py")).expect("example");
    std::fs::write(
        dir.join("sub/solution.py"),
        format!("{}\n{example}", LOOK.replace("SECRET", SECRET)),
    )
    .expect("solution");
    dir
}

/// `hookcheck check` of the submission with the grader's secret file and one end of a socket
/// pair at `SECRET_FD` and `SOCKET_FD`, inheritable; and what the other end of the socket
/// received.
fn check_holding_descriptors(test: &str, more: &[&str]) -> (Output, Vec<u8>) {
    let dir = folder(test);
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, SECRET).expect("secret");
    let file = std::fs::File::open(&secret).expect("opens");
    let (ours, theirs) = UnixStream::pair().expect("a socket pair");
    let (file_fd, socket_fd) = (file.as_raw_fd(), theirs.as_raw_fd());
    let adapter = root().join("harness/adapters/python/hookcheck_adapter.py");
    let command = format!("python3 {} {{path}}", adapter.display());
    let mut hookcheck = Command::new(env!("CARGO_BIN_EXE_hookcheck"));
    hookcheck
        .args([
            "check", "--impl", &command, "--each", "sub/*.py", "--jobs", "1", "--color", "never",
        ])
        .args(more)
        .current_dir(&dir)
        .env("TMPDIR", scratch());
    // SAFETY: dup2 is async-signal-safe; the copies it makes have close-on-exec cleared, as a
    // descriptor a grader's shell passes down has.
    unsafe {
        hookcheck.pre_exec(move || {
            if libc::dup2(file_fd, SECRET_FD) < 0 || libc::dup2(socket_fd, SOCKET_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = hookcheck.output().expect("hookcheck runs");
    drop(theirs);
    ours.set_read_timeout(Some(Duration::from_secs(1)))
        .expect("timeout");
    let mut received = Vec::new();
    let _ = (&ours).read_to_end(&mut received);
    (out, received)
}

#[track_caller]
fn assert_sees_neither(out: &Output, received: &[u8]) {
    assert!(!text(out).contains("ESCAPED"), "{}", text(out));
    assert_eq!(out.status.code(), Some(0), "{}", text(out));
    assert!(received.is_empty(), "the socket got {received:?}");
}

#[test]
fn a_submission_sees_none_of_the_grader_s_descriptors() {
    let (out, received) = check_holding_descriptors("plain", &[]);
    assert_sees_neither(&out, &received);
}

#[test]
#[ignore = "needs bwrap: .ci/run installs bubblewrap and runs ignored tests"]
fn a_sandboxed_submission_sees_none_of_the_grader_s_descriptors() {
    let (out, received) = check_holding_descriptors("sandbox", &["--sandbox"]);
    assert_sees_neither(&out, &received);
}

/// The test itself is sound: a child started the way the grader started hookcheck does see
/// both descriptors, so the check above would find a leak.
#[test]
fn the_submission_s_look_finds_inherited_descriptors() {
    let dir = folder("probe");
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, SECRET).expect("secret");
    let file = std::fs::File::open(&secret).expect("opens");
    let (_ours, theirs) = UnixStream::pair().expect("a socket pair");
    let (file_fd, socket_fd) = (file.as_raw_fd(), theirs.as_raw_fd());
    let mut python = Command::new("python3");
    python.args(["-c", &LOOK.replace("SECRET", SECRET)]);
    // SAFETY: as above.
    unsafe {
        python.pre_exec(move || {
            if libc::dup2(file_fd, SECRET_FD) < 0 || libc::dup2(socket_fd, SOCKET_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = python.output().expect("python runs");
    assert!(text(&out).contains("ESCAPED"), "{}", text(&out));
}
