//! Where a report comes from: the hookcheck version, a digest of the cases that ran, the command
//! line, the filters and scope, when it started and how long it took. Shown on every report of a
//! check, so a grade handed out or read by a dashboard can be traced and reproduced.

use crate::case::Case;
use serde_json::{Value, json};
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    pub version: &'static str,
    /// FNV-1a over every selected case's name, origin, rules, operations and expectations: two
    /// runs with the same digest ran the same cases with the same expectations.
    pub corpus: String,
    /// The command line as given, each word quoted for a shell where it needs it.
    pub command: String,
    /// The case filters and the scope (`full`, or `brief` for `--origin brief`).
    pub filters: String,
    pub scope: &'static str,
    /// Start time, UTC, RFC 3339 to the second.
    pub started: String,
    pub seconds: f64,
}

impl Provenance {
    /// What is known when the run starts; `seconds` is set at the end.
    pub fn new(cases: &[Case], filters: String, brief_only: bool) -> Provenance {
        Provenance {
            version: env!("CARGO_PKG_VERSION"),
            corpus: digest(cases),
            command: command_line(),
            filters,
            scope: if brief_only { "brief" } else { "full" },
            started: rfc3339(SystemTime::now()),
            seconds: 0.0,
        }
    }

    /// One line for humans: version, corpus, scope and filters, start, duration, command.
    pub fn line(&self) -> String {
        let filters = if self.filters.is_empty() {
            String::new()
        } else {
            format!(", filters {}", self.filters)
        };
        format!(
            "hookcheck {} · corpus {} · scope {}{filters} · started {} · {:.1} s · {}",
            self.version, self.corpus, self.scope, self.started, self.seconds, self.command
        )
    }

    pub fn to_json(&self) -> Value {
        json!({"version": self.version, "corpus": self.corpus, "command": self.command,
               "filters": self.filters, "scope": self.scope, "started": self.started,
               "seconds": self.seconds})
    }
}

/// FNV-1a, 64 bits: small, stable across platforms and versions, enough to tell corpora apart.
pub(crate) fn digest(cases: &[Case]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |text: &str| {
        for byte in text.bytes().chain([0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for case in cases {
        eat(&case.name());
        eat(case.origin.as_str());
        for rule in &case.rules {
            eat(rule);
        }
        for step in &case.steps {
            eat(&step.op.to_string());
            eat(&step.expect.to_string());
            eat(step.clarified.as_deref().unwrap_or(""));
        }
    }
    format!("{hash:016x}")
}

pub(crate) fn command_line() -> String {
    // The program by its name: where it was installed or built says nothing of the run.
    let program = std::env::args()
        .next()
        .and_then(|p| {
            std::path::Path::new(&p)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "hookcheck".to_string());
    std::iter::once(program)
        .chain(std::env::args().skip(1))
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
            if plain {
                a
            } else {
                crate::manifest::shell_quote(&a)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `time` as `YYYY-MM-DDTHH:MM:SSZ` (UTC), without a date library.
pub fn rfc3339(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Days since 1970-01-01 to (year, month, day): Howard Hinnant's `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_utc_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_796_046_348);
        assert_eq!(rfc3339(t), "2026-11-30T13:45:48Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn the_digest_follows_the_expectations() {
        let cases = crate::corpus::Corpus::builtin().cases;
        let a = digest(&cases);
        assert_eq!(a, digest(&cases));
        let mut changed = cases.clone();
        changed[0].steps[0].expect = json!("something else");
        assert_ne!(a, digest(&changed));
        assert_eq!(a.len(), 16);
    }
}
