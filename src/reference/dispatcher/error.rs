//! The dispatcher's error codes (spec section 9). Each error is a value, rendered by the JSON layer
//! as `"error: <code>"`.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Error {
    UnknownOperation,
    InvalidArguments,
    InvalidOutcomes,
    InvalidPolicy,
    UnknownEndpoint,
    DuplicateEndpoint,
    UnknownEvent,
    DuplicateEvent,
    AlreadyDisabled,
    NotDisabled,
    NotDead,
    /// Part 8 (`sig.*`).
    InvalidSecret,
    AttemptNotMade,
    NoSecret,
    MissingHeader,
    BadTimestamp,
    TimestampTooOld,
    TimestampTooNew,
    NoMatchingSignature,
    /// More than 2^32 - 1 events or endpoints: a limit of the reference, not a rule of the spec.
    CapacityExceeded,
}

impl Error {
    /// The code as the brief's contract spells it, without the `error: ` prefix.
    pub fn code(self) -> &'static str {
        match self {
            Error::UnknownOperation => "unknown operation",
            Error::InvalidArguments => "invalid arguments",
            Error::InvalidOutcomes => "invalid outcomes",
            Error::InvalidPolicy => "invalid policy",
            Error::UnknownEndpoint => "unknown endpoint",
            Error::DuplicateEndpoint => "duplicate endpoint",
            Error::UnknownEvent => "unknown event",
            Error::DuplicateEvent => "duplicate event",
            Error::AlreadyDisabled => "already disabled",
            Error::NotDisabled => "not disabled",
            Error::NotDead => "not dead",
            Error::InvalidSecret => "invalid secret",
            Error::AttemptNotMade => "attempt not made",
            Error::NoSecret => "no secret",
            Error::MissingHeader => "missing header",
            Error::BadTimestamp => "bad timestamp",
            Error::TimestampTooOld => "timestamp too old",
            Error::TimestampTooNew => "timestamp too new",
            Error::NoMatchingSignature => "no matching signature",
            Error::CapacityExceeded => "capacity exceeded",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.code())
    }
}

impl std::error::Error for Error {}
