//! The rejections an operation can end in, shared by decoding and the dispatcher.

/// Why an operation was rejected. A rejected operation changes no state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    UnknownOperation,
    InvalidArguments,
    InvalidOutcomes,
    InvalidPolicy,
    UnknownEndpoint,
    DuplicateEndpoint,
    DuplicateEvent,
    UnknownEvent,
    AlreadyDisabled,
    NotDisabled,
    NotDead,
    InvalidSecret,
    AttemptNotMade,
    NoSecret,
    MissingHeader,
    BadTimestamp,
    TimestampTooOld,
    TimestampTooNew,
    NoMatchingSignature,
}

impl Error {
    /// The code that follows `"error: "` in the operation's result.
    pub fn code(self) -> &'static str {
        match self {
            Error::UnknownOperation => "unknown operation",
            Error::InvalidArguments => "invalid arguments",
            Error::InvalidOutcomes => "invalid outcomes",
            Error::InvalidPolicy => "invalid policy",
            Error::UnknownEndpoint => "unknown endpoint",
            Error::DuplicateEndpoint => "duplicate endpoint",
            Error::DuplicateEvent => "duplicate event",
            Error::UnknownEvent => "unknown event",
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
        }
    }
}
