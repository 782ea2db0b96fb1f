//! Who administers Kenning: the ACTIVE members of one group, named by
//! what no one else can take, its id or its external id (both unique
//! among groups), never by its displayName (which anyone who may create
//! a group could copy). Asked on every request, so a person taken out of
//! the group (or deactivated) is no administrator from their next page
//! on, and nobody is while no group is named.
//!
//! Who administers is changed only by a caller who may
//! [`Operation::ChangeAdministrators`]: the group's members and external
//! id, a group taking its external id, and an administrator's e-mail
//! address or external id, with which they sign in, and their status.
//! No group may take another group's id as its external id, so that no
//! write can make the name of the administrators' group ambiguous.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use kenning_domain::{
    ExternalId, Group, GroupAttributes, GroupFilter, GroupId, Status, User, UserId,
};
use kenning_ports::{GroupStore, UserStore};
use uuid::Uuid;

use crate::access::{Caller, Operation};
use crate::error::ServiceError;

/// How the settings name the administrators' group: by its id when the
/// value is a UUID, by its external id otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdministratorsGroup {
    /// The group with this id.
    Id(GroupId),
    /// The group with this external id.
    ExternalId(ExternalId),
}

impl FromStr for AdministratorsGroup {
    type Err = String;

    /// A UUID names the group's id; anything else its external id (at
    /// most 250 characters, no control characters).
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        if let Ok(id) = Uuid::try_parse(value.trim()) {
            return Ok(Self::Id(GroupId::from_uuid(id)));
        }
        ExternalId::parse(value)
            .map(Self::ExternalId)
            .map_err(|violation| format!("the group's externalId: {violation}"))
    }
}

impl fmt::Display for AdministratorsGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Id(id) => write!(f, "the group with id {id}"),
            Self::ExternalId(external) => {
                write!(
                    f,
                    "the group with externalId \u{201c}{}\u{201d}",
                    external.as_str()
                )
            }
        }
    }
}

impl AdministratorsGroup {
    /// Whether `group` is the one named.
    fn names(&self, id: GroupId, external_id: Option<&ExternalId>) -> bool {
        match self {
            Self::Id(named) => *named == id,
            Self::ExternalId(named) => external_id == Some(named),
        }
    }
}

/// The group whose ACTIVE members are administrators, if one is named,
/// read from the group store on every question.
#[derive(Clone, Default)]
pub struct Administrators {
    named: Option<Named>,
}

/// A named group and where its members are read.
#[derive(Clone)]
struct Named {
    group: AdministratorsGroup,
    groups: Arc<dyn GroupStore>,
    users: Arc<dyn UserStore>,
}

impl fmt::Debug for Administrators {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Administrators")
            .field("group", &self.group())
            .finish()
    }
}

impl Administrators {
    /// Nobody administers Kenning.
    pub fn nobody() -> Self {
        Self::default()
    }

    /// The ACTIVE members of the group `group` names, read from `groups`
    /// and `users`. A group that does not exist yet is no error: nobody
    /// administers until it does. Named by id, the group with that id is
    /// the administrators' whatever other group holds the id as its
    /// external id ([`impostor`](Self::impostor) finds one, which no write
    /// can make any more), so no group makes the service unable to start.
    pub fn of_group(
        group: AdministratorsGroup,
        groups: Arc<dyn GroupStore>,
        users: Arc<dyn UserStore>,
    ) -> Self {
        Self {
            named: Some(Named {
                group,
                groups,
                users,
            }),
        }
    }

    /// A group other than the administrators' whose external id is the
    /// id that names them, when they are named by id: harmless to who
    /// administers, but confusing to a reader, so the server warns of it.
    /// Only a database written before such external ids were refused
    /// holds one.
    pub fn impostor(&self) -> Result<Option<Group>, ServiceError> {
        let Some(Named {
            group: AdministratorsGroup::Id(id),
            groups,
            ..
        }) = &self.named
        else {
            return Ok(None);
        };
        Ok(external_id_group(groups.as_ref(), &id.to_string())?.filter(|other| other.id() != *id))
    }

    /// How the group is named, when one is.
    pub fn group(&self) -> Option<&AdministratorsGroup> {
        self.named.as_ref().map(|named| &named.group)
    }

    /// The group as stored now, if one is named and exists.
    pub fn current_group(&self) -> Result<Option<Group>, ServiceError> {
        let Some(Named { group, groups, .. }) = &self.named else {
            return Ok(None);
        };
        match group {
            AdministratorsGroup::Id(id) => Ok(groups.group(*id)?),
            AdministratorsGroup::ExternalId(external) => {
                external_id_group(groups.as_ref(), external.as_str())
            }
        }
    }

    /// Whether `user` is a member of the group, whatever their status:
    /// a deactivated member administers again once reactivated, so their
    /// e-mail address is guarded as an administrator's is.
    pub fn is_member(&self, user: UserId) -> Result<bool, ServiceError> {
        Ok(self
            .current_group()?
            .is_some_and(|group| group.attributes().members.contains(&user)))
    }

    /// Whether `user` (as stored now) administers Kenning: ACTIVE and a
    /// member of the group.
    pub fn administers(&self, user: &User) -> Result<bool, ServiceError> {
        Ok(user.status() == Status::Active && self.is_member(user.id())?)
    }

    /// Whether the user with id `user` administers Kenning now (false
    /// when there is no such user).
    pub fn administers_id(&self, user: UserId) -> Result<bool, ServiceError> {
        let Some(named) = &self.named else {
            return Ok(false);
        };
        match named.users.get(user)? {
            Some(user) => self.administers(&user),
            None => Ok(false),
        }
    }

    /// The caller `user` is in the web app, read now: an administrator
    /// when ACTIVE and a member of the group, a person otherwise (also
    /// when no group is named or none has the name).
    pub(crate) fn caller(&self, user: &User) -> Result<Caller, ServiceError> {
        Ok(Caller::person(user.id(), self.administers(user)?))
    }

    /// `Forbidden` unless `caller` may change who administers Kenning,
    /// when a group goes from `before` (`None`: it is being created) to
    /// `after` (`None`: it is being deleted) and that changes the
    /// administrators' group's members or external id, or gives another
    /// group its external id. A change of its displayName alone, or of
    /// any other group, needs nothing more.
    pub(crate) fn guard_group_change(
        &self,
        caller: &Caller,
        before: Option<&Group>,
        after: Option<&GroupAttributes>,
    ) -> Result<(), ServiceError> {
        let Some(Named { group: named, .. }) = &self.named else {
            return Ok(());
        };
        let was = before.is_some_and(|g| named.names(g.id(), g.attributes().external_id.as_ref()));
        // A group's id never changes: only an external id makes another
        // group the administrators'.
        let becomes = after.is_some_and(|a| {
            matches!(named, AdministratorsGroup::ExternalId(e) if a.external_id.as_ref() == Some(e))
        });
        if !was && !becomes {
            return Ok(());
        }
        let same = match (before, after) {
            (Some(before), Some(after)) => {
                let now = before.attributes();
                now.members == after.members && now.external_id == after.external_id
            }
            _ => false,
        };
        if same {
            return Ok(());
        }
        caller.require(Operation::ChangeAdministrators)
    }

    /// Whether a change of `user` by `caller` must leave what they sign
    /// in with and their status alone ([`ADMINISTRATOR_GUARDED`]): `user`
    /// is a member of the administrators' group (whatever their status:
    /// a deactivated member administers again once reactivated), and
    /// `caller` may not change who administers Kenning.
    pub(crate) fn guards(&self, caller: &Caller, user: UserId) -> Result<bool, ServiceError> {
        Ok(caller.require(Operation::ChangeAdministrators).is_err() && self.is_member(user)?)
    }
}

/// Why a change of a guarded administrator ([`Administrators::guards`])
/// is refused.
pub(crate) const ADMINISTRATOR_GUARDED: &str = "changing an administrator's e-mail address, \
     externalId or status needs the scope administrators:write (or an administrator in the web app)";

/// Whether the change from `before` to `after` changes what an
/// administrator's office rests on: their e-mail address or external id
/// (what they sign in with) or their status (whether they administer).
pub(crate) fn changes_guarded(before: &User, after: &User) -> bool {
    let office = |user: &User| {
        (
            user.status(),
            user.profile()
                .map(|p| (p.email.clone(), p.external_id.clone())),
        )
    };
    office(before) != office(after)
}

/// The group whose external id is `external`, if any (external ids are
/// unique among groups).
fn external_id_group(
    groups: &dyn GroupStore,
    external: &str,
) -> Result<Option<Group>, ServiceError> {
    let Ok(external_id) = ExternalId::parse(external) else {
        return Ok(None);
    };
    let filter = GroupFilter {
        display_name: None,
        external_id: Some(external_id.as_str().to_owned()),
    };
    Ok(groups.groups(&filter, 0, 1)?.groups.into_iter().next())
}
