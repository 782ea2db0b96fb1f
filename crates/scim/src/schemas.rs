//! The URNs of SCIM's schemas and messages (RFC 7643, RFC 7644) and the
//! names Kenning's fields go by in them.

/// The core User schema.
pub const USER_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:User";

/// The enterprise extension of a User.
pub const ENTERPRISE_SCHEMA: &str = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/// The core Group schema.
pub const GROUP_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:Group";

/// A list answer.
pub const LIST_SCHEMA: &str = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

/// An error answer.
pub const ERROR_SCHEMA: &str = "urn:ietf:params:scim:api:messages:2.0:Error";

/// A PATCH request.
pub const PATCH_SCHEMA: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/// The SCIM attribute a domain field is shown as, for error details.
pub fn scim_name(field: &str) -> &str {
    match field {
        "email" => "emails[primary eq true].value",
        "firstname" => "name.givenName",
        "lastname" => "name.familyName",
        "languageId" => "preferredLanguage",
        "countryId" => "addresses[type eq \"work\"].country",
        "position" => "title",
        "company" => "organization",
        "expectedVersion" | "version" => "meta.version",
        other => other,
    }
}
