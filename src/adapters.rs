//! The adapters carried in the binary: `--impl solution.py` (or `.js`, `.mjs`, `.cjs`) runs the
//! file through the matching adapter without the user knowing where the adapters live, and
//! `hookcheck adapter python|node [DIR]` writes one out to read or vendor. The files under
//! `harness/adapters/` stay the source; this embeds them at build time.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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

    /// The adapter as a file this process can run: written once into a private folder of this
    /// process (removed by [`cleanup`]).
    pub fn installed(&self) -> Result<PathBuf, String> {
        let dir = folder()?;
        let path = dir.join(self.file_name);
        if !path.exists() {
            self.write_into(dir)?;
        }
        Ok(path)
    }
}

fn folder() -> Result<&'static Path, String> {
    static FOLDER: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    FOLDER
        .get_or_init(|| {
            let dir =
                std::env::temp_dir().join(format!("hookcheck-adapters-{}", std::process::id()));
            std::fs::create_dir_all(&dir)
                .map(|()| dir.clone())
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))
        })
        .as_ref()
        .map(PathBuf::as_path)
        .map_err(Clone::clone)
}

/// Removes the adapters this process wrote for itself.
pub fn cleanup() {
    let dir = std::env::temp_dir().join(format!("hookcheck-adapters-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(dir);
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
        cleanup();
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
