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

/// What the uploads of a source's entity types left in the database.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stored {
    pub uploads: i64,
    /// The topic rows they keep, all together.
    pub topics: i64,
    /// The most topic rows one of them keeps.
    pub most_topics: i64,
}

/// What the uploads of `entity_types` keep.
pub fn stored(path: &str, entity_types: &[&str]) -> anyhow::Result<Stored> {
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
    let most_topics = count(
        &mut conn,
        &format!(
            "SELECT COALESCE(MAX(k), 0) AS n FROM (SELECT COUNT(*) AS k FROM action_topics t \
             JOIN actions a ON a.id = t.action_id WHERE a.entity_type IN ({list}) \
             GROUP BY t.action_id)"
        ),
    )?;
    Ok(Stored {
        uploads,
        topics,
        most_topics,
    })
}
