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
//!
//! A page read by cursor ([`after`]) takes the same steps, each bounded by
//! the cursor: only rows after the cursor's position, compared as row
//! values `(lastname, firstname, id) > (?, ?, ?)` in the order of the
//! listing index, so step 1 and the unfiltered listing are a range scan of
//! that index starting at the cursor, whatever page it points to. A page
//! asks for one row more than it shows, which tells whether more follow.

use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Text};
use diesel::sqlite::Sqlite;
use diesel::{QueryableByName, RunQueryDsl};
use kenning_domain::{Limit, Offset, SearchText, UserCursor};

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
///
/// On SQLite a text of more than [`TRIGRAMS_ASKED`] trigrams is first
/// narrowed ([`narrow`]): the index is asked for the users holding its
/// rarest few trigrams (a superset, tested with `LIKE`), which skips the
/// lists of trigrams everyone has (an address's shared domain). A shorter
/// text is asked for whole, as a phrase, which is exact, and the users
/// found are sorted from the index `users_search_row`, which holds the
/// listing order's columns, before any row is read.
const TRIGRAMS_SQLITE: &str = "SELECT users.* FROM users WHERE id IN \
         (SELECT id FROM users INDEXED BY users_search_row \
          WHERE search_row IN (SELECT rowid FROM users_search WHERE users_search MATCH ?) \
          ORDER BY lastname, firstname, id LIMIT ? OFFSET ?) \
     ORDER BY lastname, firstname, id";
const RARE_TRIGRAMS_SQLITE: &str = "SELECT users.* FROM users INDEXED BY users_search_row \
     WHERE search_row IN (SELECT rowid FROM users_search WHERE users_search MATCH ?) \
       AND search_text LIKE ? ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ? OFFSET ?";
const TRIGRAMS_POSTGRES: &str = "WITH found AS MATERIALIZED \
         (SELECT users.* FROM users WHERE search_text LIKE $1 ESCAPE '\\') \
     SELECT * FROM found ORDER BY lastname, firstname, id LIMIT $2 OFFSET $3";

/// The first users (at most [`SAMPLE`]) holding a trigram, in the order
/// of their `search_row`: how many, and the last one's number. A trigram
/// that few hold is counted exactly; for a common one, how far the sample
/// reached into the numbering tells how common it is.
const TRIGRAM_SAMPLE_SQLITE: &str = "SELECT count(*) AS users, coalesce(max(rowid), 0) AS reach \
     FROM (SELECT rowid FROM users_search WHERE users_search MATCH ? ORDER BY rowid LIMIT ?)";
/// The highest `search_row` given.
const NUMBERED_SQLITE: &str = "SELECT coalesce(max(search_row), 0) AS users FROM users";
/// The most users a trigram's sample reads.
const SAMPLE: i64 = 1_000;
/// The most trigrams of a text [`narrow`] counts.
const TRIGRAMS_COUNTED: usize = 24;
/// The most rare trigrams a narrowed look-up asks for.
const TRIGRAMS_ASKED: usize = 3;

/// Step 3: every row tested, in listing order.
const SCAN_SQLITE: &str = "SELECT users.* FROM users \
     WHERE search_text LIKE ? ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ? OFFSET ?";
const SCAN_POSTGRES: &str = "SELECT users.* FROM users \
     WHERE search_text LIKE $1 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT $2 OFFSET $3";

/// The cursor forms of the statements above: the same steps, each reading
/// only rows after the position bound first. SQLite's placeholders are
/// numbered so that the position comes first in every statement too.
const AFTER_ALL_SQLITE: &str = "SELECT users.* FROM users \
     WHERE (lastname, firstname, id) > (?1, ?2, ?3) \
     ORDER BY lastname, firstname, id LIMIT ?4";
const AFTER_ALL_POSTGRES: &str = "SELECT users.* FROM users \
     WHERE (lastname, firstname, id) > ($1, $2, $3) \
     ORDER BY lastname, firstname, id LIMIT $4";

const AFTER_HEAD_SQLITE: &str = "SELECT * FROM (SELECT users.* FROM users \
         WHERE (lastname, firstname, id) > (?1, ?2, ?3) \
         ORDER BY lastname, firstname, id LIMIT ?4) AS head \
     WHERE search_text LIKE ?5 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ?6";
const AFTER_HEAD_POSTGRES: &str = "SELECT * FROM (SELECT users.* FROM users \
         WHERE (lastname, firstname, id) > ($1, $2, $3) \
         ORDER BY lastname, firstname, id LIMIT $4) AS head \
     WHERE search_text LIKE $5 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT $6";

/// The position is tested on the users the trigram index found, never
/// used to reach them: a rare text is found through the index alone. On
/// SQLite, `users_search_row` holds the listing order's columns, so the
/// position is tested there before any row is read.
const AFTER_TRIGRAMS_SQLITE: &str = "SELECT users.* FROM users WHERE id IN \
         (SELECT id FROM users INDEXED BY users_search_row \
          WHERE search_row IN (SELECT rowid FROM users_search WHERE users_search MATCH ?4) \
            AND (lastname, firstname, id) > (?1, ?2, ?3) \
          ORDER BY lastname, firstname, id LIMIT ?5) \
     ORDER BY lastname, firstname, id";
const AFTER_RARE_TRIGRAMS_SQLITE: &str = "SELECT users.* FROM users INDEXED BY users_search_row \
     WHERE search_row IN (SELECT rowid FROM users_search WHERE users_search MATCH ?4) \
       AND (lastname, firstname, id) > (?1, ?2, ?3) \
       AND search_text LIKE ?5 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ?6";
const AFTER_TRIGRAMS_POSTGRES: &str = "WITH found AS MATERIALIZED \
         (SELECT users.* FROM users WHERE search_text LIKE $4 ESCAPE '\\') \
     SELECT * FROM found WHERE (lastname, firstname, id) > ($1, $2, $3) \
     ORDER BY lastname, firstname, id LIMIT $5";

const AFTER_SCAN_SQLITE: &str = "SELECT users.* FROM users \
     WHERE (lastname, firstname, id) > (?1, ?2, ?3) AND search_text LIKE ?4 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ?5";
const AFTER_SCAN_POSTGRES: &str = "SELECT users.* FROM users \
     WHERE (lastname, firstname, id) > ($1, $2, $3) AND search_text LIKE $4 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT $5";

fn pick(conn: &DbConnection, sqlite: &'static str, postgres: &'static str) -> &'static str {
    match conn {
        DbConnection::Sqlite(_) => sqlite,
        DbConnection::Postgres(_) => postgres,
    }
}

/// A value bound to a raw statement.
#[derive(Debug, Clone)]
pub(crate) enum Bind {
    Text(String),
    Int(i64),
}

/// A raw statement with its values, runnable on either backend.
#[derive(Debug, Clone)]
pub(crate) struct Statement {
    pub(crate) sql: String,
    pub(crate) binds: Vec<Bind>,
}

impl Statement {
    fn new(sql: &str, binds: Vec<Bind>) -> Self {
        Self {
            sql: sql.to_owned(),
            binds,
        }
    }

    /// Runs the statement and reads its rows by column name.
    pub(crate) fn load<T>(&self, conn: &mut DbConnection) -> diesel::QueryResult<Vec<T>>
    where
        T: QueryableByName<Sqlite> + QueryableByName<Pg> + 'static,
    {
        match conn {
            DbConnection::Sqlite(conn) => bound::<Sqlite>(self).load(conn),
            DbConnection::Postgres(conn) => bound::<Pg>(self).load(conn),
        }
    }

    /// Runs the statement; returns the number of rows it changed.
    pub(crate) fn execute(&self, conn: &mut DbConnection) -> diesel::QueryResult<usize> {
        match conn {
            DbConnection::Sqlite(conn) => bound::<Sqlite>(self).execute(conn),
            DbConnection::Postgres(conn) => bound::<Pg>(self).execute(conn),
        }
    }
}

/// `statement` with its values bound, for backend `DB`.
fn bound<DB>(statement: &Statement) -> BoxedSqlQuery<'_, DB, SqlQuery>
where
    DB: diesel::backend::Backend + diesel::sql_types::HasSqlType<Text>,
    DB: diesel::sql_types::HasSqlType<BigInt>,
    String: ToSql<Text, DB>,
    i64: ToSql<BigInt, DB>,
{
    let mut query = diesel::sql_query(statement.sql.as_str()).into_boxed::<DB>();
    for bind in &statement.binds {
        query = match bind {
            Bind::Text(value) => query.bind::<Text, _>(value.clone()),
            Bind::Int(value) => query.bind::<BigInt, _>(*value),
        };
    }
    query
}

/// The statements of one form of a search (by offset or by cursor), each
/// as SQLite's and PostgreSQL's.
struct Form {
    all: (&'static str, &'static str),
    head: (&'static str, &'static str),
    trigrams: (&'static str, &'static str),
    /// SQLite's trigram step once [`narrow`] found rare trigrams.
    rare_trigrams: &'static str,
    scan: (&'static str, &'static str),
}

const BY_OFFSET: Form = Form {
    all: (ALL_SQLITE, ALL_POSTGRES),
    head: (HEAD_SQLITE, HEAD_POSTGRES),
    trigrams: (TRIGRAMS_SQLITE, TRIGRAMS_POSTGRES),
    rare_trigrams: RARE_TRIGRAMS_SQLITE,
    scan: (SCAN_SQLITE, SCAN_POSTGRES),
};

const BY_CURSOR: Form = Form {
    all: (AFTER_ALL_SQLITE, AFTER_ALL_POSTGRES),
    head: (AFTER_HEAD_SQLITE, AFTER_HEAD_POSTGRES),
    trigrams: (AFTER_TRIGRAMS_SQLITE, AFTER_TRIGRAMS_POSTGRES),
    rare_trigrams: AFTER_RARE_TRIGRAMS_SQLITE,
    scan: (AFTER_SCAN_SQLITE, AFTER_SCAN_POSTGRES),
};

impl Form {
    /// The steps of this form for `needle` on the backend of `conn`, the
    /// head of the list `window` rows long; `with` puts the values that
    /// place the page (offset and limit, or position and rows) around each
    /// statement's own.
    fn steps(
        &self,
        conn: &DbConnection,
        needle: Option<&str>,
        window: i64,
        with: &dyn Fn(&[Bind]) -> Vec<Bind>,
    ) -> Vec<Statement> {
        let on = |(sqlite, postgres)| pick(conn, sqlite, postgres);
        let Some(needle) = needle else {
            return vec![Statement::new(on(self.all), with(&[]))];
        };
        let pattern = Bind::Text(like_pattern(needle));
        let head = Statement::new(on(self.head), with(&[Bind::Int(window), pattern.clone()]));
        let rest = if needle.chars().count() < TRIGRAM {
            Statement::new(on(self.scan), with(&[pattern]))
        } else {
            match conn {
                DbConnection::Sqlite(_) => {
                    Statement::new(self.trigrams.0, with(&[Bind::Text(fts_phrase(needle))]))
                }
                DbConnection::Postgres(_) => Statement::new(self.trigrams.1, with(&[pattern])),
            }
        };
        vec![head, rest]
    }

    /// Runs the steps in order until one fills all `rows` of the page.
    /// SQLite's trigram step, reached only when the head of the list did
    /// not fill the page, is narrowed first ([`narrow`]).
    fn search(
        &self,
        conn: &mut DbConnection,
        needle: Option<&str>,
        window: i64,
        rows: i64,
        with: &dyn Fn(&[Bind]) -> Vec<Bind>,
    ) -> diesel::QueryResult<Vec<UserRow>> {
        let narrowed = match (needle, &*conn) {
            (Some(needle), DbConnection::Sqlite(_)) if needle.chars().count() >= TRIGRAM => {
                Some(needle)
            }
            _ => None,
        };
        let mut found = Vec::new();
        for (i, step) in self
            .steps(conn, needle, window, with)
            .into_iter()
            .enumerate()
        {
            let step = match narrowed.filter(|_| i == 1) {
                Some(needle) => match narrow(conn, needle)? {
                    Narrowed::Nobody => return Ok(Vec::new()),
                    Narrowed::Rare(query) => Statement::new(
                        self.rare_trigrams,
                        with(&[Bind::Text(query), Bind::Text(like_pattern(needle))]),
                    ),
                    Narrowed::Whole => step,
                },
                None => step,
            };
            found = step.load::<UserRow>(conn)?;
            if found.len() as i64 == rows {
                break;
            }
        }
        Ok(found)
    }
}

/// The statements a search runs, in order, on the backend of `conn`; it
/// stops at the first that fills the page. `None` as the needle lists
/// everyone.
pub(crate) fn steps(
    conn: &DbConnection,
    needle: Option<&str>,
    offset: i64,
    limit: i64,
) -> Vec<Statement> {
    BY_OFFSET.steps(
        conn,
        needle,
        scan_window(offset, limit),
        &by_offset(offset, limit),
    )
}

/// Puts a statement's own values before the page's, offset and limit.
fn by_offset(offset: i64, limit: i64) -> impl Fn(&[Bind]) -> Vec<Bind> {
    move |own| [own, &[Bind::Int(limit), Bind::Int(offset)][..]].concat()
}

/// The position `after` as the first three values of a cursor statement:
/// from the start of the listing when `None`, as every row comes after the
/// empty names and the empty id.
fn position(after: Option<&UserCursor>) -> [Bind; 3] {
    let (last, first, id) = after.map_or_else(Default::default, |c| {
        (
            c.lastname().to_owned(),
            c.firstname().to_owned(),
            c.id().to_string(),
        )
    });
    [Bind::Text(last), Bind::Text(first), Bind::Text(id)]
}

/// The statements a search by cursor runs, in order, on the backend of
/// `conn`: [`steps`] for the `rows` after the position `after`.
pub(crate) fn steps_after(
    conn: &DbConnection,
    needle: Option<&str>,
    after: Option<&UserCursor>,
    rows: i64,
) -> Vec<Statement> {
    BY_CURSOR.steps(conn, needle, scan_window(0, rows), &by_cursor(after, rows))
}

/// Puts a statement's own values between the position and the rows.
fn by_cursor(after: Option<&UserCursor>, rows: i64) -> impl Fn(&[Bind]) -> Vec<Bind> {
    let from = position(after);
    move |own| [&from[..], own, &[Bind::Int(rows)]].concat()
}

/// The trigrams of `needle`, each once, in order.
fn trigrams(needle: &str) -> Vec<String> {
    let chars: Vec<char> = needle.chars().collect();
    let mut seen = Vec::new();
    for window in chars.windows(TRIGRAM) {
        let trigram: String = window.iter().collect();
        if !seen.contains(&trigram) {
            seen.push(trigram);
        }
    }
    seen
}

/// How [`narrow`] reads a text's trigrams.
enum Narrowed {
    /// One of them no user has: neither has anyone the text.
    Nobody,
    /// The FTS5 query of the rarest few, fewer than the text has: the
    /// users holding them all, a superset of the text's.
    Rare(String),
    /// The text has no more trigrams than a look-up asks for: ask for the
    /// whole text.
    Whole,
}

/// Estimates, from a sample of at most [`SAMPLE`] users each, how many
/// users hold each trigram of `needle` (at most [`TRIGRAMS_COUNTED`] of
/// them, spread over the text): reading a trigram's list stops at the
/// sample, so a common one costs little.
fn narrow(conn: &mut DbConnection, needle: &str) -> diesel::QueryResult<Narrowed> {
    #[derive(QueryableByName)]
    struct Sample {
        #[diesel(sql_type = BigInt)]
        users: i64,
        #[diesel(sql_type = BigInt)]
        reach: i64,
    }
    #[derive(QueryableByName)]
    struct Numbered {
        #[diesel(sql_type = BigInt)]
        users: i64,
    }
    let all = trigrams(needle);
    if all.len() <= TRIGRAMS_ASKED {
        return Ok(Narrowed::Whole);
    }
    let numbered = Statement::new(NUMBERED_SQLITE, Vec::new())
        .load::<Numbered>(conn)?
        .first()
        .map_or(0, |n| n.users);
    let step = all.len().div_ceil(TRIGRAMS_COUNTED).max(1);
    let mut estimated = Vec::new();
    for trigram in all.into_iter().step_by(step) {
        let sample = Statement::new(
            TRIGRAM_SAMPLE_SQLITE,
            vec![Bind::Text(fts_phrase(&trigram)), Bind::Int(SAMPLE)],
        )
        .load::<Sample>(conn)?;
        let Some(sample) = sample.first().filter(|s| s.users > 0) else {
            return Ok(Narrowed::Nobody);
        };
        let users = if sample.users < SAMPLE {
            sample.users
        } else {
            // SAMPLE holders among the first `reach` numbers.
            SAMPLE.saturating_mul(numbered) / sample.reach.max(1)
        };
        estimated.push((users, trigram));
    }
    estimated.sort();
    let asked: Vec<String> = estimated
        .iter()
        .take(TRIGRAMS_ASKED)
        .map(|(_, trigram)| fts_phrase(trigram))
        .collect();
    Ok(Narrowed::Rare(asked.join(" AND ")))
}

/// The page of users matching `text`, in listing order.
pub(crate) fn page(
    conn: &mut DbConnection,
    text: &SearchText,
    offset: Offset,
    limit: Limit,
) -> diesel::QueryResult<Vec<UserRow>> {
    let (offset, limit) = (i64::from(offset.get()), i64::from(limit.get()));
    let window = scan_window(offset, limit);
    BY_OFFSET.search(
        conn,
        text.needle(),
        window,
        limit,
        &by_offset(offset, limit),
    )
}

/// Up to `limit` users matching `text` after the position `after` (from
/// the start when `None`), in listing order, and one more when more
/// follow.
pub(crate) fn after(
    conn: &mut DbConnection,
    text: &SearchText,
    after: Option<&UserCursor>,
    limit: Limit,
) -> diesel::QueryResult<Vec<UserRow>> {
    let rows = i64::from(limit.get()) + 1;
    let window = scan_window(0, rows);
    BY_CURSOR.search(conn, text.needle(), window, rows, &by_cursor(after, rows))
}

#[cfg(test)]
mod tests {
    use super::{fts_phrase, like_pattern, trigrams};

    #[test]
    fn a_text_has_each_trigram_once() {
        assert_eq!(trigrams("ab"), Vec::<String>::new());
        assert_eq!(trigrams("zoë"), vec!["zoë"]);
        assert_eq!(trigrams("aaaa"), vec!["aaa"]);
        assert_eq!(trigrams("abcab"), vec!["abc", "bca", "cab"]);
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
