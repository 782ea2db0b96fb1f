//! The questions, derived by a written rule from each source's own
//! history, never picked by hand: per area of the source (a directory, a
//! patch series' subsystem, a channel, a tag), the person who did most of
//! its work, when one person did strictly most of it.

mod git;
mod mail;
mod qa;
mod slack;
mod tally;

use std::path::Path;

pub use tally::Question;

use crate::sources::Kind;

/// The questions of the source of `kind` under `data`.
pub fn questions(kind: Kind, data: &Path) -> anyhow::Result<Vec<Question>> {
    let path = kind.path(data);
    match kind {
        Kind::Git => git::questions(&path),
        Kind::Mail => mail::questions(&path),
        Kind::Slack => slack::questions(&path),
        Kind::StackExchange => qa::questions(&path),
    }
}
