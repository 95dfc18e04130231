//! The parts of the brief and the roadmap: which operations an implementation offers, what each
//! part builds on, and whether a declaration of parts holds together.

use std::fmt;

/// Which part an implementation needs to run a case: the brief's Parts 1 to 3, then the
/// roadmap's (`shared/roadmap.md`: Parts 4 to 11, each optional).
///
/// A part is its variant, its name ([`Part::as_str`]), the parts it builds on
/// ([`Part::builds_on`]), its number (the roadmap's, [`Part::number`]) and its place in
/// [`Part::ALL`], in number order.
/// Everything else in the code (the grade, every report, the flags, the handshake, the case
/// files) goes over `Part::ALL`, so a new part is those four, here. Outside the code, the JSON
/// schemas under `spec/` and the adapters' lists name the parts too; tests fail until they
/// name a new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    Retries,
    Ordering,
    Pause,
    Policy,
    RetryAfter,
    AutoDisable,
    DeadLetters,
    Signatures,
    Throttle,
    Breaker,
    Expiry,
}

impl Part {
    /// Every part, in the order of their numbers.
    pub const ALL: [Part; 11] = [
        Part::Retries,
        Part::Ordering,
        Part::Pause,
        Part::Policy,
        Part::RetryAfter,
        Part::AutoDisable,
        Part::DeadLetters,
        Part::Signatures,
        Part::Throttle,
        Part::Breaker,
        Part::Expiry,
    ];

    /// The brief's own parts: what an implementation that declares nothing offers (per-case
    /// mode without `--parts`, the adapters without `HOOKCHECK_PARTS`, the library harness
    /// without `Suite::parts`).
    pub const BRIEF: [Part; 3] = [Part::Retries, Part::Ordering, Part::Pause];

    pub fn as_str(self) -> &'static str {
        match self {
            Part::Retries => "retries",
            Part::Ordering => "ordering",
            Part::Pause => "pause",
            Part::Policy => "policy",
            Part::RetryAfter => "retry-after",
            Part::AutoDisable => "auto-disable",
            Part::DeadLetters => "dead-letters",
            Part::Signatures => "signatures",
            Part::Throttle => "throttle",
            Part::Breaker => "breaker",
            Part::Expiry => "expiry",
        }
    }

    /// The parts this one builds on directly: the roadmap's parts build on the brief's, and
    /// Part 5 uses Part 4's policy. [`Part::needs`] follows them through.
    pub fn builds_on(self) -> &'static [Part] {
        match self {
            Part::Retries | Part::Ordering | Part::Pause => &[],
            Part::Policy => &Part::BRIEF,
            // Part 6's threshold is a key of Part 4's policy; Parts 7 and 8 need only the
            // brief's.
            Part::RetryAfter | Part::AutoDisable | Part::Throttle => &[Part::Policy],
            Part::DeadLetters | Part::Signatures => &Part::BRIEF,
            // Part 11's age is a key of the policy, and an expired event is a dead letter.
            Part::Expiry => &[Part::Policy, Part::DeadLetters],
            // Part 10's breaker is a key of the policy, and `endpoint` (Part 6) shows it.
            Part::Breaker => &[Part::Policy, Part::AutoDisable],
        }
    }

    pub fn parse(s: &str) -> Option<Part> {
        Part::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// Its number in the brief and the roadmap: Part 1 is `retries`, Part 11 `expiry`.
    pub fn number(self) -> usize {
        match self {
            Part::Retries => 1,
            Part::Ordering => 2,
            Part::Pause => 3,
            Part::Policy => 4,
            Part::RetryAfter => 5,
            Part::AutoDisable => 6,
            Part::DeadLetters => 7,
            Part::Signatures => 8,
            Part::Throttle => 9,
            Part::Breaker => 10,
            Part::Expiry => 11,
        }
    }

    /// Every part an implementation that offers this one must offer too, in number order.
    pub fn needs(self) -> Vec<Part> {
        let mut needed: Vec<Part> = Vec::new();
        let mut next: Vec<Part> = self.builds_on().to_vec();
        while let Some(p) = next.pop() {
            if !needed.contains(&p) {
                needed.push(p);
                next.extend_from_slice(p.builds_on());
            }
        }
        needed.sort_unstable();
        needed
    }

    /// The names of every part, for messages: `retries, ordering, pause, ...`.
    pub fn names() -> String {
        Part::ALL.map(Part::as_str).join(", ")
    }

    /// Whether a declaration of parts (a handshake, `--parts`, a manifest's `parts`,
    /// `Suite::parts`) holds together: a part offered with a part it builds on left out is
    /// refused, naming what is missing. An implementation whose Part 5 cannot set a policy
    /// would fail every case of it for want of Part 4, which is not what it is graded on.
    pub fn check_declared(parts: &[Part]) -> Result<(), String> {
        let problems: Vec<String> = Part::ALL
            .iter()
            .filter(|p| parts.contains(p))
            .filter_map(|p| {
                let missing: Vec<Part> = p
                    .needs()
                    .into_iter()
                    .filter(|n| !parts.contains(n))
                    .collect();
                if missing.is_empty() {
                    return None;
                }
                let named: Vec<String> = missing
                    .iter()
                    .map(|m| format!("`{}` (Part {})", m.as_str(), m.number()))
                    .collect();
                let (list, verb, them) = match named.as_slice() {
                    [one] => (one.clone(), "is", "it"),
                    [init @ .., last] => (format!("{} and {last}", init.join(", ")), "are", "them"),
                    [] => (String::new(), "is", "it"),
                };
                Some(format!(
                    "part `{}` (Part {}) builds on {list}, which {verb} not declared: declare \
                     {them} too, or leave `{}` out",
                    p.as_str(),
                    p.number(),
                    p.as_str()
                ))
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
