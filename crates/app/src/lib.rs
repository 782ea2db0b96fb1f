//! Kenning's use cases: the application layer between the adapters that
//! call it (GraphQL, HTTP, the command line) and the ports it drives
//! (storage, topic extraction, the clock).
//!
//! Each service takes its ports as `Arc<dyn Trait>`, so any adapter will
//! do; every failure is a [`ServiceError`] with a stable machine code.

#![warn(missing_docs)]

mod access;
mod administrators;
mod asked;
mod audit;
mod batched_writes;
mod connectors;
mod credentials;
mod error;
mod expertise;
mod export;
mod gate;
mod groups;
mod machine;
mod meaning;
mod privacy;
mod sessions;
mod stale;
mod use_cases;
mod users;
mod webhooks;

pub use access::Caller;
pub use administrators::{Administrators, AdministratorsGroup};
pub use asked::FLUSH_SECONDS;
pub use audit::{AuditPage, AuditService, DEFAULT_RETENTION_DAYS, PRUNE_BATCH};
pub use connectors::{ConnectorService, MAX_SOURCES_PER_KEY};
pub use credentials::{
    id_of_secret, kind_of_secret, Credential, CredentialService, IssuedCredential,
    DEFAULT_CAPACITY, REVOCATION_DELAY,
};
pub use error::{Missing, Resource, ServiceError};
pub use expertise::{
    preview_topics, Accepted, Card, CardTopic, ExpertiseService, Explained, ProfileTopic,
    QueryReading, TopicsHidden, ACTIONS_PER_TOPIC, TOPICS_PER_CARD,
};
pub use gate::{Connector, Gate};
pub use groups::GroupService;
pub use kenning_ports::{UploadStage, UPLOAD_STAGES};
pub use machine::Machine;
pub use privacy::{PrivacyService, ASKED_LISTED, RETENTION_BATCH};
pub use sessions::{IssuedLink, Session, SessionBegun, SessionService, SignInError};
pub use stale::PATCH_ATTEMPTS;
pub use use_cases::UseCases;
pub use users::{Replacement, UserService, PURGE_BATCH};
pub use webhooks::{DeliverySettings, LeaseTooShort, Round, WebhookService};
