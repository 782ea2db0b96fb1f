//! The ports Kenning's core needs from the outside world (storage, clock,
//! credentials) and the use cases that drive them.
//!
//! Adapters implement the traits; the HTTP and command-line edges call the
//! services. Nothing here knows which database or transport is in use.

pub mod clock;
pub mod credentials;
pub mod error;
pub mod expertise;
pub mod store;
pub mod topics;
pub mod users;

pub use clock::{Clock, ManualClock, SystemClock};
pub use credentials::{
    Credential, CredentialService, CredentialStore, IssuedCredential, Principal, StoredCredential,
};
pub use error::ServiceError;
pub use expertise::{
    Accepted, ActionRecord, Cooccurring, ExpertiseService, ExpertiseStore, NewAction, RecordError,
    UserTopic,
};
pub use store::{ModifyError, StoreError, UserRepository};
pub use topics::{Extraction, TopicExtractor};
pub use users::UserService;
