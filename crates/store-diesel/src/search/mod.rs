//! Listing and searching users in their listing order (last name, first
//! name, id), so that a search costs about the page it returns, not the
//! directory.
//!
//! A search text is a substring of the folded `search_text` of the users
//! it matches (see [`SearchText::haystack`]). Reading the list in order
//! and testing every row costs the whole table when few users match. So a
//! search takes up to three steps, each exact, stopping at the first that
//! fills the page:
//!
//! 1. **The head of the list.** The first rows in listing order, as many
//!    as [`scan_window`] allows, are tested. A common text ("an", "son")
//!    fills its page here, within a bounded number of rows. A text of
//!    three characters or more whose rarest trigram too few users hold
//!    ([`HEAD_SHARE`], by the estimates of [`crate::trigram_counts`]) skips it.
//! 2. **The trigram index.** A text of three characters or more is looked
//!    up in the trigram index (SQLite: the FTS5 table `users_search`;
//!    PostgreSQL: the `pg_trgm` GIN index `users_search_trigrams`), which
//!    finds exactly the matching users; they are then sorted. The index is
//!    asked for the text's rarest trigrams ([`Lookup::Rare`]) and the
//!    users it gives are tested against the whole text, so a whole e-mail
//!    address costs its rare trigrams' lists (its digits, its name), not
//!    the shared domain's, which every user holds. On SQLite the index's
//!    row numbers follow the listing order in groups, so only the groups
//!    up to the page's last match are read and sorted: a common surname
//!    costs about its page, not its every bearer.
//! 3. **The whole list.** A text of one or two characters has no trigram;
//!    it is tested against every row in order until the page is full. Such
//!    a text nearly always fills its page in step 1; one that matches few
//!    users (`"zq"`) costs a scan of the directory.
//!
//! The trigram index and the `LIKE` test agree: both match the folded
//! text as it is, `%` and `_` included (escaped in the pattern).
//!
//! A page read by cursor ([`after`]) takes the same steps, each bounded by
//! the cursor: only rows after the cursor's position, compared as row
//! values `(lastname, firstname, id) > (?, ?, ?)` in the order of the
//! listing index, so step 1 and the unfiltered listing are a range scan of
//! that index starting at the cursor, whatever page it points to. A page
//! asks for one row more than it shows, which tells whether more follow.
//!
//! On SQLite the trigram index is the contentless FTS5 table
//! `users_search`, kept by triggers in the writing statement's
//! transaction. Its row numbers are `users.search_row`, which the
//! triggers give each user, since `VACUUM` may renumber a table's own
//! rowids. A row number's high bits are the user's listing group, read off
//! the start of the names (the view `users_listing_group`); its low
//! [`LISTING_GROUP_BITS`] are a place in the group. A test of the
//! migrations holds the width the migration spells out to that constant.
//! The contract check `search_answers_exactly_whichever_way_it_reads`
//! makes each store answer searches of every kind, each of which must give
//! what the matching rule gives.
//!
//! [`scan_window`]: pages::scan_window
//! [`HEAD_SHARE`]: lookup::HEAD_SHARE
//! [`LISTING_GROUP_BITS`]: sqlite::LISTING_GROUP_BITS

mod listing;
mod lookup;
mod pages;
mod postgres;
pub(crate) mod sqlite;

use std::sync::Arc;

use kenning_domain::{Limit, Offset, SearchText, UserCursor};

use crate::connection::DbConnection;
use crate::location::Backend;
use crate::rows::UserRow;
use crate::sql::Statement;
use crate::trigram_counts::{Estimates, TrigramCounts};
use crate::trigrams::TRIGRAM;
use listing::{all, head, like_pattern, scan};
use lookup::{plan, Lookup, TrigramIndex};
use pages::Page;
use postgres::{postgres_rare, postgres_trigrams, postgres_whole};
use sqlite::{fts_phrase, sqlite_trigrams};

/// The steps of a search for `needle` on `backend`, for `page`, in order;
/// a text of three characters or more is planned with `estimates`
/// ([`plan`]). `None` as the needle lists everyone.
fn planned(
    backend: Backend,
    needle: Option<&str>,
    estimates: &Estimates,
    page: Page,
) -> Vec<Statement> {
    let Some(needle) = needle else {
        return vec![all(backend, page)];
    };
    let pattern = like_pattern(needle);
    let head = head(backend, page, &pattern);
    if needle.chars().count() < TRIGRAM {
        return vec![head, scan(backend, page, &pattern)];
    }
    let plan = plan(TrigramIndex::of(backend), needle, estimates);
    let trigrams = match (&plan.lookup, backend) {
        (Lookup::Whole, Backend::Sqlite) => sqlite_trigrams(page, fts_phrase(needle), None),
        (Lookup::Whole, Backend::Postgres) => {
            postgres_trigrams(page, |sql| postgres_whole(sql, &pattern))
        }
        (Lookup::Rare(rare), Backend::Sqlite) => {
            let asked: Vec<String> = rare.iter().map(|t| fts_phrase(t)).collect();
            sqlite_trigrams(page, asked.join(" AND "), Some(pattern))
        }
        (Lookup::Rare(rare), Backend::Postgres) => {
            postgres_trigrams(page, |sql| postgres_rare(sql, rare, needle))
        }
    };
    if plan.head {
        vec![head, trigrams]
    } else {
        vec![trigrams]
    }
}

/// Runs the steps of a search in order until one fills the page.
fn search(
    conn: &mut DbConnection,
    counts: &TrigramCounts,
    needle: Option<&str>,
    page: Page,
) -> diesel::QueryResult<Vec<UserRow>> {
    let estimates = match needle {
        Some(needle) if needle.chars().count() >= TRIGRAM => counts.estimates(conn)?,
        _ => Arc::default(),
    };
    let mut found = Vec::new();
    for step in planned(conn.backend(), needle, &estimates, page) {
        found = step.load::<UserRow>(conn)?;
        if found.len() as i64 == page.rows() {
            break;
        }
    }
    Ok(found)
}

/// The statements a search runs, in order, on the backend of `conn`,
/// planned with `estimates`; it stops at the first that fills the page.
/// `None` as the needle lists everyone.
pub(crate) fn steps(
    conn: &DbConnection,
    needle: Option<&str>,
    estimates: &Estimates,
    offset: i64,
    limit: i64,
) -> Vec<Statement> {
    planned(
        conn.backend(),
        needle,
        estimates,
        Page::Offset { offset, limit },
    )
}

/// The statements a search by cursor runs, in order, on the backend of
/// `conn`: [`steps`] for the `rows` after the position `after`.
pub(crate) fn steps_after(
    conn: &DbConnection,
    needle: Option<&str>,
    estimates: &Estimates,
    after: Option<&UserCursor>,
    rows: i64,
) -> Vec<Statement> {
    planned(
        conn.backend(),
        needle,
        estimates,
        Page::After { after, rows },
    )
}

/// The page of users matching `text`, in listing order.
pub(crate) fn page(
    conn: &mut DbConnection,
    counts: &TrigramCounts,
    text: &SearchText,
    offset: Offset,
    limit: Limit,
) -> diesel::QueryResult<Vec<UserRow>> {
    let (offset, limit) = (i64::from(offset.get()), i64::from(limit.get()));
    search(conn, counts, text.needle(), Page::Offset { offset, limit })
}

/// Up to `limit` users matching `text` after the position `after` (from
/// the start when `None`), in listing order, and one more when more
/// follow.
pub(crate) fn after(
    conn: &mut DbConnection,
    counts: &TrigramCounts,
    text: &SearchText,
    after: Option<&UserCursor>,
    limit: Limit,
) -> diesel::QueryResult<Vec<UserRow>> {
    let rows = i64::from(limit.get()) + 1;
    search(conn, counts, text.needle(), Page::After { after, rows })
}
