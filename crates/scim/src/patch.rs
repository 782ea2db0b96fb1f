//! SCIM PATCH (RFC 7644 §3.5.2) on a user's resource: each operation is
//! applied to the resource as Kenning shows it, and the caller reads the
//! result back as a replacement, so a PATCH follows exactly the rules of a
//! PUT and is applied in one atomic step.
//!
//! Read as identity providers send it: `op` in any case (Entra ID's
//! `"Replace"`), attribute names in any case, paths with the core schema's
//! URN or the enterprise extension's, value filters (`emails[type eq
//! "work"].value`, which create the element when none matches), and
//! path-less `add`/`replace` whose value names attributes, dotted
//! (`"name.givenName"`) or not.

use serde_json::{Map, Value};

use crate::error::ScimError;
use crate::filter::{self, element_matches, Expr};
use crate::schemas::{ENTERPRISE_SCHEMA, PATCH_SCHEMA, USER_SCHEMA};

/// The most operations one PATCH may carry.
pub const MAX_OPERATIONS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Replace,
    Remove,
}

/// Where a path points.
#[derive(Debug)]
struct Path {
    /// The enterprise extension's object, or the resource itself.
    enterprise: bool,
    attribute: String,
    filter: Option<Expr>,
    sub: Option<String>,
}

fn parse_path(raw: &str) -> Result<Path, ScimError> {
    let mut rest = raw.trim().to_owned();
    let lower = rest.to_ascii_lowercase();
    let core = format!("{}:", USER_SCHEMA.to_ascii_lowercase());
    let enterprise_prefix = format!("{}:", ENTERPRISE_SCHEMA.to_ascii_lowercase());
    let mut enterprise = false;
    if lower.starts_with(&enterprise_prefix) {
        enterprise = true;
        rest = rest[enterprise_prefix.len()..].to_owned();
    } else if lower.starts_with(&core) {
        rest = rest[core.len()..].to_owned();
    }
    let (attribute, filter, sub) = match rest.find('[') {
        Some(open) => {
            let close = rest
                .rfind(']')
                .filter(|c| *c > open)
                .ok_or_else(|| ScimError::invalid_path(format!("{raw:?}: a [ is not closed")))?;
            let expr = filter::parse(&rest[open + 1..close])
                .map_err(|e| ScimError::invalid_path(format!("{raw:?}: {e}")))?;
            let after = &rest[close + 1..];
            let sub = match after.strip_prefix('.') {
                Some(sub) => Some(sub.to_owned()),
                None if after.is_empty() => None,
                None => {
                    return Err(ScimError::invalid_path(format!(
                        "{raw:?}: only .subAttribute may follow the ]"
                    )))
                }
            };
            (rest[..open].to_owned(), Some(expr), sub)
        }
        None => match rest.split_once('.') {
            Some((a, s)) => (a.to_owned(), None, Some(s.to_owned())),
            None => (rest.clone(), None, None),
        },
    };
    let valid = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '-')
    };
    if !valid(&attribute) || sub.as_deref().is_some_and(|s| !valid(s)) {
        return Err(ScimError::invalid_path(format!(
            "{raw:?} is not an attribute path"
        )));
    }
    if !enterprise
        && ["id", "meta", "schemas"]
            .iter()
            .any(|ro| attribute.eq_ignore_ascii_case(ro))
    {
        return Err(ScimError::mutability(format!("{attribute} is read-only")));
    }
    Ok(Path {
        enterprise,
        attribute,
        filter,
        sub,
    })
}

/// The key of `object` that is `name` in any case, if there is one.
fn key_of(object: &Map<String, Value>, name: &str) -> Option<String> {
    object
        .keys()
        .find(|k| k.eq_ignore_ascii_case(name))
        .cloned()
}

/// `object[name]` (in any case), created as `empty` when missing or null.
fn entry<'a>(object: &'a mut Map<String, Value>, name: &str, empty: Value) -> &'a mut Value {
    let key = key_of(object, name).unwrap_or_else(|| name.to_owned());
    let slot = object.entry(key).or_insert(Value::Null);
    if slot.is_null() {
        *slot = empty;
    }
    slot
}

fn remove_key(object: &mut Map<String, Value>, name: &str) {
    if let Some(key) = key_of(object, name) {
        object.remove(&key);
    }
}

/// Sets `name` in `object`: `add` merges into an object and appends to an
/// array; `replace` sets.
fn set(object: &mut Map<String, Value>, name: &str, value: Value, op: Op) {
    let slot = entry(object, name, Value::Null);
    match (op, &mut *slot, value) {
        (Op::Add, Value::Object(held), Value::Object(new)) => {
            for (k, v) in new {
                set(held, &k, v, Op::Replace);
            }
        }
        (Op::Add, Value::Array(held), Value::Array(new)) => held.extend(new),
        (_, slot, value) => *slot = value,
    }
}

/// The `attr eq value` parts of a value filter, to build the element it
/// asks for when none exists (`emails[type eq "work"]`).
fn equalities(expr: &Expr, into: &mut Map<String, Value>) {
    match expr {
        Expr::Compare(path, op, value) if op == "eq" => {
            into.insert(path.clone(), value.clone());
        }
        Expr::And(a, b) => {
            equalities(a, into);
            equalities(b, into);
        }
        _ => {}
    }
}

/// Applies one operation `op` at `path` of `resource` with `value`.
fn apply_at(
    resource: &mut Map<String, Value>,
    path: &Path,
    op: Op,
    value: Option<Value>,
) -> Result<(), ScimError> {
    let target = if path.enterprise {
        match entry(resource, ENTERPRISE_SCHEMA, Value::Object(Map::new())) {
            Value::Object(map) => map,
            _ => {
                return Err(ScimError::invalid_path(
                    "the enterprise extension is not an object",
                ))
            }
        }
    } else {
        resource
    };
    // Entra ID removes members as `remove` of `members` with the members
    // to remove as the value: those elements go, matched by their value.
    if let (Op::Remove, None, None, Some(Value::Array(gone))) =
        (op, &path.filter, &path.sub, &value)
    {
        remove_by_value(target, &path.attribute, gone);
        return Ok(());
    }
    let value = match (op, value) {
        (Op::Remove, _) => None,
        (_, Some(v)) => Some(v),
        (_, None) => {
            return Err(ScimError::invalid_value(format!(
                "{} needs a value",
                path.attribute
            )))
        }
    };
    match (&path.filter, &path.sub, value) {
        (None, None, Some(value)) => set(target, &path.attribute, value, op),
        (None, None, None) => remove_key(target, &path.attribute),
        (None, Some(sub), value) => apply_to_sub(target, &path.attribute, sub, op, value)?,
        (Some(expr), sub, value) => {
            let Value::Array(items) = entry(target, &path.attribute, Value::Array(Vec::new()))
            else {
                return Err(ScimError::invalid_path(format!(
                    "{} is not multi-valued",
                    path.attribute
                )));
            };
            let matching: Vec<usize> = (0..items.len())
                .filter(|&i| element_matches(expr, &items[i]))
                .collect();
            match value {
                None => remove_matching(items, &matching, sub.as_deref(), &path.attribute)?,
                Some(value) => update_matching(
                    items,
                    &matching,
                    expr,
                    sub.as_deref(),
                    value,
                    &path.attribute,
                )?,
            }
        }
    }
    Ok(())
}

/// Takes out of the array `attribute` of `target` the elements whose
/// `value` one of `gone` holds.
fn remove_by_value(target: &mut Map<String, Value>, attribute: &str, gone: &[Value]) {
    if let Some(Value::Array(items)) = key_of(target, attribute).and_then(|k| target.get_mut(&k)) {
        let values: Vec<Option<&Value>> = gone.iter().map(|g| filter::field(g, "value")).collect();
        items.retain(|item| !values.contains(&filter::field(item, "value")));
    }
}

/// Sets (or, without `value`, removes) the sub-attribute `sub` of
/// `attribute`: of the complex attribute, or of every element of the
/// multi-valued one.
fn apply_to_sub(
    target: &mut Map<String, Value>,
    attribute: &str,
    sub: &str,
    op: Op,
    value: Option<Value>,
) -> Result<(), ScimError> {
    match entry(target, attribute, Value::Object(Map::new())) {
        Value::Object(complex) => match value {
            Some(v) => set(complex, sub, v, op),
            None => remove_key(complex, sub),
        },
        Value::Array(items) => {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                match &value {
                    Some(v) => set(item, sub, v.clone(), op),
                    None => remove_key(item, sub),
                }
            }
        }
        _ => {
            return Err(ScimError::invalid_path(format!(
                "{attribute} has no sub-attributes"
            )))
        }
    }
    Ok(())
}

/// Removes the `matching` elements of `items` (the multi-valued
/// `attribute`), or their sub-attribute `sub`; no element matching is
/// `noTarget`.
fn remove_matching(
    items: &mut Vec<Value>,
    matching: &[usize],
    sub: Option<&str>,
    attribute: &str,
) -> Result<(), ScimError> {
    if matching.is_empty() {
        return Err(ScimError::no_target(format!(
            "no element of {attribute} matches the filter"
        )));
    }
    match sub {
        Some(sub) => {
            for &i in matching {
                if let Some(item) = items[i].as_object_mut() {
                    remove_key(item, sub);
                }
            }
        }
        None => {
            let mut i = 0;
            items.retain(|_| {
                let keep = !matching.contains(&i);
                i += 1;
                keep
            });
        }
    }
    Ok(())
}

/// Sets `value` on the `matching` elements of `items` (the multi-valued
/// `attribute`): as their sub-attribute `sub`, or field by field of an
/// object; with no element matching, one is made from the filter's
/// equalities (`emails[type eq "work"]`) and set.
fn update_matching(
    items: &mut Vec<Value>,
    matching: &[usize],
    expr: &Expr,
    sub: Option<&str>,
    value: Value,
    attribute: &str,
) -> Result<(), ScimError> {
    if sub.is_none() && !value.is_object() {
        return Err(ScimError::invalid_value(format!(
            "the value for {attribute} must be an object"
        )));
    }
    let update = |item: &mut Map<String, Value>| match (sub, &value) {
        (Some(sub), v) => set(item, sub, v.clone(), Op::Replace),
        (None, Value::Object(fields)) => {
            for (k, v) in fields {
                set(item, k, v.clone(), Op::Replace);
            }
        }
        (None, _) => {}
    };
    if matching.is_empty() {
        let mut created = Map::new();
        equalities(expr, &mut created);
        update(&mut created);
        items.push(Value::Object(created));
    } else {
        for &i in matching {
            if let Some(item) = items[i].as_object_mut() {
                update(item);
            }
        }
    }
    Ok(())
}

/// Applies the operations of a PATCH request `body` to `resource`.
pub fn apply(resource: &mut Value, body: &Value) -> Result<(), ScimError> {
    let operations = operations(body)?;
    let Value::Object(target) = resource else {
        return Err(ScimError::invalid_syntax("the resource is not an object"));
    };
    for operation in operations {
        apply_operation(target, operation)?;
    }
    Ok(())
}

/// The operations of a PATCH request `body`: 1 to [`MAX_OPERATIONS`] of
/// them, under the PATCH schema when it lists schemas.
fn operations(body: &Value) -> Result<&Vec<Value>, ScimError> {
    let Some(request) = body.as_object() else {
        return Err(ScimError::invalid_syntax(
            "a PATCH request is a JSON object",
        ));
    };
    if let Some(schemas) = filter::field(body, "schemas") {
        let listed = schemas
            .as_array()
            .is_some_and(|s| s.iter().any(|x| x.as_str() == Some(PATCH_SCHEMA)));
        if !listed {
            return Err(ScimError::invalid_syntax(format!(
                "schemas must list {PATCH_SCHEMA}"
            )));
        }
    }
    let operations = key_of(request, "Operations")
        .and_then(|k| request.get(&k))
        .and_then(Value::as_array)
        .ok_or_else(|| ScimError::invalid_syntax("Operations must be an array of operations"))?;
    if operations.is_empty() || operations.len() > MAX_OPERATIONS {
        return Err(ScimError::invalid_value(format!(
            "a PATCH carries 1 to {MAX_OPERATIONS} operations"
        )));
    }
    Ok(operations)
}

/// Applies one `operation` of a PATCH request to `target`.
fn apply_operation(target: &mut Map<String, Value>, operation: &Value) -> Result<(), ScimError> {
    let op = match filter::field(operation, "op").and_then(Value::as_str) {
        Some(op) if op.eq_ignore_ascii_case("add") => Op::Add,
        Some(op) if op.eq_ignore_ascii_case("replace") => Op::Replace,
        Some(op) if op.eq_ignore_ascii_case("remove") => Op::Remove,
        _ => {
            return Err(ScimError::invalid_syntax(
                "each operation's op is add, replace or remove",
            ))
        }
    };
    let value = filter::field(operation, "value").cloned();
    match filter::field(operation, "path") {
        Some(Value::String(path)) if path.trim().eq_ignore_ascii_case(ENTERPRISE_SCHEMA) => {
            match (op, value) {
                (Op::Remove, _) => remove_key(target, ENTERPRISE_SCHEMA),
                (_, Some(Value::Object(extension))) => {
                    if op == Op::Replace {
                        remove_key(target, ENTERPRISE_SCHEMA);
                    }
                    apply_attributes(target, extension, op, Some(ENTERPRISE_SCHEMA))?;
                }
                _ => {
                    return Err(ScimError::invalid_value(
                        "the enterprise extension's value must be an object",
                    ))
                }
            }
        }
        Some(Value::String(path)) => apply_at(target, &parse_path(path)?, op, value)?,
        Some(_) => return Err(ScimError::invalid_path("path must be a string")),
        None if op == Op::Remove => {
            return Err(ScimError::no_target("remove needs a path"));
        }
        None => {
            let Some(Value::Object(fields)) = value else {
                return Err(ScimError::invalid_value(
                    "an add or replace without a path needs an object of attributes as its value",
                ));
            };
            apply_attributes(target, fields, op, None)?;
        }
    }
    Ok(())
}

/// Applies `op` (`add` or `replace`) with each of `attributes`: those of a
/// path-less operation's value (`extension` none), the enterprise
/// extension's object among them, or those of the `extension` schema's
/// object.
fn apply_attributes(
    target: &mut Map<String, Value>,
    attributes: Map<String, Value>,
    op: Op,
    extension: Option<&str>,
) -> Result<(), ScimError> {
    for (name, v) in attributes {
        let path = match extension {
            Some(schema) => parse_path(&format!("{schema}:{name}"))?,
            None if name.eq_ignore_ascii_case("schemas") => continue,
            None if name.eq_ignore_ascii_case(ENTERPRISE_SCHEMA) => {
                let Value::Object(inner) = v else {
                    return Err(ScimError::invalid_value(
                        "the enterprise extension must be an object",
                    ));
                };
                apply_attributes(target, inner, op, Some(ENTERPRISE_SCHEMA))?;
                continue;
            }
            None => parse_path(&name)?,
        };
        apply_at(target, &path, op, Some(v))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn patch(ops: Value) -> Value {
        json!({ "schemas": [PATCH_SCHEMA], "Operations": ops })
    }

    fn user() -> Value {
        json!({
            "userName": "a@x.org",
            "name": { "givenName": "Ada", "familyName": "L" },
            "emails": [{ "value": "a@x.org", "type": "work", "primary": true }],
            "active": true
        })
    }

    #[test]
    fn entra_id_operations_apply() {
        let mut u = user();
        apply(
            &mut u,
            &patch(json!([
                { "op": "Replace", "path": "emails[type eq \"work\"].value", "value": "b@x.org" },
                { "op": "Replace", "path": "name.givenName", "value": "Bea" },
                { "op": "Add", "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", "value": "R&D" },
                { "op": "Add", "path": "addresses[type eq \"work\"].country", "value": "DE" },
                { "op": "Replace", "path": "active", "value": "False" },
                { "op": "Replace", "value": { "title": "CTO", "name.familyName": "Byron" } }
            ])),
        )
        .unwrap();
        assert_eq!(u["emails"][0]["value"], "b@x.org");
        assert_eq!(u["name"]["givenName"], "Bea");
        assert_eq!(u["name"]["familyName"], "Byron");
        assert_eq!(u[ENTERPRISE_SCHEMA]["department"], "R&D");
        assert_eq!(u["addresses"], json!([{ "type": "work", "country": "DE" }]));
        assert_eq!(u["active"], "False");
        assert_eq!(u["title"], "CTO");
    }

    #[test]
    fn okta_and_removals_apply() {
        let mut u = user();
        apply(
            &mut u,
            &patch(json!([
                { "op": "replace", "value": { "active": false, "id": "ignored?" } }
            ])),
        )
        .unwrap_err();
        apply(
            &mut u,
            &patch(json!([{ "op": "replace", "value": { "active": false } }])),
        )
        .unwrap();
        assert_eq!(u["active"], false);
        apply(
            &mut u,
            &patch(json!([{ "op": "remove", "path": "emails[type eq \"work\"]" }])),
        )
        .unwrap();
        assert_eq!(u["emails"], json!([]));
        let none = apply(
            &mut u,
            &patch(json!([{ "op": "remove", "path": "emails[type eq \"home\"]" }])),
        );
        assert_eq!(none.unwrap_err().scim_type, Some("noTarget"));
        apply(
            &mut u,
            &patch(json!([{ "op": "remove", "path": "NAME.givenname" }])),
        )
        .unwrap();
        assert_eq!(u["name"], json!({ "familyName": "L" }));
    }

    #[test]
    fn bad_operations_say_what_is_wrong() {
        let cases = [
            (json!({ "Operations": [] }), "invalidValue"),
            (
                json!({ "schemas": ["x"], "Operations": [{ "op": "add", "path": "title", "value": "x" }] }),
                "invalidSyntax",
            ),
            (
                patch(json!([{ "op": "move", "path": "title" }])),
                "invalidSyntax",
            ),
            (patch(json!([{ "op": "remove" }])), "noTarget"),
            (
                patch(json!([{ "op": "replace", "path": "meta.created", "value": "x" }])),
                "mutability",
            ),
            (
                patch(json!([{ "op": "replace", "path": "id", "value": "x" }])),
                "mutability",
            ),
            (
                patch(json!([{ "op": "replace", "path": "emails[type eq", "value": "x" }])),
                "invalidPath",
            ),
            (
                patch(json!([{ "op": "replace", "path": "a b", "value": "x" }])),
                "invalidPath",
            ),
            (
                patch(json!([{ "op": "add", "path": "title" }])),
                "invalidValue",
            ),
            (
                patch(json!([{ "op": "add", "value": "x" }])),
                "invalidValue",
            ),
        ];
        for (body, scim_type) in cases {
            let error = apply(&mut user(), &body).unwrap_err();
            assert_eq!(error.scim_type, Some(scim_type), "{body}: {}", error.detail);
        }
    }
}
