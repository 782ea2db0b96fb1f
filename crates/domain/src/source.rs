//! What a connector tells Kenning besides its uploads: which users the
//! identities of its source are ([`SourceIdentity`]), and how each of its
//! runs went ([`RunReport`]). Both arrive field by field ([`Raw`]), like an
//! upload, so that every bad field is reported at once.
//!
//! [`Raw`]: crate::Raw

mod identity;
mod run;

pub use identity::{IdentityInput, SourceIdentity};
pub use run::{RefusalCode, RunCounts, RunError, RunInput, RunReport, SourceKind, SourceName};
