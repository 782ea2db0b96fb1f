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

use std::sync::Arc;

use kenning_domain::{Limit, Offset, SearchText, UserCursor};

use crate::connection::DbConnection;
use crate::location::Backend;
use crate::rows::UserRow;
use crate::sql::{Binder, Statement};
use crate::trigram_counts::{Estimates, TrigramCounts};
use crate::trigrams::{trigrams_at, TRIGRAM};

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

/// Where a page lies in the listing order: the values that place it,
/// bound around each statement's own. A page by cursor reads only the
/// rows after its position, whose values are bound first in every
/// statement.
#[derive(Debug, Clone, Copy)]
enum Page<'a> {
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
struct Bounds {
    /// The number of matches up to the end of the page: `limit + offset`
    /// by offset, the rows by cursor.
    through: String,
    /// The page's `LIMIT` (and `OFFSET`).
    limit: String,
}

impl Page<'_> {
    /// The rows the page reads.
    fn rows(self) -> i64 {
        match self {
            Page::Offset { limit, .. } => limit,
            Page::After { rows, .. } => rows,
        }
    }

    /// The length of the head of the list step 1 tests.
    fn window(self) -> i64 {
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
    fn position(self, sql: &mut Binder) -> Option<String> {
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
    fn bounds(self, sql: &mut Binder) -> Bounds {
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
fn past(position: Option<&str>, lead: &str, trail: &str) -> String {
    position.map_or_else(String::new, |position| {
        format!("{lead}(lastname, firstname, id) > {position}{trail}")
    })
}

/// The users from `position` on (from the start without one), in listing
/// order: a range of the listing index.
fn listing(position: Option<&str>) -> String {
    format!(
        "SELECT users.* FROM users{} ORDER BY lastname, firstname, id",
        past(position, " WHERE ", "")
    )
}

/// Every user (no search text), in listing order.
fn all(backend: Backend, page: Page) -> Statement {
    let mut sql = Binder::new(backend);
    let position = page.position(&mut sql);
    let Bounds { limit, .. } = page.bounds(&mut sql);
    sql.statement(format!("{} {limit}", listing(position.as_deref())))
}

/// Step 1: the matches of `pattern` among the first users of the page's
/// [`Page::window`].
fn head(backend: Backend, page: Page, pattern: &str) -> Statement {
    let mut sql = Binder::new(backend);
    let position = page.position(&mut sql);
    let window = sql.int(page.window());
    let pattern = sql.text(pattern);
    let Bounds { limit, .. } = page.bounds(&mut sql);
    sql.statement(format!(
        "SELECT * FROM ({} LIMIT {window}) AS head \
         WHERE search_text LIKE {pattern} ESCAPE '\\' \
         ORDER BY lastname, firstname, id {limit}",
        listing(position.as_deref())
    ))
}

/// Step 3: every row tested against `pattern`, in listing order.
fn scan(backend: Backend, page: Page, pattern: &str) -> Statement {
    let mut sql = Binder::new(backend);
    let position = page.position(&mut sql);
    let pattern = sql.text(pattern);
    let Bounds { limit, .. } = page.bounds(&mut sql);
    sql.statement(format!(
        "SELECT users.* FROM users WHERE {}search_text LIKE {pattern} ESCAPE '\\' \
         ORDER BY lastname, firstname, id {limit}",
        past(position.as_deref(), "", " AND ")
    ))
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
fn sqlite_trigrams(page: Page, text: String, pattern: Option<String>) -> Statement {
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

/// Step 2 on PostgreSQL: the users that `matching` (a condition on
/// `search_text`, written with the binder it is given) selects through the
/// `pg_trgm` index, sorted. Only the listing order's columns of the matches
/// are kept until the page is known, then its rows are read. The matches
/// are read in a subquery fenced with `OFFSET 0`, so that the planner
/// neither walks the listing index testing every row nor stores the
/// matches (a `MATERIALIZED` CTE wrote and read them again; what that
/// cost: docs/performance.md, "Measured choices in the code").
fn postgres_trigrams(page: Page, matching: impl FnOnce(&mut Binder) -> String) -> Statement {
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

/// The most rare trigrams a look-up by rare trigrams asks for.
const TRIGRAMS_ASKED: usize = 3;

/// A text whose rarest trigram is held by a smaller share of the users
/// than this is not looked for in the head of the list: the head is
/// [`scan_window`], 20 times the rows a page needs, so it would be
/// expected to hold fewer matches than the page, and the trigram index
/// finds so rare a text cheaply.
const HEAD_SHARE: f64 = 1.0 / 20.0;

/// A trigram beyond a text's rarest is asked for only when a smaller
/// share of the users than this holds it: reading the list of one that
/// nearly everyone holds (the mail domain's) costs more than testing the
/// few users the rarer ones leave.
const ASKED_SHARE: f64 = 1.0 / 20.0;

/// How the trigram step looks a text up.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lookup {
    /// The whole text: SQLite's phrase of its trigrams, when it has no
    /// more than [`TRIGRAMS_ASKED`]; PostgreSQL's `LIKE`, when no trigram
    /// of it is one the `pg_trgm` index holds as it is, or when each is
    /// one it holds and rarer than [`ASKED_SHARE`] (no list is worth
    /// leaving out, and one `LIKE` tests a match where the rarest
    /// trigrams' took three and `strpos`; measured in docs/performance.md,
    /// "Measured choices in the code").
    Whole,
    /// Its rarest trigrams, at most [`TRIGRAMS_ASKED`], and beyond the
    /// first only those rarer than [`ASKED_SHARE`]; those that overlap
    /// none asked before first (trigrams of one word that share characters
    /// are held by nearly the same users, so asking for both narrows
    /// little: `ler` and `lle` of "miller"), then the rarest of the rest
    /// (in a number, overlapping trigrams still narrow). The users holding
    /// them all, a superset, are tested against the whole text.
    Rare(Vec<String>),
}

/// A text's trigrams by estimated rarity, and how to look it up.
struct Plan {
    /// Whether the head of the list is worth testing first.
    head: bool,
    lookup: Lookup,
}

/// Whether `pg_trgm` indexes `trigram` as it is: it splits texts into
/// words of letters and digits (of the database's locale; ASCII ones are
/// such in every locale) and indexes the trigrams of each word.
fn indexed_by_pg_trgm(trigram: &str) -> bool {
    trigram.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The trigram index of a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TrigramIndex {
    /// SQLite's FTS5 table: any trigram, and a phrase of them.
    Fts5,
    /// PostgreSQL's `pg_trgm`: only trigrams of letters and digits.
    PgTrgm,
}

impl TrigramIndex {
    fn of(backend: Backend) -> Self {
        match backend {
            Backend::Sqlite => Self::Fts5,
            Backend::Postgres => Self::PgTrgm,
        }
    }
}

/// How `needle` (three characters or more) is best read through `index`,
/// given how common each of its trigrams is.
fn plan(index: TrigramIndex, needle: &str, estimates: &Estimates) -> Plan {
    let mut ranked: Vec<(f64, usize, String)> = trigrams_at(needle)
        .into_iter()
        .map(|(at, t)| (estimates.share(&t), at, t))
        .collect();
    let whole = ranked.len();
    let all_rare_in_pg_trgm = ranked
        .iter()
        .all(|(share, _, t)| indexed_by_pg_trgm(t) && *share < ASKED_SHARE);
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    let head = ranked
        .first()
        .is_none_or(|(share, _, _)| *share >= HEAD_SHARE);
    let rare: Vec<(usize, String)> = ranked
        .into_iter()
        .filter(|(_, _, t)| index == TrigramIndex::Fts5 || indexed_by_pg_trgm(t))
        .enumerate()
        .take_while(|(i, (share, _, _))| *i == 0 || *share < ASKED_SHARE)
        .map(|(_, (_, at, t))| (at, t))
        .collect();
    // First the rarest that overlap none asked before, then the rarest of
    // the rest in the places left.
    let mut asked: Vec<&(usize, String)> = Vec::new();
    for trigram in &rare {
        let apart = asked
            .iter()
            .all(|(other, _)| trigram.0.abs_diff(*other) >= TRIGRAM);
        if apart && asked.len() < TRIGRAMS_ASKED {
            asked.push(trigram);
        }
    }
    for trigram in &rare {
        if !asked.contains(&trigram) && asked.len() < TRIGRAMS_ASKED {
            asked.push(trigram);
        }
    }
    let askable: Vec<String> = asked.into_iter().map(|(_, t)| t.clone()).collect();
    let lookup = match index {
        TrigramIndex::Fts5 if whole <= TRIGRAMS_ASKED => Lookup::Whole,
        TrigramIndex::PgTrgm if all_rare_in_pg_trgm => Lookup::Whole,
        _ if askable.is_empty() => Lookup::Whole,
        _ => Lookup::Rare(askable),
    };
    Plan { head, lookup }
}

/// PostgreSQL's condition for a text looked up whole: the index gives the
/// users holding every trigram of it, `LIKE` tests them.
fn postgres_whole(sql: &mut Binder, pattern: &str) -> String {
    format!("search_text LIKE {} ESCAPE '\\'", sql.text(pattern))
}

/// PostgreSQL's condition for a text with rarer trigrams than others (see
/// [`Lookup::Rare`]): the index is asked only for the users holding the
/// rarest few (up to [`TRIGRAMS_ASKED`] patterns of one trigram each; a
/// repeated one is read once), and the whole text is tested with
/// `strpos`, which the index cannot answer, so the planner does not read
/// the lists of the common trigrams. Search texts and needles are folded
/// alike, so `strpos` is the matching rule.
fn postgres_rare(sql: &mut Binder, rare: &[String], needle: &str) -> String {
    let mut tests: Vec<String> = (0..TRIGRAMS_ASKED)
        .map(|i| {
            let trigram = rare.get(i).or(rare.last()).map_or("", String::as_str);
            format!("search_text LIKE {}", sql.text(like_pattern(trigram)))
        })
        .collect();
    tests.push(format!("strpos(search_text, {}) > 0", sql.text(needle)));
    tests.join(" AND ")
}

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

#[cfg(test)]
mod tests {
    use super::{fts_phrase, like_pattern, plan, Lookup, TrigramIndex};
    use crate::trigram_counts::Estimates;

    /// Users at one mail domain, with numbered addresses.
    fn directory() -> Estimates {
        let texts: Vec<String> = (0..1_000)
            .map(|n| format!("ada.{n}@example.com\ne{n}\nada l{n}"))
            .collect();
        Estimates::of(texts.iter().map(String::as_str))
    }

    #[test]
    fn an_address_is_looked_up_by_its_rarest_trigrams() {
        let estimates = directory();
        for index in [TrigramIndex::Fts5, TrigramIndex::PgTrgm] {
            let plan = plan(index, "ada.417@example.com", &estimates);
            assert!(!plan.head, "too rare to fill a page at the head");
            let Lookup::Rare(asked) = plan.lookup else {
                panic!("looked up whole");
            };
            if index == TrigramIndex::Fts5 {
                // ".41" and "17@" overlap "417" and fill the places
                // left: no rare trigram lies apart from it ("@ex" is
                // everyone's).
                assert_eq!(asked, ["417", "17@", ".41"]);
            } else {
                assert_eq!(asked, ["417"], "pg_trgm holds no trigram with . or @");
            }
        }
    }

    #[test]
    fn trigrams_apart_are_asked_first() {
        // "abc", "bcd" and "cde" are rarest but held by the same users;
        // "xyz", further on, is rarer than 1 in 20 too.
        let texts: Vec<&str> = [("abcde", 10), ("xyz", 20), ("defxy", 100), ("qqqq", 870)]
            .into_iter()
            .flat_map(|(text, users)| std::iter::repeat_n(text, users))
            .collect();
        let estimates = Estimates::of(texts);
        for index in [TrigramIndex::Fts5, TrigramIndex::PgTrgm] {
            let Lookup::Rare(asked) = plan(index, "abcdefxyz", &estimates).lookup else {
                panic!("looked up whole");
            };
            assert_eq!(asked, ["abc", "xyz", "bcd"]);
        }
    }

    #[test]
    fn a_common_text_is_looked_for_at_the_head_first() {
        let estimates = directory();
        assert!(plan(TrigramIndex::Fts5, "example.com", &estimates).head);
        assert!(plan(TrigramIndex::PgTrgm, "ada", &Estimates::default()).head);
    }

    #[test]
    fn a_short_or_unindexed_text_is_looked_up_whole() {
        let estimates = directory();
        let whole = |index, text| plan(index, text, &estimates).lookup == Lookup::Whole;
        assert!(whole(TrigramIndex::Fts5, "l417"));
        assert!(whole(TrigramIndex::PgTrgm, "x_%1"));
        // Every trigram rare and held by pg_trgm: no list to leave out.
        assert!(whole(TrigramIndex::PgTrgm, "l417"));
        // "ada" is everyone's: its lists are left out.
        assert!(!whole(TrigramIndex::PgTrgm, "ada417"));
    }

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
