//! Who is asking, on one request: a person signed in, with what they are
//! to the access rules (themselves, or an administrator).

use kenning_app::{
    AuditService, Caller, CredentialService, ExpertiseService, GroupService, Person,
    PrivacyService, UserService,
};

use crate::state::Web;

/// A person signed in, with who they are to the access rules on this
/// request: themselves, or an administrator.
#[derive(Debug, Clone)]
pub(crate) struct Visitor {
    pub(crate) person: Person,
    pub(crate) caller: Caller,
}

impl Visitor {
    /// Whether the person is an administrator on this request.
    pub(crate) fn is_administrator(&self) -> bool {
        matches!(self.caller, Caller::Administrator(_))
    }
}

impl std::ops::Deref for Visitor {
    type Target = Person;

    fn deref(&self) -> &Person {
        &self.person
    }
}

/// The use cases as a visitor calls them: each refuses what the visitor
/// may not do (the access rules are the use cases'), their changes
/// recorded as the person's.
#[derive(Clone)]
pub(crate) struct Acting {
    pub(crate) users: UserService,
    pub(crate) groups: GroupService,
    pub(crate) expertise: ExpertiseService,
    pub(crate) privacy: PrivacyService,
    pub(crate) audit: AuditService,
    pub(crate) credentials: CredentialService,
}

impl Acting {
    /// The use cases of `app` as `visitor` calls them.
    pub(crate) fn as_visitor(app: &Web, visitor: &Visitor) -> Self {
        let (caller, actor) = (visitor.caller.clone(), visitor.actor());
        Self {
            users: app.users.called_by(caller.clone()).acting_as(actor.clone()),
            groups: app
                .groups
                .called_by(caller.clone())
                .acting_as(actor.clone()),
            expertise: app
                .expertise
                .called_by(caller.clone())
                .acting_as(actor.clone()),
            privacy: app
                .privacy
                .called_by(caller.clone())
                .acting_as(actor.clone()),
            audit: app.audit.called_by(caller.clone()),
            credentials: app.credentials.called_by(caller).acting_as(actor),
        }
    }
}
