//! Step 2 on SQLite: the trigram index, the contentless FTS5 table
//! `users_search`, whose row numbers follow the listing order in groups.

use super::pages::{past, Bounds, Page};
use crate::location::Backend;
use crate::sql::{Binder, Statement};

/// `needle` as an FTS5 string: every character literal, `"` doubled. The
/// trigram tokenizer reads a string as a phrase of its trigrams, which
/// matches exactly the texts holding it as a substring.
pub(super) fn fts_phrase(needle: &str) -> String {
    format!("\"{}\"", needle.replace('"', "\"\""))
}

/// The low bits of a row number of SQLite's trigram index, its place in
/// its listing group; the bits above them are the group (see
/// [`sqlite_trigrams`]). The migration `search_listing_order` spells the
/// same width out in its views and triggers, which cannot name this
/// constant; a test of the migrations keeps the two in agreement.
pub(crate) const LISTING_GROUP_BITS: u32 = 21;

/// The rest of the listing group (see [`sqlite_trigrams`]) of the last
/// row of CTE `head`, the matches of `text` after it, as CTE `tail`: read
/// only when `head` holds `full` rows (when it holds fewer, it holds every
/// match). A group is a row number's bits above the low
/// [`LISTING_GROUP_BITS`].
fn group_tail(full: &str, text: &str) -> String {
    let bits = LISTING_GROUP_BITS;
    format!(
        "tail AS (SELECT rowid AS r \
             FROM (SELECT 1 WHERE (SELECT count(*) FROM head) = {full}) AS full \
             CROSS JOIN users_search WHERE users_search MATCH {text} \
             AND rowid > (SELECT max(r) FROM head) \
             AND rowid < (((SELECT max(r) FROM head) >> {bits}) + 1) << {bits}) "
    )
}

/// CTEs `first` and `head` of a page by cursor. `first` is the first row
/// number of the listing group of the first user after `position` (past
/// every number when nobody follows): no earlier group holds a user after
/// the position. `head` is the first `rows` matches of `text` from there,
/// in row-number order, that come after the position and meet `also`; the
/// position is tested on `users_search_row`, which holds the listing
/// order's columns.
fn head_after_position(position: &str, text: &str, also: &str, rows: &str) -> String {
    format!(
        "WITH first (above) AS (SELECT coalesce( \
             (SELECT (search_row >> {bits}) << {bits} FROM users INDEXED BY users_listing \
              WHERE {past} \
              ORDER BY lastname, firstname, id LIMIT 1), \
             {nobody})), \
         head AS MATERIALIZED \
             (SELECT found.rowid AS r FROM users_search AS found \
                CROSS JOIN users INDEXED BY users_search_row \
                  ON users.search_row = found.rowid \
              WHERE found.users_search MATCH {text} \
                AND found.rowid >= (SELECT above FROM first) \
                AND (users.lastname, users.firstname, users.id) > {position} {also} \
              ORDER BY found.rowid LIMIT {rows}), ",
        past = past(Some(position), "", ""),
        nobody = i64::MAX,
        bits = LISTING_GROUP_BITS,
    )
}

/// Step 2 on SQLite: the matches the trigram index finds for `text` (an
/// FTS5 query), sorted; with a `pattern`, `text` asks for rare trigrams
/// only and finds a superset, of which the users matching `pattern` are
/// kept. SQLite is told to reach users through the index of the trigram
/// table's rowids, so that its planner cannot walk the listing index and
/// probe every row instead.
///
/// A text of more than [`TRIGRAMS_ASKED`] trigrams is looked up by its
/// rarest few ([`Lookup::Rare`], by the estimates of [`crate::trigram_counts`]):
/// the index is asked for the users holding them all (a superset, tested
/// with `LIKE`), which skips the lists of trigrams everyone has (an
/// address's shared domain). A shorter text is asked for whole, as a
/// phrase, which is exact, and the users found are sorted from the index
/// `users_search_row`, which holds the listing order's columns, before any
/// row is read.
///
/// SQLite's trigram index numbers its rows in listing groups that follow
/// the listing order (the high bits of a row number, above the low
/// [`LISTING_GROUP_BITS`]; see
/// the migration `search_listing_order`), and gives its matches in
/// row-number order. So the page lies among the first `offset + limit`
/// matches the index gives (CTE `head`) and the rest of the last one's
/// group (CTE `tail`, [`group_tail`], read only when `head` is full): no
/// match of a later group can be on the page. Only those are sorted,
/// however many users match: a common surname's first page costs about
/// one group, and a rare text, fewer matches than `head` takes, is read
/// once. By cursor, the index is read from the group of the first user
/// after the position, and the page lies among the first `rows` matches
/// after it and the rest of the last one's group
/// ([`head_after_position`]).
///
/// [`TRIGRAMS_ASKED`]: super::lookup::TRIGRAMS_ASKED
/// [`Lookup::Rare`]: super::lookup::Lookup::Rare
pub(super) fn sqlite_trigrams(page: Page, text: String, pattern: Option<String>) -> Statement {
    let mut sql = Binder::new(Backend::Sqlite);
    let position = page.position(&mut sql);
    let text = sql.text(text);
    let pattern = pattern.map(|p| sql.text(p));
    let Bounds { through, limit } = page.bounds(&mut sql);
    let head = match (&position, &pattern) {
        (Some(position), pattern) => {
            let also = pattern
                .as_ref()
                .map(|p| format!("AND users.search_text LIKE {p} ESCAPE '\\'"));
            head_after_position(position, &text, &also.unwrap_or_default(), &through)
        }
        (None, None) => format!(
            "WITH head AS MATERIALIZED \
                 (SELECT rowid AS r FROM users_search WHERE users_search MATCH {text} \
                  ORDER BY rowid LIMIT {through}), "
        ),
        (None, Some(pattern)) => format!(
            "WITH head AS MATERIALIZED \
                 (SELECT found.rowid AS r FROM users_search AS found \
                    CROSS JOIN users INDEXED BY users_search_row \
                      ON users.search_row = found.rowid \
                  WHERE found.users_search MATCH {text} \
                    AND users.search_text LIKE {pattern} ESCAPE '\\' \
                  ORDER BY found.rowid LIMIT {through}), "
        ),
    };
    let tail = group_tail(&through, &text);
    let past = past(position.as_deref(), " AND ", "");
    let found = "search_row IN (SELECT r FROM head UNION ALL SELECT r FROM tail)";
    let rows = match pattern {
        None => format!(
            "SELECT users.* FROM users WHERE id IN \
                 (SELECT id FROM users INDEXED BY users_search_row \
                  WHERE {found}{past} \
                  ORDER BY lastname, firstname, id {limit}) \
             ORDER BY lastname, firstname, id"
        ),
        Some(pattern) => format!(
            "SELECT users.* FROM users INDEXED BY users_search_row \
             WHERE {found}{past} AND search_text LIKE {pattern} ESCAPE '\\' \
             ORDER BY lastname, firstname, id {limit}"
        ),
    };
    sql.statement(format!("{head}{tail}{rows}"))
}

#[cfg(test)]
mod tests {
    use super::fts_phrase;

    #[test]
    fn fts_phrases_keep_every_character_literal() {
        assert_eq!(fts_phrase("o\"neil"), "\"o\"\"neil\"");
        assert_eq!(fts_phrase("a OR b*"), "\"a OR b*\"");
    }
}
