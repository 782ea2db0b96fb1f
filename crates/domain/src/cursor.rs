//! Where a cursor-paged user listing continues: the sort key of the last
//! user a page showed, written as an opaque string.

use std::fmt;

use uuid::Uuid;

use crate::user::{User, UserId};
use crate::validation::{FieldViolation, Rule};

/// A position in the user listing: right after the user with this sort
/// key (last name, first name, id), compared byte-wise as the listing is.
///
/// Its written form ([`fmt::Display`]) is opaque to clients: the version
/// byte `1`, then the last and the first name (each a 16-bit big-endian
/// byte length and its UTF-8 bytes), then the id's 16 bytes, all as
/// lower-case hex. A position needs no user to exist, so a cursor stays
/// valid after the user it was taken from is deleted.
///
/// Cursors compare in listing order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UserCursor {
    lastname: String,
    firstname: String,
    id: UserId,
}

/// The version of the written form; a cursor of another version is refused.
const VERSION: u8 = 1;

impl UserCursor {
    /// The field's public name.
    pub const FIELD: &'static str = "after";
    /// The longest written cursor accepted: room for two names of 50
    /// characters of up to 4 bytes each, with room to spare.
    pub const MAX_CHARS: usize = 2048;

    /// The position of `user` in the listing. A deleted user's names are
    /// empty, as its listing shows them.
    pub fn of(user: &User) -> Self {
        let (lastname, firstname) = user.profile().map_or_else(Default::default, |p| {
            (
                p.lastname.as_str().to_owned(),
                p.firstname.as_str().to_owned(),
            )
        });
        Self {
            lastname,
            firstname,
            id: user.id(),
        }
    }

    /// A cursor in the written form [`fmt::Display`] gives; anything else
    /// (another version, a changed or cut string) is refused under
    /// [`UserCursor::FIELD`].
    pub fn parse(raw: &str) -> Result<Self, FieldViolation> {
        let refused = || FieldViolation::new(Self::FIELD, Rule::InvalidCursor);
        if raw.len() > Self::MAX_CHARS {
            return Err(refused());
        }
        let bytes = unhex(raw).ok_or_else(refused)?;
        let mut reader = Reader(&bytes);
        if reader.take(1) != Some(&[VERSION][..]) {
            return Err(refused());
        }
        let lastname = reader.text().ok_or_else(refused)?;
        let firstname = reader.text().ok_or_else(refused)?;
        let id = reader
            .take(16)
            .and_then(|b| Uuid::from_slice(b).ok())
            .ok_or_else(refused)?;
        if !reader.0.is_empty() {
            return Err(refused());
        }
        Ok(Self {
            lastname,
            firstname,
            id: UserId::from_uuid(id),
        })
    }

    /// The last name of the position.
    pub fn lastname(&self) -> &str {
        &self.lastname
    }

    /// The first name of the position.
    pub fn firstname(&self) -> &str {
        &self.firstname
    }

    /// The id of the position, which breaks ties between equal names.
    pub fn id(&self) -> UserId {
        self.id
    }
}

impl fmt::Display for UserCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut bytes = vec![VERSION];
        for name in [&self.lastname, &self.firstname] {
            // Names are at most 50 characters, far below 64 KiB.
            let len = u16::try_from(name.len()).map_err(|_| fmt::Error)?;
            bytes.extend_from_slice(&len.to_be_bytes());
            bytes.extend_from_slice(name.as_bytes());
        }
        bytes.extend_from_slice(self.id.as_uuid().as_bytes());
        bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// The bytes of lower-case hex, or `None`.
fn unhex(raw: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let raw = raw.as_bytes();
    if !raw.len().is_multiple_of(2) {
        return None;
    }
    raw.chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// Reads a written cursor from the front.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    /// A name: its 16-bit length, then that many bytes of UTF-8 holding
    /// no control character (no name holds one).
    fn text(&mut self) -> Option<String> {
        let len = self.take(2)?;
        let len = usize::from(u16::from_be_bytes([len[0], len[1]]));
        let text = std::str::from_utf8(self.take(len)?).ok()?;
        Rule::printable(text).ok()?;
        Some(text.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(last: &str, first: &str) -> UserCursor {
        UserCursor {
            lastname: last.to_owned(),
            firstname: first.to_owned(),
            id: UserId::from_uuid(Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef)),
        }
    }

    #[test]
    fn a_cursor_reads_back_as_written() {
        for c in [
            cursor("Lovelace", "Ada"),
            cursor("", ""),
            cursor("Ørsted", "Hans Christian"),
        ] {
            let written = c.to_string();
            assert!(written.bytes().all(|b| b.is_ascii_hexdigit()), "{written}");
            assert_eq!(UserCursor::parse(&written), Ok(c));
        }
    }

    #[test]
    fn changed_or_cut_cursors_are_refused() {
        let written = cursor("Lovelace", "Ada").to_string();
        let refused = Err(FieldViolation::new("after", Rule::InvalidCursor));
        let mut other_version = written.clone();
        other_version.replace_range(0..2, "02");
        let longer_name = written.replacen("0008", "0009", 1);
        for bad in [
            "",
            "not a cursor",
            &written[..written.len() - 2],
            &written[..written.len() - 1],
            &format!("{written}00"),
            &written.to_uppercase(),
            &other_version,
            &longer_name,
            "01ffff",
            &"0".repeat(UserCursor::MAX_CHARS + 2),
        ] {
            assert_eq!(UserCursor::parse(bad), refused, "{bad}");
        }
        let control = cursor("a\u{1}", "b").to_string();
        assert_eq!(UserCursor::parse(&control), refused);
        let not_utf8 = format!("01{}{}{}", "0001ff", "0000", "00".repeat(16));
        assert_eq!(UserCursor::parse(&not_utf8), refused);
    }

    #[test]
    fn cursors_compare_in_listing_order() {
        assert!(cursor("B", "a") < cursor("a", "a"));
        assert!(cursor("a", "a") < cursor("a", "b"));
        assert!(cursor("a", "") < cursor("ab", ""));
    }
}
