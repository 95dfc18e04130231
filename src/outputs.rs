//! Where reports go. A report never destroys an input: before anything runs, every destination
//! is compared (links resolved, by device and inode) with every file the run reads, and one that
//! is not a regular file (a FIFO, a device, a socket, a folder) is refused, so that opening it
//! can neither block nor write into something else. Every report is then written the one way:
//! into a new temporary file beside the destination, renamed into place, so a reader never sees
//! half a report and a link at the destination is replaced, not written through.

use crate::case::Case;
use crate::manifest::Entry;
use std::io::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// A file the run reads, named for the error that protects it (`the manifest`, `case file`).
pub struct Input {
    pub what: String,
    pub path: PathBuf,
}

impl Input {
    pub fn new(what: impl Into<String>, path: impl Into<PathBuf>) -> Input {
        Input {
            what: what.into(),
            path: path.into(),
        }
    }
}

/// The file a path reaches, links followed: `None` when nothing is there.
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Refuses a destination that is not a regular file, or that is (or links to) one of `inputs`.
/// `flag` names the destination in the error.
pub fn check(flag: &str, path: &Path, inputs: &[Input]) -> Result<(), String> {
    let shown = crate::inert::terminal_line(&path.to_string_lossy());
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    if meta.is_dir() {
        return Err(format!("{flag} {shown}: is a folder; give a file name"));
    }
    if !meta.is_file() {
        return Err(format!(
            "{flag} {shown}: is {}, not a regular file; a report is written only to a file",
            crate::textfile::kind(&meta)
        ));
    }
    let here = (meta.dev(), meta.ino());
    if let Some(input) = inputs.iter().find(|i| identity(&i.path) == Some(here)) {
        return Err(format!(
            "{flag} {shown}: is {} ({}); the report would overwrite it, give the report \
             another name",
            input.what,
            crate::inert::terminal_line(&input.path.to_string_lossy())
        ));
    }
    Ok(())
}

/// Writes `text` to `path` through a new temporary file in the same folder, renamed into place.
/// With `replace` false an existing file is never replaced (expectations are never overwritten).
pub fn write(path: &Path, text: &str, replace: bool) -> Result<(), String> {
    let shown = || crate::inert::terminal_line(&path.to_string_lossy());
    // Checked again at the moment of writing: the destination may have changed since the run
    // started.
    if let Ok(meta) = std::fs::symlink_metadata(path)
        && !meta.is_file()
        && !meta.file_type().is_symlink()
    {
        return Err(format!(
            "cannot write {}: is {}, not a regular file",
            shown(),
            crate::textfile::kind(&meta)
        ));
    }
    let (temp, mut file) = temporary(path).map_err(|e| format!("cannot write {}: {e}", shown()))?;
    let placed = file
        .write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .and_then(|()| {
            if replace {
                std::fs::rename(&temp, path)
            } else {
                // A hard link fails on an existing name, where a rename would replace it.
                std::fs::hard_link(&temp, path)
            }
        });
    drop(file);
    if !replace || placed.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    placed.map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            format!(
                "cannot create {}: it exists, and it is never overwritten",
                shown()
            )
        }
        _ => format!("cannot write {}: {e}", shown()),
    })
}

/// A new file beside `path`, named so that it cannot be taken for a case or a report.
fn temporary(path: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let mut last = None;
    for _ in 0..16 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let temp = folder.join(format!(
            ".{name}.hookcheck-{}-{}-{nanos}.tmp",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
        {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

/// The existing paths a shell command names: each word (quotes dropped) that is a file, taken
/// relative to `dir` when not absolute. What it cannot tell (a path built by the shell) it
/// leaves out; the check is against overwriting what the run reads, not a parser of `sh`.
pub fn command_paths(command: &str, dir: Option<&Path>) -> Vec<PathBuf> {
    command
        .split_whitespace()
        .map(|w| w.trim_matches(['\'', '"']))
        .filter(|w| !w.is_empty() && !w.starts_with('-'))
        .map(|w| match dir {
            Some(d) if !Path::new(w).is_absolute() => d.join(w),
            _ => PathBuf::from(w),
        })
        .filter(|p| p.is_file())
        .collect()
}

/// Every file a check reads, for [`destinations`]: the manifest, the expectations, the case
/// files, each implementation's files (its matched file, the existing paths its command names)
/// and hookcheck itself.
pub fn inputs(
    manifest: Option<&Path>,
    expect: Option<&Path>,
    entries: &[Entry],
    cases: &[Case],
) -> Vec<Input> {
    let mut inputs = Vec::new();
    if let Some(m) = manifest {
        inputs.push(Input::new("the manifest", m));
    }
    for e in expect
        .into_iter()
        .map(Path::to_path_buf)
        .chain(entries.iter().filter_map(|e| e.expect.clone()))
    {
        inputs.push(Input::new("the expectations file", e));
    }
    for c in cases {
        inputs.push(Input::new(
            format!("the file of case {}", c.id),
            c.file.to_path_buf(),
        ));
    }
    for e in entries {
        let dir = e.options.dir.as_deref();
        for (_, value) in &e.options.vars {
            inputs.push(Input::new(
                format!("a file of implementation {}", e.name),
                value,
            ));
        }
        for path in e
            .command
            .as_deref()
            .map_or_else(Vec::new, |c| command_paths(c, dir))
        {
            inputs.push(Input::new(
                format!("a file of implementation {}", e.name),
                path,
            ));
        }
    }
    if let Ok(exe) = std::env::current_exe() {
        inputs.push(Input::new("the hookcheck binary", exe));
    }
    inputs
}

/// The report files, checked before anything runs: each in a folder that exists, a regular file
/// if it exists at all (never a FIFO, device or folder), none of the run's inputs, no two the same
/// file, and the expectations to write not there yet (they are never overwritten). A
/// configuration error then costs no run.
/// `outputs`: each report's flag and file, if asked for.
pub fn destinations(outputs: &[(&str, Option<&Path>)], inputs: &[Input]) -> Result<(), String> {
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for &(flag, path) in outputs {
        let Some(path) = path else { continue };
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(format!(
                "{flag} {}: the folder {} does not exist",
                path.display(),
                folder.display()
            ));
        }
        check(flag, path, inputs)?;
        if flag == "--write-expectations" && path.exists() {
            return Err(format!(
                "{flag} {}: the file exists, and expectations are never overwritten; remove it \
                 or give a new name",
                path.display()
            ));
        }
        // The same file by another spelling (`./a.xml`, `a.xml`) is the same file.
        let same = folder
            .canonicalize()
            .map(|f| f.join(path.file_name().unwrap_or_default()))
            .unwrap_or_else(|_| path.to_path_buf());
        if let Some((other, _)) = seen.iter().find(|(_, p)| *p == same) {
            return Err(format!(
                "{flag} and {other} both name {}: give each report a file of its own",
                path.display()
            ));
        }
        seen.push((flag, same));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hookcheck-outputs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("folder");
        dir
    }

    #[test]
    fn an_input_or_a_link_to_it_is_refused_and_left_alone() {
        let dir = folder("inputs");
        let manifest = dir.join("grading.toml");
        std::fs::write(&manifest, "[[implementation]]\n").expect("manifest");
        let link = dir.join("report.html");
        std::os::unix::fs::symlink(&manifest, &link).expect("link");
        let inputs = [Input::new("the manifest", &manifest)];
        for path in [&manifest, &link] {
            let e = check("--html", path, &inputs).unwrap_err();
            assert!(
                e.contains("is the manifest") && e.contains("grading.toml"),
                "{e}"
            );
        }
        let e = check("--junit", &dir.join("./grading.toml"), &inputs).unwrap_err();
        assert!(e.contains("--junit"), "{e}");
        assert!(check("--html", &dir.join("new.html"), &inputs).is_ok());
        // Written anyway through the one writer, the link is replaced, never written through.
        write(&link, "<html>", true).expect("written");
        assert_eq!(
            std::fs::read_to_string(&manifest).ok().as_deref(),
            Some("[[implementation]]\n")
        );
        assert_eq!(
            std::fs::read_to_string(&link).ok().as_deref(),
            Some("<html>")
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_fifo_a_device_or_a_folder_is_refused_without_opening_it() {
        let dir = folder("special");
        let fifo = dir.join("report.html");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).expect("path");
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = check("--html", &fifo, &[]).unwrap_err();
        assert!(e.contains("FIFO"), "{e}");
        let e = write(&fifo, "x", true).unwrap_err();
        assert!(e.contains("FIFO"), "{e}");
        let e = check("--junit", Path::new("/dev/null"), &[]).unwrap_err();
        assert!(e.contains("a device"), "{e}");
        let e = check("--markdown", &dir, &[]).unwrap_err();
        assert!(e.contains("is a folder"), "{e}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn writing_leaves_no_temporary_file_and_never_replaces_when_told_not_to() {
        let dir = folder("write");
        let path = dir.join("expected.toml");
        write(&path, "one", false).expect("new");
        let e = write(&path, "two", false).unwrap_err();
        assert!(e.contains("never overwritten"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), Some("one"));
        write(&path, "three", true).expect("replaced");
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some("three")
        );
        let left: Vec<_> = std::fs::read_dir(&dir)
            .expect("listing")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, ["expected.toml"]);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_command_names_the_files_it_runs() {
        let dir = folder("command");
        std::fs::write(dir.join("sol.py"), "").expect("file");
        let found = command_paths("python3 'sol.py' --parts retries missing.py", Some(&dir));
        assert_eq!(found, [dir.join("sol.py")]);
        let _ = std::fs::remove_dir_all(dir);
    }
}
