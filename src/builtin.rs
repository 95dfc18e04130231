//! The corpus and the spec as this build of hookcheck carries them (embedded by `build.rs` from
//! `cases/` and `spec/`), so `hookcheck check`, `lint` and `coverage` need no checkout, and
//! `hookcheck export` can write them out for reading.

use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

/// Every built-in case file: its path relative to the package (`cases/<suite>/<file>.yaml`),
/// the suite, and its text.
pub fn case_files() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    CASE_FILES.iter().map(|&(path, text)| {
        // `cases/<suite>/<file>`; a file directly in `cases/` (`.yaml` or `.yml`) has the suite
        // `cases`, as `case::discover` gives it.
        let parts: Vec<&str> = path.split('/').collect();
        let suite = match parts.as_slice() {
            [_, suite, _, ..] => suite,
            _ => "cases",
        };
        (path, suite, text)
    })
}

/// Writes the built-in `spec/` and `cases/` below `dir` (which must not hold them already) and
/// returns the files written. An error names the path and what happened; files written before
/// it stay.
pub fn export(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for &(path, text) in SPEC_FILES.iter().chain(CASE_FILES) {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot create the folder {}: {e}", parent.display()),
                )
            })?;
        }
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
            .map_err(|e| {
                let message = if e.kind() == std::io::ErrorKind::AlreadyExists {
                    format!(
                        "{} already exists: export never overwrites a file (export into a new \
                         or empty folder)",
                        target.display()
                    )
                } else {
                    format!("cannot write {}: {e}", target.display())
                };
                std::io::Error::new(e.kind(), message)
            })?;
        written.push(target);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files under cases/ and spec/ are the source of truth; the build carries them as
    /// they are.
    #[test]
    fn the_embedded_corpus_and_spec_equal_the_files() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for (folder, files) in [("cases", CASE_FILES), ("spec", SPEC_FILES)] {
            let mut on_disk = Vec::new();
            let mut stack = vec![root.join(folder)];
            while let Some(dir) = stack.pop() {
                for entry in std::fs::read_dir(&dir).expect("readable").flatten() {
                    let path = entry.path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if matches!(
                        path.extension().and_then(|e| e.to_str()),
                        Some("yaml" | "yml" | "md" | "json")
                    ) {
                        let relative = path
                            .strip_prefix(root)
                            .map(|p| p.to_string_lossy().replace('\\', "/"))
                            .unwrap_or_default();
                        on_disk
                            .push((relative, std::fs::read_to_string(&path).unwrap_or_default()));
                    }
                }
            }
            on_disk.sort();
            let embedded: Vec<(String, String)> = files
                .iter()
                .map(|(p, t)| (p.to_string(), t.to_string()))
                .collect();
            assert_eq!(embedded, on_disk, "{folder}/ differs from the build's copy");
        }
        assert!(CASE_FILES.len() >= 10);
        assert_eq!(
            case_files()
                .find(|(p, _, _)| p.ends_with("schedule.yaml"))
                .map(|(_, s, _)| s),
            Some("retries")
        );
    }

    /// Before, the path was missing and every error claimed existing files were the cause.
    #[test]
    fn export_errors_name_the_path_and_what_happened() {
        let dir =
            std::env::temp_dir().join(format!("hookcheck-export-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a folder");
        // A file where export needs the folder `spec/`.
        std::fs::write(dir.join("spec"), "").expect("a file");
        let err = export(&dir).expect_err("spec/ cannot be made");
        let message = err.to_string();
        assert!(
            message.starts_with(&format!(
                "cannot create the folder {}: ",
                dir.join("spec").display()
            )),
            "{message}"
        );
        assert!(!message.contains("overwrit"), "{message}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn export_writes_every_file_and_never_overwrites() {
        let dir = std::env::temp_dir().join(format!("hookcheck-export-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let written = export(&dir).expect("exports");
        assert_eq!(written.len(), CASE_FILES.len() + SPEC_FILES.len());
        assert!(dir.join("spec/dispatcher.md").is_file());
        assert!(dir.join("cases/retries/schedule.yaml").is_file());
        let again = export(&dir).expect_err("a second export would overwrite");
        let first = dir.join(SPEC_FILES[0].0);
        assert_eq!(
            again.to_string(),
            format!(
                "{} already exists: export never overwrites a file (export into a new or empty \
                 folder)",
                first.display()
            )
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
