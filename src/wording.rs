//! Wording shared by every message and report: counts with their nouns.

/// `n` and its noun, singular for one: `1 case`, `2 cases`. `plural` is the noun for many.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {plural}")
    }
}
