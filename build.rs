//! Embeds the case corpus and the spec in the crate (`src/builtin.rs`), so that an installed
//! `hookcheck` checks implementations from any folder. The files under `cases/` and `spec/` stay
//! the source of truth: this reads them at build time, and cargo rebuilds when they change.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    let mut code = String::new();
    for (name, folder, extensions) in [
        ("CASE_FILES", "cases", &["yaml", "yml"][..]),
        ("SPEC_FILES", "spec", &["md", "json", "yaml", "yml"][..]),
    ] {
        println!("cargo:rerun-if-changed={folder}");
        let mut files = Vec::new();
        walk(&root.join(folder), extensions, &mut files);
        files.sort();
        let _ = writeln!(code, "pub static {name}: &[(&str, &str)] = &[");
        for file in files {
            let relative = file
                .strip_prefix(&root)
                .expect("below the package")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let _ = writeln!(
                code,
                "    ({relative:?}, include_str!({:?})),",
                file.display().to_string()
            );
        }
        code.push_str("];\n");
    }
    std::fs::write(out.join("builtin.rs"), code).expect("OUT_DIR is writable");
}

fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a readable folder").path();
        if path.is_dir() {
            walk(&path, extensions, out);
        } else {
            let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if extensions.contains(&extension) {
                out.push(path);
            } else if extensions.contains(&extension.to_ascii_lowercase().as_str()) {
                // `case::discover_all` skips these with a warning too: extensions are lower case.
                println!(
                    "cargo:warning={}: not embedded: the extension must be lower case",
                    path.display()
                );
            }
        }
    }
}
