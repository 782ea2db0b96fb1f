//! Who administers Kenning in the web app: the ACTIVE members of one
//! group, named by its displayName in the settings. Asked on every
//! request, so a person taken out of the group (or deactivated) is no
//! administrator from their next page on, and nobody is while no group
//! is named.

use kenning_domain::{GroupFilter, Status, User};

use crate::access::Caller;
use crate::error::ServiceError;
use crate::groups::GroupService;

/// The group whose ACTIVE members are administrators, if one is named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Administrators {
    group: Option<String>,
}

impl Administrators {
    /// The ACTIVE members of the group named `group` (its displayName,
    /// compared as a group filter compares it); nobody when `None`.
    pub fn of_group(group: Option<String>) -> Self {
        Self { group }
    }

    /// The name of the group, when one is named.
    pub fn group(&self) -> Option<&str> {
        self.group.as_deref()
    }

    /// The caller `user` is in the web app, read from `groups` now:
    /// [`Caller::Administrator`] when ACTIVE and a member of the group,
    /// [`Caller::Person`] otherwise (also when no group has the name).
    pub fn caller(&self, groups: &GroupService, user: &User) -> Result<Caller, ServiceError> {
        let me = user.id();
        let Some(name) = &self.group else {
            return Ok(Caller::Person(me));
        };
        if user.status() != Status::Active {
            return Ok(Caller::Person(me));
        }
        let named = GroupFilter {
            display_name: Some(name.clone()),
            external_id: None,
        };
        // A displayName is unique among groups: one group at most.
        let member = groups
            .list(&named, 0, 1)?
            .groups
            .iter()
            .any(|group| group.attributes().members.contains(&me));
        Ok(if member {
            Caller::Administrator(me)
        } else {
            Caller::Person(me)
        })
    }
}
