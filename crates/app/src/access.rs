//! Who may do what, decided once for every door: a machine token by its
//! scopes, a connector by its API key, a signed-in person by whose
//! profile it is, an administrator (a person in the configured group) as
//! a token with every scope. Only the [`crate::Gate`] makes a [`Caller`]
//! (for a credential it checked, a session it read, or a connector's
//! key), and every use case names the [`Operation`] it is and asks
//! [`Caller::require`] before it reads or changes anything. `Operation`
//! and `require` are private to this crate, so an adapter cannot choose
//! what a request may do. The services as the composition root builds
//! them serve the operator, who may do everything: the command line and
//! the server's own rounds, which no door can run.
//!
//! ```compile_fail
//! // A door cannot make itself a caller.
//! fn me(user: kenning_domain::UserId) -> kenning_app::Caller {
//!     kenning_app::Caller::person(user, true)
//! }
//! ```
//!
//! ```compile_fail
//! // Nor make a machine of a credential nobody presented.
//! fn script() -> kenning_app::Machine {
//!     kenning_app::Machine::checked(
//!         kenning_domain::CredentialKind::AccessToken,
//!         uuid::Uuid::nil(),
//!         String::new(),
//!         Vec::new(),
//!     )
//! }
//! ```

use kenning_domain::{Scope, UserId};

use crate::error::ServiceError;
use crate::machine::Machine;

/// Who is calling, as the [`crate::Gate`] found out: nothing outside
/// this crate makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller(Who);

/// The kinds of caller.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Who {
    /// A script with a machine token (GraphQL, SCIM), by its scopes.
    Token(Machine),
    /// A connector with an API key: it uploads, finds which of its people
    /// Kenning knows and reports its runs, and nothing else.
    Connector(Machine),
    /// A person signed in to the web app, acting as themselves.
    Person(UserId),
    /// A person signed in to the web app who is an administrator
    /// ([`crate::Administrators`] decides who is, on every request).
    Administrator(UserId),
    /// Anyone, before a request's caller is known: signing in, which
    /// needs nobody's permission, and nothing gated.
    Anyone,
    /// Whoever runs Kenning's command line or its own rounds (purge,
    /// delivery, retention): they hold the database, so nobody is asked.
    /// A service is built for the operator; a door reaches it narrowed,
    /// through the gate.
    Operator,
}

impl Caller {
    /// The operator, whom every service serves until narrowed.
    pub(crate) fn operator() -> Self {
        Self(Who::Operator)
    }

    /// Anyone, before the caller is known.
    pub(crate) fn anyone() -> Self {
        Self(Who::Anyone)
    }

    /// A script with the checked machine token `machine`.
    pub(crate) fn token(machine: Machine) -> Self {
        Self(Who::Token(machine))
    }

    /// A connector with the checked API key `key`.
    pub(crate) fn connector(key: Machine) -> Self {
        Self(Who::Connector(key))
    }

    /// The person `user` signed in, an administrator or not, as
    /// [`crate::Administrators`] found now.
    pub(crate) fn person(user: UserId, administrator: bool) -> Self {
        Self(if administrator {
            Who::Administrator(user)
        } else {
            Who::Person(user)
        })
    }

    /// Whether the caller is a person who administers Kenning (read when
    /// the gate made the caller).
    pub fn is_administrator(&self) -> bool {
        matches!(self.0, Who::Administrator(_))
    }

    /// Whether the caller is `user`, signed in: what a person is shown of
    /// their own profile that others are not.
    pub(crate) fn is_person(&self, user: UserId) -> bool {
        matches!(self.0, Who::Person(me) | Who::Administrator(me) if me == user)
    }

    /// The administrator calling, if an administrator is.
    pub(crate) fn administrator(&self) -> Option<UserId> {
        match self.0 {
            Who::Administrator(user) => Some(user),
            _ => None,
        }
    }

    /// Whether the caller is the operator.
    pub(crate) fn is_operator(&self) -> bool {
        matches!(self.0, Who::Operator)
    }

    /// The API key of the connector calling, if a connector is.
    pub(crate) fn connector_key(&self) -> Option<&Machine> {
        match &self.0 {
            Who::Connector(key) => Some(key),
            _ => None,
        }
    }
}

/// What a caller asks to do: named by the use case, never by an adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    /// Read the user directory (users, their groups, groups).
    ReadUsers,
    /// Create, change or delete users and groups.
    WriteUsers,
    /// Read the audit trail.
    ReadAudit,
    /// Subscribe other systems to changes.
    ManageWebhooks,
    /// Ask who knows about something, read profiles of expertise and the
    /// topics that go together.
    ReadExpertise,
    /// Read the directory's groups (to narrow a question to one).
    ReadGroups,
    /// Read which topics a person hid from their profile.
    ReadHiddenTopicsOf(UserId),
    /// Hide a topic of the person's profile, or show it again.
    ChangeTopicsOf(UserId),
    /// Say that the person knows a topic, or withdraw it: the person's
    /// own word, never anyone else's.
    DeclareTopicsOf(UserId),
    /// Read everything kept about the person.
    ReadDataOf(UserId),
    /// Turn learning from the person's activity off or on, or erase what
    /// was learned about them.
    ChangeLearningOf(UserId),
    /// Read the organisation's rules on learning.
    ReadLearningRules,
    /// Set or lift the organisation's rules on learning.
    SetLearningRules,
    /// Read what people ask that nobody knows.
    ReadAskedSubjects,
    /// Issue, list and revoke access tokens and API keys.
    ManageCredentials,
    /// Read the runs connectors reported: their sources, counts and
    /// errors.
    ReadConnectorRuns,
    /// Change who administers Kenning: the administrators' group's
    /// members or external id, or an administrator's e-mail address or
    /// external id (with which they sign in).
    ChangeAdministrators,
    /// Store an upload: what a connector sends with its API key.
    Upload,
    /// Say which of a source's people Kenning knows: a connector's
    /// question, answered with their e-mail addresses.
    IdentifyPeople,
    /// Report a connector's run, as the key's.
    ReportRun,
    /// Run one of the server's own rounds (the purge, the pruning, the
    /// retention, webhook delivery, rebuilding and indexing): the
    /// operator's alone.
    RunRound,
}

impl Caller {
    /// `Forbidden`, saying why, unless the caller may do `operation`: a
    /// machine token needs the scope of the operation (`users:read` to
    /// read the directory, groups, anyone's hidden topics and connectors'
    /// runs, `users:write` to change users, groups and anyone's topics,
    /// `audit:read`, `webhooks:manage`, `expertise:read` to read
    /// expertise, and `administrators:write` to change who administers
    /// Kenning); a person may read expertise and groups, and read and
    /// change their own hidden topics only; an administrator may do all a
    /// token with every scope may do. What a person knows is said by the
    /// person alone (signed in, an administrator too), never by a token
    /// or for someone else. Credentials are managed by an
    /// administrator (or at the command line, which asks nobody), never by
    /// a token: no token can issue itself, or another, more scopes. The
    /// operator may do everything.
    pub(crate) fn require(&self, operation: Operation) -> Result<(), ServiceError> {
        let of_connectors = matches!(
            operation,
            Operation::Upload | Operation::IdentifyPeople | Operation::ReportRun
        );
        match &self.0 {
            Who::Operator => Ok(()),
            Who::Connector(_) if of_connectors => Ok(()),
            Who::Connector(_) => Err(ServiceError::Forbidden(
                "an API key uploads, identifies its people and reports its runs, nothing else"
                    .to_owned(),
            )),
            _ if operation == Operation::RunRound => Err(ServiceError::Forbidden(
                "the background rounds are the server's own".to_owned(),
            )),
            _ if of_connectors => Err(a_connectors()),
            Who::Anyone => Err(ServiceError::Forbidden(
                "this needs a signed-in person or a credential".to_owned(),
            )),
            Who::Token(machine) => machine.require(scope_of(operation)?),
            Who::Administrator(me) => match operation {
                Operation::DeclareTopicsOf(user) if user != *me => Err(not_their_word()),
                _ => Ok(()),
            },
            Who::Person(me) => person_may(*me, operation),
        }
    }
}

/// The scope a token needs for `operation`, or why no token may do it.
fn scope_of(operation: Operation) -> Result<Scope, ServiceError> {
    Ok(match operation {
        Operation::ReadUsers => Scope::UsersRead,
        Operation::WriteUsers => Scope::UsersWrite,
        Operation::ReadAudit => Scope::AuditRead,
        Operation::ManageWebhooks => Scope::WebhooksManage,
        Operation::ReadExpertise => Scope::ExpertiseRead,
        Operation::ChangeAdministrators => Scope::AdministratorsWrite,
        Operation::ReadGroups
        | Operation::ReadHiddenTopicsOf(_)
        | Operation::ReadDataOf(_)
        | Operation::ReadLearningRules
        | Operation::ReadAskedSubjects
        | Operation::ReadConnectorRuns => Scope::UsersRead,
        Operation::ChangeTopicsOf(_)
        | Operation::ChangeLearningOf(_)
        | Operation::SetLearningRules => Scope::UsersWrite,
        Operation::DeclareTopicsOf(_) => return Err(not_their_word()),
        Operation::ManageCredentials => {
            return Err(ServiceError::Forbidden(
                "credentials are issued and revoked by an administrator in the web app \
                 or at the command line, never with a token"
                    .to_owned(),
            ))
        }
        Operation::Upload
        | Operation::IdentifyPeople
        | Operation::ReportRun
        | Operation::RunRound => return Err(a_connectors()),
    })
}

/// Why an upload, a question about a source's people or a run report is
/// refused to any caller but a connector.
fn a_connectors() -> ServiceError {
    ServiceError::Forbidden(
        "this is a connector's, with an API key at the connectors' API".to_owned(),
    )
}

/// What a person signed in may do: read expertise, groups and the rules,
/// and read and change their own profile and data only.
fn person_may(me: UserId, operation: Operation) -> Result<(), ServiceError> {
    match operation {
        Operation::ReadExpertise | Operation::ReadGroups | Operation::ReadLearningRules => Ok(()),
        Operation::ReadHiddenTopicsOf(user)
        | Operation::ChangeTopicsOf(user)
        | Operation::DeclareTopicsOf(user)
        | Operation::ReadDataOf(user)
        | Operation::ChangeLearningOf(user)
            if user == me =>
        {
            Ok(())
        }
        Operation::DeclareTopicsOf(_) => Err(not_their_word()),
        Operation::ReadHiddenTopicsOf(_)
        | Operation::ChangeTopicsOf(_)
        | Operation::ReadDataOf(_)
        | Operation::ChangeLearningOf(_) => Err(ServiceError::Forbidden(
            "a person may read and change their own profile and data only".to_owned(),
        )),
        _ => Err(ServiceError::Forbidden(
            "this is for administrators, not for a person signed in".to_owned(),
        )),
    }
}

/// Why a topic a person knows is said by nobody but them.
fn not_their_word() -> ServiceError {
    ServiceError::Forbidden(
        "only the person says what they know, signed in to the web app as themselves".to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn machine(scopes: &[Scope]) -> Caller {
        Caller::token(Machine::checked(
            kenning_domain::CredentialKind::AccessToken,
            Uuid::new_v4(),
            "script".to_owned(),
            scopes.to_vec(),
        ))
    }

    #[test]
    fn a_person_changes_their_own_profile_only() {
        let me = UserId::from_uuid(Uuid::new_v4());
        let other = UserId::from_uuid(Uuid::new_v4());
        let person = Caller::person(me, false);
        assert!(person.require(Operation::ChangeTopicsOf(me)).is_ok());
        assert!(matches!(
            person.require(Operation::ChangeTopicsOf(other)),
            Err(ServiceError::Forbidden(_))
        ));
        assert!(person.require(Operation::ReadExpertise).is_ok());
        assert!(person.require(Operation::ReadDataOf(me)).is_ok());
        assert!(person.require(Operation::ChangeLearningOf(me)).is_ok());
        assert!(person.require(Operation::ReadDataOf(other)).is_err());
        assert!(person.require(Operation::ChangeLearningOf(other)).is_err());
        for refused in [
            Operation::SetLearningRules,
            Operation::ReadAskedSubjects,
            Operation::ReadConnectorRuns,
            Operation::ReadUsers,
            Operation::WriteUsers,
            Operation::ReadAudit,
            Operation::ManageWebhooks,
            Operation::ManageCredentials,
            Operation::ChangeAdministrators,
            Operation::Upload,
            Operation::IdentifyPeople,
            Operation::ReportRun,
            Operation::RunRound,
        ] {
            assert!(person.require(refused).is_err(), "{refused:?}");
        }
    }

    /// Every operation, once (a person's own operations on someone else).
    fn every_operation(someone: UserId) -> [Operation; 20] {
        [
            Operation::ReadUsers,
            Operation::WriteUsers,
            Operation::ReadAudit,
            Operation::ManageWebhooks,
            Operation::ReadExpertise,
            Operation::ReadGroups,
            Operation::ReadHiddenTopicsOf(someone),
            Operation::ChangeTopicsOf(someone),
            Operation::ReadDataOf(someone),
            Operation::ChangeLearningOf(someone),
            Operation::ReadLearningRules,
            Operation::SetLearningRules,
            Operation::ReadAskedSubjects,
            Operation::ManageCredentials,
            Operation::ChangeAdministrators,
            Operation::ReadConnectorRuns,
            Operation::Upload,
            Operation::IdentifyPeople,
            Operation::ReportRun,
            Operation::RunRound,
        ]
    }

    /// What only a connector does, or the operator.
    fn of_connectors(operation: Operation) -> bool {
        matches!(
            operation,
            Operation::Upload | Operation::IdentifyPeople | Operation::ReportRun
        )
    }

    #[test]
    fn an_administrator_and_the_operator_may_do_what_every_scope_allows_and_manage_credentials() {
        let admin = Caller::person(UserId::from_uuid(Uuid::new_v4()), true);
        let everything = machine(&Scope::ALL);
        let someone = UserId::from_uuid(Uuid::new_v4());
        for operation in every_operation(someone) {
            assert!(
                Caller::operator().require(operation).is_ok(),
                "{operation:?}"
            );
            if of_connectors(operation) || operation == Operation::RunRound {
                assert!(admin.require(operation).is_err(), "{operation:?}");
                assert!(everything.require(operation).is_err(), "{operation:?}");
                continue;
            }
            assert!(admin.require(operation).is_ok(), "{operation:?}");
            if operation != Operation::ManageCredentials {
                assert!(everything.require(operation).is_ok(), "{operation:?}");
            }
        }
    }

    #[test]
    fn no_token_manages_credentials_whatever_its_scopes() {
        assert!(matches!(
            machine(&Scope::ALL).require(Operation::ManageCredentials),
            Err(ServiceError::Forbidden(_))
        ));
    }

    #[test]
    fn a_machine_needs_the_scope_of_the_operation() {
        let anyone = UserId::from_uuid(Uuid::new_v4());
        let reader = machine(&[Scope::ExpertiseRead]);
        assert!(reader.require(Operation::ReadExpertise).is_ok());
        assert!(reader.require(Operation::ChangeTopicsOf(anyone)).is_err());
        assert!(reader.require(Operation::ReadGroups).is_err());
        let writer = machine(&[Scope::UsersWrite]);
        assert!(writer.require(Operation::ChangeTopicsOf(anyone)).is_ok());
        assert!(writer.require(Operation::ReadExpertise).is_err());
        assert!(writer.require(Operation::ChangeAdministrators).is_err());
        let keeper = machine(&[Scope::AdministratorsWrite]);
        assert!(keeper.require(Operation::ChangeAdministrators).is_ok());
        assert!(keeper.require(Operation::WriteUsers).is_err());
    }

    #[test]
    fn a_connector_uploads_identifies_and_reports_and_nobody_calling_runs_a_round() {
        let key = Caller::connector(Machine::checked(
            kenning_domain::CredentialKind::ApiKey,
            Uuid::new_v4(),
            "connector".to_owned(),
            Vec::new(),
        ));
        let someone = UserId::from_uuid(Uuid::new_v4());
        for operation in every_operation(someone) {
            assert_eq!(
                key.require(operation).is_ok(),
                of_connectors(operation),
                "{operation:?}"
            );
            assert!(
                Caller::anyone().require(operation).is_err(),
                "{operation:?}"
            );
        }
    }
}
