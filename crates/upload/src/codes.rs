//! The server's error codes a connector acts on, from one list: a test
//! beside the server (`crates/server/tests/cli/connect/mod.rs`) holds
//! each to a code the server's use cases can answer.

/// A code of the server's error envelope (`{"error": {"code", ...}}`)
/// that a connector does more with than report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The upload's person is no one Kenning may learn about: counted as
    /// not found.
    UnknownUser,
    /// The upload's alias was used before: the upload is known, and done.
    DuplicateAlias,
    /// A route the server does not have (one older than the route).
    NotFound,
    /// A value taken already (`kenning demo`'s person who exists).
    Conflict,
}

impl Code {
    /// Every code, for the test against the server's.
    pub const ALL: [Code; 4] = [
        Code::UnknownUser,
        Code::DuplicateAlias,
        Code::NotFound,
        Code::Conflict,
    ];

    /// The code as the server writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::UnknownUser => "UnknownUser",
            Code::DuplicateAlias => "DuplicateAlias",
            Code::NotFound => "NotFound",
            Code::Conflict => "Conflict",
        }
    }

    /// Whether `code`, as the server wrote it, is this one.
    pub fn is(self, code: &str) -> bool {
        self.as_str() == code
    }
}
