//! `--sandbox`: each implementation process runs under bubblewrap (`bwrap`), for graders who run
//! submissions nobody has read.
//!
//! What the sandbox sees, and why:
//! - Not `/` but the system folders (`/usr`, `/bin`, `/sbin`, `/lib*`, `/etc`) read-only:
//!   interpreters and their libraries work, while other submissions in sibling folders, `/root`,
//!   `/home`, `/work`, `/run` (sockets of other services) stay invisible. `/etc` is bound whole:
//!   what it holds that matters (`/etc/shadow`, keys) is readable by root only, and inside the
//!   sandbox no process is root (below).
//! - A private `/dev` and `/proc`, and a private writable `/tmp` (a tmpfs no bigger than the
//!   memory limit) that is also `HOME` and `TMPDIR`: a submission that writes its cache or its
//!   home writes into memory thrown away with the sandbox.
//! - The submission's own folder read-only: for a manifest `glob` entry or `--each`, the folder
//!   of the matched file; for a plain `--impl`, the folder of every existing path the command
//!   names. Every existing path the command names (the adapter, the interpreter) is bound
//!   read-only at the same path, and the current folder exists inside (empty but for what is
//!   bound), so the command's relative paths keep working. `--sandbox-bind` adds more (a venv,
//!   a toolchain in `$HOME`).
//! - The environment is cleared but for `PATH` and the locale: the grader's tokens stay out.
//! - No network (`--unshare-net`: only a loopback of its own), its own IPC, UTS and PID
//!   namespaces, a session of its own (no `TIOCSTI` into the grader's terminal), and
//!   `--die-with-parent`: hookcheck kills the outer `bwrap` (the process group it starts), the
//!   namespace's first process dies with it, and the kernel kills every process of the
//!   namespace, `setsid` or not. Also when the command exits by itself: nothing it left behind
//!   outlives it. And a session keyring of its own, empty: the grader's keys (which keyrings
//!   hold across namespaces) stay out of reach.
//! - Limits set by `prlimit` (util-linux; bwrap sets none): address space, CPU seconds per
//!   process (SIGXCPU at the limit, SIGKILL a second later), processes. The kernel does not
//!   enforce `RLIMIT_NPROC` for root, so as root the command runs as a uid of its own
//!   (`setpriv`, which also drops every capability and sets no-new-privs: bwrap started by root
//!   keeps root's capabilities inside). The uid is new for every sandbox, because the kernel
//!   counts processes per uid: with one shared uid, a fork bomb in one submission would starve
//!   the others running beside it. As a normal user, bwrap makes a user namespace, in which the
//!   kernel counts the sandbox's processes apart from the user's own.
//!
//! What it does not contain: kernel exploits, side channels and timing; reading what is bound
//! (`/usr`, `/etc`, the adapter); memory used by the kernel for the process (pipes, page cache);
//! and, as root, files of the submission's folder that are not readable by others (the uid of
//! the sandbox is nobody's: a folder made with umask 077 is unreadable inside).
//!
//! The command is never pasted into a shell string of ours: the sandbox is an argument vector
//! ending in `sh -c COMMAND`, the same shell that runs it without a sandbox.

use std::ffi::OsString;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

pub const DEFAULT_MEMORY_MIB: u64 = 2048;
pub const DEFAULT_CPU_SECONDS: u64 = 60;
pub const DEFAULT_PROCESSES: u64 = 256;

/// Accepted ranges: below these minimums an interpreter cannot start (Python needs ~30 MiB of
/// address space, `sh` plus the interpreter are two processes).
const MEMORY_MIB: (u64, u64) = (64, 1 << 20);
const CPU_SECONDS: (u64, u64) = (1, 24 * 3600);
const PROCESSES: (u64, u64) = (4, 1 << 20);

/// Visible read-only in every sandbox, when they exist.
const SYSTEM: [&str; 8] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

/// The environment kept; everything else (tokens, `SSH_AUTH_SOCK`) is dropped.
const KEPT_ENV: [&str; 5] = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ"];

/// Root's sandboxes run as uids from here up: above the ranges distributions hand out to users
/// (below 60000) and to containers' subordinate ids (from 100000, 65536 each, rarely past
/// 2^28), and below 2^31 so no tool reads them as negative.
const UID_BASE: u32 = 0x5000_0000;

/// How an implementation is confined; `Options::sandbox` is `None` without `--sandbox`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sandbox {
    /// Address space limit, MiB (also the size of `/tmp`).
    pub memory_mib: u64,
    /// CPU time limit of each process, seconds.
    pub cpu_seconds: u64,
    /// The most processes (and threads) the sandbox may have.
    pub processes: u64,
    /// More paths visible read-only, absolute (`--sandbox-bind`).
    pub binds: Vec<PathBuf>,
    /// The submission's own path, absolute, when an entry was made from a match: its folder, or
    /// the matched file alone (see [`Sandbox::for_match`]).
    pub folder: Option<PathBuf>,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox {
            memory_mib: DEFAULT_MEMORY_MIB,
            cpu_seconds: DEFAULT_CPU_SECONDS,
            processes: DEFAULT_PROCESSES,
            binds: Vec::new(),
            folder: None,
        }
    }
}

impl Sandbox {
    /// A sandbox with these limits and binds, or why not (a limit out of range, a bind that
    /// does not exist). Relative binds are taken from the current folder.
    pub fn new(
        memory_mib: u64,
        cpu_seconds: u64,
        processes: u64,
        binds: &[PathBuf],
    ) -> Result<Sandbox, String> {
        in_range("--sandbox-memory", memory_mib, MEMORY_MIB, "MiB")?;
        in_range("--sandbox-cpu", cpu_seconds, CPU_SECONDS, "seconds")?;
        in_range("--sandbox-processes", processes, PROCESSES, "processes")?;
        let cwd = current_dir()?;
        let binds = binds
            .iter()
            .map(|b| {
                let path = normalize(&cwd.join(b));
                if path == Path::new("/") {
                    Err(format!(
                        "--sandbox-bind {}: refused: it would show the whole file system (your \
                         home, every submission) to every submission; bind only what they need \
                         (a venv, a toolchain)",
                        b.display()
                    ))
                } else if path.exists() {
                    Ok(path)
                } else {
                    Err(format!(
                        "--sandbox-bind {}: no such file or folder",
                        b.display()
                    ))
                }
            })
            .collect::<Result<_, String>>()?;
        Ok(Sandbox {
            memory_mib,
            cpu_seconds,
            processes,
            binds,
            folder: None,
        })
    }

    /// The sandbox of an entry made from `matched`, one of the paths `all` a `glob` or `--each`
    /// matched: the submission's own path is the match itself when it is a folder; for a file,
    /// its folder when no other match lies in it (a solution with its helper modules), else the
    /// file alone. A folder holding other submissions is never visible.
    pub fn for_match(&self, matched: &Path, all: &[PathBuf]) -> Sandbox {
        let absolute = |p: &Path| current_dir().ok().map(|cwd| normalize(&cwd.join(p)));
        let own = absolute(matched).map(|m| {
            if m.is_dir() {
                return m;
            }
            match m.parent() {
                Some(parent)
                    if !all
                        .iter()
                        .filter_map(|o| absolute(o))
                        .any(|o| o != m && o.starts_with(parent)) =>
                {
                    parent.to_path_buf()
                }
                _ => m,
            }
        });
        Sandbox {
            folder: own,
            ..self.clone()
        }
    }
}

fn in_range(flag: &str, value: u64, (low, high): (u64, u64), unit: &str) -> Result<(), String> {
    if (low..=high).contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "{flag} must be from {low} to {high} {unit}, not {value}"
        ))
    }
}

fn current_dir() -> Result<PathBuf, String> {
    std::env::current_dir().map_err(|e| format!("cannot read the current folder: {e}"))
}

/// The command that runs `shell_command` with the variables `env` set (hookcheck's own: the
/// placeholders' values and the process mark): `sh -c` as is, or inside the sandbox.
pub fn command(
    shell_command: &str,
    sandbox: Option<&Sandbox>,
    env: &[(String, OsString)],
    dir: Option<&Path>,
) -> Result<Command, String> {
    let Some(sandbox) = sandbox else {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(shell_command)
            .envs(env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        standard_descriptors_only(&mut command);
        return Ok(command);
    };
    let cwd = match dir {
        Some(dir) => normalize(&current_dir()?.join(dir)),
        None => current_dir()?,
    };
    let user = if is_root() { Some(next_uid()) } else { None };
    let environment: Vec<(String, OsString)> = KEPT_ENV
        .iter()
        .filter_map(|k| std::env::var_os(k).map(|v| (k.to_string(), v)))
        .chain(env.iter().cloned())
        .collect();
    // The command names the matched path through a variable (`"$HOOKCHECK_PATH"`): it is bound
    // as if written in it. `{dir}` and `{stem}` are names, not paths: `subs` for `subs/alice`,
    // which taken from the current folder would bind every submission.
    let named: Vec<String> = env
        .iter()
        .filter(|(k, _)| k == "HOOKCHECK_PATH")
        .filter_map(|(_, v)| {
            v.to_str()
                .map(|v| format!("'{}'", v.replace('\'', "'\\''")))
        })
        .collect();
    let host = Host {
        cwd: &cwd,
        user,
        environment: &environment,
        kind: &|p| std::fs::metadata(p).ok().map(|m| m.is_dir()),
        named: named.join(" "),
    };
    let argv = arguments(shell_command, sandbox, &host);
    let mut command = Command::new("bwrap");
    command.args(argv);
    standard_descriptors_only(&mut command);
    own_session_keyring(&mut command);
    Ok(command)
}

/// The sandbox starts with a new, empty session keyring. Keyrings are not namespaced: without
/// this, every process of the sandbox would possess the grader's session keyring (inherited over
/// fork and exec), and possession grants reading its keys whatever the uid. Where keyrings are
/// not reachable at all (a seccomp filter that refuses `keyctl`, a kernel without them) there is
/// nothing to hide; if the grader's keyring is reachable and cannot be left, the sandbox does not
/// start.
fn own_session_keyring(command: &mut Command) {
    const KEYCTL_GET_KEYRING_ID: libc::c_long = 0;
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    const KEY_SPEC_SESSION_KEYRING: libc::c_long = -3;
    // SAFETY: the closure runs in the forked child before `exec` and makes only system calls,
    // allocating nothing; a null name asks for an anonymous keyring.
    unsafe {
        command.pre_exec(|| {
            let joined = libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_JOIN_SESSION_KEYRING,
                std::ptr::null::<libc::c_char>(),
            );
            if joined >= 0 {
                return Ok(());
            }
            let failure = io::Error::last_os_error();
            let reachable = libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_GET_KEYRING_ID,
                KEY_SPEC_SESSION_KEYRING,
                0 as libc::c_long,
            ) >= 0;
            if reachable { Err(failure) } else { Ok(()) }
        });
    }
}

/// The process starts with only stdin, stdout and stderr open. Descriptors hookcheck inherited
/// without close-on-exec (a grader's secret file, a socket to a service on the host) would
/// otherwise pass to the implementation, and through bwrap into the sandbox, past its mount
/// and network namespaces: bwrap closes nothing. Marking them close-on-exec rather than closing
/// them keeps the channel on which the standard library reports a failed `exec`.
fn standard_descriptors_only(command: &mut Command) {
    // SAFETY: the closure runs in the forked child before `exec`, and makes only
    // async-signal-safe system calls (`close_range`, `getrlimit`, `fcntl`), allocating nothing.
    unsafe {
        command.pre_exec(|| {
            let all = libc::syscall(
                libc::SYS_close_range,
                3 as libc::c_uint,
                libc::c_uint::MAX,
                libc::CLOSE_RANGE_CLOEXEC,
            );
            if all != 0 {
                // Kernels before 5.11 lack CLOSE_RANGE_CLOEXEC: every descriptor the limit
                // allows, one by one.
                let mut limit: libc::rlimit = std::mem::zeroed();
                let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
                    limit.rlim_cur.min(1 << 20) as libc::c_int
                } else {
                    1 << 16
                };
                for fd in 3..top {
                    libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
                }
            }
            Ok(())
        });
    }
}

/// What the argument vector depends on besides the command and the sandbox, apart so tests
/// can give their own.
struct Host<'a> {
    cwd: &'a Path,
    /// The uid to run as (when hookcheck runs as root).
    user: Option<u32>,
    environment: &'a [(String, OsString)],
    /// Whether a path exists: `Some(true)` a folder, `Some(false)` a file.
    kind: &'a dyn Fn(&Path) -> Option<bool>,
    /// Files the command names through variables, as shell words.
    named: String,
}

/// bwrap's arguments, ending in `sh -c shell_command`.
fn arguments(shell_command: &str, sandbox: &Sandbox, host: &Host) -> Vec<OsString> {
    let mut binds: Vec<PathBuf> = Vec::new();
    let under_system = |p: &Path| SYSTEM.iter().any(|s| p.starts_with(s)) || p == Path::new("/");
    let named = format!("{shell_command} {}", host.named);
    for word in shell_words(&named) {
        if word.is_empty() {
            continue;
        }
        let path = normalize(&host.cwd.join(&word));
        let Some(is_dir) = (host.kind)(&path) else {
            continue;
        };
        if under_system(&path) {
            continue;
        }
        if sandbox.folder.is_none() {
            // A plain command: its files' folders are the submission's.
            match (is_dir, path.parent()) {
                (false, Some(parent)) if !under_system(parent) => binds.push(parent.to_path_buf()),
                _ => {}
            }
        }
        binds.push(path);
    }
    binds.extend(sandbox.folder.iter().cloned());
    binds.extend(sandbox.binds.iter().cloned());
    binds.retain(|p| !under_system(p));
    // Outer folders first, so an inner bind is not covered by its folder's bind.
    binds.sort_by_key(|p| (p.components().count(), p.clone()));
    binds.dedup();

    // Every folder leading to a bind or to the current folder, made beforehand with mode 755:
    // bwrap makes the missing ones 700, which the sandbox's uid could not cross.
    let mut folders: Vec<PathBuf> = Vec::new();
    let targets = binds.iter().map(|b| b.parent().unwrap_or(b));
    for target in targets.chain(std::iter::once(host.cwd)) {
        for a in target.ancestors() {
            if a != Path::new("/") && a != Path::new("/tmp") && !under_system(a) {
                folders.push(a.to_path_buf());
            }
        }
    }
    folders.sort_by_key(|p| (p.components().count(), p.clone()));
    folders.dedup();

    let mut args: Vec<OsString> = Vec::new();
    let tmp_size = (sandbox.memory_mib << 20).to_string();
    words(
        &mut args,
        ["--perms", "1777", "--size", &tmp_size, "--tmpfs", "/tmp"],
    );
    for f in &folders {
        words(&mut args, ["--perms", "0755", "--dir"]);
        args.push(f.into());
    }
    words(&mut args, ["--dev", "/dev", "--proc", "/proc"]);
    for s in SYSTEM {
        words(&mut args, ["--ro-bind-try", s, s]);
    }
    for b in &binds {
        args.extend(["--ro-bind".into(), b.into(), b.into()]);
    }
    words(
        &mut args,
        [
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
        ],
    );
    if host.user.is_none() {
        words(&mut args, ["--unshare-user"]);
    }
    words(&mut args, ["--clearenv"]);
    for (key, value) in host.environment {
        args.extend(["--setenv".into(), key.into(), value.clone()]);
    }
    words(
        &mut args,
        ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"],
    );
    args.extend(["--chdir".into(), host.cwd.into(), "--".into()]);
    if let Some(uid) = host.user {
        let (reuid, regid) = (format!("--reuid={uid}"), format!("--regid={uid}"));
        words(
            &mut args,
            [
                "setpriv",
                &reuid,
                &regid,
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
                "--",
            ],
        );
    }
    let limits = [
        format!("--as={}", sandbox.memory_mib << 20),
        // SIGXCPU at the limit, SIGKILL a second later: the signal names the limit that ended
        // the process (a SIGKILL could be anything's).
        format!("--cpu={}:{}", sandbox.cpu_seconds, sandbox.cpu_seconds + 1),
        format!("--nproc={}", sandbox.processes),
    ];
    words(&mut args, ["prlimit", &limits[0], &limits[1], &limits[2]]);
    words(&mut args, ["--core=0", "--", "sh", "-c"]);
    args.push(shell_command.into());
    args
}

fn words<const N: usize>(args: &mut Vec<OsString>, words: [&str; N]) {
    args.extend(words.map(OsString::from));
}

/// Whether hookcheck runs as root: `/proc/self` belongs to the effective uid.
fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// A uid no other sandbox of this run, nor (most likely) of another hookcheck, uses: the
/// process id picks a block of 65536, a counter the uid in it.
fn next_uid() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed) % 65536;
    UID_BASE + (std::process::id() % 4096) * 65536 + n
}

/// The words of a shell command, quotes removed, as far as telling which name files goes:
/// `'…'`, `"…"` and backslashes; `$`, `~` and globs are left as written (such words name no
/// file, so nothing is bound for them).
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                word.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(n @ ('"' | '\\' | '$' | '`')) => word.push(n),
                            Some(n) => {
                                word.push('\\');
                                word.push(n);
                            }
                            None => word.push('\\'),
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() || ";&|<>()".contains(c) => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `path` without `.` and `..` components, as the sandbox resolves it from a folder that is
/// not a symbolic link.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether sandboxes can run here: bwrap (and util-linux's `prlimit`, and `setpriv` as root)
/// on `PATH`, and one empty sandbox that starts. Checked once, before any implementation.
pub fn check_available() -> Result<(), String> {
    let mut tools = vec![(
        "bwrap",
        "bubblewrap (Debian and Ubuntu: apt-get install bubblewrap)",
    )];
    tools.push(("prlimit", "util-linux"));
    if is_root() {
        tools.push(("setpriv", "util-linux"));
    }
    for (tool, package) in tools {
        if !on_path(tool) {
            return Err(format!(
                "--sandbox needs `{tool}`, from the package {package}, and it is not on PATH"
            ));
        }
    }
    let mut probe = command("exit 0", Some(&Sandbox::default()), &[], None)?;
    let output = probe
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("--sandbox: cannot run bwrap: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "--sandbox: bwrap cannot make a sandbox here ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(tool)).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host<'a>(kind: &'a dyn Fn(&Path) -> Option<bool>, user: Option<u32>) -> Host<'a> {
        Host {
            cwd: Path::new("/work/grading"),
            user,
            environment: &[],
            kind,
            named: String::new(),
        }
    }

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    /// The pairs `flag value` of `args`.
    fn values(args: &[String], flag: &str) -> Vec<String> {
        args.windows(2)
            .filter(|w| w[0] == flag)
            .map(|w| w[1].clone())
            .collect()
    }

    #[test]
    fn the_command_is_one_argument_whatever_it_holds() {
        let hostile = r#"python3 "my sub/a.py" 'it''s' ; rm -rf / $(curl x) `id` && echo "$HOME""#;
        let none = |_: &Path| None;
        let args = strings(&arguments(hostile, &Sandbox::default(), &host(&none, None)));
        assert_eq!(args[args.len() - 3..], ["sh", "-c", hostile]);
        let plain = command(hostile, None, &[], None).expect("plain");
        let plain: Vec<String> = plain
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(plain, ["-c", hostile]);
    }

    #[test]
    fn paths_the_command_names_are_bound_at_their_place_as_single_arguments() {
        let kind = |p: &Path| match p.to_str() {
            Some("/work/grading/my sub/a $(x).py") => Some(false),
            Some("/work/grading/harness/adapter.py") => Some(false),
            Some("/usr/bin/python3") => Some(false),
            Some("/opt/venv") => Some(true),
            _ => None,
        };
        let command =
            r#"/usr/bin/python3 ./harness/adapter.py "my sub/a \$(x).py" /opt/venv missing.py"#;
        let args = strings(&arguments(command, &Sandbox::default(), &host(&kind, None)));
        assert_eq!(
            values(&args, "--ro-bind"),
            [
                "/opt/venv",
                "/work/grading/harness",
                "/work/grading/my sub",
                "/work/grading/harness/adapter.py",
                "/work/grading/my sub/a $(x).py",
            ]
        );
        let dirs = values(&args, "--dir");
        for d in ["/work", "/work/grading", "/work/grading/my sub", "/opt"] {
            assert!(dirs.contains(&d.to_string()), "{d} in {dirs:?}");
        }
        assert!(!dirs.iter().any(|d| d.starts_with("/usr")), "{dirs:?}");
        assert_eq!(values(&args, "--chdir"), ["/work/grading"]);
        assert!(args.contains(&"--unshare-net".to_string()));
        assert!(args.contains(&"--unshare-user".to_string()));
        assert!(!args.contains(&"setpriv".to_string()));
    }

    #[test]
    fn a_matched_file_s_folder_is_the_submission_s_and_nothing_above_it() {
        let kind = |p: &Path| match p.to_str() {
            Some("/work/grading/harness/adapter.py") => Some(false),
            Some("/work/grading/subs/alice/solution.py") => Some(false),
            _ => None,
        };
        let sandbox = Sandbox {
            folder: Some(PathBuf::from("/work/grading/subs/alice")),
            binds: vec![PathBuf::from("/root/.venv")],
            ..Sandbox::default()
        };
        let args = strings(&arguments(
            "python3 harness/adapter.py subs/alice/solution.py",
            &sandbox,
            &host(&kind, Some(UID_BASE + 7)),
        ));
        assert_eq!(
            values(&args, "--ro-bind"),
            [
                "/root/.venv",
                "/work/grading/harness/adapter.py",
                "/work/grading/subs/alice",
                "/work/grading/subs/alice/solution.py",
            ]
        );
        let uid = format!("--reuid={}", UID_BASE + 7);
        assert!(args.contains(&uid), "{args:?}");
        assert!(!args.contains(&"--unshare-user".to_string()));
        assert!(args.contains(&"--nproc=256".to_string()));
        assert!(args.contains(&format!("--as={}", 2048u64 << 20)));
    }

    #[test]
    fn only_the_matched_path_is_bound_from_the_placeholders() {
        // `{dir}` of `subs/alice` is `subs`, a folder of the current folder: a name, not a path.
        let folder = std::env::temp_dir().join(format!("hookcheck-named-{}", std::process::id()));
        std::fs::create_dir_all(folder.join("subs/alice")).expect("folder");
        let env = [
            ("HOOKCHECK_PATH".to_string(), OsString::from("subs/alice")),
            ("HOOKCHECK_DIR".to_string(), OsString::from("subs")),
            ("HOOKCHECK_STEM".to_string(), OsString::from("alice")),
        ];
        let sandbox = Sandbox {
            folder: Some(folder.join("subs/alice")),
            ..Sandbox::default()
        };
        let command = command(
            "cd \"$HOOKCHECK_PATH\" && python3 solution.py",
            Some(&sandbox),
            &env,
            Some(&folder),
        )
        .expect("a command");
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let alice = folder.join("subs/alice").display().to_string();
        assert_eq!(values(&args, "--ro-bind"), [alice]);
        let _ = std::fs::remove_dir_all(&folder);
    }

    #[test]
    fn the_root_folder_and_the_system_are_never_bound_from_the_command() {
        let kind = |p: &Path| {
            (p == Path::new("/") || p.starts_with("/usr")).then_some(p.extension().is_none())
        };
        let args = strings(&arguments(
            "cat / /usr /usr/bin/env",
            &Sandbox::default(),
            &host(&kind, None),
        ));
        assert!(values(&args, "--ro-bind").is_empty(), "{args:?}");
    }

    #[test]
    fn only_the_kept_environment_goes_in() {
        let none = |_: &Path| None;
        let environment = [("PATH".to_string(), OsString::from("/usr/bin:/bin"))];
        let host = Host {
            environment: &environment,
            ..host(&none, None)
        };
        let args = strings(&arguments("true", &Sandbox::default(), &host));
        assert!(args.contains(&"--clearenv".to_string()));
        assert_eq!(values(&args, "--setenv"), ["PATH", "HOME", "TMPDIR"]);
    }

    #[test]
    fn shell_words_follow_the_quotes() {
        assert_eq!(
            shell_words(r#"a "b c" 'd "e"' f\ g "h\"i" j;k|l"#),
            ["a", "b c", "d \"e\"", "f g", "h\"i", "j", "k", "l"]
        );
        assert_eq!(shell_words("  "), Vec::<String>::new());
        assert_eq!(shell_words("''"), [""]);
    }

    #[test]
    fn limits_out_of_range_are_refused_by_name() {
        assert!(Sandbox::new(2048, 60, 256, &[]).is_ok());
        let e = Sandbox::new(10, 60, 256, &[]).unwrap_err();
        assert!(e.contains("--sandbox-memory") && e.contains("64"), "{e}");
        let e = Sandbox::new(2048, 0, 256, &[]).unwrap_err();
        assert!(e.contains("--sandbox-cpu"), "{e}");
        let e = Sandbox::new(2048, 60, 1, &[]).unwrap_err();
        assert!(e.contains("--sandbox-processes"), "{e}");
        let e = Sandbox::new(2048, 60, 256, &[PathBuf::from("/no/such/venv")]).unwrap_err();
        assert!(e.contains("/no/such/venv"), "{e}");
    }

    #[test]
    fn each_sandbox_of_root_has_a_uid_of_its_own() {
        let (a, b) = (next_uid(), next_uid());
        assert_ne!(a, b);
        assert!(a >= UID_BASE && a < i32::MAX as u32, "{a}");
    }
}
