//! Where a page of a search lies in the listing order: after an offset or
//! after a cursor's position, and the values that bound its rows.

use kenning_domain::UserCursor;

use crate::sql::Binder;

/// The head of the list step 1 tests: enough rows that a text matching
/// one user in a few dozen fills its page there, and few enough that a
/// rare text loses little before step 2.
pub(super) fn scan_window(offset: i64, limit: i64) -> i64 {
    ((offset + limit) * 20).max(1_000)
}

/// Where a page lies in the listing order: the values that place it,
/// bound around each statement's own. A page by cursor reads only the
/// rows after its position, whose values are bound first in every
/// statement.
#[derive(Debug, Clone, Copy)]
pub(super) enum Page<'a> {
    /// `limit` matches after the first `offset`.
    Offset { offset: i64, limit: i64 },
    /// `rows` matches after the position `after`, from the start of the
    /// listing when `None`.
    After {
        after: Option<&'a UserCursor>,
        rows: i64,
    },
}

/// What bounds a page's rows in one statement.
pub(super) struct Bounds {
    /// The number of matches up to the end of the page: `limit + offset`
    /// by offset, the rows by cursor.
    pub(super) through: String,
    /// The page's `LIMIT` (and `OFFSET`).
    pub(super) limit: String,
}

impl Page<'_> {
    /// The rows the page reads.
    pub(super) fn rows(self) -> i64 {
        match self {
            Page::Offset { limit, .. } => limit,
            Page::After { rows, .. } => rows,
        }
    }

    /// The length of the head of the list step 1 tests.
    pub(super) fn window(self) -> i64 {
        match self {
            Page::Offset { offset, limit } => scan_window(offset, limit),
            Page::After { rows, .. } => scan_window(0, rows),
        }
    }

    /// By cursor, binds the position (last name, first name, id: the
    /// listing index's columns) and returns it as a row value, which
    /// [`past`] compares rows with; nothing by offset. Without a cursor the
    /// position is the start of the listing, as every row comes after the
    /// empty names and the empty id.
    pub(super) fn position(self, sql: &mut Binder) -> Option<String> {
        let Page::After { after, .. } = self else {
            return None;
        };
        let (last, first, id) = after.map_or_else(Default::default, |c| {
            (
                c.lastname().to_owned(),
                c.firstname().to_owned(),
                c.id().to_string(),
            )
        });
        let (last, first, id) = (sql.text(last), sql.text(first), sql.text(id));
        Some(format!("({last}, {first}, {id})"))
    }

    /// Binds what bounds the page, after the statement's own values.
    pub(super) fn bounds(self, sql: &mut Binder) -> Bounds {
        match self {
            Page::Offset { offset, limit } => {
                let (limit, offset) = (sql.int(limit), sql.int(offset));
                Bounds {
                    through: format!("{limit} + {offset}"),
                    limit: format!("LIMIT {limit} OFFSET {offset}"),
                }
            }
            Page::After { rows, .. } => {
                let rows = sql.int(rows);
                Bounds {
                    limit: format!("LIMIT {rows}"),
                    through: rows,
                }
            }
        }
    }
}

/// The condition that a row of `users` comes after `position`, between
/// `lead` and `trail`; nothing without a position.
pub(super) fn past(position: Option<&str>, lead: &str, trail: &str) -> String {
    position.map_or_else(String::new, |position| {
        format!("{lead}(lastname, firstname, id) > {position}{trail}")
    })
}
