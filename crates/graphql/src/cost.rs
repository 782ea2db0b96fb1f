//! The cost of an operation, computed from its document before it runs,
//! so that a small request cannot ask for an enormous answer.
//!
//! A field costs 1 plus the cost of its selections; a list field costs
//! that times the number of items it may return: its `limit` argument (a
//! literal, a variable, or the variable's default), else the list's
//! default size. A connection (`usersConnection`) is priced as the list of
//! its edges, by its `first` argument: what it holds is counted once per
//! edge, its `pageInfo` included, an upper bound. Aliases are fields like any other and a fragment costs
//! what it holds at every spread, so neither can hide a repetition. The
//! result is an upper bound: `@skip` and `@include` are not consulted.
//!
//! The document is read with juniper's own parser, which juniper exports
//! (undocumented) for integrations, so the cost is computed on exactly the
//! document juniper validated and will run; the lockfile pins the version
//! and the tests below fail if its syntax tree changes.

use std::collections::HashMap;

use juniper::parser::parse_document_source;
use juniper::{DefaultScalarValue, Definition, InputValue, Operation, ScalarValue, Selection};

use crate::schema::Root;

type Value = InputValue<DefaultScalarValue>;

/// The cost of the operation `operation_name` selects in `document`
/// (the only one when `None`) with `variables`; `None` when the document
/// does not parse or holds no such operation, which validation reports.
pub(crate) fn operation_cost(
    root: &Root,
    document: &str,
    operation_name: Option<&str>,
    variables: Option<&Value>,
) -> Option<u64> {
    let definitions = parse_document_source(document, &root.schema).ok()?;
    let mut operation = None;
    let mut fragments = HashMap::new();
    for definition in &definitions {
        match definition {
            Definition::Operation(op) => {
                let name = op.item.name.as_ref().map(|n| n.item);
                if operation_name.is_none() || name == operation_name {
                    operation = Some(&op.item);
                }
            }
            Definition::Fragment(fragment) => {
                fragments.insert(fragment.item.name.item, &fragment.item.selection_set[..]);
            }
        }
    }
    let operation = operation?;
    let mut counter = Counter {
        operation,
        variables,
        fragments,
        memo: HashMap::new(),
        visiting: Vec::new(),
    };
    Some(counter.selections(&operation.selection_set, None))
}

struct Counter<'d, 'a> {
    operation: &'d Operation<'a, DefaultScalarValue>,
    variables: Option<&'d Value>,
    fragments: HashMap<&'a str, &'d [Selection<'a, DefaultScalarValue>]>,
    /// The cost of each fragment under each parent field, computed once.
    memo: HashMap<(&'a str, Option<&'a str>), u64>,
    /// Fragments being counted, so a cycle (which validation refuses)
    /// cannot recurse forever.
    visiting: Vec<&'a str>,
}

impl<'d, 'a> Counter<'d, 'a> {
    fn selections(
        &mut self,
        selections: &'d [Selection<'a, DefaultScalarValue>],
        parent: Option<&'a str>,
    ) -> u64 {
        selections.iter().fold(0u64, |total, selection| {
            total.saturating_add(self.selection(selection, parent))
        })
    }

    fn selection(
        &mut self,
        selection: &'d Selection<'a, DefaultScalarValue>,
        parent: Option<&'a str>,
    ) -> u64 {
        match selection {
            Selection::Field(field) => {
                let field = &field.item;
                let name = field.name.item;
                let children = field
                    .selection_set
                    .as_deref()
                    .map_or(0, |s| self.selections(s, Some(name)));
                let limit = field.arguments.as_ref().and_then(|args| {
                    args.item
                        .items
                        .iter()
                        .find(|(arg, _)| COUNTS.contains(&arg.item))
                        .and_then(|(_, value)| self.integer(&value.item))
                });
                1u64.saturating_add(children)
                    .saturating_mul(items(parent, name, limit))
            }
            Selection::InlineFragment(inline) => {
                self.selections(&inline.item.selection_set, parent)
            }
            Selection::FragmentSpread(spread) => {
                let name = spread.item.name.item;
                if let Some(cost) = self.memo.get(&(name, parent)) {
                    return *cost;
                }
                let Some(selections) = self.fragments.get(name).copied() else {
                    return 0;
                };
                if self.visiting.contains(&name) {
                    return 0;
                }
                self.visiting.push(name);
                let cost = self.selections(selections, parent);
                self.visiting.pop();
                self.memo.insert((name, parent), cost);
                cost
            }
        }
    }

    /// An integer argument's value: a literal, or a variable as sent, else
    /// its declared default.
    fn integer(&self, value: &Value) -> Option<i64> {
        match value {
            InputValue::Scalar(s) => s.try_to_int().map(i64::from),
            InputValue::Variable(name) => {
                let sent = self
                    .variables
                    .and_then(|v| v.to_object_value())
                    .and_then(|v| v.get(name.as_str()).copied().cloned());
                let declared = || {
                    self.operation
                        .variables_definition
                        .as_ref()?
                        .item
                        .iter()
                        .find(|(n, _)| n.item == name)?
                        .1
                        .default_value
                        .as_ref()
                        .map(|d| d.item.clone())
                };
                match sent.or_else(declared)? {
                    InputValue::Scalar(s) => s.try_to_int().map(i64::from),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The arguments that say how many items a list field returns: `limit` of
/// a list, `first` of a connection.
const COUNTS: [&str; 2] = ["limit", "first"];

/// How many items `field` under `parent` (`None`: a root field) returns
/// when no `limit` is given, if it is a list: the defaults the schema
/// documents for each field.
fn default_items(parent: Option<&str>, field: &str) -> Option<u64> {
    match (parent, field) {
        (None, "users" | "usersConnection") => {
            Some(u64::from(kenning_domain::Limit::DEFAULT.get()))
        }
        (None, "experts") => Some(u64::from(kenning_domain::ExpertsLimit::DEFAULT.get())),
        (None, "relatedTopics") => {
            Some(u64::from(kenning_domain::RelatedTopicsLimit::DEFAULT.get()))
        }
        (None, "userTopics") => Some(u64::from(kenning_domain::UserTopicsLimit::DEFAULT.get())),
        // The topics that earned an expert's score: at most the topics
        // read from the query.
        (Some("experts"), "topics") => Some(10),
        // The topics read from a query: ten phrases and their words,
        // counted as twenty.
        (Some("queryReading"), "topics" | "unknownTopics" | "asking") => Some(20),
        // Each of a user's topics lists its ten newest actions.
        (Some("userTopics"), "actions") => Some(10),
        // A user's groups are not paged; counted as a typical few.
        (Some(_), "groups") => Some(10),
        _ => None,
    }
}

/// How many items `field` under `parent` may return: its `limit` when
/// given (at least 1) and it is a list, its default size when it is a list
/// without one, else 1.
fn items(parent: Option<&str>, field: &str, limit: Option<i64>) -> u64 {
    let Some(default) = default_items(parent, field) else {
        return 1;
    };
    limit.map_or(default, |l| u64::try_from(l).unwrap_or(0).max(1))
}

#[cfg(test)]
mod tests {
    use juniper::EmptySubscription;

    use super::*;
    use crate::schema::{Mutation, Query};

    fn cost(document: &str, variables: Option<Value>) -> Option<u64> {
        let root = Root::new(Query, Mutation, EmptySubscription::new());
        operation_cost(&root, document, None, variables.as_ref())
    }

    fn vars(name: &str, value: i32) -> Value {
        serde_json::from_value(serde_json::json!({ name: value })).unwrap()
    }

    #[test]
    fn a_field_costs_one_plus_its_children_times_its_items() {
        assert_eq!(cost("{ users { email firstname } }", None), Some(300));
        assert_eq!(cost("{ users(limit: 5) { email } }", None), Some(10));
        assert_eq!(
            cost(
                "{ user(globalUserId: \"00000000-0000-4000-8000-000000000000\") { email } }",
                None
            ),
            Some(2)
        );
        assert_eq!(
            cost("{ experts(query: \"x\") { score topics { topic } } }", None),
            Some(10 * (1 + 1 + 10 * 2))
        );
    }

    #[test]
    fn a_connection_costs_what_it_holds_times_first() {
        let page = "edges { cursor node { email } } pageInfo { endCursor }";
        let per_edge = 1 + (1 + 1 + (1 + 1)) + (1 + 1);
        assert_eq!(
            cost(&format!("{{ usersConnection {{ {page} }} }}"), None),
            Some(100 * per_edge)
        );
        assert_eq!(
            cost(
                &format!("{{ usersConnection(first: 5) {{ {page} }} }}"),
                None
            ),
            Some(5 * per_edge)
        );
        let document = format!("query q($n: Int) {{ usersConnection(first: $n) {{ {page} }} }}");
        assert_eq!(
            cost(&document, Some(vars("n", 1000))),
            Some(1000 * per_edge)
        );
    }

    #[test]
    fn variables_and_their_defaults_set_the_limit() {
        let document = "query q($l: Limit = 7) { users(limit: $l) { email } }";
        assert_eq!(cost(document, None), Some(14));
        assert_eq!(cost(document, Some(vars("l", 1000))), Some(2000));
    }

    #[test]
    fn aliases_and_fragments_count_every_time() {
        let aliases = "{ a: users(limit: 1000) { email } b: users(limit: 1000) { email } }";
        assert_eq!(cost(aliases, None), Some(4000));
        let fragments = "{ users(limit: 10) { ...F ...F } } fragment F on User { email ...G ...G } fragment G on User { firstname }";
        assert_eq!(cost(fragments, None), Some(10 * (1 + 2 * (1 + 2))));
    }
}
