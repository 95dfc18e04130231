//! `hookcheck run` against hostile input, as a user at a shell would feed it: endless bytes,
//! a byte order mark, hundreds of megabytes of blanks, unclosed brackets, a full disk. Memory is
//! checked as the child's peak resident set (`VmHWM`), sampled while it runs; no test measures
//! time (the benchmarks do).

use std::io::{self, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::Duration;

const RUN: &str = env!("CARGO_BIN_EXE_hookcheck");

/// What a run gave: its exit status, standard output and error, and peak RSS in kB.
struct Ran {
    status: ExitStatus,
    out: String,
    err: String,
    peak_kb: u64,
}

fn peak_kb(child: &Child) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Runs `hookcheck run <args>` with `feed` writing its standard input from another thread;
/// samples the child's peak RSS until it exits. A child still running after ten minutes is
/// killed, so a regression fails the test rather than hanging the suite.
fn run_fed(args: &[&str], feed: impl FnOnce(&mut dyn Write) + Send + 'static) -> Ran {
    let mut child = Command::new(RUN)
        .arg("run")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hookcheck starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = thread::spawn(move || feed(&mut stdin));
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let mut stderr = child.stderr.take().expect("stderr");
    let errs = thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut peak = 0;
    let mut waited = Duration::ZERO;
    let status = loop {
        if let Some(kb) = peak_kb(&child) {
            peak = peak.max(kb);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if waited > Duration::from_secs(600) {
            let _ = child.kill();
            panic!("hookcheck run did not stop");
        }
        thread::sleep(Duration::from_millis(10));
        waited += Duration::from_millis(10);
    };
    let _ = writer.join();
    Ran {
        status,
        out: reader.join().unwrap_or_default(),
        err: errs.join().unwrap_or_default(),
        peak_kb: peak,
    }
}

fn run_bytes(args: &[&str], input: &'static [u8]) -> Ran {
    run_fed(args, move |w| {
        let _ = w.write_all(input);
    })
}

/// `n` bytes of `byte`, written a megabyte at a time (the test holds no more than that).
/// `input` is refused: exit status 2, and the error says `needle`.
#[track_caller]
fn refused(input: &'static [u8], needle: &str) {
    let ran = run_bytes(&[], input);
    assert_eq!(ran.status.code(), Some(2), "{}", ran.err);
    assert!(ran.err.contains(needle), "{}", ran.err);
}

fn write_repeated(w: &mut dyn Write, byte: u8, n: usize) -> io::Result<()> {
    let block = vec![byte; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(block.len());
        w.write_all(&block[..k])?;
        left -= k;
    }
    Ok(())
}

/// The resident set of the process itself is a few megabytes; the read buffer one more.
const SMALL_KB: u64 = 64 << 10;

#[test]
fn a_byte_order_mark_at_the_start_is_skipped() {
    let plain = run_bytes(&[], b"[[\"register\",0,\"s\",\"u\"],[\"status\",0,\"e\"]]");
    let marked = run_bytes(
        &[],
        b"\xef\xbb\xbf[[\"register\",0,\"s\",\"u\"],[\"status\",0,\"e\"]]",
    );
    assert!(marked.status.success(), "{}", marked.err);
    assert_eq!(marked.out, plain.out);
    assert_eq!(marked.out, "[true,\n \"error: unknown event\"]\n");
    let lines = run_bytes(&[], b"\xef\xbb\xbf[\"process\",0]\n[\"process\",1]\n");
    assert!(lines.status.success(), "{}", lines.err);
    assert_eq!(lines.out, "[]\n[]\n");
}

#[test]
fn a_byte_order_mark_anywhere_else_is_named() {
    let ran = run_bytes(&[], b"[[\"process\",0],\xef\xbb\xbf[\"process\",0]]");
    assert_eq!(ran.status.code(), Some(2));
    assert_eq!(
        ran.err.trim_end(),
        "hookcheck run: not JSON at line 1, column 16: expected value: found a UTF-8 byte \
         order mark (EF BB BF), allowed only at the very start of the input"
    );
    refused(
        b"[\"process\",0]\n\xef\xbb\xbf[\"process\",0]\n",
        "line 2, column 1: expected value: found a UTF-8 byte order mark",
    );
    refused(
        b"\xef\xbb\xbf\xef\xbb\xbf[]",
        "at line 1, column 4: the input starts with a second UTF-8 byte order mark",
    );
}

#[test]
fn dev_zero_is_rejected_from_its_first_byte() {
    let ran = run_fed(&["/dev/zero"], |_| {});
    assert_eq!(ran.status.code(), Some(2));
    assert!(
        ran.err.starts_with(
            "hookcheck run: not an array of operations at line 1, column 1: the input starts \
             with byte 0x00, which is not JSON"
        ),
        "{}",
        ran.err
    );
    assert!(ran.peak_kb < SMALL_KB, "peak RSS {} kB", ran.peak_kb);
    // Read as lines, the first line never ends: it is given up on once it cannot be JSON.
    let ran = run_fed(&["--input", "lines", "/dev/zero"], |_| {});
    assert_eq!(ran.status.code(), Some(2));
    assert_eq!(
        ran.err.trim_end(),
        "hookcheck run: not JSON at line 1, column 1: expected value: found byte 0x00"
    );
    assert!(ran.peak_kb < SMALL_KB, "peak RSS {} kB", ran.peak_kb);
}

#[test]
fn endless_bytes_after_a_good_start_stop_where_they_begin() {
    // 100 MB of zero bytes from `head -c 100M /dev/zero` after the start of an operation.
    let ran = run_fed(&[], |w| {
        let _ = w.write_all(b"[\"process\",");
        let _ = write_repeated(w, 0, 100 << 20);
    });
    assert_eq!(ran.status.code(), Some(2));
    assert!(ran.err.contains("found byte 0x00"), "{}", ran.err);
    assert!(ran.peak_kb < SMALL_KB, "peak RSS {} kB", ran.peak_kb);
    refused(
        b"hello",
        "line 1, column 1: the input starts with `h`, which is not JSON",
    );
    refused(
        b"\n  {\"operations\": []}",
        "line 2, column 3: the input starts with `{`, the start of an object in JSON",
    );
}

/// An input with blanks in it: what comes before, the runs of blank bytes, what comes after, and
/// the output expected.
type Blanks = (&'static [u8], [(u8, usize); 2], &'static [u8], &'static str);

#[test]
#[ignore = "slow: .ci/run runs it with --ignored"]
fn blanks_in_an_array_are_skipped_not_kept() {
    const BLANKS: usize = 100 << 20;
    // (before the blanks, the blanks as (byte, count) runs, after them, the output): after the
    // opening bracket, where the first line is looked at to choose the format; between
    // operations, with newlines; and as JSON lines.
    let inputs: [Blanks; 3] = [
        (
            b"[",
            [(b' ', BLANKS), (b' ', 0)],
            b"[\"process\",1]]",
            "[[]]\n",
        ),
        (
            b"[[\"process\",0],",
            [(b'\n', BLANKS / 2), (b' ', BLANKS / 2)],
            b"[\"process\",1]]",
            "[[],\n []]\n",
        ),
        (
            b"[\"process\",0]\n",
            [(b' ', BLANKS / 2), (b'\n', BLANKS / 2)],
            b"[\"process\",1]\n",
            "[]\n[]\n",
        ),
    ];
    for (before, blanks, after, out) in inputs {
        let ran = run_fed(&[], move |w| {
            let _ = w.write_all(before);
            for (byte, count) in blanks {
                let _ = write_repeated(w, byte, count);
            }
            let _ = w.write_all(after);
        });
        assert!(ran.status.success(), "{}", ran.err);
        assert_eq!(ran.out, out);
        assert!(ran.peak_kb < SMALL_KB, "peak RSS {} kB", ran.peak_kb);
    }
}

#[test]
fn ten_million_unclosed_brackets_end_in_an_error() {
    let ran = run_fed(&[], |w| {
        let _ = write_repeated(w, b'[', 10_000_000);
        let _ = w.write_all(b"\n");
    });
    assert_eq!(ran.status.code(), Some(2));
    assert!(
        ran.err.starts_with("hookcheck run: not JSON at line"),
        "{}",
        ran.err
    );
    assert!(ran.peak_kb < SMALL_KB, "peak RSS {} kB", ran.peak_kb);
}

#[test]
fn a_full_disk_is_a_write_error() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("no /dev/full here: skipped");
        return;
    };
    // `hookcheck run` writing into /dev/full.
    let into_full = || {
        Command::new(RUN)
            .arg("run")
            .stdin(Stdio::piped())
            .stdout(full.try_clone().expect("dup"))
            .stderr(Stdio::piped())
            .spawn()
            .expect("hookcheck starts")
    };
    let says_disk_full = |out: &std::process::Output| {
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim_end(),
            "hookcheck run: cannot write output: No space left on device (os error 28)"
        );
    };
    for input in [&b"[[\"process\",0]]"[..], &b"[\"process\",0]\n"[..]] {
        let mut child = into_full();
        let mut stdin = child.stdin.take().expect("stdin");
        // Enough results to fill the write buffer several times over.
        let op = if input[0] == b'[' && input[1] == b'[' {
            b"[\"process\",0],".to_vec()
        } else {
            input.to_vec()
        };
        let writer = thread::spawn(move || {
            if op.ends_with(b",") {
                let _ = stdin.write_all(b"[");
            }
            for _ in 0..200_000 {
                if stdin.write_all(&op).is_err() {
                    return;
                }
            }
            if op.ends_with(b",") {
                let _ = stdin.write_all(b"[\"process\",0]]");
            }
        });
        let out = child.wait_with_output().expect("waits");
        let _ = writer.join();
        says_disk_full(&out);
        // A short run fails at its last write, the same way.
        let mut child = into_full();
        let _ = child.stdin.take().expect("stdin").write_all(input);
        let out = child.wait_with_output().expect("waits");
        says_disk_full(&out);
    }
}

/// A file's size is taken as a hint of how many events it may hold, and room is reserved for
/// them: a sparse file of 64 GB that holds three operations (the rest reads as zero bytes)
/// reserves room for the most events a run reserves (address space only) and maps none of it.
/// The run answers the three, says where the input stops being JSON, and stays small.
#[test]
fn a_huge_file_reserves_room_for_its_events_but_no_memory() {
    let dir = std::env::temp_dir().join(format!("hookcheck-sparse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("ops.json");
    {
        let mut f = std::fs::File::create(&path).expect("create");
        f.write_all(br#"[["register",0,"s","u"],["enqueue",0,"s","e",[200]],["process",0],"#)
            .expect("write");
        f.set_len(64 << 30).expect("a sparse file");
    }
    let ran = run_fed(&[path.to_str().expect("a UTF-8 path")], |_| {});
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(ran.status.code(), Some(2), "{}", ran.err);
    assert_eq!(
        ran.out, "[true,\n \"queued\",\n [\"e #1 200 delivered\"]\n",
        "{}",
        ran.err
    );
    assert!(ran.err.contains("found byte 0x00"), "{}", ran.err);
    assert!(ran.peak_kb < 20 << 10, "peak RSS {} kB", ran.peak_kb);
}
