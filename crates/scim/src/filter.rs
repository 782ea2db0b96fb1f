//! SCIM filters (RFC 7644 §3.4.2.2): the grammar, once, for the two places
//! that read it: a list's `filter`, which becomes a domain [`UserFilter`]
//! run by the store, and a PATCH path's value filter (`emails[type eq
//! "work"]`), which picks elements of a multi-valued attribute.
//!
//! ```text
//! filter  = and ("or" and)*
//! and     = factor ("and" factor)*
//! factor  = "not" "(" filter ")" | "(" filter ")" | attrPath "pr"
//!         | attrPath op value
//! op      = eq | ne | co | sw | ew | gt | ge | lt | le   (any case)
//! value   = a JSON string, number, true, false or null
//! ```

use chrono::{DateTime, Utc};
use kenning_domain::{Comparison, FilterAttribute, FilterOperator, FilterValue, UserFilter};
use serde_json::Value;

use crate::schemas::USER_SCHEMA;

/// The longest filter read, in characters.
pub const MAX_FILTER_CHARS: usize = 2_000;

/// The deepest nesting of `and`, `or`, `not` and parentheses read.
pub const MAX_FILTER_DEPTH: usize = 16;

/// A filter as written: attribute paths and JSON values, not yet bound to
/// what they mean.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `path op value`; the operator lower-cased.
    Compare(String, String, Value),
    /// `path pr`.
    Present(String),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open,
    Close,
    Word(String),
    Value(Value),
}

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' => {
                chars.next();
                out.push(Token::Open);
            }
            ')' => {
                chars.next();
                out.push(Token::Close);
            }
            '"' => {
                chars.next();
                let mut escaped = false;
                let mut end = None;
                for (i, c) in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        end = Some(i);
                        break;
                    }
                }
                let end = end.ok_or("a string is not closed")?;
                let value: Value = serde_json::from_str(&text[start..=end])
                    .map_err(|e| format!("a string is not valid JSON: {e}"))?;
                out.push(Token::Value(value));
            }
            _ => {
                let mut end = text.len();
                while let Some(&(i, c)) = chars.peek() {
                    if c.is_whitespace() || c == '(' || c == ')' || c == '"' {
                        end = i;
                        break;
                    }
                    chars.next();
                }
                out.push(Token::Word(text[start..end].to_owned()));
            }
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

const OPERATORS: [&str; 9] = ["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"];

impl Parser {
    fn peek_word(&self, word: &str) -> bool {
        matches!(self.tokens.get(self.at), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word))
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn filter(&mut self, depth: usize) -> Result<Expr, String> {
        if depth > MAX_FILTER_DEPTH {
            return Err(format!(
                "the filter nests deeper than {MAX_FILTER_DEPTH} levels"
            ));
        }
        let mut left = self.and(depth)?;
        while self.peek_word("or") {
            self.at += 1;
            left = Expr::Or(Box::new(left), Box::new(self.and(depth + 1)?));
        }
        Ok(left)
    }

    fn and(&mut self, depth: usize) -> Result<Expr, String> {
        let mut left = self.factor(depth)?;
        while self.peek_word("and") {
            self.at += 1;
            left = Expr::And(Box::new(left), Box::new(self.factor(depth + 1)?));
        }
        Ok(left)
    }

    fn group(&mut self, depth: usize) -> Result<Expr, String> {
        if self.next() != Some(Token::Open) {
            return Err("\"not\" must be followed by a filter in parentheses".to_owned());
        }
        let inner = self.filter(depth + 1)?;
        if self.next() != Some(Token::Close) {
            return Err("a parenthesis is not closed".to_owned());
        }
        Ok(inner)
    }

    fn factor(&mut self, depth: usize) -> Result<Expr, String> {
        if self.peek_word("not") {
            self.at += 1;
            return Ok(Expr::Not(Box::new(self.group(depth)?)));
        }
        match self.tokens.get(self.at) {
            Some(Token::Open) => self.group(depth),
            Some(Token::Word(_)) => {
                let Some(Token::Word(path)) = self.next() else {
                    return Err("an attribute path was expected".to_owned());
                };
                let op = match self.next() {
                    Some(Token::Word(op)) => op.to_ascii_lowercase(),
                    _ => return Err(format!("an operator must follow {path:?}")),
                };
                if op == "pr" {
                    return Ok(Expr::Present(path));
                }
                if !OPERATORS.contains(&op.as_str()) {
                    return Err(format!("unknown operator {op:?}"));
                }
                let value = match self.next() {
                    Some(Token::Value(v)) => v,
                    Some(Token::Word(w)) => serde_json::from_str::<Value>(&w.to_ascii_lowercase())
                        .ok()
                        .filter(|v| !v.is_string())
                        .ok_or_else(|| {
                            format!("{w:?} is not a value: quote strings, or write true, false, null or a number")
                        })?,
                    _ => return Err(format!("a value must follow {path:?} {op}")),
                };
                Ok(Expr::Compare(path, op, value))
            }
            _ => Err("an attribute path, \"not\" or \"(\" was expected".to_owned()),
        }
    }
}

/// Reads a filter; the error says what is wrong, for `invalidFilter`.
pub fn parse(text: &str) -> Result<Expr, String> {
    if text.chars().count() > MAX_FILTER_CHARS {
        return Err(format!(
            "the filter is longer than {MAX_FILTER_CHARS} characters"
        ));
    }
    let mut parser = Parser {
        tokens: tokens(text)?,
        at: 0,
    };
    if parser.tokens.is_empty() {
        return Err("the filter is empty".to_owned());
    }
    let expr = parser.filter(0)?;
    if parser.at < parser.tokens.len() {
        return Err("the filter goes on after a complete expression".to_owned());
    }
    Ok(expr)
}

/// An attribute path lower-cased, without the core User schema's URN
/// that may stand before it.
pub fn plain_path(path: &str) -> String {
    let lower = path.to_ascii_lowercase();
    let prefix = format!("{}:", USER_SCHEMA.to_ascii_lowercase());
    lower
        .strip_prefix(&prefix)
        .map(str::to_owned)
        .unwrap_or(lower)
}

fn attribute(path: &str) -> Result<FilterAttribute, String> {
    Ok(match plain_path(path).as_str() {
        "username" => FilterAttribute::UserName,
        "emails" | "emails.value" => FilterAttribute::Email,
        "externalid" => FilterAttribute::ExternalId,
        "name.familyname" => FilterAttribute::FamilyName,
        "name.givenname" => FilterAttribute::GivenName,
        "active" => FilterAttribute::Active,
        "meta.lastmodified" => FilterAttribute::LastModified,
        _ => {
            return Err(format!(
                "filtering on {path:?} is not supported: filter on userName, externalId, \
                 emails.value, name.familyName, name.givenName, active or meta.lastModified"
            ))
        }
    })
}

fn operator(op: &str) -> FilterOperator {
    match op {
        "eq" => FilterOperator::Equal,
        "ne" => FilterOperator::NotEqual,
        "co" => FilterOperator::Contains,
        "sw" => FilterOperator::StartsWith,
        "ew" => FilterOperator::EndsWith,
        "gt" => FilterOperator::GreaterThan,
        "ge" => FilterOperator::GreaterOrEqual,
        "lt" => FilterOperator::LessThan,
        _ => FilterOperator::LessOrEqual,
    }
}

/// A list's filter as the domain's question to the store.
pub fn user_filter(expr: &Expr) -> Result<UserFilter, String> {
    Ok(match expr {
        Expr::Present(path) => UserFilter::Present(attribute(path)?),
        Expr::And(a, b) => UserFilter::And(Box::new(user_filter(a)?), Box::new(user_filter(b)?)),
        Expr::Or(a, b) => UserFilter::Or(Box::new(user_filter(a)?), Box::new(user_filter(b)?)),
        Expr::Not(a) => UserFilter::Not(Box::new(user_filter(a)?)),
        Expr::Compare(path, op, value) => {
            let attribute = attribute(path)?;
            let value = match (attribute, value) {
                (FilterAttribute::Active, Value::Bool(b)) => FilterValue::Bool(*b),
                (FilterAttribute::LastModified, Value::String(s)) => FilterValue::Moment(
                    DateTime::parse_from_rfc3339(s)
                        .map_err(|_| format!("{s:?} is not a date-time like 2026-01-31T12:00:00Z"))?
                        .with_timezone(&Utc),
                ),
                (_, Value::String(s)) => FilterValue::Text(s.clone()),
                (_, other) => {
                    return Err(format!("{path} cannot be compared with {other}"));
                }
            };
            UserFilter::Compare(
                Comparison::new(attribute, operator(op), value).map_err(|e| e.to_string())?,
            )
        }
    })
}

/// The value of `name` in a JSON object, the name compared without regard
/// to case (SCIM attribute names are case-insensitive).
pub fn field<'a>(object: &'a Value, name: &str) -> Option<&'a Value> {
    object
        .as_object()?
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .map(|(_, value)| value)
}

/// Whether an element of a multi-valued attribute (`{"type": "work",
/// "value": ...}`) passes a value filter. Text compares without regard to
/// case, as every sub-attribute Kenning shows is case-insensitive.
pub fn element_matches(expr: &Expr, element: &Value) -> bool {
    match expr {
        Expr::Present(path) => field(element, path).is_some_and(|v| !v.is_null()),
        Expr::And(a, b) => element_matches(a, element) && element_matches(b, element),
        Expr::Or(a, b) => element_matches(a, element) || element_matches(b, element),
        Expr::Not(a) => !element_matches(a, element),
        Expr::Compare(path, op, wanted) => {
            let held = field(element, path);
            match (held, wanted) {
                (Some(Value::String(held)), Value::String(wanted)) => {
                    let (held, wanted) = (held.to_lowercase(), wanted.to_lowercase());
                    match op.as_str() {
                        "eq" => held == wanted,
                        "ne" => held != wanted,
                        "co" => held.contains(&wanted),
                        "sw" => held.starts_with(&wanted),
                        "ew" => held.ends_with(&wanted),
                        "gt" => held > wanted,
                        "ge" => held >= wanted,
                        "lt" => held < wanted,
                        _ => held <= wanted,
                    }
                }
                (held, wanted) => {
                    let equal = held.unwrap_or(&Value::Null) == wanted;
                    match op.as_str() {
                        "eq" => equal,
                        "ne" => !equal,
                        _ => false,
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn precedence_grouping_and_case_are_read_as_the_rfc_says() {
        let e = parse(r#"userName Eq "a" or name.familyName sw "L" AND not (active eq false)"#)
            .unwrap();
        let Expr::Or(left, right) = e else {
            panic!("or at the top: {e:?}")
        };
        assert_eq!(
            *left,
            Expr::Compare("userName".into(), "eq".into(), json!("a"))
        );
        assert!(matches!(*right, Expr::And(_, _)));
        assert_eq!(
            parse(r#"((externalId pr))"#).unwrap(),
            Expr::Present("externalId".into())
        );
        assert_eq!(
            parse(r#"userName eq "a \"quoted\" name""#).unwrap(),
            Expr::Compare("userName".into(), "eq".into(), json!("a \"quoted\" name"))
        );
    }

    #[test]
    fn broken_filters_say_what_is_wrong() {
        for (text, says) in [
            ("", "empty"),
            ("userName", "operator"),
            ("userName eq", "value"),
            ("userName eq bob", "not a value"),
            ("userName xx \"a\"", "unknown operator"),
            ("(userName eq \"a\"", "not closed"),
            ("userName eq \"a", "not closed"),
            ("not userName eq \"a\"", "parentheses"),
            ("userName eq \"a\" \"b\"", "goes on"),
        ] {
            let error = parse(text).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
        let deep = format!("{}userName pr{}", "(".repeat(40), ")".repeat(40));
        assert!(parse(&deep).unwrap_err().contains("deeper"));
        assert!(parse(&"a".repeat(3_000)).unwrap_err().contains("longer"));
    }

    #[test]
    fn list_filters_become_domain_filters_on_the_supported_attributes() {
        let f = user_filter(
            &parse(r#"urn:ietf:params:scim:schemas:core:2.0:User:userName eq "A@x.org""#).unwrap(),
        )
        .unwrap();
        let UserFilter::Compare(c) = f else { panic!() };
        assert_eq!(c.attribute(), FilterAttribute::UserName);
        assert!(
            user_filter(&parse("meta.lastModified gt \"2026-01-01T00:00:00Z\"").unwrap()).is_ok()
        );
        for bad in [
            "title eq \"x\"",
            "active eq \"yes\"",
            "userName gt \"a\"",
            "meta.lastModified gt \"yesterday\"",
            "userName eq null",
        ] {
            assert!(user_filter(&parse(bad).unwrap()).is_err(), "{bad}");
        }
    }

    #[test]
    fn value_filters_pick_elements() {
        let work = json!({"type": "Work", "value": "a@x.org", "primary": true});
        assert!(element_matches(&parse(r#"type eq "work""#).unwrap(), &work));
        assert!(element_matches(&parse("primary eq true").unwrap(), &work));
        assert!(!element_matches(
            &parse(r#"type eq "home""#).unwrap(),
            &work
        ));
        assert!(element_matches(
            &parse(r#"value ew "X.ORG" and not (type eq "home")"#).unwrap(),
            &work
        ));
    }
}
