//! Making sure nothing an implementation started outlives it. Killing its process group is not
//! enough: a child may move to a group or session of its own (`setsid()`), or be orphaned when its
//! parent exits. So hookcheck makes itself the *subreaper* of everything it starts (orphans are
//! re-parented to it, not to init), marks every implementation process with an environment
//! variable its descendants inherit, and on every stop kills the group, every descendant found in
//! `/proc`, and every orphan it adopted that carries the mark. `--sandbox` is the strong form of
//! this (a PID namespace); this module is what holds without it.
//!
//! A chain that never stays put (each generation moves to a new session, forks the next and
//! exits) outruns any walk of the whole of `/proc`: by the time the walk is read, the process it
//! found is gone and its successor was not in it. But every generation is orphaned, so it is
//! re-parented to us: [`chase`] reads only our own children lists (a few small files, not the
//! process table) and kills what it finds until two reads in a row find none, within a bound of
//! time. Only this process can end that: no cgroup is needed.
//!
//! When hookcheck is killed with SIGKILL it can clean up nothing, so two things act without it.
//! The processes it starts get `PR_SET_PDEATHSIG` (SIGKILL): the kernel kills them with it. That
//! reaches only the process hookcheck started (a shell that did not `exec`, a launcher such as
//! pyenv's shims, keep the real implementation one level down, and the signal is not inherited),
//! so a *guard* ([`guard`]), a second hookcheck process outside the process group, waits for the
//! end of a pipe only hookcheck holds: when hookcheck is gone, it kills every process that carries
//! this run's mark. The kernel sends the death signal when the *thread* that started the process
//! ends, not the process: every process is started from one thread that lives as long as
//! hookcheck ([`spawn`]), since the workers that ask for processes come and go.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::mpsc::{self, Sender};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

/// The environment variable that marks an implementation's processes: `<hookcheck pid>-<n>`.
pub const MARK: &str = "HOOKCHECK_PROCESS";

/// Orphans of implementation processes are re-parented to this process from now on.
pub fn adopt_orphans() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument and touches no
        // memory of ours.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
    });
}

/// One row of the process table.
#[derive(Clone, Copy, Debug)]
struct Row {
    pid: i32,
    ppid: i32,
    pgid: i32,
}

/// The process table from `/proc`, without the processes that have ended (zombies); processes
/// that vanish while it is read are left out.
fn table() -> Vec<Row> {
    rows(false)
}

/// The process table, zombies included with `zombies`: a process that exists for the whole walk
/// is in it, alive or ended, while one started during the walk may be missed.
fn rows(zombies: bool) -> Vec<Row> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The command name is in parentheses and may hold anything, parentheses included:
            // the fields that follow start after the last `)`.
            let rest = &stat[stat.rfind(')')? + 1..];
            let mut fields = rest.split_whitespace();
            let state = fields.next()?;
            if !zombies && (state == "Z" || state == "X") {
                return None;
            }
            let ppid = fields.next()?.parse().ok()?;
            let pgid = fields.next()?.parse().ok()?;
            Some(Row { pid, ppid, pgid })
        })
        .collect()
}

fn marked(pid: i32, mark: &str) -> bool {
    let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let wanted = format!("{MARK}={mark}");
    environ.split(|b| *b == 0).any(|v| v == wanted.as_bytes())
}

/// The processes to kill for the implementation process `root` marked `mark`: its group, its
/// descendants (whatever group or session they moved to), and the orphans this process adopted
/// that carry the mark, with their descendants.
fn victims(rows: &[Row], root: i32, mark: &str) -> Vec<i32> {
    let me = std::process::id() as i32;
    let mut found: Vec<i32> = rows
        .iter()
        .filter(|r| r.pgid == root || (r.ppid == me && r.pid != root && marked(r.pid, mark)))
        .map(|r| r.pid)
        .collect();
    found.push(root);
    // Descendants, to a fixed point: rows are few, so the simple loop is fast enough.
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        for r in rows.iter().filter(|r| r.ppid == parent) {
            if !found.contains(&r.pid) {
                found.push(r.pid);
            }
        }
        i += 1;
    }
    found
}

/// When the implementation process `root` (marked `mark`) and what it started hold the pipe
/// `pipe` only in processes blocked waiting for a child (a shell or launcher that started the
/// implementation and waits for it), who they are (`` `sh` (pid 12) ``); otherwise, or when a
/// process's descriptors or state cannot be read, `None`: nothing is claimed that was not seen.
/// With `sandboxed`, `root` is the outer bwrap, which holds the pipe while it watches the sandbox
/// (not in a wait): it is not counted.
pub fn only_waiting_hold(root: i32, mark: &str, pipe: u64, sandboxed: bool) -> Option<String> {
    let rows = table();
    let target = format!("pipe:[{pipe}]");
    let mut holders = Vec::new();
    let mut tree = victims(&rows, root, mark);
    tree.sort_unstable();
    tree.dedup();
    for pid in tree {
        if (sandboxed && pid == root) || !rows.iter().any(|r| r.pid == pid) {
            continue;
        }
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
        let holds = fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == &*target));
        if holds {
            holders.push(pid);
        }
    }
    if holders.is_empty() {
        return None;
    }
    let mut names = Vec::new();
    for pid in holders {
        // The first field is the number of the system call the process is blocked in.
        let call = std::fs::read_to_string(format!("/proc/{pid}/syscall")).ok()?;
        let number: libc::c_long = call.split_whitespace().next()?.parse().ok()?;
        if number != libc::SYS_wait4 && number != libc::SYS_waitid {
            return None;
        }
        let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        names.push(format!("`{}` (pid {pid})", name.trim()));
    }
    Some(match names.len() {
        1 => format!("{}, waiting for its child, holds", names[0]),
        _ => format!("{}, each waiting for a child, hold", names.join(" and ")),
    })
}

/// Kills the implementation process `root` (the leader of its own group, marked `mark`) and
/// everything it started, and collects the adopted orphans among them. `root` itself is left for
/// its owner to collect.
pub fn kill_tree(root: i32, mark: &str) {
    if root <= 0 {
        return;
    }
    // A process may fork while we look: a few rounds catch what the first one missed.
    for _ in 0..4 {
        // SAFETY: killpg and kill only send signals; a pid that is gone gives ESRCH.
        unsafe {
            libc::killpg(root, libc::SIGKILL);
        }
        let victims = victims(&table(), root, mark);
        let others: Vec<i32> = victims.into_iter().filter(|p| *p != root).collect();
        for pid in &others {
            // SAFETY: as above.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
        }
        collect_adopted(&others);
        if others.is_empty() {
            break;
        }
    }
    chase(|pid| marked(pid, mark), CHASE_TREE);
}

/// Kills every live implementation process and everything they started.
pub fn kill_all() {
    for (pid, mark) in super::live::all() {
        kill_tree(pid, &mark);
    }
    sweep();
}

/// Collects the exit status of those of `pids` that are our children (adopted orphans), so they
/// do not linger as zombies. Others are not ours to wait for and are skipped by the kernel.
fn collect_adopted(pids: &[i32]) {
    for &pid in pids {
        // SAFETY: waitpid on a specific pid with WNOHANG never blocks; a pid that is not our
        // child gives ECHILD.
        unsafe {
            let mut status = 0;
            libc::waitpid(pid, &mut status, libc::WNOHANG);
        }
    }
}

/// At the end of a run, or on Ctrl-C: every process this one adopted and every process marked
/// by this run is killed; those no `Child` owns are collected here (owners collect their own).
pub fn sweep() {
    let me = std::process::id() as i32;
    let prefix = format!("{MARK}={me}-");
    for _ in 0..4 {
        let stray: Vec<i32> = table()
            .iter()
            .filter(|r| r.pid != me && GUARD.get() != Some(&r.pid))
            .filter(|r| {
                r.ppid == me
                    || std::fs::read(format!("/proc/{}/environ", r.pid)).is_ok_and(|env| {
                        env.split(|b| *b == 0)
                            .any(|v| v.starts_with(prefix.as_bytes()))
                    })
            })
            .map(|r| r.pid)
            .collect();
        // Nothing found is no proof: a chain's next generation may have started after the walk
        // passed its place, so the chase below runs all the same.
        if stray.is_empty() {
            break;
        }
        for pid in &stray {
            // SAFETY: kill only sends a signal.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
        }
        let adopted: Vec<i32> = stray
            .into_iter()
            .filter(|p| !super::live::owned(*p))
            .collect();
        collect_adopted(&adopted);
    }
    // Whatever is left (a chain that re-forks faster than the table is read, an orphan that
    // dropped the mark) is one of our children now.
    chase(|_| true, CHASE_SWEEP);
}

/// How long [`chase`] may go on: a case's stop, and the end of a run (or a signal).
const CHASE_TREE: Duration = Duration::from_millis(500);
const CHASE_SWEEP: Duration = Duration::from_secs(2);

/// Our children that no `Child` owns and `wanted` accepts, those that have ended included. The
/// kernel lists a process's children per thread (an orphan goes to one of the subreaper's
/// threads); without those lists (a kernel built without them) the process table says the same,
/// more slowly, and then the ended ones matter: a generation of a re-forking chain started during
/// the walk may be missed, but its parent, ended and not yet collected, is still our child and
/// is found, so a walk finds nothing only once the chain is over.
fn adopted(wanted: &impl Fn(i32) -> bool) -> Vec<i32> {
    let me = std::process::id() as i32;
    let lists = std::path::Path::new("/proc/self/task/")
        .join(me.to_string())
        .join("children")
        .exists();
    let children: Vec<i32> = match std::fs::read_dir("/proc/self/task") {
        Ok(tasks) if lists => tasks
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
            .flat_map(|c| {
                c.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok())
                    .collect::<Vec<i32>>()
            })
            .collect(),
        _ => rows(true)
            .iter()
            .filter(|r| r.ppid == me)
            .map(|r| r.pid)
            .collect(),
    };
    children
        .into_iter()
        .filter(|p| *p != me && GUARD.get() != Some(p) && !super::live::owned(*p))
        // An ended child has no environment left to carry a mark: it is collected whatever it
        // was, which is harmless (no `Child` owns it, so nobody else waits for it).
        .filter(|p| wanted(*p) || ended(*p))
        .collect()
}

/// The state letter of `pid` (`R`, `S`, `Z`...), `None` once it is gone.
fn state(pid: i32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().next().map(str::to_string)
}

/// Whether `pid` has ended and waits to be collected (a zombie).
fn ended(pid: i32) -> bool {
    state(pid).is_some_and(|s| s == "Z")
}

/// Whether `pid` exists and has not ended.
fn runs(pid: i32) -> bool {
    state(pid).is_some_and(|s| s != "Z" && s != "X")
}

/// Kills and collects the adopted children `wanted` accepts until two reads of our children in a
/// row find none, or `bound` has passed. A zombie is collected, not chased: it started nothing
/// that is not already ours (the kernel re-parents a process's children before it becomes one).
fn chase(wanted: impl Fn(i32) -> bool, bound: Duration) {
    let until = Instant::now() + bound;
    let mut killed: Vec<i32> = Vec::new();
    let mut empty_reads = 0;
    while empty_reads < 2 && Instant::now() < until {
        let found = adopted(&wanted);
        for pid in &found {
            // SAFETY: kill only sends a signal.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
            if !killed.contains(pid) {
                killed.push(*pid);
            }
        }
        killed.retain(|pid| !collected(*pid));
        if found.is_empty() {
            empty_reads += 1;
            // A moment for an orphan being re-parented between two threads' lists to land (it
            // takes microseconds; every stop pays this twice).
            std::thread::sleep(Duration::from_micros(100));
        } else {
            empty_reads = 0;
        }
    }
    // The last ones killed need a moment to die before they can be collected.
    while !killed.is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(1));
        killed.retain(|pid| !collected(*pid));
    }
}

/// Collects `pid` if it is a child of ours that has ended: true once it is gone.
fn collected(pid: i32) -> bool {
    let mut status = 0;
    // SAFETY: waitpid on a specific pid with WNOHANG never blocks.
    let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
    r == pid || r < 0
}

/// The guard's pid, which the sweeps leave alone: it is our child, unmarked, and must outlive us.
static GUARD: OnceLock<i32> = OnceLock::new();

/// Starts the guard of this run: `exe guard PID`, reading a pipe whose other end only this
/// process holds (close-on-exec, so no implementation inherits it). Without it (no executable to
/// start) the run goes on as before; `PR_SET_PDEATHSIG` still holds.
pub fn guard(exe: &std::path::Path) {
    static WRITE_END: OnceLock<std::process::ChildStdin> = OnceLock::new();
    if GUARD.get().is_some() {
        return;
    }
    let started = Command::new(exe)
        .arg("guard")
        .arg(std::process::id().to_string())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        // Its own group: a Ctrl-C or a kill of hookcheck's group does not reach it.
        .process_group(0)
        .spawn();
    if let Ok(mut guard) = started
        && let Some(stdin) = guard.stdin.take()
    {
        let _ = GUARD.set(guard.id() as i32);
        let _ = WRITE_END.set(stdin);
    }
}

/// The guard's side: waits until the pipe from hookcheck `watched` ends (it exited, however it
/// died), then kills every process marked by that run until two walks of `/proc` in a row find
/// none still running (bounded: what still runs after that was not started by it). The guard is
/// no subreaper of theirs, so a chain that re-forks is caught by speed instead: a walk lists
/// `/proc` at once and reads the environment only of the pids that were not in the walk before,
/// and the one generation that runs is always one of those. A pid that stays in the listing
/// from one walk to the next is the same process (its pid cannot be reused while it is listed,
/// even as a zombie); one that leaves the listing is forgotten, since its pid will come back as
/// another process (a fast chain goes round a `pid_max` of 32,768 in seconds).
pub fn keep_watch(watched: u32) {
    let mut sink = [0u8; 64];
    let mut stdin = io::stdin().lock();
    while io::Read::read(&mut stdin, &mut sink).is_ok_and(|n| n > 0) {}
    let wanted = format!("{MARK}={watched}-");
    let me = std::process::id() as i32;
    // What each listed pid was found to be: marked (and killed) or not.
    let mut known: std::collections::HashMap<i32, bool> = std::collections::HashMap::new();
    let until = Instant::now() + CHASE_SWEEP;
    let mut empty_walks = 0;
    while empty_walks < 2 && Instant::now() < until {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return;
        };
        let listing: Vec<i32> = dir
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| *pid != me)
            .collect();
        let mut seen = std::collections::HashMap::with_capacity(listing.len());
        let mut running = false;
        for pid in listing {
            let killed = match known.get(&pid) {
                Some(&killed) => killed,
                // A read that fails (the process is between two programs, or gone) says
                // nothing: the pid is read again on the next walk.
                None => match std::fs::read(format!("/proc/{pid}/environ")) {
                    Ok(env) => env
                        .split(|b| *b == 0)
                        .any(|v| v.starts_with(wanted.as_bytes())),
                    Err(_) => continue,
                },
            };
            // One killed and not yet ended keeps the walks going: a fork it finished just
            // before the signal shows in a later listing.
            if killed && runs(pid) {
                running = true;
                // SAFETY: kill only sends a signal.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            seen.insert(pid, killed);
        }
        known = seen;
        empty_walks = if running { 0 } else { empty_walks + 1 };
    }
}

type Spawned = io::Result<Child>;
/// A command to start, and where to send the started process.
type Request = (Command, Sender<Spawned>);

/// Starts `command` so that it dies with hookcheck (`PR_SET_PDEATHSIG`), from the one thread
/// that lives as long as hookcheck (see the module's doc).
pub fn spawn(mut command: Command) -> Spawned {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs in the forked child before `exec` and makes only async-signal-safe
    // system calls (`prctl`, `getppid`), allocating nothing (the standard library passes only the
    // error's number back to the parent).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            // hookcheck died between the fork and the prctl: the signal will never come.
            if libc::getppid() != parent {
                return Err(io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
    static SPAWNER: OnceLock<Mutex<Sender<Request>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (requests, incoming) = mpsc::channel::<Request>();
        // Without a thread to spare, the receiver is dropped with the closure and every request
        // below fails with a message.
        let _ = std::thread::Builder::new()
            .name("hookcheck-spawner".to_string())
            .spawn(move || {
                for (mut command, reply) in incoming {
                    let _ = reply.send(command.spawn());
                }
            });
        Mutex::new(requests)
    });
    let (reply, answer) = mpsc::channel();
    let sent = spawner
        .lock()
        .map_err(|_| io::Error::other("the spawner is gone"))
        .and_then(|s| {
            s.send((command, reply))
                .map_err(|_| io::Error::other("no thread to start processes from"))
        });
    sent?;
    answer
        .recv()
        .map_err(|_| io::Error::other("no thread to start processes from"))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_this_process_and_its_parent() {
        let me = std::process::id() as i32;
        let rows = table();
        let row = rows.iter().find(|r| r.pid == me).expect("this process");
        assert!(row.ppid > 0);
        assert!(rows.len() > 1);
    }
}
