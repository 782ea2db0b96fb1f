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
//!    ([`HEAD_SHARE`], by the estimates of [`crate::rarity`]) skips it.
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

use std::sync::Arc;

use kenning_domain::{Limit, Offset, SearchText, UserCursor};

use crate::connection::DbConnection;
use crate::rarity::{Estimates, Rarity};
use crate::rows::UserRow;
use crate::sql::{Bind, Statement};
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

/// The rest of the listing group (see [`TRIGRAMS_SQLITE`]) of the last row
/// of CTE `head`, the matches of `$text` after it, as CTE `tail`: read
/// only when `head` holds `$full` rows (when it holds fewer, it holds
/// every match). A group is a row number's bits above the low 21.
macro_rules! group_tail {
    ($full:literal, $text:literal) => {
        concat!(
            "tail AS (SELECT rowid AS r \
                 FROM (SELECT 1 WHERE (SELECT count(*) FROM head) = ",
            $full,
            ") AS full \
                 CROSS JOIN users_search WHERE users_search MATCH ",
            $text,
            " AND rowid > (SELECT max(r) FROM head) \
                 AND rowid < (((SELECT max(r) FROM head) >> 21) + 1) << 21) "
        )
    };
}

/// CTEs `first` and `head` of a page by cursor. `first` is the first row
/// number of the listing group of the first user after the position
/// `(?1, ?2, ?3)` (past every number when nobody follows): no earlier
/// group holds a user after the position. `head` is the first `$rows`
/// matches of `?4` from there, in row-number order, that come after the
/// position and meet `$also`; the position is tested on
/// `users_search_row`, which holds the listing order's columns.
macro_rules! head_after_position {
    ($also:literal, $rows:literal) => {
        concat!(
            "WITH first (above) AS (SELECT coalesce( \
                 (SELECT (search_row >> 21) << 21 FROM users INDEXED BY users_listing \
                  WHERE (lastname, firstname, id) > (?1, ?2, ?3) \
                  ORDER BY lastname, firstname, id LIMIT 1), \
                 9223372036854775807)), \
             head AS MATERIALIZED \
                 (SELECT found.rowid AS r FROM users_search AS found \
                    CROSS JOIN users INDEXED BY users_search_row \
                      ON users.search_row = found.rowid \
                  WHERE found.users_search MATCH ?4 \
                    AND found.rowid >= (SELECT above FROM first) \
                    AND (users.lastname, users.firstname, users.id) > (?1, ?2, ?3) ",
            $also,
            " ORDER BY found.rowid LIMIT ",
            $rows,
            "), "
        )
    };
}

/// Step 2: the matches the trigram index finds, sorted. SQLite is told to
/// reach users through the index of the trigram table's rowids, so that
/// its planner cannot walk the listing index and probe every row instead;
/// the CTE keeps PostgreSQL's planner from doing the same.
///
/// On SQLite a text of more than [`TRIGRAMS_ASKED`] trigrams is looked
/// up by its rarest few ([`Lookup::Rare`], by the estimates of
/// [`crate::rarity`]): the index is asked for the users holding them all
/// (a superset, tested with `LIKE`), which skips the lists of trigrams
/// everyone has (an address's shared domain). A shorter text is asked for
/// whole, as a phrase, which is exact, and the users found are sorted from
/// the index `users_search_row`, which holds the listing order's columns,
/// before any row is read.
///
/// SQLite's trigram index numbers its rows in listing groups that follow
/// the listing order (the high bits of a row number, above the low 21; see
/// the migration `search_listing_order`), and gives its matches in
/// row-number order. So the page lies among the first `offset + limit`
/// matches the index gives (CTE `head`) and the rest of the last one's
/// group (CTE `tail`, read only when `head` is `full`): no match of a later
/// group can be on the page. Only those are sorted, however many users
/// match: a common surname's first page costs about one group, and a rare
/// text, fewer matches than `head` takes, is read once.
const TRIGRAMS_SQLITE: &str = concat!(
    "WITH head AS MATERIALIZED \
         (SELECT rowid AS r FROM users_search WHERE users_search MATCH ?1 \
          ORDER BY rowid LIMIT ?2 + ?3), ",
    group_tail!("?2 + ?3", "?1"),
    "SELECT users.* FROM users WHERE id IN \
         (SELECT id FROM users INDEXED BY users_search_row \
          WHERE search_row IN (SELECT r FROM head UNION ALL SELECT r FROM tail) \
          ORDER BY lastname, firstname, id LIMIT ?2 OFFSET ?3) \
     ORDER BY lastname, firstname, id"
);
/// A look-up by rare trigrams finds a superset: `head` keeps the users
/// among it that hold the whole text.
const RARE_TRIGRAMS_SQLITE: &str = concat!(
    "WITH head AS MATERIALIZED \
         (SELECT found.rowid AS r FROM users_search AS found \
            CROSS JOIN users INDEXED BY users_search_row ON users.search_row = found.rowid \
          WHERE found.users_search MATCH ?1 AND users.search_text LIKE ?2 ESCAPE '\\' \
          ORDER BY found.rowid LIMIT ?3 + ?4), ",
    group_tail!("?3 + ?4", "?1"),
    "SELECT users.* FROM users INDEXED BY users_search_row \
     WHERE search_row IN (SELECT r FROM head UNION ALL SELECT r FROM tail) \
       AND search_text LIKE ?2 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ?3 OFFSET ?4"
);
/// PostgreSQL's trigram step for a text looked up whole: the index gives
/// the users holding every trigram of it, `LIKE` tests them. Only the
/// listing order's columns of the matches are kept until the page is
/// known, then its rows are read. The matches are read in a subquery
/// fenced with `OFFSET 0`, so that the planner neither walks the listing
/// index testing every row nor stores the matches (a `MATERIALIZED` CTE
/// wrote and read them again: 6 ms of a common surname's 25 at a million
/// users).
const TRIGRAMS_POSTGRES: &str = "SELECT users.* FROM users WHERE id IN \
         (SELECT id FROM (SELECT id, lastname, firstname FROM users \
              WHERE search_text LIKE $1 ESCAPE '\\' OFFSET 0) AS found \
          ORDER BY lastname, firstname, id LIMIT $2 OFFSET $3) \
     ORDER BY lastname, firstname, id";
/// PostgreSQL's trigram step for a text with rarer trigrams than others
/// (see [`Lookup::Rare`]): the index is asked only for the users holding
/// the rarest few (up to [`TRIGRAMS_ASKED`] patterns of one trigram each;
/// a repeated one is read once), and the whole text is tested with
/// `strpos`, which the index cannot answer, so the planner does not read
/// the lists of the common trigrams. Search texts and needles are folded
/// alike, so `strpos` is the matching rule. As [`TRIGRAMS_POSTGRES`],
/// only the listing order's columns are kept until the page is known.
const RARE_TRIGRAMS_POSTGRES: &str = "SELECT users.* FROM users WHERE id IN \
         (SELECT id FROM (SELECT id, lastname, firstname FROM users \
              WHERE search_text LIKE $1 AND search_text LIKE $2 AND search_text LIKE $3 \
                AND strpos(search_text, $4) > 0 OFFSET 0) AS found \
          ORDER BY lastname, firstname, id LIMIT $5 OFFSET $6) \
     ORDER BY lastname, firstname, id";

/// The most rare trigrams a look-up by rare trigrams asks for.
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

/// By cursor, the trigram index is read from the group of the first user
/// after the position, and the page lies among the first `rows` matches
/// after it and the rest of the last one's group
/// ([`head_after_position`], [`group_tail`]).
const AFTER_TRIGRAMS_SQLITE: &str = concat!(
    head_after_position!("", "?5"),
    group_tail!("?5", "?4"),
    "SELECT users.* FROM users WHERE id IN \
         (SELECT id FROM users INDEXED BY users_search_row \
          WHERE search_row IN (SELECT r FROM head UNION ALL SELECT r FROM tail) \
            AND (lastname, firstname, id) > (?1, ?2, ?3) \
          ORDER BY lastname, firstname, id LIMIT ?5) \
     ORDER BY lastname, firstname, id"
);
const AFTER_RARE_TRIGRAMS_SQLITE: &str = concat!(
    head_after_position!("AND users.search_text LIKE ?5 ESCAPE '\\'", "?6"),
    group_tail!("?6", "?4"),
    "SELECT users.* FROM users INDEXED BY users_search_row \
     WHERE search_row IN (SELECT r FROM head UNION ALL SELECT r FROM tail) \
       AND (lastname, firstname, id) > (?1, ?2, ?3) \
       AND search_text LIKE ?5 ESCAPE '\\' \
     ORDER BY lastname, firstname, id LIMIT ?6"
);
const AFTER_TRIGRAMS_POSTGRES: &str = "SELECT users.* FROM users WHERE id IN \
         (SELECT id FROM (SELECT id, lastname, firstname FROM users \
              WHERE search_text LIKE $4 ESCAPE '\\' OFFSET 0) AS found \
          WHERE (lastname, firstname, id) > ($1, $2, $3) \
          ORDER BY lastname, firstname, id LIMIT $5) \
     ORDER BY lastname, firstname, id";
const AFTER_RARE_TRIGRAMS_POSTGRES: &str = "SELECT users.* FROM users WHERE id IN \
         (SELECT id FROM (SELECT id, lastname, firstname FROM users \
              WHERE search_text LIKE $4 AND search_text LIKE $5 AND search_text LIKE $6 \
                AND strpos(search_text, $7) > 0 OFFSET 0) AS found \
          WHERE (lastname, firstname, id) > ($1, $2, $3) \
          ORDER BY lastname, firstname, id LIMIT $8) \
     ORDER BY lastname, firstname, id";

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

/// The statements of one form of a search (by offset or by cursor), each
/// as SQLite's and PostgreSQL's.
struct Form {
    all: (&'static str, &'static str),
    head: (&'static str, &'static str),
    trigrams: (&'static str, &'static str),
    /// The trigram step asking for the rarest trigrams ([`Lookup::Rare`]).
    rare_trigrams: (&'static str, &'static str),
    scan: (&'static str, &'static str),
}

const BY_OFFSET: Form = Form {
    all: (ALL_SQLITE, ALL_POSTGRES),
    head: (HEAD_SQLITE, HEAD_POSTGRES),
    trigrams: (TRIGRAMS_SQLITE, TRIGRAMS_POSTGRES),
    rare_trigrams: (RARE_TRIGRAMS_SQLITE, RARE_TRIGRAMS_POSTGRES),
    scan: (SCAN_SQLITE, SCAN_POSTGRES),
};

const BY_CURSOR: Form = Form {
    all: (AFTER_ALL_SQLITE, AFTER_ALL_POSTGRES),
    head: (AFTER_HEAD_SQLITE, AFTER_HEAD_POSTGRES),
    trigrams: (AFTER_TRIGRAMS_SQLITE, AFTER_TRIGRAMS_POSTGRES),
    rare_trigrams: (AFTER_RARE_TRIGRAMS_SQLITE, AFTER_RARE_TRIGRAMS_POSTGRES),
    scan: (AFTER_SCAN_SQLITE, AFTER_SCAN_POSTGRES),
};

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
    /// trigrams' took three and `strpos`: 18 ms against 25 for a common
    /// surname's 21,600 matches at a million users).
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
    fn of(conn: &DbConnection) -> Self {
        match conn {
            DbConnection::Sqlite(_) => Self::Fts5,
            DbConnection::Postgres(_) => Self::PgTrgm,
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

impl Form {
    /// The steps of this form for `needle` on the backend of `conn`, the
    /// head of the list `window` rows long; `with` puts the values that
    /// place the page (offset and limit, or position and rows) around each
    /// statement's own. A text of three characters or more is planned with
    /// `estimates` ([`plan`]).
    fn steps(
        &self,
        conn: &DbConnection,
        needle: Option<&str>,
        estimates: &Estimates,
        window: i64,
        with: &dyn Fn(&[Bind]) -> Vec<Bind>,
    ) -> Vec<Statement> {
        let on = |(sqlite, postgres)| pick(conn, sqlite, postgres);
        let Some(needle) = needle else {
            return vec![Statement::new(on(self.all), with(&[]))];
        };
        let pattern = Bind::Text(like_pattern(needle));
        let head = Statement::new(on(self.head), with(&[Bind::Int(window), pattern.clone()]));
        if needle.chars().count() < TRIGRAM {
            return vec![head, Statement::new(on(self.scan), with(&[pattern]))];
        }
        let plan = plan(TrigramIndex::of(conn), needle, estimates);
        let trigrams = match (&plan.lookup, conn) {
            (Lookup::Whole, DbConnection::Sqlite(_)) => {
                Statement::new(self.trigrams.0, with(&[Bind::Text(fts_phrase(needle))]))
            }
            (Lookup::Whole, DbConnection::Postgres(_)) => {
                Statement::new(self.trigrams.1, with(&[pattern]))
            }
            (Lookup::Rare(rare), DbConnection::Sqlite(_)) => {
                let asked: Vec<String> = rare.iter().map(|t| fts_phrase(t)).collect();
                Statement::new(
                    self.rare_trigrams.0,
                    with(&[Bind::Text(asked.join(" AND ")), pattern]),
                )
            }
            (Lookup::Rare(rare), DbConnection::Postgres(_)) => {
                let mut own: Vec<Bind> = (0..TRIGRAMS_ASKED)
                    .map(|i| {
                        let trigram = rare.get(i).or(rare.last()).map_or("", String::as_str);
                        Bind::Text(like_pattern(trigram))
                    })
                    .collect();
                own.push(Bind::Text(needle.to_owned()));
                Statement::new(self.rare_trigrams.1, with(&own))
            }
        };
        if plan.head {
            vec![head, trigrams]
        } else {
            vec![trigrams]
        }
    }

    /// Runs the steps in order until one fills all `rows` of the page.
    fn search(
        &self,
        conn: &mut DbConnection,
        rarity: &Rarity,
        needle: Option<&str>,
        window: i64,
        rows: i64,
        with: &dyn Fn(&[Bind]) -> Vec<Bind>,
    ) -> diesel::QueryResult<Vec<UserRow>> {
        let estimates = match needle {
            Some(needle) if needle.chars().count() >= TRIGRAM => rarity.estimates(conn)?,
            _ => Arc::default(),
        };
        let mut found = Vec::new();
        for step in self.steps(conn, needle, &estimates, window, with) {
            found = step.load::<UserRow>(conn)?;
            if found.len() as i64 == rows {
                break;
            }
        }
        Ok(found)
    }
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
    BY_OFFSET.steps(
        conn,
        needle,
        estimates,
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
    estimates: &Estimates,
    after: Option<&UserCursor>,
    rows: i64,
) -> Vec<Statement> {
    BY_CURSOR.steps(
        conn,
        needle,
        estimates,
        scan_window(0, rows),
        &by_cursor(after, rows),
    )
}

/// Puts a statement's own values between the position and the rows.
fn by_cursor(after: Option<&UserCursor>, rows: i64) -> impl Fn(&[Bind]) -> Vec<Bind> {
    let from = position(after);
    move |own| [&from[..], own, &[Bind::Int(rows)]].concat()
}

/// The page of users matching `text`, in listing order.
pub(crate) fn page(
    conn: &mut DbConnection,
    rarity: &Rarity,
    text: &SearchText,
    offset: Offset,
    limit: Limit,
) -> diesel::QueryResult<Vec<UserRow>> {
    let (offset, limit) = (i64::from(offset.get()), i64::from(limit.get()));
    let window = scan_window(offset, limit);
    BY_OFFSET.search(
        conn,
        rarity,
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
    rarity: &Rarity,
    text: &SearchText,
    after: Option<&UserCursor>,
    limit: Limit,
) -> diesel::QueryResult<Vec<UserRow>> {
    let rows = i64::from(limit.get()) + 1;
    let window = scan_window(0, rows);
    BY_CURSOR.search(
        conn,
        rarity,
        text.needle(),
        window,
        rows,
        &by_cursor(after, rows),
    )
}

#[cfg(test)]
mod tests {
    use super::{fts_phrase, like_pattern, plan, Lookup, TrigramIndex};
    use crate::rarity::Estimates;

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
