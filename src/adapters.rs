//! The adapters carried in the binary: `--impl solution.py` (or `.js`, `.mjs`, `.cjs`) runs the
//! file through the matching adapter without the user knowing where the adapters live, and
//! `hookcheck adapter python|node [DIR]` writes one out to read or vendor. The files under
//! `harness/adapters/` stay the source; this embeds them at build time.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One adapter: the language it serves, its interpreter and its source.
pub struct Adapter {
    pub language: &'static str,
    pub file_name: &'static str,
    pub interpreter: &'static str,
    extensions: &'static [&'static str],
    source: &'static str,
}

pub static ADAPTERS: [Adapter; 2] = [
    Adapter {
        language: "python",
        file_name: "hookcheck_adapter.py",
        interpreter: "python3",
        extensions: &["py"],
        source: include_str!("../harness/adapters/python/hookcheck_adapter.py"),
    },
    Adapter {
        language: "node",
        file_name: "hookcheck_adapter.mjs",
        interpreter: "node",
        extensions: &["js", "mjs", "cjs"],
        source: include_str!("../harness/adapters/node/hookcheck_adapter.mjs"),
    },
];

/// The adapter for a language name (`python`, `node`).
pub fn by_language(language: &str) -> Option<&'static Adapter> {
    ADAPTERS.iter().find(|a| a.language == language)
}

/// The adapter that serves a solution file, by its extension.
pub fn for_file(path: &Path) -> Option<&'static Adapter> {
    let extension = path.extension()?.to_str()?;
    ADAPTERS.iter().find(|a| a.extensions.contains(&extension))
}

impl Adapter {
    /// Writes the adapter into `dir` (made if missing); an existing file is never overwritten.
    pub fn write_into(&self, dir: &Path) -> Result<PathBuf, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the folder {}: {e}", dir.display()))?;
        let path = dir.join(self.file_name);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, self.source.as_bytes()))
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => format!(
                    "{} exists already: it is not overwritten (remove it, or name another folder)",
                    path.display()
                ),
                _ => format!("cannot write {}: {e}", path.display()),
            })?;
        Ok(path)
    }

    /// The adapter as a file this process can run: written once into a folder made for this
    /// process alone (removed by [`cleanup`]).
    pub fn installed(&self) -> Result<PathBuf, String> {
        let mut folder = FOLDER
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = match &*folder {
            Some(dir) => dir.clone(),
            None => {
                let dir = private_folder(&std::env::temp_dir(), "hookcheck-adapters-")?;
                *folder = Some(dir.clone());
                dir
            }
        };
        let path = dir.join(self.file_name);
        // Only this process writes into its folder, and under this lock: a file there is the
        // one it wrote.
        if !path.exists() {
            self.write_into(&dir)?;
        }
        Ok(path)
    }
}

/// This process's folder for the adapters: made fresh by `mkdtemp` (an unpredictable name,
/// mode 0700, refused if anything is there already), never one found in place. A predictable
/// name reused when it exists would let anyone who writes to the temporary folder first plant
/// an adapter that passes every case and runs as the grader.
static FOLDER: Mutex<Option<PathBuf>> = Mutex::new(None);

/// A new folder `prefix` + six random characters in `parent`, private to this user.
fn private_folder(parent: &Path, prefix: &str) -> Result<PathBuf, String> {
    use std::os::unix::ffi::OsStringExt;
    let mut template = parent
        .join(format!("{prefix}XXXXXX"))
        .into_os_string()
        .into_vec();
    if template.contains(&0) {
        return Err(format!(
            "the temporary folder {} holds a NUL byte",
            parent.display()
        ));
    }
    template.push(0);
    // SAFETY: `template` is a writable NUL-terminated buffer that mkdtemp fills in place.
    let made = unsafe { libc::mkdtemp(template.as_mut_ptr().cast()) };
    if made.is_null() {
        let e = std::io::Error::last_os_error();
        return Err(format!(
            "cannot make a private folder for the adapters in {}: {e}",
            parent.display()
        ));
    }
    template.pop();
    Ok(PathBuf::from(std::ffi::OsString::from_vec(template)))
}

/// Removes the adapters this process wrote for itself; a later [`Adapter::installed`] makes a
/// new folder.
pub fn cleanup() {
    let taken = FOLDER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some(dir) = taken {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solutions_find_their_adapter_by_extension() {
        for (file, language) in [
            ("sol.py", Some("python")),
            ("a/b/sol.mjs", Some("node")),
            ("sol.cjs", Some("node")),
            ("sol.js", Some("node")),
            ("sol.rb", None),
            ("python3", None),
        ] {
            assert_eq!(
                for_file(Path::new(file)).map(|a| a.language),
                language,
                "{file}"
            );
        }
        let python = by_language("python").expect("python");
        assert!(python.source.contains("def main("));
        let installed = python.installed().expect("installed");
        assert_eq!(
            std::fs::read_to_string(&installed).ok().as_deref(),
            Some(python.source)
        );
        let e = python
            .write_into(installed.parent().expect("folder"))
            .unwrap_err();
        assert!(e.contains("not overwritten"), "{e}");
    }

    /// A file planted where the adapters used to go (`$TMPDIR/hookcheck-adapters-<pid>`, a name
    /// anyone can guess and reused when present) is never run: every process, and every run
    /// after a cleanup, makes a folder of its own, private to the user.
    #[test]
    fn a_planted_adapter_is_never_used() {
        use std::os::unix::fs::PermissionsExt;
        let old = std::env::temp_dir().join(format!("hookcheck-adapters-{}", std::process::id()));
        std::fs::create_dir_all(&old).expect("the old folder");
        let planted = old.join("hookcheck_adapter.py");
        std::fs::write(&planted, "print('every case passes')\n").expect("planted");
        let python = by_language("python").expect("python");
        let installed = python.installed().expect("installed");
        assert_ne!(installed.parent(), Some(old.as_path()));
        assert_eq!(
            std::fs::read_to_string(&installed).ok().as_deref(),
            Some(python.source)
        );
        let folder = installed.parent().expect("its folder").to_path_buf();
        let mode = std::fs::metadata(&folder)
            .expect("folder")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        assert_eq!(
            std::fs::read_to_string(&planted).ok().as_deref(),
            Some("print('every case passes')\n"),
            "the planted file is left alone, and unused"
        );
        let _ = std::fs::remove_dir_all(&old);
    }

    #[test]
    fn private_folders_are_new_each_time_and_refuse_a_bad_parent() {
        let parent = std::env::temp_dir();
        let a = private_folder(&parent, "hookcheck-test-").expect("a");
        let b = private_folder(&parent, "hookcheck-test-").expect("b");
        assert_ne!(a, b);
        assert!(a.is_dir() && b.is_dir());
        let missing = parent.join("hookcheck-no-such-folder").join("x");
        let e = private_folder(&missing, "p-").unwrap_err();
        assert!(e.contains("cannot make a private folder"), "{e}");
        let _ = (std::fs::remove_dir(a), std::fs::remove_dir(b));
    }

    /// The adapters check the names a solution declares against their own list: a part hookcheck
    /// knows and an adapter does not would be refused before hookcheck sees it. A solution that
    /// declares nothing offers the brief's three parts.
    #[test]
    fn the_adapters_know_every_part_and_default_to_the_brief() {
        use crate::case::Part;
        let quoted = |parts: &[Part]| -> String {
            parts
                .iter()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let brief = quoted(&Part::BRIEF);
        let roadmap: Vec<Part> = Part::ALL
            .into_iter()
            .filter(|p| !Part::BRIEF.contains(p))
            .collect();
        let roadmap = quoted(&roadmap);
        for (adapter, default, known) in [
            (
                "python",
                format!("BRIEF_PARTS = ({brief})"),
                format!("PARTS = BRIEF_PARTS + ({roadmap})"),
            ),
            (
                "node",
                format!("const BRIEF_PARTS = [{brief}];"),
                format!("const PARTS = [...BRIEF_PARTS, {roadmap}];"),
            ),
        ] {
            let source = by_language(adapter).expect("an adapter").source;
            assert!(source.contains(&default), "{adapter}: {default}");
            assert!(source.contains(&known), "{adapter}: {known}");
        }
    }
}
