//! Rows as the store keeps them: a user's row, and moments as columns
//! hold them. Each table's own rows live with the code that writes them;
//! a user's is shared by the user repository, listing and search, and
//! filters, which all read it.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use diesel::prelude::*;
use kenning_domain::{
    About, Company, CountryId, Department, Email, EmploymentStart, ExternalId, FirstName,
    LanguageId, LastName, Location, Position, Profile, SearchText, ShownName, Status, User, UserId,
    UserName, UserParts,
};
use kenning_ports::StoreError;
use uuid::Uuid;

use crate::schema::users;

/// A user as stored.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = users)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
#[diesel(treat_none_as_null = true)]
pub(crate) struct UserRow {
    id: String,
    status: String,
    deletion_scheduled_for: Option<NaiveDateTime>,
    date_deleted: Option<NaiveDateTime>,
    created: NaiveDateTime,
    version: i64,
    is_system: bool,
    is_hidden: bool,
    is_federated: bool,
    email: Option<String>,
    email_key: Option<String>,
    firstname: String,
    lastname: String,
    external_id: Option<String>,
    language_id: Option<String>,
    location: Option<String>,
    about: Option<String>,
    country_id: Option<String>,
    company: Option<String>,
    department: Option<String>,
    position: Option<String>,
    employment_start: Option<NaiveDate>,
    gender: Option<String>,
    avatar_url: Option<String>,
    search_text: Option<String>,
    modified: Option<NaiveDateTime>,
    user_name: Option<String>,
    user_name_key: Option<String>,
    display_name: Option<String>,
}

fn text<T: AsRef<str>>(value: &Option<T>) -> Option<String> {
    value.as_ref().map(|v| v.as_ref().to_owned())
}

impl UserRow {
    /// `user` as stored, at `version`.
    pub(crate) fn new(user: &User, version: i64) -> Self {
        let profile = user.profile();
        let status = user.status();
        Self {
            id: user.id().to_string(),
            status: status.name().to_owned(),
            deletion_scheduled_for: user.deletion_scheduled_for().map(to_db_time),
            date_deleted: user.date_deleted().map(to_db_time),
            created: to_db_time(user.created()),
            version,
            is_system: user.is_system(),
            is_hidden: user.is_hidden(),
            is_federated: user.is_federated(),
            email: profile.map(|p| p.email.as_str().to_owned()),
            email_key: profile.map(|p| p.email.key()),
            firstname: profile
                .map(|p| p.firstname.as_str().to_owned())
                .unwrap_or_default(),
            lastname: profile
                .map(|p| p.lastname.as_str().to_owned())
                .unwrap_or_default(),
            external_id: profile.and_then(|p| text(&p.external_id)),
            language_id: profile.map(|p| p.language_id.as_str().to_owned()),
            location: profile.and_then(|p| text(&p.location)),
            about: profile.and_then(|p| text(&p.about)),
            country_id: profile.and_then(|p| p.country_id.as_ref().map(|c| c.as_str().to_owned())),
            company: profile.and_then(|p| text(&p.company)),
            department: profile.and_then(|p| text(&p.department)),
            position: profile.and_then(|p| text(&p.position)),
            employment_start: profile.and_then(|p| p.employment_start.map(|d| d.date())),
            gender: profile.and_then(|p| p.gender.clone()),
            avatar_url: profile.and_then(|p| p.avatar_url.clone()),
            search_text: profile.map(SearchText::haystack_of),
            modified: Some(to_db_time(user.modified())),
            user_name: profile.and_then(|p| text(&p.user_name)),
            user_name_key: profile.and_then(|p| p.user_name.as_ref().map(UserName::key)),
            display_name: profile.and_then(|p| text(&p.display_name)),
        }
    }

    /// The stored version, which a write of the row checks.
    pub(crate) fn version(&self) -> i64 {
        self.version
    }

    /// The user the row stores; an error when it does not read back.
    pub(crate) fn into_user(self) -> Result<User, StoreError> {
        let corrupt = |what: &str| {
            StoreError::backend_message(format!("stored user {} has an invalid {what}", self.id))
        };
        let id = Uuid::parse_str(&self.id)
            .map(UserId::from_uuid)
            .map_err(|_| corrupt("id"))?;
        let moment =
            |m: Option<NaiveDateTime>, what: &str| m.map(from_db_time).ok_or_else(|| corrupt(what));
        let status = match self.status.as_str() {
            Status::ACTIVE => Status::Active,
            Status::DEACTIVATED => Status::Deactivated,
            Status::PENDING_DELETION => Status::PendingDeletion {
                scheduled_for: moment(self.deletion_scheduled_for, "deletion moment")?,
            },
            Status::DELETED => Status::Deleted {
                at: moment(self.date_deleted, "deletion date")?,
            },
            _ => return Err(corrupt("status")),
        };
        let profile = match (&status, self.email.as_deref()) {
            (Status::Deleted { .. }, _) => None,
            (_, Some(email)) => Some(self.profile(email).map_err(|field| corrupt(&field))?),
            (_, None) => return Err(corrupt(Email::FIELD)),
        };
        User::from_parts(UserParts {
            id,
            created: from_db_time(self.created),
            modified: from_db_time(self.modified.unwrap_or(self.created)),
            version: u64::try_from(self.version).map_err(|_| corrupt("version"))?,
            is_system: self.is_system,
            is_hidden: self.is_hidden,
            is_federated: self.is_federated,
            status,
            profile,
        })
        .map_err(StoreError::backend)
    }

    /// The profile of a user that is not deleted; every value went through
    /// its type's checks before it was stored, so a failure means the row
    /// was changed behind Kenning's back.
    fn profile(&self, email: &str) -> Result<Profile, String> {
        fn optional<T>(
            value: &Option<String>,
            parse: impl Fn(&str) -> Result<T, kenning_domain::FieldViolation>,
        ) -> Result<Option<T>, kenning_domain::FieldViolation> {
            value.as_deref().map(parse).transpose()
        }
        let field = |v: kenning_domain::FieldViolation| v.field.into_owned();
        Ok(Profile {
            email: Email::parse(email).map_err(field)?,
            firstname: FirstName::parse(&self.firstname).map_err(field)?,
            lastname: LastName::parse(&self.lastname).map_err(field)?,
            external_id: optional(&self.external_id, ExternalId::parse).map_err(field)?,
            user_name: optional(&self.user_name, UserName::parse).map_err(field)?,
            display_name: optional(&self.display_name, ShownName::parse).map_err(field)?,
            language_id: LanguageId::parse(self.language_id.as_deref().unwrap_or_default())
                .map_err(field)?,
            location: optional(&self.location, Location::parse).map_err(field)?,
            about: optional(&self.about, About::parse).map_err(field)?,
            country_id: optional(&self.country_id, CountryId::parse).map_err(field)?,
            company: optional(&self.company, Company::parse).map_err(field)?,
            department: optional(&self.department, Department::parse).map_err(field)?,
            position: optional(&self.position, Position::parse).map_err(field)?,
            employment_start: self.employment_start.map(EmploymentStart::from),
            gender: self.gender.clone(),
            avatar_url: self.avatar_url.clone(),
        })
    }
}

/// Moments are stored as UTC, to the microsecond (the finest PostgreSQL keeps).
pub(crate) fn to_db_time(moment: DateTime<Utc>) -> NaiveDateTime {
    let naive = moment.naive_utc();
    let micros = naive.and_utc().timestamp_micros();
    DateTime::from_timestamp_micros(micros)
        .map(|m| m.naive_utc())
        .unwrap_or(naive)
}

/// A stored moment, as the UTC moment it is.
pub(crate) fn from_db_time(moment: NaiveDateTime) -> DateTime<Utc> {
    moment.and_utc()
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;

    use super::{from_db_time, to_db_time};

    #[test]
    fn moments_keep_microseconds() {
        let moment = DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap();
        let stored = from_db_time(to_db_time(moment));
        assert_eq!(stored.timestamp_subsec_nanos(), 123_456_000);
    }
}
