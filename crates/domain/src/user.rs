//! A user, its profile and its lifecycle.
//!
//! ```text
//!   createUser ──> ACTIVE ──deactivateUser──> DEACTIVATED
//!                    ^  <──reactivateUser───     │
//!                    │                          │ cancelDelete (before the moment)
//!                    └── deleteUser ──> PENDING_DELETION ──(moment passes, purge)──> DELETED
//! ```
//!
//! `deleteUser` works from ACTIVE and DEACTIVATED; `cancelDelete` returns to
//! DEACTIVATED. Repeating a move that is already done succeeds and changes
//! nothing, so connector and sync scripts may repeat themselves.

use std::fmt;

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use crate::profile::{
    About, Company, CountryId, Department, Email, EmploymentStart, ExternalId, FirstName,
    LanguageId, LastName, Location, Position, ShownName, UserName,
};
use crate::validation::{Collector, FieldViolation, Rule, ValidationErrors};

/// The identifier of a user (`globalUserId`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(Uuid);

impl UserId {
    /// The id of this UUID.
    pub fn from_uuid(id: Uuid) -> Self {
        Self(id)
    }

    /// The UUID the id is written as.
    pub fn as_uuid(&self) -> Uuid {
        self.0
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The time between a delete request and the user's anonymization.
#[derive(Debug, Clone, Copy)]
pub struct GracePeriod;

impl GracePeriod {
    /// The length of the grace period in days.
    pub const DAYS: i64 = 14;

    /// The moment a user deleted at `requested` is anonymized.
    pub fn ends(requested: DateTime<Utc>) -> DateTime<Utc> {
        requested + Duration::days(Self::DAYS)
    }
}

/// Where a user is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// In use: counted among the experts unless hidden.
    Active,
    /// Kept, and its uploads still accepted, but not counted among the experts;
    /// can be reactivated.
    Deactivated,
    /// Deactivated, and anonymized once `scheduled_for` has passed.
    PendingDeletion {
        /// When the user will be anonymized.
        scheduled_for: DateTime<Utc>,
    },
    /// Anonymized at `at`; nothing can change the user any more.
    Deleted {
        /// When the user was anonymized.
        at: DateTime<Utc>,
    },
}

impl Status {
    /// The stable name of [`Status::Active`], as the API shows it and a
    /// store keeps it.
    pub const ACTIVE: &'static str = "ACTIVE";
    /// The stable name of [`Status::Deactivated`].
    pub const DEACTIVATED: &'static str = "DEACTIVATED";
    /// The stable name of [`Status::PendingDeletion`].
    pub const PENDING_DELETION: &'static str = "PENDING_DELETION";
    /// The stable name of [`Status::Deleted`].
    pub const DELETED: &'static str = "DELETED";

    /// The stable names of the statuses whose users learn from uploads
    /// ([`Status::learns`]), for a store that selects them by name.
    pub const LEARNING: [&'static str; 2] = [Self::ACTIVE, Self::DEACTIVATED];

    /// Whether a user in this status learns from the uploads that name
    /// her: ACTIVE or DEACTIVATED (a deactivated person's history still
    /// arrives); a user pending deletion or deleted learns nothing.
    pub fn learns(&self) -> bool {
        Self::LEARNING.contains(&self.name())
    }

    /// Whether the user is deleted (anonymized): the one status that is
    /// not a live user's.
    pub fn is_deleted(&self) -> bool {
        matches!(self, Status::Deleted { .. })
    }

    /// [`Status::LEARNING`] as a list of SQL string literals
    /// (`'ACTIVE', 'DEACTIVATED'`), for a store's `status IN (...)`.
    pub fn learning_sql() -> String {
        Self::LEARNING
            .iter()
            .map(|name| format!("'{name}'"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The stable name ([`Status::ACTIVE`], [`Status::DEACTIVATED`],
    /// [`Status::PENDING_DELETION`], [`Status::DELETED`]).
    pub fn name(&self) -> &'static str {
        match self {
            Status::Active => Self::ACTIVE,
            Status::Deactivated => Self::DEACTIVATED,
            Status::PendingDeletion { .. } => Self::PENDING_DELETION,
            Status::Deleted { .. } => Self::DELETED,
        }
    }
}

/// Why a change to a user was refused.
///
/// New refusals come with new lifecycle rules, so the enum is
/// non-exhaustive: a match outside this crate needs an arm for the
/// refusals it does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UserError {
    /// The input broke field rules; every problem is listed.
    #[error("{0}")]
    Validation(ValidationErrors),
    /// The user's status does not allow the action.
    #[error("cannot {action} a user whose status is {status}")]
    InvalidTransition {
        /// What was asked, such as `deactivate`.
        action: &'static str,
        /// The status the user is in.
        status: &'static str,
    },
    /// The user may not be changed this way at all; the text says why.
    #[error("{0}")]
    Forbidden(&'static str),
    /// A cancellation came after the grace period ended.
    #[error("the grace period ended at {scheduled_for}; the deletion can no longer be cancelled")]
    GracePeriodExpired {
        /// When the grace period ended.
        scheduled_for: DateTime<Utc>,
    },
    /// The change was asked for a version of the user that is no longer
    /// the current one: someone changed the user since.
    #[error("the user is at version {current}, not {expected}: it changed since it was read")]
    StaleVersion {
        /// The version the change was asked for.
        expected: u64,
        /// The user's version.
        current: u64,
    },
}

impl From<ValidationErrors> for UserError {
    fn from(errors: ValidationErrors) -> Self {
        UserError::Validation(errors)
    }
}

/// The personal data of a user that is not deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The e-mail address, unique among live users by its folded key.
    pub email: Email,
    /// The first name.
    pub firstname: FirstName,
    /// The last name.
    pub lastname: LastName,
    /// The id in another system, unique among live users.
    pub external_id: Option<ExternalId>,
    /// The name an identity provider knows the user by, when one set it.
    pub user_name: Option<UserName>,
    /// The name the user is shown by, when set; "first last" otherwise
    /// ([`Profile::display_name`]).
    pub display_name: Option<ShownName>,
    /// The language the user reads.
    pub language_id: LanguageId,
    /// Where the user works from.
    pub location: Option<Location>,
    /// What the user says about themself.
    pub about: Option<About>,
    /// The country the user works in.
    pub country_id: Option<CountryId>,
    /// The company the user works for.
    pub company: Option<Company>,
    /// The department the user works in.
    pub department: Option<Department>,
    /// The user's position.
    pub position: Option<Position>,
    /// When the user started.
    pub employment_start: Option<EmploymentStart>,
    /// Kept as the identity source delivered it; no API writes it.
    pub gender: Option<String>,
    /// Kept as the identity source delivered it; no API writes it.
    pub avatar_url: Option<String>,
}

impl Profile {
    /// The name the user is shown by: the one set, else "first last".
    pub fn display_name(&self) -> String {
        match &self.display_name {
            Some(name) => name.as_str().to_owned(),
            None => format!("{} {}", self.firstname.as_str(), self.lastname.as_str()),
        }
    }
}

/// A user.
///
/// The profile exists exactly while the user is not deleted: anonymization
/// drops it, and nothing can bring it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    id: UserId,
    created: DateTime<Utc>,
    modified: DateTime<Utc>,
    version: u64,
    is_system: bool,
    is_hidden: bool,
    is_federated: bool,
    status: Status,
    profile: Option<Profile>,
}

/// Every part of a stored user, for storage adapters to rebuild one.
#[derive(Debug, Clone)]
pub struct UserParts {
    /// The user's id.
    pub id: UserId,
    /// When the user was registered.
    pub created: DateTime<Utc>,
    /// When the user last changed ([`User::modified`]).
    pub modified: DateTime<Utc>,
    /// How many times the stored user was written ([`User::version`]).
    pub version: u64,
    /// Whether it is a system user, which can be neither deactivated nor
    /// deleted.
    pub is_system: bool,
    /// Whether it is hidden from expertise answers.
    pub is_hidden: bool,
    /// Whether the user signs in through an external identity provider.
    pub is_federated: bool,
    /// Where it is in its lifecycle.
    pub status: Status,
    /// Its profile; `None` once anonymized.
    pub profile: Option<Profile>,
}

/// A stored record whose profile does not fit its status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("user {0}: a profile must exist exactly while the user is not deleted")]
pub struct InconsistentUser(pub UserId);

impl User {
    /// A new user, ACTIVE from `now` on.
    pub fn register(id: UserId, new: NewUser, now: DateTime<Utc>) -> Self {
        Self {
            id,
            created: now,
            modified: now,
            version: 1,
            is_system: false,
            is_hidden: false,
            is_federated: false,
            status: Status::Active,
            profile: Some(new.0),
        }
    }

    /// Rebuilds a stored user.
    pub fn from_parts(parts: UserParts) -> Result<Self, InconsistentUser> {
        let deleted = parts.status.is_deleted();
        if deleted == parts.profile.is_some() {
            return Err(InconsistentUser(parts.id));
        }
        Ok(Self {
            id: parts.id,
            created: parts.created,
            modified: parts.modified,
            version: parts.version,
            is_system: parts.is_system,
            is_hidden: parts.is_hidden,
            is_federated: parts.is_federated,
            status: parts.status,
            profile: parts.profile,
        })
    }

    /// The same user marked as a system user: from then on [`User::deactivate`]
    /// and [`User::delete`] refuse it with [`UserError::Forbidden`]; nothing
    /// else about the user changes. No use case calls it, so the API cannot
    /// make a system user; a stored user is one when its
    /// [`UserParts::is_system`] says so.
    pub fn into_system(mut self) -> Self {
        self.is_system = true;
        self
    }

    /// The user's id, which never changes.
    pub fn id(&self) -> UserId {
        self.id
    }
    /// Whether the user is ACTIVE or DEACTIVATED: one a directory that
    /// provisions users (SCIM) sees, and the statuses that learn from
    /// uploads ([`Status::learns`]); a user pending deletion or deleted is
    /// gone for it.
    pub fn is_provisioned(&self) -> bool {
        self.status.learns()
    }

    /// When the user last changed: registered, updated, moved in its
    /// lifecycle or anonymized ([`User::touch`]).
    pub fn modified(&self) -> DateTime<Utc> {
        self.modified
    }

    /// The version of the stored user: 1 when registered, one more on each
    /// write. Clients compare it to detect that someone else changed the
    /// user since they read it (optimistic concurrency, SCIM's ETags).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Whether `expected` is still the user's version; refused with
    /// [`UserError::StaleVersion`] when someone changed the user since.
    pub fn expect_version(&self, expected: u64) -> Result<(), UserError> {
        if self.version == expected {
            Ok(())
        } else {
            Err(UserError::StaleVersion {
                expected,
                current: self.version,
            })
        }
    }

    /// Records that the user changed at `now`; the use cases call it on
    /// every change they make.
    pub fn touch(&mut self, now: DateTime<Utc>) {
        self.modified = now;
    }

    /// The same user as its store holds it at `version`; storage adapters
    /// call it on every write.
    pub fn stored_at(mut self, version: u64) -> Self {
        self.version = version;
        self
    }

    /// When the user was registered.
    pub fn created(&self) -> DateTime<Utc> {
        self.created
    }
    /// Whether it is a system user, which can be neither deactivated nor
    /// deleted.
    pub fn is_system(&self) -> bool {
        self.is_system
    }
    /// Whether it is hidden from expertise answers.
    pub fn is_hidden(&self) -> bool {
        self.is_hidden
    }
    /// Whether `experts` ranks the user: ACTIVE and not hidden. A user who
    /// is not ranked may still learn ([`User::is_provisioned`]). The SQL
    /// stores keep this on each learner (`learners.ranked`) with triggers
    /// that state the same rule; the contract suite holds them to it.
    pub fn is_ranked(&self) -> bool {
        self.status() == Status::Active && !self.is_hidden
    }
    /// Whether the user may sign in to the web app and keep a session:
    /// ACTIVE only (a deactivated, pending or deleted user is signed out
    /// on their next request).
    pub fn may_sign_in(&self) -> bool {
        self.status() == Status::Active
    }
    /// Whether the user signs in through an external identity provider.
    pub fn is_federated(&self) -> bool {
        self.is_federated
    }
    /// Where the user is in its lifecycle.
    pub fn status(&self) -> Status {
        self.status
    }
    /// The personal data, `None` once the user is deleted.
    pub fn profile(&self) -> Option<&Profile> {
        self.profile.as_ref()
    }

    /// The moment the user was anonymized.
    pub fn date_deleted(&self) -> Option<DateTime<Utc>> {
        match self.status {
            Status::Deleted { at } => Some(at),
            _ => None,
        }
    }

    /// The moment a pending deletion takes effect.
    pub fn deletion_scheduled_for(&self) -> Option<DateTime<Utc>> {
        match self.status {
            Status::PendingDeletion { scheduled_for } => Some(scheduled_for),
            _ => None,
        }
    }

    fn refuse(&self, action: &'static str) -> UserError {
        UserError::InvalidTransition {
            action,
            status: self.status.name(),
        }
    }

    fn refuse_system(&self, action: &'static str) -> Result<(), UserError> {
        if self.is_system {
            return Err(UserError::Forbidden(match action {
                "deactivate" => "system users cannot be deactivated",
                _ => "system users cannot be deleted",
            }));
        }
        Ok(())
    }

    fn editable_profile(&mut self, action: &'static str) -> Result<&mut Profile, UserError> {
        let refusal = self.refuse(action);
        match (self.status, self.profile.as_mut()) {
            (Status::Active | Status::Deactivated, Some(profile)) => Ok(profile),
            _ => Err(refusal),
        }
    }

    /// Changes the listed attributes; allowed while ACTIVE or DEACTIVATED.
    pub fn update(&mut self, patch: UserPatch) -> Result<(), UserError> {
        let profile = self.editable_profile("update")?;
        patch.apply_to(profile);
        Ok(())
    }

    /// Changes the e-mail address; allowed while ACTIVE or DEACTIVATED.
    pub fn change_email(&mut self, email: Email) -> Result<(), UserError> {
        self.editable_profile("update")?.email = email;
        Ok(())
    }

    /// ACTIVE -> DEACTIVATED. Already deactivated (or pending deletion,
    /// which is deactivated too): nothing changes.
    pub fn deactivate(&mut self) -> Result<(), UserError> {
        self.refuse_system("deactivate")?;
        match self.status {
            Status::Active => {
                self.status = Status::Deactivated;
                Ok(())
            }
            Status::Deactivated | Status::PendingDeletion { .. } => Ok(()),
            Status::Deleted { .. } => Err(self.refuse("deactivate")),
        }
    }

    /// DEACTIVATED -> ACTIVE. Already active: nothing changes. A pending
    /// deletion must be cancelled first.
    pub fn reactivate(&mut self) -> Result<(), UserError> {
        match self.status {
            Status::Deactivated => {
                self.status = Status::Active;
                Ok(())
            }
            Status::Active => Ok(()),
            Status::PendingDeletion { .. } | Status::Deleted { .. } => {
                Err(self.refuse("reactivate"))
            }
        }
    }

    /// ACTIVE or DEACTIVATED -> PENDING_DELETION, anonymized a
    /// [`GracePeriod`] after `now`. Already pending: the first schedule stays.
    pub fn delete(&mut self, now: DateTime<Utc>) -> Result<(), UserError> {
        self.refuse_system("delete")?;
        match self.status {
            Status::Active | Status::Deactivated => {
                self.status = Status::PendingDeletion {
                    scheduled_for: GracePeriod::ends(now),
                };
                Ok(())
            }
            Status::PendingDeletion { .. } => Ok(()),
            Status::Deleted { .. } => Err(self.refuse("delete")),
        }
    }

    /// PENDING_DELETION -> DEACTIVATED while the scheduled moment is still
    /// in the future.
    pub fn cancel_delete(&mut self, now: DateTime<Utc>) -> Result<(), UserError> {
        match self.status {
            Status::PendingDeletion { scheduled_for } if now < scheduled_for => {
                self.status = Status::Deactivated;
                Ok(())
            }
            Status::PendingDeletion { scheduled_for } => {
                Err(UserError::GracePeriodExpired { scheduled_for })
            }
            _ => Err(self.refuse("cancel the deletion of")),
        }
    }

    /// Whether the grace period of a pending deletion has passed at `now`.
    pub fn is_due_for_purge(&self, now: DateTime<Utc>) -> bool {
        matches!(self.status, Status::PendingDeletion { scheduled_for } if scheduled_for <= now)
    }

    /// PENDING_DELETION (due) -> DELETED: the profile is erased for good.
    pub fn anonymize(&mut self, now: DateTime<Utc>) -> Result<(), UserError> {
        if !self.is_due_for_purge(now) {
            return Err(self.refuse("anonymize"));
        }
        self.status = Status::Deleted { at: now };
        self.profile = None;
        Ok(())
    }
}

/// A change to one attribute.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Patch<T> {
    /// Absent: leave the attribute as it is.
    #[default]
    Keep,
    /// Explicit null: clear the attribute.
    Clear,
    /// Set the attribute to this value.
    Set(T),
}

impl<T> Patch<T> {
    fn parse<U>(
        self,
        parse: impl FnOnce(T) -> Result<U, FieldViolation>,
    ) -> Result<Patch<U>, FieldViolation> {
        Ok(match self {
            Patch::Keep => Patch::Keep,
            Patch::Clear => Patch::Clear,
            Patch::Set(raw) => Patch::Set(parse(raw)?),
        })
    }

    fn apply_to(self, target: &mut Option<T>) {
        match self {
            Patch::Keep => {}
            Patch::Clear => *target = None,
            Patch::Set(value) => *target = Some(value),
        }
    }
}

/// Parses a change to a field that cannot be null.
fn required_patch<U>(
    field: &'static str,
    patch: Patch<String>,
    parse: impl FnOnce(&str) -> Result<U, FieldViolation>,
) -> Result<Option<U>, FieldViolation> {
    match patch {
        Patch::Keep => Ok(None),
        Patch::Clear => Err(FieldViolation::new(field, Rule::NotNullable)),
        Patch::Set(raw) => parse(&raw).map(Some),
    }
}

/// The raw attributes of a user to create, as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct NewUserInput {
    /// `email`, required.
    pub email: String,
    /// `firstname`, required.
    pub firstname: String,
    /// `lastname`, required.
    pub lastname: String,
    /// `externalId`.
    pub external_id: Option<String>,
    /// The identity provider's name for the user (SCIM's `userName`).
    pub user_name: Option<String>,
    /// `displayName`.
    pub display_name: Option<String>,
    /// `languageId`, an ISO 639-1 code; the default language when absent.
    pub language_id: Option<String>,
    /// `location`.
    pub location: Option<String>,
    /// `about`.
    pub about: Option<String>,
    /// `countryId`, an ISO 3166-1 alpha-2 code.
    pub country_id: Option<String>,
    /// `company`.
    pub company: Option<String>,
    /// `department`.
    pub department: Option<String>,
    /// `position`.
    pub position: Option<String>,
    /// `employmentStart`, written `yyyy-mm-dd`.
    pub employment_start: Option<String>,
}

/// The checked attributes of a user to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUser(Profile);

impl NewUser {
    /// Checks every field and reports every bad one at once. A user
    /// without `languageId` gets `default_language`.
    pub fn parse(
        input: NewUserInput,
        default_language: &LanguageId,
    ) -> Result<Self, ValidationErrors> {
        fn optional<T>(
            c: &mut Collector,
            raw: Option<String>,
            parse: fn(&str) -> Result<T, FieldViolation>,
        ) -> Option<T> {
            raw.and_then(|raw| c.take(parse(&raw)))
        }
        let mut c = Collector::default();
        let email = c.take(Email::parse(&input.email));
        let firstname = c.take(FirstName::parse(&input.firstname));
        let lastname = c.take(LastName::parse(&input.lastname));
        let external_id = optional(&mut c, input.external_id, ExternalId::parse);
        let user_name = optional(&mut c, input.user_name, UserName::parse);
        let display_name = optional(&mut c, input.display_name, ShownName::parse);
        let language_id = optional(&mut c, input.language_id, LanguageId::parse);
        let location = optional(&mut c, input.location, Location::parse);
        let about = optional(&mut c, input.about, About::parse);
        let country_id = optional(&mut c, input.country_id, CountryId::parse);
        let company = optional(&mut c, input.company, Company::parse);
        let department = optional(&mut c, input.department, Department::parse);
        let position = optional(&mut c, input.position, Position::parse);
        let employment_start = optional(&mut c, input.employment_start, EmploymentStart::parse);
        let (Some(email), Some(firstname), Some(lastname)) = (email, firstname, lastname) else {
            return Err(c
                .finish()
                .err()
                .unwrap_or_else(|| FieldViolation::new(Email::FIELD, Rule::Required).into()));
        };
        c.finish()?;
        Ok(Self(Profile {
            email,
            firstname,
            lastname,
            external_id,
            user_name,
            display_name,
            language_id: language_id.unwrap_or_else(|| default_language.clone()),
            location,
            about,
            country_id,
            company,
            department,
            position,
            employment_start,
            gender: None,
            avatar_url: None,
        }))
    }

    /// The checked attributes.
    pub fn profile(&self) -> &Profile {
        &self.0
    }
}

/// The raw attribute changes a client sent: absent, null or a value each.
/// The e-mail address is not among them; it changes only through
/// [`User::change_email`].
#[derive(Debug, Clone, Default)]
pub struct UserPatchInput {
    /// `firstname`; cannot be cleared.
    pub firstname: Patch<String>,
    /// `lastname`; cannot be cleared.
    pub lastname: Patch<String>,
    /// `externalId`.
    pub external_id: Patch<String>,
    /// The identity provider's name for the user (SCIM's `userName`).
    pub user_name: Patch<String>,
    /// `displayName`; cleared, the user is shown by "first last".
    pub display_name: Patch<String>,
    /// `languageId`; cannot be cleared.
    pub language_id: Patch<String>,
    /// `location`.
    pub location: Patch<String>,
    /// `about`.
    pub about: Patch<String>,
    /// `countryId`.
    pub country_id: Patch<String>,
    /// `company`.
    pub company: Patch<String>,
    /// `department`.
    pub department: Patch<String>,
    /// `position`.
    pub position: Patch<String>,
    /// `employmentStart`.
    pub employment_start: Patch<String>,
}

/// Checked attribute changes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserPatch {
    firstname: Option<FirstName>,
    lastname: Option<LastName>,
    external_id: Patch<ExternalId>,
    user_name: Patch<UserName>,
    display_name: Patch<ShownName>,
    language_id: Option<LanguageId>,
    location: Patch<Location>,
    about: Patch<About>,
    country_id: Patch<CountryId>,
    company: Patch<Company>,
    department: Patch<Department>,
    position: Patch<Position>,
    employment_start: Patch<EmploymentStart>,
}

impl UserPatch {
    /// Checks every change and reports every bad one at once. Null is
    /// refused for the attributes a user must have.
    pub fn parse(input: UserPatchInput) -> Result<Self, ValidationErrors> {
        fn nullable<T>(
            c: &mut Collector,
            patch: Patch<String>,
            parse: fn(&str) -> Result<T, FieldViolation>,
        ) -> Patch<T> {
            c.take(patch.parse(|raw| parse(&raw))).unwrap_or_default()
        }
        let mut c = Collector::default();
        let firstname = c
            .take(required_patch(
                FirstName::FIELD,
                input.firstname,
                FirstName::parse,
            ))
            .flatten();
        let lastname = c
            .take(required_patch(
                LastName::FIELD,
                input.lastname,
                LastName::parse,
            ))
            .flatten();
        let language_id = c
            .take(required_patch(
                LanguageId::FIELD,
                input.language_id,
                LanguageId::parse,
            ))
            .flatten();
        let patch = Self {
            firstname,
            lastname,
            external_id: nullable(&mut c, input.external_id, ExternalId::parse),
            user_name: nullable(&mut c, input.user_name, UserName::parse),
            display_name: nullable(&mut c, input.display_name, ShownName::parse),
            language_id,
            location: nullable(&mut c, input.location, Location::parse),
            about: nullable(&mut c, input.about, About::parse),
            country_id: nullable(&mut c, input.country_id, CountryId::parse),
            company: nullable(&mut c, input.company, Company::parse),
            department: nullable(&mut c, input.department, Department::parse),
            position: nullable(&mut c, input.position, Position::parse),
            employment_start: nullable(&mut c, input.employment_start, EmploymentStart::parse),
        };
        c.finish()?;
        Ok(patch)
    }

    /// The new externalId, if the patch sets one (for uniqueness checks).
    pub fn external_id(&self) -> Option<&ExternalId> {
        match &self.external_id {
            Patch::Set(id) => Some(id),
            _ => None,
        }
    }

    fn apply_to(self, profile: &mut Profile) {
        if let Some(v) = self.firstname {
            profile.firstname = v;
        }
        if let Some(v) = self.lastname {
            profile.lastname = v;
        }
        if let Some(v) = self.language_id {
            profile.language_id = v;
        }
        self.external_id.apply_to(&mut profile.external_id);
        self.user_name.apply_to(&mut profile.user_name);
        self.display_name.apply_to(&mut profile.display_name);
        self.location.apply_to(&mut profile.location);
        self.about.apply_to(&mut profile.about);
        self.country_id.apply_to(&mut profile.country_id);
        self.company.apply_to(&mut profile.company);
        self.department.apply_to(&mut profile.department);
        self.position.apply_to(&mut profile.position);
        self.employment_start
            .apply_to(&mut profile.employment_start);
    }
}

#[cfg(test)]
mod tests;
