//! The parameters of a listing: where it starts, how many items it
//! returns, and what it matches.

use crate::validation::{FieldViolation, Rule};
use crate::{ExternalId, Profile};

/// How many users to skip: an integer of at least 0 (default 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Offset(u32);

impl Offset {
    /// The field's public name.
    pub const FIELD: &'static str = "offset";

    /// An offset from 0 to `u32::MAX`; anything else is refused.
    pub fn parse(raw: i64) -> Result<Self, FieldViolation> {
        count(Self::FIELD, raw, 0, u32::MAX).map(Self)
    }

    /// How many items to skip.
    pub fn get(&self) -> u32 {
        self.0
    }

    /// The offset if it is at most `max`; a larger one is refused, since
    /// skipping costs as many rows as it skips: a listing that far in is
    /// paged by cursor ([`crate::UserCursor`]) instead.
    pub fn at_most(self, max: u32) -> Result<Self, FieldViolation> {
        if self.0 <= max {
            Ok(self)
        } else {
            Err(FieldViolation::new(
                Self::FIELD,
                Rule::BeyondOffsetPaging {
                    max: i64::from(max),
                },
            ))
        }
    }
}

/// A count from `min` to `max`, refused under `field` otherwise.
fn count(field: &'static str, raw: i64, min: u32, max: u32) -> Result<u32, FieldViolation> {
    if raw < i64::from(min) {
        return Err(FieldViolation::new(
            field,
            Rule::TooSmall {
                min: i64::from(min),
            },
        ));
    }
    u32::try_from(raw)
        .ok()
        .filter(|n| *n <= max)
        .ok_or_else(|| {
            FieldViolation::new(
                field,
                Rule::TooLarge {
                    max: i64::from(max),
                },
            )
        })
}

/// Declares the limit of a list: how many items to return at most.
macro_rules! count_limit {
    ($(#[$doc:meta])* $name:ident, max = $max:literal, default = $default:literal) => {
        $(#[$doc])*
        ///
        /// Out-of-range values are refused, never clamped, so a client never
        /// silently receives less than it asked for.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name(u32);

        impl $name {
            /// The field's public name.
            pub const FIELD: &'static str = "limit";
            /// The smallest limit.
            pub const MIN: u32 = 1;
            /// The largest limit.
            pub const MAX: u32 = $max;
            /// The limit when none is given.
            pub const DEFAULT: $name = $name($default);

            #[doc = concat!("A limit from [`", stringify!($name), "::MIN`] to [`",
                stringify!($name), "::MAX`]; anything else is refused.")]
            pub fn parse(raw: i64) -> Result<Self, FieldViolation> {
                count(Self::FIELD, raw, Self::MIN, Self::MAX).map(Self)
            }

            /// The most items to return.
            pub const fn get(&self) -> u32 {
                self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::DEFAULT
            }
        }
    };
}

count_limit!(
    /// How many users a listing returns at most: 1 to 1000 (default 100).
    Limit, max = 1000, default = 100
);
count_limit!(
    /// How many experts `experts` returns at most: 1 to 100 (default 10).
    ExpertsLimit, max = 100, default = 10
);
count_limit!(
    /// How many topics `userTopics` returns at most: 1 to 100 (default 15).
    UserTopicsLimit, max = 100, default = 15
);
count_limit!(
    /// How many topics `relatedTopics` returns at most: 1 to 100 (default
    /// 10).
    RelatedTopicsLimit, max = 100, default = 10
);
count_limit!(
    /// How many entries of the audit trail one read returns at most: 1 to
    /// 500 (default 50).
    AuditLimit, max = 500, default = 50
);

/// What a user listing matches: nothing (all users) or a folded piece of
/// text looked for inside e-mail, externalId, first name, last name and
/// "first last".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchText(Option<String>);

impl SearchText {
    /// The field's public name.
    pub const FIELD: &'static str = "searchText";
    /// The longest needle that can match: the longest field a needle is
    /// looked for in (externalId), since it never spans two fields.
    pub const MAX_CHARS: usize = 250;

    /// `None` or blank text lists every user. Control characters become
    /// spaces, so a needle never spans two fields of the haystack; a needle
    /// longer than any field is refused rather than matched against nothing.
    pub fn parse(raw: Option<&str>) -> Result<Self, FieldViolation> {
        let folded = raw
            .map(|s| {
                s.chars()
                    .map(|c| if c.is_control() { ' ' } else { c })
                    .collect::<String>()
                    .trim()
                    .to_lowercase()
            })
            .filter(|s| !s.is_empty());
        if folded
            .as_ref()
            .is_some_and(|n| n.chars().count() > Self::MAX_CHARS)
        {
            return Err(FieldViolation::new(
                Self::FIELD,
                Rule::TooLong {
                    limit: Self::MAX_CHARS,
                },
            ));
        }
        Ok(Self(folded))
    }

    /// The folded needle, or `None` to list every user.
    pub fn needle(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The folded haystack a user is matched against: the needle matches a
    /// user when it is a substring of this text. Fields are joined by a
    /// line break so that a needle cannot match across two fields.
    pub fn haystack(email: &str, external_id: Option<&str>, first: &str, last: &str) -> String {
        format!(
            "{}\n{}\n{} {}",
            email,
            external_id.unwrap_or_default(),
            first,
            last
        )
        .to_lowercase()
    }

    /// The haystack of a user's `profile`: the searchable fields (e-mail,
    /// externalId, first name and last name) named once, for every store.
    pub fn haystack_of(profile: &Profile) -> String {
        Self::haystack(
            profile.email.as_str(),
            profile.external_id.as_ref().map(ExternalId::as_str),
            profile.firstname.as_str(),
            profile.lastname.as_str(),
        )
    }

    /// Whether a user with this haystack matches.
    pub fn matches(&self, haystack: &str) -> bool {
        match &self.0 {
            None => true,
            Some(needle) => haystack.contains(needle.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_is_at_least_zero() {
        assert_eq!(Offset::parse(0).unwrap().get(), 0);
        assert_eq!(
            Offset::parse(-1).unwrap_err(),
            FieldViolation::new("offset", Rule::TooSmall { min: 0 })
        );
    }

    #[test]
    fn offsets_past_the_maximum_are_refused() {
        let offset = Offset::parse(10_001).unwrap();
        assert_eq!(offset.at_most(10_001), Ok(offset));
        let refused = offset.at_most(10_000).unwrap_err();
        assert_eq!(refused.field, "offset");
        assert_eq!(refused.rule, Rule::BeyondOffsetPaging { max: 10_000 });
        assert!(refused.to_string().contains("usersConnection"), "{refused}");
    }

    #[test]
    fn limit_is_between_1_and_1000() {
        assert_eq!(Limit::default().get(), 100);
        assert_eq!(Limit::parse(1).unwrap().get(), 1);
        assert_eq!(Limit::parse(1000).unwrap().get(), 1000);
        assert_eq!(
            Limit::parse(0).unwrap_err(),
            FieldViolation::new("limit", Rule::TooSmall { min: 1 })
        );
        assert_eq!(
            Limit::parse(1001).unwrap_err(),
            FieldViolation::new("limit", Rule::TooLarge { max: 1000 })
        );
    }

    #[test]
    fn expertise_limits_are_between_1_and_100() {
        assert_eq!(ExpertsLimit::default().get(), 10);
        assert_eq!(UserTopicsLimit::default().get(), 15);
        assert_eq!(RelatedTopicsLimit::default().get(), 10);
        assert_eq!(ExpertsLimit::parse(100).unwrap().get(), 100);
        for (parsed, rule) in [
            (
                UserTopicsLimit::parse(0).map(|l| l.get()),
                Rule::TooSmall { min: 1 },
            ),
            (
                RelatedTopicsLimit::parse(101).map(|l| l.get()),
                Rule::TooLarge { max: 100 },
            ),
            (
                ExpertsLimit::parse(i64::MAX).map(|l| l.get()),
                Rule::TooLarge { max: 100 },
            ),
        ] {
            assert_eq!(parsed, Err(FieldViolation::new("limit", rule)));
        }
    }

    #[test]
    fn search_text_matches_inside_any_searchable_field() {
        let hay = SearchText::haystack("Ada@Example.com", Some("EMP-7"), "Ada", "Lovelace");
        for needle in ["ada@", "emp-7", "LOVE", "ada love", "example"] {
            assert!(
                SearchText::parse(Some(needle)).unwrap().matches(&hay),
                "{needle}"
            );
        }
        assert!(!SearchText::parse(Some("grace")).unwrap().matches(&hay));
        assert!(!SearchText::parse(Some("emp-7\nada")).unwrap().matches(&hay));
        assert!(SearchText::parse(None).unwrap().matches(&hay));
        assert!(SearchText::parse(Some("  ")).unwrap().needle().is_none());
        assert!(SearchText::parse(Some("\u{0}")).unwrap().needle().is_none());
        assert!(SearchText::parse(Some(&"a".repeat(250))).is_ok());
        let long = SearchText::parse(Some(&"a".repeat(251))).unwrap_err();
        assert_eq!(long.field, "searchText");
        assert_eq!(long.rule, Rule::TooLong { limit: 250 });
    }
}
