//! The audit trail's objects: who changed what, and when.

use chrono::{DateTime, Utc};
use juniper::graphql_object;
use kenning_app::AuditPage;
use kenning_domain::{Actor, AuditEntry};
use uuid::Uuid;

use crate::context::Context;

/// A page of the audit trail, newest first.
#[derive(Debug)]
pub struct AuditPageObject(pub AuditPage);

#[graphql_object(name = "AuditPage", context = Context)]
impl AuditPageObject {
    /// The changes, newest first.
    fn events(&self) -> Vec<AuditEventObject> {
        self.0
            .entries
            .iter()
            .cloned()
            .map(AuditEventObject)
            .collect()
    }

    /// The cursor to pass as `before` for the next (older) page; null on
    /// the last page.
    fn next_cursor(&self) -> Option<String> {
        self.0.next.map(|position| position.to_string())
    }
}

/// One change made to a user, a group or a credential.
#[derive(Debug)]
pub struct AuditEventObject(pub AuditEntry);

#[graphql_object(name = "AuditEvent", context = Context)]
impl AuditEventObject {
    /// The event's place in the trail, as a cursor: a later event has a
    /// greater one.
    fn cursor(&self) -> String {
        self.0.position.to_string()
    }

    /// When the change was made.
    fn at(&self) -> DateTime<Utc> {
        self.0.at
    }

    /// What happened: `user.created`, `user.updated`, `user.email_changed`,
    /// `user.deactivated`, `user.reactivated`, `user.deleted`,
    /// `user.deletion_cancelled`, `user.anonymized`, `user.signed_in`,
    /// `user.signed_out`, `user.exported`, `user.learning_changed`,
    /// `user.forgotten`, `group.created`, `group.updated`,
    /// `group.deleted`, `credential.issued`, `credential.revoked`,
    /// `organisation.learning_rule_set` or
    /// `organisation.learning_rule_lifted`.
    fn kind(&self) -> &str {
        self.0.change.kind.as_str()
    }

    /// `user`, `group`, `credential` or `organisation` (whose id is the
    /// nil UUID).
    fn resource_type(&self) -> &str {
        self.0.change.kind.resource().as_str()
    }

    /// The id of the user, group or credential that changed.
    fn resource_id(&self) -> Uuid {
        self.0.change.resource_id
    }

    /// The public names of the fields the change touched (never their
    /// values); empty for a change of status alone.
    fn fields(&self) -> &[String] {
        &self.0.change.fields
    }

    /// Who made the change.
    fn actor(&self) -> AuditActorObject {
        AuditActorObject(self.0.actor.clone())
    }
}

/// Who made a change.
#[derive(Debug)]
pub struct AuditActorObject(pub Actor);

#[graphql_object(name = "AuditActor", context = Context)]
impl AuditActorObject {
    /// The credential presented; null for the command line, the purge and
    /// a person signed in to the web app.
    fn credential_id(&self) -> Option<Uuid> {
        self.0.credential_id
    }

    /// The credential's name; `cli`, `purge` or `embedded`; the
    /// `globalUserId` of a person signed in to the web app, or
    /// `anonymous` for the sign-ins and sign-outs of a person anonymized
    /// or forgotten since.
    fn name(&self) -> &str {
        &self.0.name
    }

    /// The door the change came through: `graphql`, `scim`, `cli`,
    /// `purge`, `web` or `embedded`.
    fn channel(&self) -> &str {
        self.0.channel.as_str()
    }
}
