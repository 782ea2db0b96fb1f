//! Groups of users, as an organisation's directory keeps them (teams,
//! departments, project groups) and identity providers push them: a name,
//! an optional external id, and members.
//!
//! A group lists users by id. Only users that are not deleted can become
//! members (the use cases check that against the store); anonymizing a
//! user removes it from every group.

use std::collections::BTreeSet;
use std::fmt;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::profile::ExternalId;
use crate::user::UserId;
use crate::validation::{bounded_text, Collector, FieldViolation, Rule, ValidationErrors};

bounded_text!(
    /// A group's name: required, at most 255 characters.
    DisplayName, "displayName", 255, required = true
);

impl DisplayName {
    /// The name folded as e-mail addresses are ([`crate::Email::fold`]):
    /// groups are listed by it and found by name without regard to case.
    pub fn key(&self) -> String {
        crate::Email::fold(self.as_str())
    }
}

/// The most members one group may have.
pub const MAX_MEMBERS: usize = 100_000;

/// The identifier of a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupId(Uuid);

impl GroupId {
    /// The id of this UUID.
    pub fn from_uuid(id: Uuid) -> Self {
        Self(id)
    }

    /// The UUID the id is written as.
    pub fn as_uuid(&self) -> Uuid {
        self.0
    }
}

impl fmt::Display for GroupId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What a client sends to create or replace a group.
#[derive(Debug, Clone, Default)]
pub struct GroupInput {
    /// `displayName`, required.
    pub display_name: String,
    /// `externalId`, unique among groups.
    pub external_id: Option<String>,
    /// The members' user ids.
    pub members: Vec<String>,
}

impl From<&Group> for GroupInput {
    /// The group's attributes as a client would send them back unchanged.
    fn from(group: &Group) -> Self {
        let a = group.attributes();
        Self {
            display_name: a.display_name.as_str().to_owned(),
            external_id: a.external_id.as_ref().map(|e| e.as_str().to_owned()),
            members: a.members.iter().map(|m| m.as_uuid().to_string()).collect(),
        }
    }
}

/// The checked attributes of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupAttributes {
    /// Its name.
    pub display_name: DisplayName,
    /// Its id in the identity provider.
    pub external_id: Option<ExternalId>,
    /// Its members, each once.
    pub members: BTreeSet<UserId>,
}

impl GroupAttributes {
    /// Checks every attribute and reports every bad one at once: a member
    /// that is not a user id is [`Rule::NotAUser`] on `members`.
    pub fn parse(input: GroupInput) -> Result<Self, ValidationErrors> {
        let mut c = Collector::default();
        let display_name = c.take(DisplayName::parse(&input.display_name));
        let external_id = input
            .external_id
            .and_then(|raw| c.take(ExternalId::parse(&raw)));
        let mut members = BTreeSet::new();
        let mut bad = false;
        for raw in &input.members {
            match Uuid::parse_str(raw.trim()) {
                Ok(id) => {
                    members.insert(UserId::from_uuid(id));
                }
                Err(_) => bad = true,
            }
        }
        if bad {
            c.take::<()>(Err(FieldViolation::new("members", Rule::NotAUser)));
        }
        if members.len() > MAX_MEMBERS {
            c.take::<()>(Err(FieldViolation::new(
                "members",
                Rule::TooMany { max: MAX_MEMBERS },
            )));
        }
        c.finish()?;
        let display_name = display_name.ok_or_else(|| {
            ValidationErrors::from(FieldViolation::new(DisplayName::FIELD, Rule::Required))
        })?;
        Ok(Self {
            display_name,
            external_id,
            members,
        })
    }
}

/// Which groups a directory query asks for: those whose name (compared
/// without regard to case) and external id (compared exactly) are the
/// given ones; every group when neither is given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupFilter {
    /// The name asked for.
    pub display_name: Option<String>,
    /// The external id asked for.
    pub external_id: Option<String>,
}

impl GroupFilter {
    /// Whether `group` is among those asked for.
    pub fn matches(&self, group: &Group) -> bool {
        let a = group.attributes();
        self.display_name
            .as_ref()
            .is_none_or(|n| crate::Email::fold(n) == a.display_name.key())
            && self
                .external_id
                .as_ref()
                .is_none_or(|e| a.external_id.as_ref().map(ExternalId::as_str) == Some(e.as_str()))
    }
}

/// A group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    id: GroupId,
    attributes: GroupAttributes,
    created: DateTime<Utc>,
    modified: DateTime<Utc>,
    version: u64,
}

/// Every part of a stored group, for storage adapters to rebuild one.
#[derive(Debug, Clone)]
pub struct GroupParts {
    /// The group's id.
    pub id: GroupId,
    /// Its name, external id and members.
    pub attributes: GroupAttributes,
    /// When it was created.
    pub created: DateTime<Utc>,
    /// When it last changed.
    pub modified: DateTime<Utc>,
    /// How many times it was written.
    pub version: u64,
}

/// Why a change to a group was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    /// The change was asked for another version than the group's.
    #[error("the group is at version {current}, not {expected}: it changed since it was read")]
    StaleVersion {
        /// The version the change was asked for.
        expected: u64,
        /// The group's version.
        current: u64,
    },
    /// The change is not the caller's to make; the text says why.
    #[error("{0}")]
    Forbidden(String),
}

impl Group {
    /// A new group, created at `now`.
    pub fn create(id: GroupId, attributes: GroupAttributes, now: DateTime<Utc>) -> Self {
        Self {
            id,
            attributes,
            created: now,
            modified: now,
            version: 1,
        }
    }

    /// Rebuilds a stored group.
    pub fn from_parts(parts: GroupParts) -> Self {
        Self {
            id: parts.id,
            attributes: parts.attributes,
            created: parts.created,
            modified: parts.modified,
            version: parts.version,
        }
    }

    /// The group's id.
    pub fn id(&self) -> GroupId {
        self.id
    }

    /// Its name, external id and members.
    pub fn attributes(&self) -> &GroupAttributes {
        &self.attributes
    }

    /// When it was created.
    pub fn created(&self) -> DateTime<Utc> {
        self.created
    }

    /// When it last changed.
    pub fn modified(&self) -> DateTime<Utc> {
        self.modified
    }

    /// 1 when created, one more on every stored change.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Refuses a change asked for another version than the group's.
    pub fn expect_version(&self, expected: u64) -> Result<(), GroupError> {
        if self.version == expected {
            Ok(())
        } else {
            Err(GroupError::StaleVersion {
                expected,
                current: self.version,
            })
        }
    }

    /// Replaces the name, external id and members, at `now`.
    pub fn replace(&mut self, attributes: GroupAttributes, now: DateTime<Utc>) {
        self.attributes = attributes;
        self.modified = now;
    }

    /// Takes `user` out of the group at `now`; whether it was a member.
    pub fn remove_member(&mut self, user: UserId, now: DateTime<Utc>) -> bool {
        let removed = self.attributes.members.remove(&user);
        if removed {
            self.modified = now;
        }
        removed
    }

    /// The same group as its store holds it at `version`; storage adapters
    /// call it on every write.
    pub fn stored_at(mut self, version: u64) -> Self {
        self.version = version;
        self
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn input(name: &str, members: &[&str]) -> GroupInput {
        GroupInput {
            display_name: name.into(),
            external_id: None,
            members: members.iter().map(|m| (*m).to_owned()).collect(),
        }
    }

    #[test]
    fn a_group_needs_a_name_and_user_ids_and_keeps_each_member_once() {
        let id = "8f4c1e36-0000-4000-8000-000000000001";
        let a = GroupAttributes::parse(input(" Sales ", &[id, id])).unwrap();
        assert_eq!(a.display_name.as_str(), "Sales");
        assert_eq!(a.members.len(), 1);
        let errors = GroupAttributes::parse(input("", &["not-an-id"])).unwrap_err();
        let fields: Vec<&str> = errors
            .violations()
            .iter()
            .map(|v| v.field.as_ref())
            .collect();
        assert_eq!(fields, ["displayName", "members"]);
        assert_eq!(errors.violations()[1].rule, Rule::NotAUser);
    }

    #[test]
    fn versions_guard_changes() {
        let now = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        let mut g = Group::create(
            GroupId::from_uuid(Uuid::new_v4()),
            GroupAttributes::parse(input("A", &[])).unwrap(),
            now,
        );
        assert!(g.expect_version(1).is_ok());
        let later = now + chrono::Duration::seconds(1);
        g.replace(GroupAttributes::parse(input("B", &[])).unwrap(), later);
        let g = g.stored_at(2);
        assert_eq!((g.version(), g.modified()), (2, later));
        assert_eq!(
            g.expect_version(1),
            Err(GroupError::StaleVersion {
                expected: 1,
                current: 2
            })
        );
    }
}
