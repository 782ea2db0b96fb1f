//! Lists and searches (RFC 7644 §3.4.2, §3.4.3): their parameters, from
//! a query string or a SearchRequest body, the attributes an answer
//! shows, and the ListResponse.

use kenning_domain::{GroupFilter, UserFilter};
use serde_json::{json, Map, Value};

use crate::error::ScimError;
use crate::filter::{self, field, plain_path};
use crate::group;
use crate::schemas::{ENTERPRISE_SCHEMA, LIST_SCHEMA};

/// The most resources one list answer holds (`filter.maxResults`), and
/// how many it holds when `count` is not given.
pub const MAX_RESULTS: u32 = 200;

/// Which resources a list or search is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Users alone.
    Users,
    /// Groups alone.
    Groups,
    /// Users, then groups (a search at the root, RFC 7644 §3.4.3).
    All,
}

/// The value of the parameter `name` (any case) among `params`.
pub fn parameter<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Which attributes an answer shows (`attributes`, `excludedAttributes`).
#[derive(Debug, Default)]
pub struct Shown {
    only: Option<Vec<String>>,
    excluded: Vec<String>,
}

fn attribute_list(raw: Option<&str>) -> Option<Vec<String>> {
    raw.map(|list| {
        list.split(',')
            .map(|a| plain_path(a.trim()))
            .filter(|a| !a.is_empty())
            .collect()
    })
}

impl Shown {
    /// What the `attributes` and `excludedAttributes` of `params` ask
    /// for.
    pub fn of(params: &[(String, String)]) -> Self {
        Self {
            only: attribute_list(parameter(params, "attributes")),
            excluded: attribute_list(parameter(params, "excludedAttributes")).unwrap_or_default(),
        }
    }

    /// `resource` with only the attributes asked for; `id` and `schemas`
    /// always stay.
    pub fn apply(&self, resource: Value) -> Value {
        let Value::Object(fields) = resource else {
            return resource;
        };
        let enterprise = ENTERPRISE_SCHEMA.to_ascii_lowercase();
        let mut out = Map::new();
        for (key, value) in fields {
            let lower = key.to_ascii_lowercase();
            if lower == "id" || lower == "schemas" {
                out.insert(key, value);
                continue;
            }
            let named = |list: &[String]| -> Vec<Option<String>> {
                list.iter()
                    .filter_map(|a| {
                        if *a == lower {
                            Some(None)
                        } else {
                            a.strip_prefix(&format!("{lower}."))
                                .or_else(|| {
                                    (lower == enterprise)
                                        .then(|| a.strip_prefix(&format!("{enterprise}:")))
                                        .flatten()
                                })
                                .map(|sub| Some(sub.to_owned()))
                        }
                    })
                    .collect()
            };
            let keep = |value: Value, subs: &[Option<String>], wanted: bool| -> Option<Value> {
                if subs.iter().any(Option::is_none) {
                    return wanted.then_some(value);
                }
                let Value::Object(inner) = value else {
                    return (!wanted).then_some(value);
                };
                let listed: Map<String, Value> = inner
                    .into_iter()
                    .filter(|(k, _)| {
                        let hit = subs.iter().flatten().any(|s| s.eq_ignore_ascii_case(k));
                        hit == wanted
                    })
                    .collect();
                (!listed.is_empty()).then_some(Value::Object(listed))
            };
            let value = match &self.only {
                Some(only) => {
                    let subs = named(only);
                    if subs.is_empty() {
                        continue;
                    }
                    keep(value, &subs, true)
                }
                None => Some(value),
            };
            let excluded = named(&self.excluded);
            let value = match value {
                Some(v) if !excluded.is_empty() => keep(v, &excluded, false),
                other => other,
            };
            if let Some(value) = value {
                out.insert(key, value);
            }
        }
        Value::Object(out)
    }
}

/// The parameters of a SearchRequest body (`POST .search`), as a query
/// string would give them.
pub fn search_parameters(request: &Value) -> Result<Vec<(String, String)>, ScimError> {
    if !request.is_object() {
        return Err(ScimError::invalid_syntax(
            "a SearchRequest is a JSON object",
        ));
    }
    let mut params = Vec::new();
    for name in [
        "filter",
        "startIndex",
        "count",
        "attributes",
        "excludedAttributes",
    ] {
        let value = match field(request, name) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::Array(items)) => {
                let names: Option<Vec<&str>> = items.iter().map(Value::as_str).collect();
                names
                    .ok_or_else(|| {
                        ScimError::invalid_value(format!("{name} must list attribute names"))
                    })?
                    .join(",")
            }
            Some(_) => {
                return Err(ScimError::invalid_value(format!(
                    "{name} has the wrong type"
                )))
            }
        };
        params.push((name.to_owned(), value));
    }
    Ok(params)
}

/// What a list asks for: a page of users and groups by their filters.
#[derive(Debug)]
pub struct ListRequest {
    /// The 1-based position of the page's first resource.
    pub start: i64,
    /// How many resources come before the page.
    pub skip: u64,
    /// The most resources the page holds.
    pub take: u32,
    /// The users asked for: `None` when no user is (the filter is about
    /// groups alone, or the list is of groups); `Some(None)` for all.
    pub users: Option<Option<UserFilter>>,
    /// The groups asked for: `None` when no group is.
    pub groups: Option<GroupFilter>,
    /// The attributes each resource shows.
    pub shown: Shown,
}

impl ListRequest {
    /// The list `params` ask of `kind`, paging no deeper than `deepest`
    /// resources (`tooMany` beyond). At the root a filter that applies
    /// to one kind of resource finds none of the other; one that applies
    /// to neither is refused.
    pub fn parse(params: &[(String, String)], kind: Kind, deepest: u64) -> Result<Self, ScimError> {
        let number = |name: &str, default: i64| -> Result<i64, ScimError> {
            parameter(params, name).map_or(Ok(default), |raw| {
                raw.trim().parse::<i64>().map_err(|_| {
                    ScimError::invalid_value(format!("{name} must be a whole number, not {raw:?}"))
                })
            })
        };
        let start = number("startIndex", 1)?.max(1);
        let count = number("count", i64::from(MAX_RESULTS))?.clamp(0, i64::from(MAX_RESULTS));
        let skip = u64::try_from(start - 1).unwrap_or_default();
        // Paging by position reads every result before the page; as deep
        // as the caller allows, and no deeper.
        if skip > deepest {
            return Err(ScimError::new(
                400,
                Some("tooMany"),
                format!(
                    "startIndex may be at most {}: narrow the filter to reach what lies deeper",
                    deepest + 1
                ),
            ));
        }
        let take = u32::try_from(count).unwrap_or(MAX_RESULTS);
        let expr = parameter(params, "filter")
            .map(filter::parse)
            .transpose()
            .map_err(ScimError::invalid_filter)?;
        let user_filter = expr.as_ref().map(filter::user_filter).transpose();
        let group_filter = expr.as_ref().map(group::filter).transpose();
        let (users, groups) = match (kind, user_filter, group_filter) {
            (Kind::Users, Err(e), _) | (Kind::Groups, _, Err(e)) | (Kind::All, Err(e), Err(_)) => {
                return Err(ScimError::invalid_filter(e))
            }
            (_, users, groups) => (users.ok(), groups.ok()),
        };
        let wants_users = matches!(kind, Kind::Users | Kind::All);
        let wants_groups = matches!(kind, Kind::Groups | Kind::All);
        Ok(Self {
            start,
            skip,
            take,
            users: users.filter(|_| wants_users),
            groups: groups
                .filter(|_| wants_groups)
                .map(Option::unwrap_or_default),
            shown: Shown::of(params),
        })
    }

    /// The ListResponse of `resources`, the page of `total` that match.
    pub fn answer(&self, total: u64, resources: Vec<Value>) -> Value {
        json!({
            "schemas": [LIST_SCHEMA],
            "totalResults": total,
            "startIndex": self.start,
            "itemsPerPage": resources.len(),
            "Resources": resources,
        })
    }
}
