//! Who may do what, decided once for every door: a machine token by its
//! scopes, a signed-in person by whose profile it is, an administrator
//! (a person in the configured group) as a token with every scope. An
//! adapter names only the caller ([`crate::Gate::called_by`]); every use
//! case a door calls names the [`Operation`] it is and asks
//! [`Caller::require`] before it reads or changes anything. `Operation`
//! and `require` are private to this crate, and only this crate builds
//! [`Caller::Operator`], so an adapter cannot choose what a request may
//! do; one that does not narrow a service serves the operator (the
//! connector door, whose API key is its whole permission, and the
//! metrics do).

use kenning_domain::{Scope, UserId};

use crate::credentials::Machine;
use crate::error::ServiceError;

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// A script with a machine token (GraphQL), by its scopes.
    Machine(Machine),
    /// A person signed in to the web app, acting as themselves.
    Person(UserId),
    /// A person signed in to the web app who is an administrator
    /// ([`crate::Administrators`] decides who is, on every request).
    Administrator(UserId),
    /// Whoever runs Kenning's command line or its own rounds (purge,
    /// delivery, retention): they hold the database, so nobody is asked.
    /// A service is built for the operator; a door reaches it narrowed,
    /// through [`crate::Gate::called_by`]. Only this crate builds one.
    Operator(Sealed),
}

/// What makes [`Caller::Operator`] this crate's to build: no adapter can
/// name itself the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sealed(());

impl Caller {
    /// The operator, whom every service serves until narrowed.
    pub(crate) fn operator() -> Self {
        Caller::Operator(Sealed(()))
    }

    /// Whether the caller is `user`, signed in: what a person is shown of
    /// their own profile that others are not.
    pub(crate) fn is_person(&self, user: UserId) -> bool {
        matches!(self, Caller::Person(me) | Caller::Administrator(me) if *me == user)
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
        match self {
            Caller::Machine(machine) => {
                machine.require(match operation {
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
                    Operation::ManageCredentials => return Err(ServiceError::Forbidden(
                        "credentials are issued and revoked by an administrator in the web app \
                         or at the command line, never with a token"
                            .to_owned(),
                    )),
                })
            }
            Caller::Administrator(me) => match operation {
                Operation::DeclareTopicsOf(user) if user != *me => Err(not_their_word()),
                _ => Ok(()),
            },
            Caller::Operator(_) => Ok(()),
            Caller::Person(me) => match operation {
                Operation::ReadExpertise | Operation::ReadGroups | Operation::ReadLearningRules => {
                    Ok(())
                }
                Operation::ReadUsers
                | Operation::WriteUsers
                | Operation::ReadAudit
                | Operation::ManageWebhooks
                | Operation::SetLearningRules
                | Operation::ReadAskedSubjects
                | Operation::ReadConnectorRuns
                | Operation::ManageCredentials
                | Operation::ChangeAdministrators => Err(ServiceError::Forbidden(
                    "this is for administrators, not for a person signed in".to_owned(),
                )),
                Operation::ReadHiddenTopicsOf(user)
                | Operation::ChangeTopicsOf(user)
                | Operation::DeclareTopicsOf(user)
                | Operation::ReadDataOf(user)
                | Operation::ChangeLearningOf(user)
                    if user == *me =>
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
            },
        }
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
        Caller::Machine(Machine {
            credential_id: Uuid::new_v4(),
            name: "script".to_owned(),
            scopes: scopes.to_vec(),
        })
    }

    #[test]
    fn a_person_changes_their_own_profile_only() {
        let me = UserId::from_uuid(Uuid::new_v4());
        let other = UserId::from_uuid(Uuid::new_v4());
        let person = Caller::Person(me);
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
        ] {
            assert!(person.require(refused).is_err(), "{refused:?}");
        }
    }

    /// Every operation, once (a person's own operations on someone else).
    fn every_operation(someone: UserId) -> [Operation; 16] {
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
        ]
    }

    #[test]
    fn an_administrator_and_the_operator_may_do_what_every_scope_allows_and_manage_credentials() {
        let admin = Caller::Administrator(UserId::from_uuid(Uuid::new_v4()));
        let everything = machine(&Scope::ALL);
        let someone = UserId::from_uuid(Uuid::new_v4());
        for operation in every_operation(someone) {
            assert!(admin.require(operation).is_ok(), "{operation:?}");
            assert!(
                Caller::operator().require(operation).is_ok(),
                "{operation:?}"
            );
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
}
