//! Step 2 on PostgreSQL: the `pg_trgm` GIN index `users_search_trigrams`,
//! asked for a whole text or for its rarest trigrams.

use super::listing::like_pattern;
use super::lookup::TRIGRAMS_ASKED;
use super::pages::{past, Bounds, Page};
use crate::location::Backend;
use crate::sql::{Binder, Statement};

/// Step 2 on PostgreSQL: the users that `matching` (a condition on
/// `search_text`, written with the binder it is given) selects through the
/// `pg_trgm` index, sorted. Only the listing order's columns of the matches
/// are kept until the page is known, then its rows are read. The matches
/// are read in a subquery fenced with `OFFSET 0`, so that the planner
/// neither walks the listing index testing every row nor stores the
/// matches (a `MATERIALIZED` CTE wrote and read them again; what that
/// cost: docs/performance.md, "Measured choices in the code").
pub(super) fn postgres_trigrams(
    page: Page,
    matching: impl FnOnce(&mut Binder) -> String,
) -> Statement {
    let mut sql = Binder::new(Backend::Postgres);
    let position = page.position(&mut sql);
    let matching = matching(&mut sql);
    let Bounds { limit, .. } = page.bounds(&mut sql);
    sql.statement(format!(
        "SELECT users.* FROM users WHERE id IN \
             (SELECT id FROM (SELECT id, lastname, firstname FROM users \
                  WHERE {matching} OFFSET 0) AS found{} \
              ORDER BY lastname, firstname, id {limit}) \
         ORDER BY lastname, firstname, id",
        past(position.as_deref(), " WHERE ", "")
    ))
}

/// PostgreSQL's condition for a text looked up whole: the index gives the
/// users holding every trigram of it, `LIKE` tests them.
pub(super) fn postgres_whole(sql: &mut Binder, pattern: &str) -> String {
    format!("search_text LIKE {} ESCAPE '\\'", sql.text(pattern))
}

/// PostgreSQL's condition for a text with rarer trigrams than others (see
/// [`Lookup::Rare`]): the index is asked only for the users holding the
/// rarest few (up to [`TRIGRAMS_ASKED`] patterns of one trigram each; a
/// repeated one is read once), and the whole text is tested with
/// `strpos`, which the index cannot answer, so the planner does not read
/// the lists of the common trigrams. Search texts and needles are folded
/// alike, so `strpos` is the matching rule.
///
/// [`Lookup::Rare`]: super::lookup::Lookup::Rare
pub(super) fn postgres_rare(sql: &mut Binder, rare: &[String], needle: &str) -> String {
    let mut tests: Vec<String> = (0..TRIGRAMS_ASKED)
        .map(|i| {
            let trigram = rare.get(i).or(rare.last()).map_or("", String::as_str);
            format!("search_text LIKE {}", sql.text(like_pattern(trigram)))
        })
        .collect();
    tests.push(format!("strpos(search_text, {}) > 0", sql.text(needle)));
    tests.join(" AND ")
}
