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
        }
    }
}
