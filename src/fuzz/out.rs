//! `fuzz --out DIR`: where a shrunk case file goes. The folder is checked before the run, so a
//! bad path costs no fuzzing; a case file is always a new file (a reviewed case of the same name
//! is never overwritten, and a symlink in its place is never followed: `create_new` refuses any
//! existing name, links included).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder is usable: it exists as a folder, or can be made.
pub fn prepare(dir: &Path) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "--out {}: is not a folder (give the folder the case files go into)",
            dir.display()
        ));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("--out {}: cannot create the folder: {e}", dir.display()))
}

/// Writes `text` as `<stem>.yaml` in `dir`, or `<stem>-2.yaml`, `-3`, ... when that name is
/// taken; returns the file written.
pub fn write_new(dir: &Path, stem: &str, text: &str) -> Result<PathBuf, String> {
    for n in 1..=1000 {
        let name = if n == 1 {
            format!("{stem}.yaml")
        } else {
            format!("{stem}-{n}.yaml")
        };
        let path = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                return file
                    .write_all(text.as_bytes())
                    .map(|()| path.clone())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
        }
    }
    Err(format!(
        "{}: {stem}.yaml and 999 numbered variants exist already",
        dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_case_or_link_is_never_overwritten() {
        let dir = std::env::temp_dir().join(format!("hookcheck-fuzz-out-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        prepare(&dir).expect("folder");
        std::fs::write(dir.join("fuzz-1-0.yaml"), "reviewed").expect("reviewed case");
        let target = dir.join("elsewhere");
        std::os::unix::fs::symlink(&target, dir.join("fuzz-1-0-2.yaml")).expect("link");
        let written = write_new(&dir, "fuzz-1-0", "new").expect("written");
        assert_eq!(written, dir.join("fuzz-1-0-3.yaml"));
        assert_eq!(
            std::fs::read_to_string(dir.join("fuzz-1-0.yaml"))
                .ok()
                .as_deref(),
            Some("reviewed")
        );
        assert!(!target.exists(), "written through the link");
        let file = dir.join("fuzz-1-0.yaml");
        let e = prepare(&file).unwrap_err();
        assert!(e.contains("is not a folder"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
