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
//!    fills its page here, within a bounded number of rows.
//! 2. **The trigram index.** A text of three characters or more is looked
//!    up in the trigram index (SQLite: the FTS5 table `users_search`;
//!    PostgreSQL: the `pg_trgm` GIN index `users_search_trigrams`), which
//!    finds exactly the matching users; they are then sorted. When the
//!    head of the list did not fill the page, the text is rare enough for
//!    this to be cheap.
//! 3. **The whole list.** A text of one or two characters has no trigram;
//!    it is tested against every row in order until the page is full. Such
//!    a text nearly always fills its page in step 1; one that matches few
//!    users (`"zq"`) costs a scan of the directory.
//!
//! The trigram index and the `LIKE` test agree: both match the folded
//! text as it is, `%` and `_` included (escaped in the pattern).

use diesel::sql_types::{BigInt, Text};
use diesel::RunQueryDsl;
use kenning_domain::{Limit, Offset, SearchText};

use crate::connection::DbConnection;
use crate::users::UserRow;

/// The fewest characters the trigram index can look up.
const TRIGRAM: usize = 3;

/// The head of the list step 1 tests: enough rows that a text matching
/// one user in a few dozen fills its page there, and few enough that a
/// rare text loses little before step 2.
fn scan_window(offset: i64, limit: i64) -> i64 {
    ((offset + limit) * 20).max(1_000)
}

/// `%`, `_` and the escape character itself match literally in a LIKE
/// pattern once escaped.
fn like_pattern(needle: &str) -> String {
    let mut pattern = String::with_capacity(needle.len() + 2);
    pattern.push('%');
    for c in needle.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// `needle` as an FTS5 string: every character literal, `"` doubled. The
/// trigram tokenizer reads a string as a phrase of its trigrams, which
/// matches exactly the texts holding it as a substring.
fn fts_phrase(needle: &str) -> String {
    format!("\"{}\"", needle.replace('"', "\"\""))
}

/// Every user (no search text), in listing order: the listing index.
const ALL_SQLITE: &str = "SELECT users.* FROM users \
     ORDER BY lastname, firstname, id LIMIT ? OFFSET ?";
const ALL_POSTGRES: &str = "SELECT users.* FROM users \
     ORDER BY lastname, firstname, id LIMIT $1 OFFSET $2";

/// Step 1: the matches among the first `window` users.
const HEAD_SQLITE: &str = "SELECT * FROM (SELECT users.* FROM users \
         ORDER BY lastname, firstname, id LIMIT ?) AS head \
     WHERE search_text LIKE ? ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ? OFFSET ?";
const HEAD_POSTGRES: &str = "SELECT * FROM (SELECT users.* FROM users \
         ORDER BY lastname, firstname, id LIMIT $1) AS head \
     WHERE search_text LIKE $2 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT $3 OFFSET $4";

/// Step 2: the matches the trigram index finds, sorted. SQLite is told to
/// reach users through the index of the trigram table's rowids, so that
/// its planner cannot walk the listing index and probe every row instead;
/// the CTE keeps PostgreSQL's planner from doing the same.
const TRIGRAMS_SQLITE: &str = "SELECT users.* FROM users INDEXED BY users_search_row \
     WHERE search_row IN (SELECT rowid FROM users_search WHERE users_search MATCH ?) \
       AND search_text LIKE ? ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ? OFFSET ?";
const TRIGRAMS_POSTGRES: &str = "WITH found AS MATERIALIZED \
         (SELECT users.* FROM users WHERE search_text LIKE $1 ESCAPE '\\') \
     SELECT * FROM found ORDER BY lastname, firstname, id LIMIT $2 OFFSET $3";

/// Step 3: every row tested, in listing order.
const SCAN_SQLITE: &str = "SELECT users.* FROM users \
     WHERE search_text LIKE ? ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ? OFFSET ?";
const SCAN_POSTGRES: &str = "SELECT users.* FROM users \
     WHERE search_text LIKE $1 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT $2 OFFSET $3";

fn pick(conn: &DbConnection, sqlite: &'static str, postgres: &'static str) -> &'static str {
    match conn {
        DbConnection::Sqlite(_) => sqlite,
        DbConnection::Postgres(_) => postgres,
    }
}

/// The page of users matching `text`, in listing order.
pub(crate) fn page(
    conn: &mut DbConnection,
    text: &SearchText,
    offset: Offset,
    limit: Limit,
) -> diesel::QueryResult<Vec<UserRow>> {
    let (offset, limit_n) = (i64::from(offset.get()), i64::from(limit.get()));
    let Some(needle) = text.needle() else {
        return diesel::sql_query(pick(conn, ALL_SQLITE, ALL_POSTGRES))
            .bind::<BigInt, _>(limit_n)
            .bind::<BigInt, _>(offset)
            .load(conn);
    };
    let pattern = like_pattern(needle);
    let head: Vec<UserRow> = diesel::sql_query(pick(conn, HEAD_SQLITE, HEAD_POSTGRES))
        .bind::<BigInt, _>(scan_window(offset, limit_n))
        .bind::<Text, _>(&pattern)
        .bind::<BigInt, _>(limit_n)
        .bind::<BigInt, _>(offset)
        .load(conn)?;
    if head.len() as i64 == limit_n {
        return Ok(head);
    }
    if needle.chars().count() >= TRIGRAM {
        return match conn {
            DbConnection::Sqlite(_) => diesel::sql_query(TRIGRAMS_SQLITE)
                .bind::<Text, _>(fts_phrase(needle))
                .bind::<Text, _>(&pattern)
                .bind::<BigInt, _>(limit_n)
                .bind::<BigInt, _>(offset)
                .load(conn),
            DbConnection::Postgres(_) => diesel::sql_query(TRIGRAMS_POSTGRES)
                .bind::<Text, _>(&pattern)
                .bind::<BigInt, _>(limit_n)
                .bind::<BigInt, _>(offset)
                .load(conn),
        };
    }
    diesel::sql_query(pick(conn, SCAN_SQLITE, SCAN_POSTGRES))
        .bind::<Text, _>(&pattern)
        .bind::<BigInt, _>(limit_n)
        .bind::<BigInt, _>(offset)
        .load(conn)
}

#[cfg(test)]
mod tests {
    use super::{fts_phrase, like_pattern};

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(like_pattern("a%b_c\\d"), "%a\\%b\\_c\\\\d%");
    }

    #[test]
    fn fts_phrases_keep_every_character_literal() {
        assert_eq!(fts_phrase("o\"neil"), "\"o\"\"neil\"");
        assert_eq!(fts_phrase("a OR b*"), "\"a OR b*\"");
    }
}
