//! What the database holds, read from the SQLite file beside the running
//! server: its size, and the uploads and topics of a source's entity types.

use diesel::sql_types::BigInt;
use diesel::{Connection, QueryableByName, RunQueryDsl, SqliteConnection};

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn count(conn: &mut SqliteConnection, sql: &str) -> anyhow::Result<i64> {
    let found: Vec<Count> = diesel::sql_query(sql).load(conn)?;
    Ok(found.first().map_or(0, |c| c.n))
}

/// The database's size in bytes, its write-ahead log's pages included.
pub fn bytes(path: &str) -> anyhow::Result<i64> {
    let mut conn = SqliteConnection::establish(path)?;
    Ok(
        count(&mut conn, "SELECT page_count AS n FROM pragma_page_count()")?
            * count(&mut conn, "SELECT page_size AS n FROM pragma_page_size()")?,
    )
}

/// The uploads stored of `entity_types`, and the topic rows they keep.
pub fn uploads_and_topics(path: &str, entity_types: &[&str]) -> anyhow::Result<(i64, i64)> {
    let mut conn = SqliteConnection::establish(path)?;
    let list = entity_types
        .iter()
        .map(|t| format!("'{t}'"))
        .collect::<Vec<_>>()
        .join(",");
    let uploads = count(
        &mut conn,
        &format!("SELECT COUNT(*) AS n FROM actions WHERE entity_type IN ({list})"),
    )?;
    let topics = count(
        &mut conn,
        &format!(
            "SELECT COUNT(*) AS n FROM action_topics t JOIN actions a ON a.id = t.action_id \
             WHERE a.entity_type IN ({list})"
        ),
    )?;
    Ok((uploads, topics))
}

/// How many topics somebody learned.
pub fn learned_topics(path: &str) -> anyhow::Result<i64> {
    let mut conn = SqliteConnection::establish(path)?;
    count(
        &mut conn,
        "SELECT COUNT(*) AS n FROM topic_learners WHERE people > 0",
    )
}
