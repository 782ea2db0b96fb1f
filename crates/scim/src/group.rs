//! A group as a SCIM Group resource (RFC 7643 §4.2), both ways, and the
//! filters groups are listed by.

use chrono::SecondsFormat;
use kenning_domain::{Group, GroupFilter, GroupId, GroupInput};
use serde_json::{json, Map, Value};

use crate::error::ScimError;
use crate::filter::{field, plain_path, Expr};
use crate::patch;
use crate::resource::check_id;
use crate::schemas::GROUP_SCHEMA;
use crate::version;

/// The ETag of a group's version.
pub fn etag(group: &Group) -> String {
    version::etag(group.version())
}

/// A group id from a path; an id that is no UUID names no group.
pub fn group_id(raw: &str) -> Result<GroupId, ScimError> {
    uuid::Uuid::parse_str(raw)
        .map(GroupId::from_uuid)
        .map_err(|_| ScimError::no_group())
}

/// What the PATCH `request` makes of `current`: its operations applied
/// to the group's resource, read back as a replacement whose `id` may
/// only repeat `id_in_path`.
pub fn patched(
    current: &Group,
    base: &str,
    id_in_path: &str,
    request: &Value,
) -> Result<GroupInput, ScimError> {
    let mut resource = render(current, base);
    patch::apply(&mut resource, request)?;
    parse(&resource, Some(id_in_path))
}

/// The SCIM resource of `group`, locations under `base`.
pub fn render(group: &Group, base: &str) -> Value {
    let a = group.attributes();
    let mut resource = Map::new();
    resource.insert("schemas".into(), json!([GROUP_SCHEMA]));
    resource.insert("id".into(), json!(group.id().to_string()));
    resource.insert("displayName".into(), json!(a.display_name.as_str()));
    if let Some(external) = &a.external_id {
        resource.insert("externalId".into(), json!(external.as_str()));
    }
    let members: Vec<Value> = a
        .members
        .iter()
        .map(|m| json!({ "value": m.to_string(), "$ref": format!("{base}/Users/{m}"), "type": "User" }))
        .collect();
    resource.insert("members".into(), Value::Array(members));
    let time = |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
    resource.insert(
        "meta".into(),
        json!({
            "resourceType": "Group",
            "created": time(group.created()),
            "lastModified": time(group.modified()),
            "location": format!("{base}/Groups/{}", group.id()),
            "version": etag(group),
        }),
    );
    Value::Object(resource)
}

/// What a Group resource (POST, PUT, or a group after a PATCH) gives:
/// `displayName`, `externalId` and the members' `value`s. Unknown
/// attributes are ignored; `id` may only repeat `id_in_path`; `meta` is
/// ignored.
pub fn parse(resource: &Value, id_in_path: Option<&str>) -> Result<GroupInput, ScimError> {
    if !resource.is_object() {
        return Err(ScimError::invalid_syntax(
            "a Group resource is a JSON object",
        ));
    }
    check_id(resource, id_in_path)?;
    let text = |name: &str| match field(resource, name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ScimError::invalid_value(format!("{name} must be a string"))),
    };
    let members = match field(resource, "members") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|m| match field(m, "value") {
                Some(Value::String(id)) => Ok(id.clone()),
                _ => Err(ScimError::invalid_value(
                    "each member must be an object with the user's id as its value",
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(ScimError::invalid_value("members must be an array")),
    };
    Ok(GroupInput {
        display_name: text("displayName")?.unwrap_or_default(),
        external_id: text("externalId")?,
        members,
    })
}

/// A list's filter for groups: equalities on `displayName` and
/// `externalId`, joined by `and`, which is what identity providers ask
/// before they create a group.
pub fn filter(expr: &Expr) -> Result<GroupFilter, String> {
    let mut wanted = GroupFilter::default();
    fn walk(expr: &Expr, into: &mut GroupFilter) -> Result<(), String> {
        match expr {
            Expr::And(a, b) => {
                walk(a, into)?;
                walk(b, into)
            }
            Expr::Compare(path, op, Value::String(value)) if op == "eq" => {
                match plain_path(path).as_str() {
                    "displayname" => into.display_name = Some(value.clone()),
                    "externalid" => into.external_id = Some(value.clone()),
                    _ => return Err(unsupported()),
                }
                Ok(())
            }
            _ => Err(unsupported()),
        }
    }
    fn unsupported() -> String {
        "groups are filtered by displayName eq \"...\" and externalId eq \"...\", joined by and"
            .to_owned()
    }
    walk(expr, &mut wanted)?;
    Ok(wanted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::parse as parse_filter;

    #[test]
    fn a_group_resource_gives_its_name_external_id_and_member_ids() {
        let g = parse(
            &json!({"displayName": "Sales", "externalId": "g1", "members": [{"value": "u1", "display": "x"}, {"value": "u2"}], "other": 1}),
            None,
        )
        .unwrap();
        assert_eq!(g.display_name, "Sales");
        assert_eq!(g.external_id.as_deref(), Some("g1"));
        assert_eq!(g.members, ["u1", "u2"]);
        assert!(parse(&json!({"members": [{"display": "x"}]}), None).is_err());
        assert!(parse(&json!({"id": "x"}), Some("y")).is_err());
    }

    #[test]
    fn groups_are_filtered_by_name_and_external_id() {
        let f = filter(&parse_filter(r#"displayName eq "Sales" and externalId eq "g1""#).unwrap())
            .unwrap();
        assert_eq!(f.display_name.as_deref(), Some("Sales"));
        assert_eq!(f.external_id.as_deref(), Some("g1"));
        assert!(filter(&parse_filter(r#"displayName co "S""#).unwrap()).is_err());
        assert!(
            filter(&parse_filter(r#"displayName eq "a" or externalId eq "b""#).unwrap()).is_err()
        );
    }
}
