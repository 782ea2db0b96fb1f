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
//! fn promote(acting: &kenning_app::UseCases, caller: kenning_app::Caller) {
//!     let _ = acting.called_by(caller, kenning_domain::Actor::cli());
//! }
//! ```

use kenning_domain::{Actor, CredentialKind, Email, IdentityInput, Raw, RunInput, UploadInput};
use kenning_ports::OutboxCounts;
use uuid::Uuid;

use crate::access::Caller;
use crate::administrators::{Administrators, AdministratorsGroup};
use crate::machine::Machine;
use crate::use_cases::UseCases;
use crate::{Accepted, ServiceError, Session, SessionService};

/// The use cases behind the doors. A door reaches them only as one caller
/// the gate made ([`for_token`](Self::for_token),
/// [`for_session`](Self::for_session)) through
/// [`called_by`](Self::called_by) (each service refuses what the caller
/// may not do), or with the connector's key ([`connector`](Self::connector)),
/// and reads, for anyone, what answers a request before its caller is known:
/// a credential checked, a sign-in, health and metrics.
#[derive(Debug, Clone)]
pub struct Gate {
    operator: UseCases,
    administrators: Administrators,
    sessions: SessionService,
}

impl Gate {
    /// The gate before `use_cases`, as the composition root built them,
    /// whose administrators in the web app are `administrators`.
    pub fn new(use_cases: UseCases, administrators: Administrators) -> Self {
        Self {
            sessions: use_cases.sessions.for_anyone(),
            operator: use_cases,
            administrators,
        }
    }

    /// The caller of a request that presented the access token `machine`
    /// (checked by [`authenticate`](Self::authenticate)): it may do what
    /// its scopes allow. `Unauthenticated` for an API key, which is a
    /// connector's ([`connector`](Self::connector)).
    pub fn for_token(&self, machine: Machine) -> Result<Caller, ServiceError> {
        match machine.kind() {
            CredentialKind::AccessToken => Ok(Caller::token(machine)),
            CredentialKind::ApiKey => Err(ServiceError::Unauthenticated),
        }
    }

    /// The caller of a request in `session`: its person, an administrator
    /// when [`Administrators`] say so now (asked on every request, so that
    /// leaving the group takes effect at once).
    pub fn for_session(&self, session: &Session) -> Result<Caller, ServiceError> {
        self.administrators.caller(session.user())
    }

    /// How the settings name the administrators' group, if they do: for
    /// telling a person who is no administrator whom to ask.
    pub fn administrators_group(&self) -> Option<&AdministratorsGroup> {
        self.administrators.group()
    }

    /// The use cases as `caller` calls them, each refusing what the caller
    /// may not do, their changes recorded as made by `actor`.
    pub fn called_by(&self, caller: Caller, actor: Actor) -> UseCases {
        self.operator.called_by(caller, actor)
    }

    /// What a connector does with the connector's key it presented
    /// (`key`, checked by [`authenticate`](Self::authenticate)): the use
    /// cases as that connector calls them, which upload, identify and
    /// report runs only. `Unauthenticated` for an access token, which
    /// is a script's ([`for_token`](Self::for_token)).
    pub fn connector(&self, key: Machine) -> Result<Connector, ServiceError> {
        match key.kind() {
            CredentialKind::ApiKey => Ok(Connector {
                acting: self.operator.narrowed(Caller::connector(key)),
            }),
            CredentialKind::AccessToken => Err(ServiceError::Unauthenticated),
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
        &self.sessions
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
    acting: UseCases,
}

impl Connector {
    /// Stores one upload (see [`crate::ExpertiseService::upload`]).
    pub fn upload(&self, input: UploadInput) -> Result<Accepted, ServiceError> {
        self.acting.expertise.upload(input)
    }

    /// Stores many uploads, each answered on its own (see
    /// [`crate::ExpertiseService::upload_all`]).
    pub fn upload_all(&self, inputs: Vec<UploadInput>) -> Vec<Result<Accepted, ServiceError>> {
        self.acting.expertise.upload_all(inputs)
    }

    /// The e-mail address of each of `identities` Kenning knows (see
    /// [`crate::UserService::identify`]).
    pub fn identify(
        &self,
        identities: Raw<Vec<Raw<IdentityInput>>>,
    ) -> Result<Vec<Option<Email>>, ServiceError> {
        self.acting.users.identify(identities)
    }

    /// Records a run the connector reports, as the key's (see
    /// [`crate::ConnectorService::record_run`]).
    pub fn record_run(&self, input: RunInput) -> Result<Uuid, ServiceError> {
        self.acting.connectors.record_run(input)
    }
}
