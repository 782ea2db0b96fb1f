//! The ports Kenning's core needs from the outside world: storage of users,
//! credentials, expertise and connectors' runs, topic extraction, text
//! embedding and the clock.
//!
//! Adapters implement these traits; the use cases in `kenning-app` drive
//! them. Nothing here knows which database, extractor or transport is in
//! use, and nothing here holds a rule of its own beyond the contracts
//! written on the traits.

#![warn(missing_docs)]

pub mod audit;
pub mod clock;
pub mod connectors;
pub mod credentials;
pub mod errors;
pub mod expertise;
pub mod groups;
pub mod meaning;
pub mod privacy;
pub mod sessions;
pub mod stages;
pub mod topics;
pub mod users;
pub mod webhooks;

pub use audit::{AuditQuery, AuditTrail};
pub use clock::Clock;
pub use connectors::{ConnectorRunStore, SourceRuns, SourcesPage, StoredRun};
pub use credentials::{CredentialStore, StoredCredential};
pub use errors::{Failure, StoreError};
pub use expertise::{
    ActionRecord, Cooccurring, ExpertiseStore, NewAction, RecordError, Recorded, TopicListChange,
};
pub use groups::{FilteredGroups, GroupStore, Membership, ModifyGroupError};
pub use meaning::{Embedder, Scale};
pub use privacy::{PrivacyStore, StoredAction};
pub use sessions::{Redemption, SessionStore, StoredLink, StoredSession};
pub use stages::{UploadStage, UploadStages, UPLOAD_STAGES};
pub use topics::{Extraction, Question, TopicExtractor};
pub use users::{FilteredUsers, ModifyError, UserPage, UserStore};
pub use webhooks::{Delivery, OutboxCounts, SendOutcome, WebhookSender, WebhookStore};
