//! What anonymizing a user takes away beside her profile, stated once:
//! every store erases the same parts, in the transaction that anonymizes
//! her.

use chrono::{DateTime, Utc};

/// The parts of what a store keeps about a user, apart from her own row,
/// that her anonymization erases. Each store implements every part; a part
/// added here fails to compile in a store until it erases that too.
pub trait Erasure {
    /// Why an erasure failed (the store's transaction then writes nothing).
    type Error;

    /// Everything learned about her: her actions and their topics, her
    /// standings, the topics she hid, and her share of the counts.
    fn erase_expertise(&mut self) -> Result<(), Self::Error>;

    /// Her memberships: she leaves every group, each group changed, and
    /// its change recorded, at `at`, the moment she was anonymized.
    fn leave_groups(&mut self, at: DateTime<Utc>) -> Result<(), Self::Error>;

    /// Her own use of Kenning in the audit trail, her sign-ins and
    /// sign-outs ([`AuditEntry::records_use_by`](crate::AuditEntry::records_use_by)):
    /// each entry stays, naming nobody
    /// ([`AuditEntry::anonymized`](crate::AuditEntry::anonymized)).
    fn anonymize_use(&mut self) -> Result<(), Self::Error>;
}
