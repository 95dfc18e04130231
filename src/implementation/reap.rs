//! Making sure nothing an implementation started outlives it. Killing its process group is not
//! enough: a child may move to a group or session of its own (`setsid()`), or be orphaned when its
//! parent exits. So hookcheck makes itself the *subreaper* of everything it starts (orphans are
//! re-parented to it, not to init), marks every implementation process with an environment
//! variable its descendants inherit, and on every stop kills the group, every descendant found in
//! `/proc`, and every orphan it adopted that carries the mark. `--sandbox` is the strong form of
//! this (a PID namespace); this module is what holds without it.

use std::sync::Once;

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

/// The process table from `/proc`; processes that vanish while it is read are left out.
fn table() -> Vec<Row> {
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
            if state == "Z" || state == "X" {
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
            .filter(|r| r.pid != me)
            .filter(|r| {
                r.ppid == me
                    || std::fs::read(format!("/proc/{}/environ", r.pid)).is_ok_and(|env| {
                        env.split(|b| *b == 0)
                            .any(|v| v.starts_with(prefix.as_bytes()))
                    })
            })
            .map(|r| r.pid)
            .collect();
        if stray.is_empty() {
            return;
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
