//! A [`UserFilter`] as SQL, the same rule as [`UserFilter::matches`] on
//! either backend.
//!
//! Every comparison is written so that it is true or false, never NULL (a
//! missing externalId is unequal to any value and contains nothing), so
//! `NOT` means what the filter says. Text that ignores case is compared
//! folded as the domain folds it: the e-mail address and the user name
//! through their stored keys (`email_key`, `user_name_key`, so an equality
//! reads the unique indexes; a user without a user name shows its e-mail
//! address as one), first and last names through
//! `kenning_fold` on SQLite (the domain's own folding, registered on every
//! connection) and `lower` on PostgreSQL (the same for the letters of the
//! database's locale). Substrings are found with `instr`/`strpos`, not
//! `LIKE`, so `%` and `_` are plain characters and case counts where it
//! should.

use diesel::sql_types::BigInt;
use diesel::QueryableByName;
use kenning_domain::{
    Comparison, Email, FilterAttribute, FilterOperator, FilterValue, Status, UserFilter,
};

use crate::connection::DbConnection;
use crate::location::Backend;
use crate::rows::{to_db_time, UserRow};
use crate::sql::{Bind, Binder, Statement};

/// A filter as the SQL of one backend, its values bound as it is written.
struct Sql {
    binder: Binder,
}

impl Sql {
    fn sqlite(&self) -> bool {
        self.binder.backend() == Backend::Sqlite
    }

    fn condition(&mut self, filter: &UserFilter) -> String {
        match filter {
            UserFilter::Compare(c) => self.comparison(c),
            UserFilter::Present(FilterAttribute::ExternalId) => {
                "(external_id IS NOT NULL)".to_owned()
            }
            UserFilter::Present(_) => "(1 = 1)".to_owned(),
            UserFilter::And(a, b) => format!("({} AND {})", self.condition(a), self.condition(b)),
            UserFilter::Or(a, b) => format!("({} OR {})", self.condition(a), self.condition(b)),
            UserFilter::Not(a) => format!("(NOT {})", self.condition(a)),
        }
    }

    fn comparison(&mut self, c: &Comparison) -> String {
        use FilterOperator as Op;
        let negated = c.operator() == Op::NotEqual;
        match c.value() {
            FilterValue::Bool(active) => {
                let wanted = if *active == negated {
                    Status::DEACTIVATED
                } else {
                    Status::ACTIVE
                };
                format!("(status = '{wanted}')")
            }
            FilterValue::Moment(moment) => {
                let op = match c.operator() {
                    Op::Equal => "=",
                    Op::NotEqual => "<>",
                    Op::GreaterThan => ">",
                    Op::GreaterOrEqual => ">=",
                    Op::LessThan => "<",
                    _ => "<=",
                };
                let at = self.binder.bind(Bind::Moment(to_db_time(*moment)));
                format!("(COALESCE(modified, created) {op} {at})")
            }
            FilterValue::Text(wanted) if c.attribute() == FilterAttribute::UserName => {
                // Equality reads the two unique indexes; the rest compares
                // the name a user shows.
                let key = Email::fold(wanted);
                let test = if matches!(c.operator(), Op::Equal | Op::NotEqual) {
                    // One look-up in each unique index (their own
                    // condition stated), whatever the planner makes of OR.
                    let (name, email) = (self.binder.text(&key), self.binder.text(&key));
                    let live = format!("status <> '{}'", Status::DELETED);
                    format!(
                        "id IN (SELECT id FROM users WHERE {live} AND user_name_key = {name} \
                         UNION ALL SELECT id FROM users WHERE {live} AND user_name_key IS NULL \
                         AND email_key = {email})"
                    )
                } else {
                    self.text_test("COALESCE(user_name_key, email_key)", c.operator(), &key)
                };
                if negated {
                    format!("(NOT {test})")
                } else {
                    format!("({test})")
                }
            }
            FilterValue::Text(wanted) => {
                let (column, wanted) = match c.attribute() {
                    FilterAttribute::Email | FilterAttribute::UserName => {
                        ("email_key".to_owned(), Email::fold(wanted))
                    }
                    FilterAttribute::ExternalId => ("external_id".to_owned(), wanted.clone()),
                    attribute => {
                        let name = if attribute == FilterAttribute::FamilyName {
                            "lastname"
                        } else {
                            "firstname"
                        };
                        let fold = if self.sqlite() {
                            "kenning_fold"
                        } else {
                            "lower"
                        };
                        (format!("{fold}({name})"), Email::fold(wanted))
                    }
                };
                let test = self.text_test(&column, c.operator(), &wanted);
                if negated {
                    format!("({column} IS NULL OR NOT {test})")
                } else {
                    format!("({column} IS NOT NULL AND {test})")
                }
            }
        }
    }

    /// `column` (not NULL) against `wanted` by `operator`; `ne` is the
    /// negation of this `eq`.
    fn text_test(&mut self, column: &str, operator: FilterOperator, wanted: &str) -> String {
        use FilterOperator as Op;
        let find = if self.sqlite() { "instr" } else { "strpos" };
        match operator {
            Op::Contains => format!("{find}({column}, {}) > 0", self.binder.text(wanted)),
            Op::StartsWith => format!(
                "substr({column}, 1, length({})) = {}",
                self.binder.text(wanted),
                self.binder.text(wanted)
            ),
            Op::EndsWith if wanted.is_empty() => "1 = 1".to_owned(),
            Op::EndsWith => format!(
                "substr({column}, length({column}) - length({}) + 1) = {}",
                self.binder.text(wanted),
                self.binder.text(wanted)
            ),
            _ => format!("{column} = {}", self.binder.text(wanted)),
        }
    }
}

/// The users a filter asks for: ACTIVE or DEACTIVATED (the first term
/// states the unique indexes' own condition, so SQLite can read them) and
/// the filter's condition.
fn base(sql: &mut Sql, filter: Option<&UserFilter>) -> String {
    let condition = filter.map_or_else(|| "(1 = 1)".to_owned(), |f| sql.condition(f));
    format!(
        "status <> '{}' AND status IN ({}) AND {condition}",
        Status::DELETED,
        Status::learning_sql(),
    )
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    count: i64,
}

/// The statement counting the users `filter` asks for.
pub(crate) fn count_statement(conn: &DbConnection, filter: Option<&UserFilter>) -> Statement {
    let mut sql = Sql {
        binder: Binder::new(conn.backend()),
    };
    let condition = base(&mut sql, filter);
    sql.binder.statement(format!(
        "SELECT COUNT(*) AS count FROM users WHERE {condition}"
    ))
}

/// The statement reading one page of the users `filter` asks for, in
/// listing order.
pub(crate) fn page_statement(
    conn: &DbConnection,
    filter: Option<&UserFilter>,
    skip: u64,
    count: u32,
) -> Statement {
    let mut sql = Sql {
        binder: Binder::new(conn.backend()),
    };
    let condition = base(&mut sql, filter);
    let limit = sql.binder.int(i64::from(count));
    let offset = sql.binder.int(i64::try_from(skip).unwrap_or(i64::MAX));
    sql.binder.statement(format!(
        "SELECT users.* FROM users WHERE {condition} \
         ORDER BY lastname, firstname, id LIMIT {limit} OFFSET {offset}"
    ))
}

/// How many users `filter` asks for, and the page.
pub(crate) fn filtered(
    conn: &mut DbConnection,
    filter: Option<&UserFilter>,
    skip: u64,
    count: u32,
) -> diesel::QueryResult<(i64, Vec<UserRow>)> {
    let total = count_statement(conn, filter)
        .load::<Count>(conn)?
        .first()
        .map_or(0, |c| c.count);
    let rows = if count == 0 || skip >= u64::try_from(total).unwrap_or(0) {
        Vec::new()
    } else {
        page_statement(conn, filter, skip, count).load::<UserRow>(conn)?
    };
    Ok((total, rows))
}
