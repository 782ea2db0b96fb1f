//! What the SCIM endpoint supports, as identity providers ask it (RFC 7644
//! §4, RFC 7643 §5-7): `ServiceProviderConfig`, `ResourceTypes` and
//! `Schemas`, each telling only what is built.

use serde_json::{json, Value};

use crate::list::MAX_RESULTS;
use crate::schemas::{ENTERPRISE_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA};

const CONFIG_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const RESOURCE_TYPE_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const SCHEMA_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:Schema";

/// `GET /ServiceProviderConfig`.
pub fn service_provider_config(base: &str) -> Value {
    json!({
        "schemas": [CONFIG_SCHEMA],
        "patch": { "supported": true },
        "bulk": { "supported": false, "maxOperations": 0, "maxPayloadSize": 0 },
        "filter": { "supported": true, "maxResults": MAX_RESULTS },
        "changePassword": { "supported": false },
        "sort": { "supported": false },
        "etag": { "supported": true },
        "authenticationSchemes": [{
            "type": "oauthbearertoken",
            "name": "Bearer token",
            "description": "An access token issued by `kenning token create`, with the users:read scope for reads and users:write for changes, sent as Authorization: Bearer <token>.",
            "primary": true
        }],
        "meta": {
            "resourceType": "ServiceProviderConfig",
            "location": format!("{base}/ServiceProviderConfig")
        }
    })
}

/// The User resource type.
pub fn user_resource_type(base: &str) -> Value {
    json!({
        "schemas": [RESOURCE_TYPE_SCHEMA],
        "id": "User",
        "name": "User",
        "endpoint": "/Users",
        "description": "A person of the organisation",
        "schema": USER_SCHEMA,
        "schemaExtensions": [{ "schema": ENTERPRISE_SCHEMA, "required": false }],
        "meta": { "resourceType": "ResourceType", "location": format!("{base}/ResourceTypes/User") }
    })
}

/// The Group resource type.
pub fn group_resource_type(base: &str) -> Value {
    json!({
        "schemas": [RESOURCE_TYPE_SCHEMA],
        "id": "Group",
        "name": "Group",
        "endpoint": "/Groups",
        "description": "A group of users",
        "schema": GROUP_SCHEMA,
        "meta": { "resourceType": "ResourceType", "location": format!("{base}/ResourceTypes/Group") }
    })
}

/// The Group schema: a name, an external id, users as members.
pub fn group_schema(base: &str) -> Value {
    let mut display_name = attribute(
        "displayName",
        "string",
        true,
        "readWrite",
        "The group's name, at most 255 characters.",
    );
    display_name["uniqueness"] = json!("none");
    let mut value = attribute(
        "value",
        "string",
        true,
        "immutable",
        "The member's user id.",
    );
    value["caseExact"] = json!(true);
    let mut reference = attribute(
        "$ref",
        "reference",
        false,
        "immutable",
        "The member's User resource.",
    );
    reference["referenceTypes"] = json!(["User"]);
    let mut kind = attribute(
        "type",
        "string",
        false,
        "immutable",
        "Always User: groups hold users.",
    );
    kind["canonicalValues"] = json!(["User"]);
    let members = multi(
        "members",
        "The users in the group, at most 100,000.",
        vec![value, reference, kind],
    );
    json!({
        "schemas": [SCHEMA_SCHEMA],
        "id": GROUP_SCHEMA,
        "name": "Group",
        "description": "A group of users",
        "attributes": [display_name, members],
        "meta": { "resourceType": "Schema", "location": format!("{base}/Schemas/{GROUP_SCHEMA}") }
    })
}

/// One attribute's definition.
fn attribute(name: &str, kind: &str, required: bool, mutability: &str, description: &str) -> Value {
    json!({
        "name": name,
        "type": kind,
        "multiValued": false,
        "description": description,
        "required": required,
        "caseExact": false,
        "mutability": mutability,
        "returned": "default",
        "uniqueness": "none"
    })
}

fn string(name: &str, description: &str) -> Value {
    attribute(name, "string", false, "readWrite", description)
}

fn multi(name: &str, description: &str, sub: Vec<Value>) -> Value {
    let mut a = attribute(name, "complex", false, "readWrite", description);
    a["multiValued"] = json!(true);
    a["subAttributes"] = json!(sub);
    a
}

/// Languages offered as canonical values: any ISO 639-1 code is taken.
const LANGUAGES: [&str; 16] = [
    "en", "de", "fr", "es", "it", "nl", "pt", "sv", "da", "fi", "nb", "pl", "cs", "ja", "zh", "ko",
];

/// Countries offered as canonical values: any ISO 3166-1 alpha-2 code is
/// taken.
const COUNTRIES: [&str; 16] = [
    "US", "GB", "DE", "FR", "CH", "AT", "NL", "SE", "ES", "IT", "CA", "AU", "JP", "IN", "BR", "IE",
];

/// `attribute` marked required: Kenning always holds a value for it.
fn required(mut attribute: Value) -> Value {
    attribute["required"] = json!(true);
    attribute
}

/// `attribute` with suggested values (RFC 7643 §7 `canonicalValues`).
fn suggested(mut attribute: Value, values: &[&str]) -> Value {
    attribute["canonicalValues"] = json!(values);
    attribute
}

/// The User schema, as far as Kenning keeps it.
pub fn user_schema(base: &str) -> Value {
    let mut user_name = attribute(
        "userName",
        "string",
        true,
        "readWrite",
        "The identity provider's name for the user, as given. Unique, without regard to case. Shown as the e-mail address for a user that has none.",
    );
    user_name["uniqueness"] = json!("server");
    let mut external_id = string(
        "externalId",
        "The identity provider's id for the user. Unique.",
    );
    external_id["caseExact"] = json!(true);
    external_id["uniqueness"] = json!("server");
    let mut name = attribute("name", "complex", true, "readWrite", "The user's name.");
    name["subAttributes"] = json!([
        attribute(
            "givenName",
            "string",
            true,
            "readWrite",
            "The first name, at most 50 characters."
        ),
        attribute(
            "familyName",
            "string",
            true,
            "readWrite",
            "The last name, at most 50 characters."
        ),
    ]);
    let type_sub = |values: &[&str]| {
        let mut t = string("type", "The kind of the value.");
        t["canonicalValues"] = json!(values);
        t
    };
    json!({
        "schemas": [SCHEMA_SCHEMA],
        "id": USER_SCHEMA,
        "name": "User",
        "description": "A user of Kenning",
        "attributes": [
            user_name,
            external_id,
            name,
            attribute("displayName", "string", false, "readWrite", "The name the user is shown by, at most 255 characters; \"givenName familyName\" when none is set."),
            required(multi("emails", "One e-mail address, unique: the one marked primary, else the work one, else the first (primary is read, not kept); a userName that is an address stands in for it when none is sent.", vec![
                required(string("value", "The address, at most 191 characters.")), type_sub(&["work"]),
            ])),
            required(suggested(
                string("preferredLanguage", "An ISO 639-1 language; a tag such as en-US is kept as its language, en. Without it, locale is read the same way; without either, a new user gets the server's default language, and a user always has one."),
                &LANGUAGES,
            )),
            string("title", "The position, at most 255 characters."),
            multi("addresses", "The country of one address (the one marked primary, else the work one, else the first) alone.", vec![
                suggested(string("country", "An ISO 3166-1 alpha-2 country code."), &COUNTRIES),
                type_sub(&["work"]),
            ]),
            attribute("active", "boolean", true, "readWrite", "ACTIVE (true) or DEACTIVATED (false); a user is always one of them, ACTIVE when created without it."),
        ],
        "meta": { "resourceType": "Schema", "location": format!("{base}/Schemas/{USER_SCHEMA}") }
    })
}

/// The enterprise extension, as far as Kenning keeps it.
pub fn enterprise_schema(base: &str) -> Value {
    json!({
        "schemas": [SCHEMA_SCHEMA],
        "id": ENTERPRISE_SCHEMA,
        "name": "EnterpriseUser",
        "description": "Enterprise user",
        "attributes": [
            string("organization", "The company, at most 255 characters."),
            string("department", "The department, at most 255 characters."),
        ],
        "meta": { "resourceType": "Schema", "location": format!("{base}/Schemas/{ENTERPRISE_SCHEMA}") }
    })
}

/// A list of resources in a ListResponse.
pub fn list(resources: Vec<Value>) -> Value {
    json!({
        "schemas": [LIST_SCHEMA],
        "totalResults": resources.len(),
        "startIndex": 1,
        "itemsPerPage": resources.len(),
        "Resources": resources
    })
}

/// `GET /ResourceTypes`: users and groups.
pub fn resource_types(base: &str) -> Value {
    list(vec![user_resource_type(base), group_resource_type(base)])
}

/// `GET /ResourceTypes/{name}`; `None` for a type there is not.
pub fn resource_type(name: &str, base: &str) -> Option<Value> {
    match name {
        "User" => Some(user_resource_type(base)),
        "Group" => Some(group_resource_type(base)),
        _ => None,
    }
}

fn all_schemas(base: &str) -> Vec<Value> {
    vec![
        user_schema(base),
        enterprise_schema(base),
        group_schema(base),
    ]
}

/// `GET /Schemas`.
pub fn schemas(base: &str) -> Value {
    list(all_schemas(base))
}

/// `GET /Schemas/{id}`; `None` for a schema there is not.
pub fn schema(id: &str, base: &str) -> Option<Value> {
    all_schemas(base).into_iter().find(|s| s["id"] == id)
}
