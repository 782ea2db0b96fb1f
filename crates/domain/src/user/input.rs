//! A client's raw attributes of a user, and their parsing into checked
//! ones: a new user's, and the changes to one, every problem reported at
//! once.

use super::profile::Profile;
use crate::profile::{
    About, Company, CountryId, Department, Email, EmploymentStart, ExternalId, FirstName,
    LanguageId, LastName, Location, Position, ShownName, UserName,
};
use crate::validation::{Collector, FieldViolation, Rule, ValidationErrors};

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
pub struct NewUser(pub(super) Profile);

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
/// [`User::change_email`](super::User::change_email).
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

    pub(super) fn apply_to(self, profile: &mut Profile) {
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
