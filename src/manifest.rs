//! Which implementations a run checks: each `--impl` command, or the entries of a manifest file
//! (TOML or JSON) with a display name, how to run it and its expectations; a `glob` entry (or
//! `--each`) makes one implementation per matching file, for a folder of submissions.
//!
//! ```toml
//! [[implementation]]
//! name = "service"
//! command = "python3 harness/adapters/python/hookcheck_adapter.py service/dispatcher.py"
//! expect = "service.expect.toml"
//!
//! [[implementation]]
//! glob = "submissions/*/solution.py"
//! command = "python3 harness/adapters/python/hookcheck_adapter.py {path}"
//! name = "{dir}"
//! ```

use crate::adapters;
use crate::case::Part;
use crate::compare::Numbers;
use crate::implementation::{Options, Sandbox};
use serde::Deserialize;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One implementation to check.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Its name in reports.
    pub name: String,
    /// The command, run by `sh -c`; `None` is the built-in reference.
    pub command: Option<String>,
    pub options: Options,
    /// Its expectations file, if it has one.
    pub expect: Option<PathBuf>,
}

impl Entry {
    pub fn reference() -> Entry {
        Entry {
            name: "reference".to_string(),
            command: None,
            options: Options::default(),
            expect: None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    #[serde(default)]
    implementation: Vec<RawEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    name: Option<String>,
    command: String,
    glob: Option<String>,
    #[serde(default)]
    per_case: bool,
    parts: Option<Vec<String>>,
    require_parts: Option<Vec<String>>,
    numbers: Option<String>,
    timeout: Option<f64>,
    max_restarts: Option<usize>,
    expect: Option<PathBuf>,
    /// Run it sandboxed (as `--sandbox` does for every entry); `false` does not undo
    /// `--sandbox`.
    #[serde(default)]
    sandbox: bool,
}

/// Reads a manifest: TOML, or JSON when the file name ends in `.json`. `defaults` are the
/// options of the command line, which an entry's own fields override; `sandbox` is the one an
/// entry's `sandbox = true` turns on (the command line's limits and binds). Paths in it (`glob`,
/// `expect`) are relative to the manifest's folder; commands run from the current folder.
pub fn load(path: &Path, defaults: &Options, sandbox: &Sandbox) -> Result<Vec<Entry>, String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let text =
        crate::textfile::read(path, "a manifest", "list fewer implementations").map_err(at)?;
    let manifest: Manifest = if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).map_err(|e| at(e.to_string()))?
    } else {
        toml::from_str(&text).map_err(|e| at(e.to_string().trim_end().to_string()))?
    };
    // Everything relative in a manifest (commands, globs, expectations) is taken from its own
    // folder, so it works from anywhere: commands run there, and the files it names are made
    // absolute before they reach a command.
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let base =
        std::path::absolute(folder).map_err(|e| at(format!("cannot resolve its folder: {e}")))?;
    let base = base.as_path();
    let mut entries = Vec::new();
    for (i, raw) in manifest.implementation.into_iter().enumerate() {
        let which = |e: String| at(format!("implementation {}: {e}", i + 1));
        if raw.command.trim().is_empty() {
            return Err(which(
                "`command` is empty: give the command that starts the implementation".into(),
            ));
        }
        let mut options = raw.options(defaults, sandbox).map_err(which)?;
        options.dir = Some(base.to_path_buf());
        let expect = raw.expect.as_ref().map(|p| base.join(p));
        match &raw.glob {
            None => {
                let (command, options) = solution_file(&raw.command, base, &options)
                    .map_err(which)?
                    .unwrap_or_else(|| (raw.command.clone(), options));
                entries.push(Entry {
                    name: raw.name.clone().unwrap_or_else(|| raw.command.clone()),
                    command: Some(command),
                    options,
                    expect,
                });
            }
            Some(pattern) => {
                let matches = glob(&base.join(pattern)).map_err(which)?;
                if matches.is_empty() {
                    return Err(which(format!("`{pattern}` matches no file")));
                }
                for m in &matches {
                    entries.push(
                        per_file(
                            raw.name.as_deref().unwrap_or("{dir}"),
                            &raw.command,
                            (m, &matches),
                            &options,
                            expect.as_deref(),
                        )
                        .map_err(which)?,
                    );
                }
            }
        }
    }
    if entries.is_empty() {
        return Err(at(
            "lists no implementation (`[[implementation]]` entries)".to_string()
        ));
    }
    unique_names(&entries)?;
    Ok(entries)
}

impl RawEntry {
    fn options(&self, defaults: &Options, sandbox: &Sandbox) -> Result<Options, String> {
        let mut options = defaults.clone();
        options.per_case |= self.per_case;
        // Parts and number reading come from the handshake in lines mode: set here, they would
        // be ignored without a word.
        for (key, set) in [
            ("parts", self.parts.is_some()),
            ("numbers", self.numbers.is_some()),
        ] {
            if set && !options.per_case {
                return Err(format!(
                    "`{key}` applies to a `per_case = true` entry only: in lines mode the \
                     implementation declares it in its handshake"
                ));
            }
        }
        if self.sandbox && options.sandbox.is_none() {
            options.sandbox = Some(sandbox.clone());
        }
        let parse = |parts: &[String]| {
            parts
                .iter()
                .map(|p| {
                    Part::parse(p).ok_or_else(|| {
                        format!("unknown part `{p}`, expected one of {}", Part::names())
                    })
                })
                .collect::<Result<Vec<Part>, String>>()
        };
        if let Some(parts) = &self.parts {
            options.parts = parse(parts)?;
            // A declaration, refused as a handshake declaring the same would be.
            Part::check_declared(&options.parts).map_err(|why| format!("`parts`: {why}"))?;
        }
        if let Some(parts) = &self.require_parts {
            options.require_parts = parse(parts)?;
        }
        if let Some(n) = &self.numbers {
            options.numbers = Numbers::parse(n)
                .ok_or_else(|| format!("numbers is `spelling` or `values`, not `{n}`"))?;
        }
        if let Some(t) = self.timeout {
            if !(t.is_finite() && (0.01..=86_400.0).contains(&t)) {
                return Err(format!(
                    "timeout is a number of seconds from 0.01 to 86400, not {t}"
                ));
            }
            options.timeout = Duration::from_secs_f64(t);
        }
        if let Some(m) = self.max_restarts {
            options.max_restarts = m;
        }
        Ok(options)
    }
}

/// Commands from `--impl`, each made one implementation per file matching `each` when it has
/// a placeholder (`{path}`, `{dir}`, `{stem}`).
pub fn from_commands(
    commands: &[String],
    each: Option<&str>,
    options: &Options,
) -> Result<Vec<Entry>, String> {
    from_command_lists(commands, &[], each, options)
}

/// As [`from_commands`], with `per_case` commands (`--impl-per-case`) started once per case
/// whatever `options` say: one grade may mix both modes.
pub fn from_command_lists(
    commands: &[String],
    per_case: &[String],
    each: Option<&str>,
    options: &Options,
) -> Result<Vec<Entry>, String> {
    let per_case_options = Options {
        per_case: true,
        ..options.clone()
    };
    let commands: Vec<(&String, &Options)> = commands
        .iter()
        .map(|c| (c, options))
        .chain(per_case.iter().map(|c| (c, &per_case_options)))
        .collect();
    let matches = match each {
        Some(pattern) => {
            let m = glob(Path::new(pattern))?;
            if m.is_empty() {
                return Err(format!("--each `{pattern}` matches no file"));
            }
            m
        }
        None => Vec::new(),
    };
    if let Some(pattern) = each
        && !commands.iter().any(|(c, _)| templated(c))
    {
        return Err(format!(
            "--each `{pattern}` needs an --impl command with {{path}}, {{dir}} or {{stem}} to \
             fill (as in --impl \"python3 adapter.py {{path}}\")"
        ));
    }
    let mut entries = Vec::new();
    for (command, options) in commands {
        if command.trim().is_empty() {
            return Err("--impl is empty: give the command that starts the implementation".into());
        }
        let templated = templated(command);
        if templated && each.is_none() {
            return Err(format!(
                "`{command}` has a placeholder but no --each GLOB fills it"
            ));
        }
        if templated {
            for m in &matches {
                entries.push(per_file("{dir}", command, (m, &matches), options, None)?);
            }
        } else {
            let here = std::path::absolute(".").map_err(|e| format!("the current folder: {e}"))?;
            let (run, options) = solution_file(command, &here, options)?
                .unwrap_or_else(|| ((*command).clone(), options.clone()));
            entries.push(Entry {
                name: short_name(command),
                command: Some(run),
                options,
                expect: None,
            });
        }
    }
    // Short names that collide are followed by what tells their commands apart.
    let mut groups: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, e) in entries.iter().enumerate() {
        groups.entry(e.name.clone()).or_default().push(i);
    }
    for (short, members) in groups.into_iter().filter(|(_, m)| m.len() > 1) {
        let words: Vec<Vec<&str>> = members
            .iter()
            .map(|&i| {
                entries[i]
                    .command
                    .as_deref()
                    .unwrap_or("")
                    .split_whitespace()
                    .collect()
            })
            .collect();
        let common = (0..)
            .take_while(|&k| {
                words[0]
                    .get(k)
                    .is_some_and(|w| words.iter().all(|ws| ws.get(k) == Some(w)))
            })
            .count();
        let names: Vec<String> = words
            .iter()
            .map(|ws| {
                let rest = &ws[common.min(ws.len())..];
                let named = rest.iter().any(|w| {
                    Path::new(w)
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy() == short)
                });
                if named {
                    rest.join(" ")
                } else {
                    format!("{short} {}", rest.join(" "))
                }
            })
            .collect();
        for (&i, name) in members.iter().zip(names) {
            entries[i].name = name.trim_end().to_string();
        }
    }
    unique_names(&entries)?;
    Ok(entries)
}

/// The options of an entry made from `file`, one of the matches `all`: sandboxed, it sees its
/// own path (`Sandbox::for_match`).
fn for_file(options: &Options, file: &Path, all: &[PathBuf]) -> Options {
    Options {
        sandbox: options.sandbox.as_ref().map(|s| s.for_match(file, all)),
        ..options.clone()
    }
}

/// A command's name in reports: the file name of its last argument that looks like a path
/// (`python3 adapter.py sub/alice.py` is `alice.py`), else the whole command.
fn short_name(command: &str) -> String {
    command
        .split_whitespace()
        .rev()
        .find(|w| w.contains('/') || w.contains('.'))
        .and_then(|w| Path::new(w).file_name())
        .map_or_else(|| command.to_string(), |n| n.to_string_lossy().into_owned())
}

/// Every implementation of a run has a name of its own (reports and expectations go by it),
/// wherever it comes from: `--impl`, `--each` or a manifest.
pub fn unique_names(entries: &[Entry]) -> Result<(), String> {
    let mut seen = std::collections::BTreeMap::new();
    for e in entries {
        if let Some(first) = seen.insert(crate::inert::name_key(&e.name), &e.name) {
            let shown = |n: &str| crate::inert::terminal_line(n);
            return Err(if *first == e.name {
                format!(
                    "two implementations are named `{}`: give each a name of its own",
                    shown(&e.name)
                )
            } else {
                format!(
                    "two implementations are named `{}` and `{}`, which read alike (the same \
                     after Unicode normalisation, case folding and without invisible \
                     characters): give each a name of its own",
                    shown(first),
                    shown(&e.name)
                )
            });
        }
    }
    Ok(())
}

/// Every `--sandbox-bind` shows each sandbox the same paths: one that holds another entry's
/// submission, or lies inside one, would show every submission that one, so it is refused with
/// the submissions it would show.
pub fn check_binds(entries: &[Entry]) -> Result<(), String> {
    let own = |e: &Entry| e.options.sandbox.as_ref().and_then(|s| s.folder.clone());
    for entry in entries {
        let Some(sandbox) = &entry.options.sandbox else {
            continue;
        };
        let mine = own(entry);
        for bind in &sandbox.binds {
            let shown: Vec<String> = entries
                .iter()
                .filter_map(|other| own(other).map(|f| (other, f)))
                .filter(|(_, f)| Some(f) != mine.as_ref())
                .filter(|(_, f)| f.starts_with(bind) || bind.starts_with(f))
                .map(|(other, f)| format!("{} ({})", other.name, f.display()))
                .collect();
            if let Some(first) = shown.first() {
                let more = match shown.len() {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                };
                return Err(format!(
                    "--sandbox-bind {}: refused: it would show the submission of {first}{more} \
                     to {}; bind a folder that holds no submission",
                    bind.display(),
                    entry.name
                ));
            }
        }
    }
    Ok(())
}

/// The placeholders of a command and the environment variables that carry their values: the
/// command names the variable, so a file name is never pasted into shell text, whatever it holds
/// (spaces, quotes, `;`, `$(...)`, backticks, newlines, bytes that are not UTF-8).
const PLACEHOLDERS: [(&str, &str); 3] = [
    ("{path}", "HOOKCHECK_PATH"),
    ("{dir}", "HOOKCHECK_DIR"),
    ("{stem}", "HOOKCHECK_STEM"),
];

/// The values of `{path}` (the matched file), `{dir}` (the name of the folder holding it) and
/// `{stem}` (its name without the extension), as the file system spells them.
fn values(path: &Path) -> [OsString; 3] {
    let name = |p: Option<&OsStr>| p.map_or_else(OsString::new, OsStr::to_os_string);
    [
        path.as_os_str().to_os_string(),
        name(path.parent().and_then(Path::file_name)),
        name(path.file_stem()),
    ]
}

fn templated(text: &str) -> bool {
    PLACEHOLDERS.iter().any(|(p, _)| text.contains(p))
}

/// A command template made runnable for `path`: each placeholder becomes a reference to its
/// variable, quoted for where it stands (`"$HOOKCHECK_PATH"` as a word of its own,
/// `${HOOKCHECK_PATH}` inside double quotes), and the variables to set. Inside single quotes a
/// variable cannot expand: that is an error, not a silent literal.
fn fill_command(template: &str, path: &Path) -> Result<(String, Vec<(String, OsString)>), String> {
    let mut out = String::with_capacity(template.len() + 16);
    let (mut single, mut double) = (false, false);
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        if let Some((placeholder, var)) = PLACEHOLDERS.iter().find(|(p, _)| rest.starts_with(p)) {
            if single {
                return Err(format!(
                    "`{template}`: {placeholder} is inside single quotes, where it cannot be \
                     filled in: write it without quotes (hookcheck passes it as one word, \
                     whatever the file name holds)"
                ));
            }
            if double {
                out.push_str(&format!("${{{var}}}"));
            } else {
                out.push_str(&format!("\"${var}\""));
            }
            rest = &rest[placeholder.len()..];
            continue;
        }
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                // The escaped character is copied as it is, whatever it is.
                out.push(c);
                rest = &rest[1..];
                if let Some(next) = rest.chars().next() {
                    out.push(next);
                    rest = &rest[next.len_utf8()..];
                }
                continue;
            }
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    let [path, dir, stem] = values(path);
    let vars = PLACEHOLDERS
        .iter()
        .zip([not_an_option(path), not_an_option(dir), stem])
        .map(|((_, var), value)| (var.to_string(), value))
        .collect();
    Ok((out, vars))
}

/// A relative path that starts with `-` (a folder named `-rf` or `--help`) as `./-rf`: the same
/// file, and no program reads it as an option. `{stem}` is a name, not a path: it is kept.
fn not_an_option(path: OsString) -> OsString {
    use std::os::unix::ffi::OsStrExt;
    if path.as_bytes().starts_with(b"-") {
        let mut safe = OsString::from("./");
        safe.push(path);
        safe
    } else {
        path
    }
}

/// A name or a path template filled for `path`, for display or for a file to open (never for a
/// shell). Bytes of the file name that are not UTF-8 are kept.
fn fill(template: &str, path: &Path) -> OsString {
    let values = values(path);
    let mut out = OsString::new();
    let mut rest = template;
    while !rest.is_empty() {
        let next = PLACEHOLDERS
            .iter()
            .zip(&values)
            .filter_map(|((p, _), v)| rest.find(p).map(|at| (at, p.len(), v)))
            .min_by_key(|(at, _, _)| *at);
        match next {
            Some((at, len, value)) => {
                out.push(&rest[..at]);
                out.push(value);
                rest = &rest[at + len..];
            }
            None => {
                out.push(rest);
                rest = "";
            }
        }
    }
    out
}

/// A word for `sh -c`: single-quoted, so nothing in it is expanded, whatever it holds.
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// A command that is only a solution file (`solution.py`, `sol.js`, relative to `dir`) runs
/// through the built-in adapter of its language; `None` for any other command.
fn solution_file(
    command: &str,
    dir: &Path,
    options: &Options,
) -> Result<Option<(String, Options)>, String> {
    let whole = command.trim();
    // The file alone, or the file and the adapter's own options after it (`sol.js --parts
    // retries,ordering`), as the adapters' usage reads.
    let (word, adapter_options) =
        if adapters::for_file(Path::new(whole)).is_some() && dir.join(whole).is_file() {
            (whole, Vec::new())
        } else {
            let mut words = whole.split_whitespace();
            let first = words.next().unwrap_or("");
            let rest: Vec<&str> = words.collect();
            if rest.is_empty() || !rest[0].starts_with("--") || !dir.join(first).is_file() {
                return Ok(None);
            }
            let interpreter = adapters::for_file(Path::new(first)).map_or("sh", |a| a.interpreter);
            (first, adapter_words(first, &rest, interpreter)?)
        };
    let Some(adapter) = adapters::for_file(Path::new(word)) else {
        return Ok(None);
    };
    let file = dir.join(word);
    if !file.is_file() {
        return Ok(None);
    }
    let installed = adapter.installed()?;
    let path = not_an_option(OsString::from(word));
    let mut run = format!(
        "{} {} {}",
        adapter.interpreter,
        shell_quote(&installed.to_string_lossy()),
        shell_quote(&path.to_string_lossy())
    );
    for option in &adapter_options {
        run.push(' ');
        run.push_str(&shell_quote(option));
    }
    // In per-case mode the adapter answers one run, not the protocol.
    if options.per_case {
        run.push_str(" --per-case");
    }
    Ok(Some((
        run,
        for_file(options, &file, std::slice::from_ref(&file)),
    )))
}

/// The adapter options after a solution file: `--parts LIST` and `--name NAME` (or with `=`),
/// each word kept as given and quoted for the shell. Anything else is refused with the form that
/// works, rather than run by `sh` as a command named after the file.
fn adapter_words(file: &str, rest: &[&str], interpreter: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut it = rest.iter();
    while let Some(word) = it.next() {
        let takes_value = matches!(*word, "--parts" | "--name");
        if takes_value {
            let Some(value) = it.next() else {
                return Err(format!("`{file} {word}`: {word} needs a value"));
            };
            words.push((*word).to_string());
            words.push((*value).to_string());
        } else if word.starts_with("--parts=") || word.starts_with("--name=") {
            words.push((*word).to_string());
        } else if *word == "--per-case" {
            return Err(format!(
                "`{file} --per-case`: hookcheck starts the adapter per case itself: give \
                 `check --per-case --impl {file}`"
            ));
        } else {
            return Err(format!(
                "`{file} {word}`: after a solution file the built-in adapter takes `--parts \
                 LIST` and `--name NAME`; to run the file as a program with options of its own, \
                 name its interpreter: `--impl \"{interpreter} {file} {word}\"`"
            ));
        }
    }
    Ok(words)
}

/// One implementation per file matched, from a command template.
fn per_file(
    name: &str,
    command: &str,
    (file, all): (&Path, &[PathBuf]),
    options: &Options,
    expect: Option<&Path>,
) -> Result<Entry, String> {
    let (mut command, vars) = fill_command(command, file)?;
    let mut options = for_file(options, file, all);
    options.vars = vars;
    if command == "\"$HOOKCHECK_PATH\""
        && let Some(adapter) = adapters::for_file(file)
    {
        let installed = adapter.installed()?;
        command = format!(
            "{} {} \"$HOOKCHECK_PATH\"",
            adapter.interpreter,
            shell_quote(&installed.to_string_lossy())
        );
    }
    Ok(Entry {
        name: fill(name, file).to_string_lossy().into_owned(),
        command: Some(command),
        options,
        expect: expect.map(|e| PathBuf::from(fill(&e.to_string_lossy(), file))),
    })
}

/// The files matching `pattern`, sorted: `*` and `?` within one path component (no `**`).
pub fn glob(pattern: &Path) -> Result<Vec<PathBuf>, String> {
    let text = pattern.to_string_lossy();
    if text.contains("**") {
        return Err(format!(
            "`{text}`: `**` is not supported, name each level with `*`"
        ));
    }
    let mut found = vec![PathBuf::new()];
    for component in pattern.components() {
        let part = component.as_os_str().to_string_lossy();
        let wild = part.contains(['*', '?']);
        let mut next = Vec::new();
        for base in &found {
            if !wild {
                next.push(base.join(component.as_os_str()));
                continue;
            }
            let dir = if base.as_os_str().is_empty() {
                Path::new(".")
            } else {
                base.as_path()
            };
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                // Matched by its name as text, joined by its name as the file system spells it
                // (a name that is not UTF-8 is still found).
                let file_name = entry.file_name();
                let name = file_name.to_string_lossy();
                if !name.starts_with('.') && matches(&part, &name) {
                    next.push(base.join(&file_name));
                }
            }
        }
        found = next;
    }
    let mut files: Vec<PathBuf> = found.into_iter().filter(|p| p.exists()).collect();
    files.sort();
    Ok(files)
}

/// Whether `name` matches `pattern`, with `*` for any run of characters and `?` for one.
fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // The usual backtracking over the last `*`.
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_true_sandboxes_an_entry_and_a_glob_match_s_folder_is_its_own() {
        let dir = folder("sandbox");
        let manifest = dir.join("grading.toml");
        std::fs::write(
            &manifest,
            r#"
[[implementation]]
name = "trusted"
command = "python3 ours.py"

[[implementation]]
glob = "submissions/*/solution.py"
command = "python3 adapter.py {path}"
sandbox = true
"#,
        )
        .expect("manifest");
        let configured = Sandbox {
            processes: 99,
            ..Sandbox::default()
        };
        let entries = load(&manifest, &Options::default(), &configured).expect("loads");
        assert_eq!(entries[0].options.sandbox, None);
        let alice = entries[1].options.sandbox.as_ref().expect("sandboxed");
        assert_eq!(alice.processes, 99, "the command line's limits");
        assert_eq!(
            alice.folder.as_deref(),
            Some(dir.join("submissions/alice").as_path())
        );
        let bob = entries[2].options.sandbox.as_ref().expect("sandboxed");
        assert_eq!(
            bob.folder.as_deref(),
            Some(dir.join("submissions/bob").as_path())
        );
        let each = from_commands(
            &["python3 adapter.py {path}".to_string()],
            Some(&format!("{}/submissions/*/solution.py", dir.display())),
            &Options {
                sandbox: Some(Sandbox::default()),
                ..Options::default()
            },
        )
        .expect("each");
        assert_eq!(
            each[2]
                .options
                .sandbox
                .as_ref()
                .and_then(|s| s.folder.as_deref()),
            Some(dir.join("submissions/carol").as_path())
        );
    }

    /// The sandboxed path of each entry of a manifest with one glob entry.
    fn sandboxed_paths(dir: &Path, glob: &str, command: &str) -> Vec<Option<PathBuf>> {
        let manifest = dir.join("grading.toml");
        std::fs::write(
            &manifest,
            format!(
                "[[implementation]]\nglob = \"{glob}\"\nname = \"{{stem}}\"\n\
                 command = \"{command}\"\nsandbox = true\n"
            ),
        )
        .expect("manifest");
        load(&manifest, &Options::default(), &Sandbox::default())
            .expect("loads")
            .into_iter()
            .map(|e| e.options.sandbox.and_then(|s| s.folder))
            .collect()
    }

    #[test]
    fn a_glob_of_folders_sandboxes_each_folder_and_never_their_parent() {
        let dir = folder("folders");
        let paths = sandboxed_paths(&dir, "submissions/*", "cd {path} && python3 solution.py");
        let want: Vec<Option<PathBuf>> = ["alice", "bob", "carol"]
            .iter()
            .map(|who| Some(dir.join("submissions").join(who)))
            .collect();
        assert_eq!(paths, want);
    }

    #[test]
    fn files_sharing_a_folder_are_sandboxed_alone() {
        let dir = folder("shared");
        for who in ["dave", "erin"] {
            std::fs::write(dir.join(format!("submissions/{who}.py")), "").expect("file");
        }
        let paths = sandboxed_paths(&dir, "submissions/*.py", "python3 adapter.py {path}");
        assert_eq!(
            paths,
            [
                Some(dir.join("submissions/dave.py")),
                Some(dir.join("submissions/erin.py"))
            ]
        );
    }

    #[test]
    fn wildcards_match_within_a_component() {
        for (p, n, m) in [
            ("*", "anything", true),
            ("*.py", "solution.py", true),
            ("*.py", "solution.js", false),
            ("s?l*", "solution.py", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("", "", true),
        ] {
            assert_eq!(matches(p, n), m, "{p} {n}");
        }
    }

    /// A folder of submissions of its own per test: tests run in parallel.
    fn folder(test: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hookcheck-manifest-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for who in ["alice", "bob", "carol"] {
            std::fs::create_dir_all(dir.join("submissions").join(who)).expect("folder");
            std::fs::write(dir.join("submissions").join(who).join("solution.py"), "")
                .expect("file");
        }
        std::fs::write(dir.join("submissions/bob/notes.txt"), "").expect("file");
        dir
    }

    #[test]
    fn a_manifest_lists_entries_and_globs_a_folder_of_submissions() {
        let dir = folder("manifest");
        let manifest = dir.join("grading.toml");
        std::fs::write(
            &manifest,
            r#"
[[implementation]]
name = "ours"
command = "python3 ours.py"
numbers = "values"
per_case = true
parts = ["retries"]
timeout = 2
expect = "ours.expect.toml"

[[implementation]]
glob = "submissions/*/solution.py"
command = "python3 adapter.py {path}"
"#,
        )
        .expect("manifest");
        let entries = load(&manifest, &Options::default(), &Sandbox::default()).expect("loads");
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["ours", "alice", "bob", "carol"]);
        assert_eq!(entries[0].options.numbers, Numbers::Values);
        assert!(entries[0].options.per_case);
        assert_eq!(entries[0].options.parts, [Part::Retries]);
        assert_eq!(entries[0].options.timeout, Duration::from_secs(2));
        assert_eq!(entries[0].expect, Some(dir.join("ours.expect.toml")));
        assert_eq!(
            entries[2].command.as_deref(),
            Some(r#"python3 adapter.py "$HOOKCHECK_PATH""#)
        );
        assert_eq!(
            entries[2].options.vars[0],
            (
                "HOOKCHECK_PATH".to_string(),
                dir.join("submissions/bob/solution.py").into_os_string()
            )
        );
        let json = dir.join("grading.json");
        std::fs::write(
            &json,
            r#"{"implementation": [{"command": "a"}, {"command": "b", "name": "B"}]}"#,
        )
        .expect("json");
        let entries = load(&json, &Options::default(), &Sandbox::default()).expect("loads json");
        assert_eq!(
            entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
            ["a", "B"]
        );
        std::fs::write(
            &json,
            r#"{"implementation": [{"command": "a"}, {"command": "a"}]}"#,
        )
        .expect("json");
        assert!(
            load(&json, &Options::default(), &Sandbox::default())
                .unwrap_err()
                .contains("named `a`")
        );
        std::fs::write(&manifest, "[[implementation]]\ncomand = \"x\"\n").expect("typo");
        let e = load(&manifest, &Options::default(), &Sandbox::default()).unwrap_err();
        assert!(e.contains("comand") && e.contains("grading.toml"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn placeholders_become_quoted_variables_and_never_shell_text() {
        let path = Path::new("subs/eve$(touch PWNED);`id`/solution.py");
        let (command, vars) =
            fill_command("python3 a.py {path} --name={dir}", path).expect("fills");
        assert_eq!(
            command,
            r#"python3 a.py "$HOOKCHECK_PATH" --name="$HOOKCHECK_DIR""#
        );
        assert_eq!(vars[1].1, OsString::from("eve$(touch PWNED);`id`"));
        assert_eq!(vars[2].1, OsString::from("solution"));
        let (command, _) =
            fill_command(r#"sh -c "cat {path}; echo \"{stem}\"""#, path).expect("fills");
        assert_eq!(
            command,
            r#"sh -c "cat ${HOOKCHECK_PATH}; echo \"${HOOKCHECK_STEM}\"""#
        );
        let e = fill_command("python3 a.py '{path}'", path).unwrap_err();
        assert!(e.contains("single quotes"), "{e}");
        // An escaped quote does not open a quoted string.
        let (command, _) = fill_command(r"echo \' {path}", path).expect("fills");
        assert_eq!(command, r#"echo \' "$HOOKCHECK_PATH""#);
        assert_eq!(
            fill("{dir}/{stem}.expect.toml", path),
            OsString::from("eve$(touch PWNED);`id`/solution.expect.toml")
        );
    }

    #[test]
    fn commands_with_a_placeholder_are_made_one_per_file() {
        let dir = folder("commands");
        let pattern = format!("{}/submissions/*/solution.py", dir.display());
        let entries = from_commands(
            &["python3 adapter.py {path}".to_string(), "./ref".to_string()],
            Some(&pattern),
            &Options::default(),
        )
        .expect("expands");
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["alice", "bob", "carol", "ref"]);
        let same = from_commands(
            &[
                "python3 a/x.py".to_string(),
                "python3 b/x.py".to_string(),
                "exit 4".to_string(),
            ],
            None,
            &Options::default(),
        )
        .expect("names");
        let names: Vec<&str> = same.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a/x.py", "b/x.py", "exit 4"]);
        let faults = from_commands(
            &[
                "python3 fake.py hang case-a".to_string(),
                "python3 fake.py crash case-b".to_string(),
            ],
            None,
            &Options::default(),
        )
        .expect("names");
        let names: Vec<&str> = faults.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["fake.py hang case-a", "fake.py crash case-b"]);
        assert!(from_commands(&["x {path}".to_string()], None, &Options::default()).is_err());
        let none = format!("{}/nowhere/*.py", dir.display());
        assert!(
            from_commands(&["x {path}".to_string()], Some(&none), &Options::default()).is_err()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
