//! Versions as entity tags (RFC 7644 §3.14): a resource's `ETag` is its
//! version, `W/"3"`; `If-Match` asks a write for one, `If-None-Match`
//! answers a read 304 when it names the current one.

use crate::error::ScimError;

/// The entity tag of `version`.
pub fn etag(version: u64) -> String {
    format!("W/\"{version}\"")
}

/// The version an `If-Match` header (its bytes) asks a write of a
/// `resource` for: `None` without one or for `*`; a tag that cannot be a
/// version of Kenning's fails at once (412).
pub fn expected(if_match: Option<&[u8]>, resource: &str) -> Result<Option<u64>, ScimError> {
    let Some(value) = if_match else {
        return Ok(None);
    };
    let text = std::str::from_utf8(value)
        .map_err(|_| ScimError::stale(resource))?
        .trim();
    if text == "*" {
        return Ok(None);
    }
    version_of(text)
        .map(Some)
        .ok_or_else(|| ScimError::stale(resource))
}

/// Whether an `If-None-Match` header (its bytes) names `version` (or is
/// `*`): a read answered 304.
pub fn unchanged(if_none_match: Option<&[u8]>, version: u64) -> bool {
    if_none_match
        .and_then(|v| std::str::from_utf8(v).ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|t| t.trim() == "*" || version_of(t) == Some(version))
        })
}

/// The version of an entity tag `W/"3"` or `"3"`.
fn version_of(tag: &str) -> Option<u64> {
    let tag = tag.trim();
    let tag = tag.strip_prefix("W/").unwrap_or(tag);
    tag.strip_prefix('"')?.strip_suffix('"')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_read_weak_or_strong() {
        assert_eq!(expected(Some(b"W/\"3\""), "user").unwrap(), Some(3));
        assert_eq!(expected(Some(b" \"4\" "), "user").unwrap(), Some(4));
        assert_eq!(expected(Some(b"*"), "user").unwrap(), None);
        assert_eq!(expected(None, "user").unwrap(), None);
        let refused = expected(Some(b"W/\"x\""), "group").unwrap_err();
        assert_eq!(refused.status, 412);
        assert!(refused.detail.contains("group"), "{}", refused.detail);
        assert!(unchanged(Some(b"W/\"1\", W/\"2\""), 2));
        assert!(unchanged(Some(b"*"), 9));
        assert!(!unchanged(Some(b"W/\"1\""), 2));
        assert!(!unchanged(None, 2));
    }
}
