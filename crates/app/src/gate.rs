//! The one way a door (GraphQL, SCIM, the web app, the connectors' API)
//! reaches the use cases: for a caller, or with the connector's key. The
//! services as the composition root built them (for the operator) stay
//! behind it.
//!
//! ```compile_fail
//! // A door cannot reach the operator's services through the gate.
//! fn users(gate: &kenning_app::Gate) -> &kenning_app::UserService {
//!     &gate.operator.users
//! }
//! ```
//!
//! ```compile_fail
//! // Nor re-narrow use cases narrowed for one caller to another.
//! fn promote(acting: &kenning_app::UseCases, me: kenning_domain::UserId) {
//!     let _ = acting.called_by(kenning_app::Caller::Administrator(me), kenning_domain::Actor::cli());
//! }
//! ```

use kenning_domain::{Actor, CredentialKind, Email, IdentityInput, Raw, RunInput, UploadInput};
use kenning_ports::OutboxCounts;
use uuid::Uuid;

use crate::access::Caller;
use crate::use_cases::UseCases;
use crate::{Accepted, Machine, ServiceError, SessionService};

/// The use cases behind the doors. A door reaches them only as one caller
/// ([`called_by`](Self::called_by): each service refuses what the caller
/// may not do) or with the connector's key ([`connector`](Self::connector)),
/// and reads, for anyone, what answers a request before its caller is known:
/// a credential checked, a sign-in, health and metrics.
#[derive(Debug, Clone)]
pub struct Gate {
    operator: UseCases,
}

impl Gate {
    /// The gate before `use_cases`, as the composition root built them.
    pub fn new(use_cases: UseCases) -> Self {
        Self {
            operator: use_cases,
        }
    }

    /// The use cases as `caller` calls them, each refusing what the caller
    /// may not do, their changes recorded as made by `actor`.
    pub fn called_by(&self, caller: Caller, actor: Actor) -> UseCases {
        self.operator.called_by(caller, actor)
    }

    /// What a connector does with the connector's key it presented
    /// (`key`, checked by [`authenticate`](Self::authenticate)).
    pub fn connector(&self, key: Machine) -> Connector {
        Connector {
            operator: self.operator.clone(),
            key,
        }
    }

    /// Who presented `secret`, a credential of `kind`: `Unauthenticated`
    /// unless it is live.
    pub fn authenticate(
        &self,
        kind: CredentialKind,
        secret: &str,
    ) -> Result<Machine, ServiceError> {
        self.operator.credentials.authenticate(kind, secret)
    }

    /// Signing people in to the web app, which anyone may try.
    pub fn sessions(&self) -> &SessionService {
        &self.operator.sessions
    }

    /// `Ok` when the store answers.
    pub fn ready(&self) -> Result<(), ServiceError> {
        self.operator.users.ready()
    }

    /// How many learned topics a query reaches by meaning now, `None`
    /// without a model: for the metrics.
    pub fn meaning_topics(&self) -> Option<usize> {
        self.operator.expertise.meaning_topics()
    }

    /// The webhook deliveries of each subscription by state: for the
    /// metrics.
    pub fn webhook_counts(&self) -> Result<Vec<OutboxCounts>, ServiceError> {
        self.operator.webhooks.counts()
    }
}

/// What a connector may do with the connector's key: upload, find which
/// of its people Kenning knows, and report its runs.
#[derive(Debug, Clone)]
pub struct Connector {
    operator: UseCases,
    key: Machine,
}

impl Connector {
    /// Stores one upload (see [`crate::ExpertiseService::upload`]).
    pub fn upload(&self, input: UploadInput) -> Result<Accepted, ServiceError> {
        self.operator.expertise.upload(input)
    }

    /// Stores many uploads, each answered on its own (see
    /// [`crate::ExpertiseService::upload_all`]).
    pub fn upload_all(&self, inputs: Vec<UploadInput>) -> Vec<Result<Accepted, ServiceError>> {
        self.operator.expertise.upload_all(inputs)
    }

    /// The e-mail address of each of `identities` Kenning knows (see
    /// [`crate::UserService::identify`]).
    pub fn identify(
        &self,
        identities: Raw<Vec<Raw<IdentityInput>>>,
    ) -> Result<Vec<Option<Email>>, ServiceError> {
        self.operator.users.identify(identities)
    }

    /// Records a run the connector reports, as the key's (see
    /// [`crate::ConnectorService::record_run`]).
    pub fn record_run(&self, input: RunInput) -> Result<Uuid, ServiceError> {
        self.operator.connectors.record_run(input, &self.key)
    }
}
