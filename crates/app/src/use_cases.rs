//! Every use case a door calls, together: what the composition root hands
//! the doors, and what a door narrows to the caller of one request.

use kenning_domain::Actor;

use crate::access::Caller;
use crate::{
    AuditService, ConnectorService, CredentialService, ExpertiseService, GroupService,
    PrivacyService, SessionService, UserService, WebhookService,
};

/// The use cases: as the composition root builds them (for the operator)
/// to put behind the [`crate::Gate`], or as the gate hands them to a door,
/// for one caller. A service narrowed to a caller builds nothing more: its
/// `with_…` and `acting_as` give it back unchanged, so a door cannot lift
/// a guard, swap a store or change whom the audit trail names.
#[derive(Debug, Clone)]
pub struct UseCases {
    /// Users.
    pub users: UserService,
    /// Access tokens and API keys.
    pub credentials: CredentialService,
    /// Groups of users.
    pub groups: GroupService,
    /// Uploads and who knows what.
    pub expertise: ExpertiseService,
    /// The audit trail.
    pub audit: AuditService,
    /// Webhook subscriptions.
    pub webhooks: WebhookService,
    /// Signing people in to the web app (narrowed to anyone, who runs no
    /// round).
    pub sessions: SessionService,
    /// A person's data and the rules on learning.
    pub privacy: PrivacyService,
    /// Connectors' runs.
    pub connectors: ConnectorService,
}

impl UseCases {
    /// The same use cases as `caller` calls them, each refusing what the
    /// caller may not do, their changes recorded as made by `actor`: for
    /// the [`crate::Gate`], a door's only way to them. The actor is set
    /// before the caller, as a narrowed service builds nothing more.
    pub(crate) fn called_by(&self, caller: Caller, actor: Actor) -> Self {
        Self {
            users: self.users.acting_as(actor.clone()),
            credentials: self.credentials.acting_as(actor.clone()),
            groups: self.groups.acting_as(actor.clone()),
            expertise: self.expertise.acting_as(actor.clone()),
            privacy: self.privacy.acting_as(actor),
            ..self.clone()
        }
        .narrowed(caller)
    }

    /// The same use cases as `caller` calls them, their changes recorded
    /// as the composition root's actor: the connector door's, whose runs
    /// carry their key and whose uploads their person.
    pub(crate) fn narrowed(&self, caller: Caller) -> Self {
        Self {
            users: self.users.called_by(caller.clone()),
            credentials: self.credentials.called_by(caller.clone()),
            groups: self.groups.called_by(caller.clone()),
            expertise: self.expertise.called_by(caller.clone()),
            audit: self.audit.called_by(caller.clone()),
            webhooks: self.webhooks.called_by(caller.clone()),
            sessions: self.sessions.for_anyone(),
            connectors: self.connectors.called_by(caller.clone()),
            privacy: self.privacy.called_by(caller),
        }
    }
}
