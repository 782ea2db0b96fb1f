//! The plans the database chooses for the statements whose cost could
//! grow with the directory, so that a test and an operator can check that
//! they read indexes: the look-up of an upload's person by e-mail, the read
//! of a topic's best standings, each step of a search by offset and by
//! cursor, and filters. The contract suite asserts on both backends that
//! they do.

use diesel::sql_types::Text;
use diesel::QueryableByName;
use kenning_domain::{Email, ExternalId, UserKey};
use kenning_ports::StoreError;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::expertise::{learning_user, BestRows};
use crate::search::{steps, steps_after};
use crate::sql::Statement;
use crate::trigram_counts::Estimates;

/// A whole e-mail address, as a search text in the plans: a text with
/// rare trigrams (its digits) and common ones (its domain).
const ADDRESS: &str = "someone.12345@example.com";

/// How the database runs one statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryPlan {
    /// What the statement is for.
    pub statement: &'static str,
    /// The plan, one step a line, as the database prints it (SQLite's
    /// `EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN`).
    pub plan: String,
}

/// A line of SQLite's `EXPLAIN QUERY PLAN`.
#[derive(QueryableByName)]
struct SqliteStep {
    #[diesel(sql_type = Text)]
    detail: String,
}

/// A line of PostgreSQL's `EXPLAIN`.
#[derive(QueryableByName)]
struct PostgresStep {
    #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
    line: String,
}

fn explain(conn: &mut DbConnection, statement: &Statement) -> diesel::QueryResult<String> {
    let lines = match conn {
        DbConnection::Sqlite(_) => statement
            .prefixed("EXPLAIN QUERY PLAN")
            .load::<SqliteStep>(conn)?
            .into_iter()
            .map(|s| s.detail)
            .collect::<Vec<_>>(),
        DbConnection::Postgres(_) => statement
            .prefixed("EXPLAIN")
            .load::<PostgresStep>(conn)?
            .into_iter()
            .map(|s| s.line)
            .collect(),
    };
    Ok(lines.join("\n"))
}

/// A statement whose plan is shown, with what it is for; `None` when it
/// could not be written with the sample values.
type Named = (&'static str, Option<Statement>);

/// The steps of a search, each named (see the search module's design): a
/// common text's first page ("smith"), a whole e-mail address, a
/// two-character text ("zq") and the listing without a text; and the same
/// read by cursor (from the start of the listing, where the position
/// excludes nothing). A text's rarity is read from `estimates`.
fn search_steps(conn: &DbConnection, estimates: &Estimates) -> Vec<Named> {
    // Unknown rarity keeps the head of the list in the plan; the trigram
    // step is always a search's last.
    let unknown = Estimates::default();
    let head = steps(conn, Some("smith"), &unknown, 0, 20);
    let smith = steps(conn, Some("smith"), estimates, 0, 20);
    let address = steps(conn, Some(ADDRESS), estimates, 0, 20);
    let short = steps(conn, Some("zq"), estimates, 0, 20);
    let all = steps(conn, None, estimates, 0, 20);
    let head_after = steps_after(conn, Some("smith"), &unknown, None, 21);
    let smith_after = steps_after(conn, Some("smith"), estimates, None, 21);
    let address_after = steps_after(conn, Some(ADDRESS), estimates, None, 21);
    let all_after = steps_after(conn, None, estimates, None, 21);
    vec![
        (
            "search, step 1: the head of the list",
            head.first().cloned(),
        ),
        ("search, step 2: the trigram index", smith.last().cloned()),
        (
            "search, step 2 for a whole e-mail address: its rarest trigrams",
            address.last().cloned(),
        ),
        (
            "search, step 3: a one- or two-character text",
            short.get(1).cloned(),
        ),
        ("listing without a search text", all.first().cloned()),
        (
            "by cursor, search step 1: the head of the list",
            head_after.first().cloned(),
        ),
        (
            "by cursor, search step 2: the trigram index",
            smith_after.last().cloned(),
        ),
        (
            "by cursor, search step 2 for a whole e-mail address: its rarest trigrams",
            address_after.last().cloned(),
        ),
        (
            "by cursor, listing without a search text",
            all_after.first().cloned(),
        ),
    ]
}

/// The filters on a unique attribute, each named.
fn filters(conn: &DbConnection) -> Vec<Named> {
    let equal = |attribute, value: &str| {
        kenning_domain::Comparison::new(
            attribute,
            kenning_domain::FilterOperator::Equal,
            kenning_domain::FilterValue::Text(value.to_owned()),
        )
        .map(kenning_domain::UserFilter::Compare)
        .ok()
        .map(|f| crate::filter::page_statement(conn, Some(&f), 0, 100))
    };
    vec![
        (
            "filter: userName eq",
            equal(kenning_domain::FilterAttribute::UserName, ADDRESS),
        ),
        (
            "filter: emails.value eq",
            equal(kenning_domain::FilterAttribute::Email, ADDRESS),
        ),
        (
            "filter: externalId eq",
            equal(kenning_domain::FilterAttribute::ExternalId, "emp-1"),
        ),
    ]
}

impl Database {
    /// The plans the database chooses now, with sample values, for the
    /// look-up every upload makes (its user by e-mail), the read of the
    /// best standings on a topic that `experts` makes per query topic, and
    /// for each step of a search (see the search module's design) and the
    /// filters on a unique attribute. The plans depend on the statistics the database
    /// holds (SQLite's `ANALYZE`, PostgreSQL's autovacuum).
    pub fn query_plans(&self) -> Result<Vec<QueryPlan>, StoreError> {
        let counts = self.trigram_counts();
        let sample = |v: kenning_domain::FieldViolation| StoreError::backend_message(v.to_string());
        let exact_email_key = UserKey::Email(Email::parse(ADDRESS).map_err(sample)?);
        let exact_external_key = UserKey::ExternalId(ExternalId::parse("emp-1").map_err(sample)?);
        let plans = self.read(|conn| {
            let estimates = counts.estimates(conn)?;
            let mut named: Vec<Named> = vec![
                (
                    "upload: the user named by e-mail",
                    Some(learning_user(conn, "someone@example.com")),
                ),
                (
                    "userByEmail",
                    Some(crate::users::by_key_statement(conn, &exact_email_key)),
                ),
                (
                    "userByExternalId",
                    Some(crate::users::by_key_statement(conn, &exact_external_key)),
                ),
                (
                    "experts: the best standings on a topic",
                    BestRows::Standings
                        .statements(conn, &["rust".to_owned()], 300, None)
                        .pop(),
                ),
            ];
            named.extend(search_steps(conn, &estimates));
            named.extend(filters(conn));
            let mut plans = Vec::new();
            for (statement, sql) in named {
                if let Some(sql) = sql {
                    plans.push(QueryPlan {
                        statement,
                        plan: explain(conn, &sql)?,
                    });
                }
            }
            diesel::QueryResult::Ok(plans)
        })?;
        Ok(plans)
    }
}
