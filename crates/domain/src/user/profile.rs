//! The personal data of a user, each field a checked value.

use crate::profile::{
    About, Company, CountryId, Department, Email, EmploymentStart, ExternalId, FirstName,
    LanguageId, LastName, Location, Position, ShownName, UserName,
};

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
