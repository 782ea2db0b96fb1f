//! Connectors' runs: a row each (`connector_runs`, numbered in the order
//! recorded by `seq`) and a row per refusal code of a run
//! (`connector_run_refusals`).

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Timestamp};
use kenning_domain::{RefusalCode, RunCounts, RunError, RunReport, SourceKind, SourceName};
use kenning_ports::{ConnectorRunStore, SourceRuns, SourcesPage, StoreError, StoredRun};
use uuid::Uuid;

use crate::connection::{DbConnection, TxError};
use crate::database::Database;
use crate::rows::{from_db_time, to_db_time};
use crate::schema::{connector_run_refusals, connector_runs};
use crate::sql::Statement;

/// Runs looked up by one statement: far below the bound-parameter limits.
const RUNS_PER_READ: usize = 1_000;

/// A run as stored.
#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = connector_runs)]
#[diesel(check_for_backend(diesel::sqlite::Sqlite, diesel::pg::Pg))]
struct RunRow {
    seq: i64,
    id: String,
    source: String,
    name: String,
    started: NaiveDateTime,
    finished: NaiveDateTime,
    items_read: i64,
    sent: i64,
    known: i64,
    not_found: i64,
    failed: i64,
    dry_run: bool,
    error: Option<String>,
    credential_id: String,
    credential_name: String,
    received: NaiveDateTime,
}

/// A run as written: its `seq` is the database's.
#[derive(Debug, Insertable)]
#[diesel(table_name = connector_runs)]
struct NewRunRow<'a> {
    id: String,
    source: &'a str,
    name: &'a str,
    started: NaiveDateTime,
    finished: NaiveDateTime,
    items_read: i64,
    sent: i64,
    known: i64,
    not_found: i64,
    failed: i64,
    dry_run: bool,
    error: Option<&'a str>,
    credential_id: String,
    credential_name: &'a str,
    received: NaiveDateTime,
}

/// A count as a column holds it.
fn stored(count: u64) -> Result<i64, StoreError> {
    i64::try_from(count).map_err(|_| StoreError::backend_message("a run's count is too large"))
}

impl<'a> NewRunRow<'a> {
    fn of(run: &'a StoredRun) -> Result<Self, StoreError> {
        let report = &run.report;
        Ok(Self {
            id: run.id.to_string(),
            source: report.source.as_str(),
            name: report.name.as_str(),
            started: to_db_time(report.started),
            finished: to_db_time(report.finished),
            items_read: stored(report.counts.read)?,
            sent: stored(report.counts.sent)?,
            known: stored(report.counts.known)?,
            not_found: stored(report.counts.not_found)?,
            failed: stored(report.counts.failed)?,
            dry_run: report.dry_run,
            error: report.error.as_ref().map(RunError::as_str),
            credential_id: run.credential_id.to_string(),
            credential_name: &run.credential_name,
            received: to_db_time(run.received),
        })
    }
}

/// A count as a run reads it back.
fn count(stored: i64) -> Result<u64, StoreError> {
    u64::try_from(stored)
        .map_err(|_| StoreError::backend_message("a stored run's count is negative"))
}

impl RunRow {
    /// The run, with `refused`, its refusals by code.
    fn into_run(self, refused: Vec<(String, i64)>) -> Result<StoredRun, StoreError> {
        let corrupt = |what: &str| {
            StoreError::backend_message(format!("stored run {} has an invalid {what}", self.id))
        };
        let refused = refused
            .into_iter()
            .map(|(code, items)| {
                let code = RefusalCode::parse("refused", &code).map_err(|_| corrupt("refusal"))?;
                Ok((code, count(items)?))
            })
            .collect::<Result<BTreeMap<_, _>, StoreError>>()?;
        let report = RunReport {
            source: SourceKind::parse(&self.source).map_err(|_| corrupt("source"))?,
            name: SourceName::parse(&self.name).map_err(|_| corrupt("name"))?,
            started: from_db_time(self.started),
            finished: from_db_time(self.finished),
            counts: RunCounts {
                read: count(self.items_read)?,
                sent: count(self.sent)?,
                known: count(self.known)?,
                not_found: count(self.not_found)?,
                failed: count(self.failed)?,
            },
            refused,
            dry_run: self.dry_run,
            error: self
                .error
                .as_deref()
                .map(RunError::parse)
                .transpose()
                .map_err(|_| corrupt("error"))?,
        };
        Ok(StoredRun {
            id: Uuid::parse_str(&self.id).map_err(|_| corrupt("id"))?,
            report,
            credential_id: Uuid::parse_str(&self.credential_id)
                .map_err(|_| corrupt("credential id"))?,
            credential_name: self.credential_name,
            received: from_db_time(self.received),
        })
    }
}

/// The refusals of the runs `ids`, by run id.
fn refusals_of(
    conn: &mut DbConnection,
    ids: &[String],
) -> QueryResult<HashMap<String, Vec<(String, i64)>>> {
    let mut by_run: HashMap<String, Vec<(String, i64)>> = HashMap::new();
    for chunk in ids.chunks(RUNS_PER_READ) {
        let rows: Vec<(String, String, i64)> = connector_run_refusals::table
            .filter(connector_run_refusals::run_id.eq_any(chunk))
            .select((
                connector_run_refusals::run_id,
                connector_run_refusals::code,
                connector_run_refusals::items,
            ))
            .load(conn)?;
        for (run, code, items) in rows {
            by_run.entry(run).or_default().push((code, items));
        }
    }
    Ok(by_run)
}

/// `rows` as runs, each with its refusals.
fn runs(
    rows: Vec<RunRow>,
    mut refusals: HashMap<String, Vec<(String, i64)>>,
) -> Result<Vec<StoredRun>, StoreError> {
    rows.into_iter()
        .map(|row| {
            let refused = refusals.remove(&row.id).unwrap_or_default();
            row.into_run(refused)
        })
        .collect()
}

/// Each source's runs summed up, the one whose last run was recorded last
/// first. The sums stay within `BIGINT` ([`RunCounts::MAX`]).
const SOURCES: &str = "SELECT MAX(seq) AS last_seq, COUNT(*) AS runs, MIN(received) AS since, \
     CAST(SUM(items_read) AS BIGINT) AS items_read, CAST(SUM(sent) AS BIGINT) AS sent, \
     CAST(SUM(known) AS BIGINT) AS known, CAST(SUM(not_found) AS BIGINT) AS not_found, \
     CAST(SUM(failed) AS BIGINT) AS failed \
     FROM connector_runs GROUP BY source, name ORDER BY last_seq DESC";

/// How many sources have runs.
const SOURCE_COUNT: &str =
    "SELECT COUNT(*) AS n FROM (SELECT source, name FROM connector_runs GROUP BY source, name) s";

/// A count read by a statement of its own.
#[derive(Debug, QueryableByName)]
struct Counted {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// A source's runs, summed up, as [`SOURCES`] reads them.
#[derive(Debug, QueryableByName)]
struct SourceRow {
    #[diesel(sql_type = BigInt)]
    last_seq: i64,
    #[diesel(sql_type = BigInt)]
    runs: i64,
    #[diesel(sql_type = Timestamp)]
    since: NaiveDateTime,
    #[diesel(sql_type = BigInt)]
    items_read: i64,
    #[diesel(sql_type = BigInt)]
    sent: i64,
    #[diesel(sql_type = BigInt)]
    known: i64,
    #[diesel(sql_type = BigInt)]
    not_found: i64,
    #[diesel(sql_type = BigInt)]
    failed: i64,
}

impl SourceRow {
    fn totals(&self) -> Result<RunCounts, StoreError> {
        Ok(RunCounts {
            read: count(self.items_read)?,
            sent: count(self.sent)?,
            known: count(self.known)?,
            not_found: count(self.not_found)?,
            failed: count(self.failed)?,
        })
    }
}

impl ConnectorRunStore for Database {
    fn record_run(&self, run: &StoredRun, keep: usize) -> Result<(), StoreError> {
        let row = NewRunRow::of(run)?;
        let refusals = run
            .report
            .refused
            .iter()
            .map(|(code, &items)| Ok((code.as_str(), stored(items)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        let (source, name) = (row.source, row.name);
        self.write(|conn| {
            diesel::insert_into(connector_runs::table)
                .values(&row)
                .execute(conn)?;
            for (code, items) in refusals {
                diesel::insert_into(connector_run_refusals::table)
                    .values((
                        connector_run_refusals::run_id.eq(&row.id),
                        connector_run_refusals::code.eq(code),
                        connector_run_refusals::items.eq(items),
                    ))
                    .execute(conn)?;
            }
            let of_source = || {
                connector_runs::table
                    .filter(connector_runs::source.eq(source))
                    .filter(connector_runs::name.eq(name))
            };
            let oldest_gone: Option<i64> = of_source()
                .order(connector_runs::seq.desc())
                .offset(keep)
                .select(connector_runs::seq)
                .first(conn)
                .optional()?;
            if let Some(oldest_gone) = oldest_gone {
                let gone = of_source().filter(connector_runs::seq.le(oldest_gone));
                diesel::delete(connector_run_refusals::table.filter(
                    connector_run_refusals::run_id.eq_any(gone.select(connector_runs::id)),
                ))
                .execute(conn)?;
                diesel::delete(of_source().filter(connector_runs::seq.le(oldest_gone)))
                    .execute(conn)?;
            }
            Ok::<_, TxError>(())
        })?;
        Ok(())
    }

    fn sources(&self, skip: u64, most: u32) -> Result<SourcesPage, StoreError> {
        let skip = i64::try_from(skip).unwrap_or(i64::MAX);
        let page = format!("{SOURCES} LIMIT {most} OFFSET {skip}");
        let (total, sources, rows, refusals) = self.read_snapshot(|conn| {
            let total: Vec<Counted> = Statement::plain(SOURCE_COUNT).load(conn)?;
            let sources: Vec<SourceRow> = Statement::plain(page).load(conn)?;
            let mut rows = Vec::with_capacity(sources.len());
            let seqs: Vec<i64> = sources.iter().map(|s| s.last_seq).collect();
            for chunk in seqs.chunks(RUNS_PER_READ) {
                let chunk: Vec<RunRow> = connector_runs::table
                    .filter(connector_runs::seq.eq_any(chunk))
                    .select(RunRow::as_select())
                    .load(conn)?;
                rows.extend(chunk);
            }
            let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
            let refusals = refusals_of(conn, &ids)?;
            let total = total.first().map_or(0, |c| c.n);
            Ok((total, sources, rows, refusals))
        })?;
        let mut last: HashMap<i64, StoredRun> = HashMap::new();
        let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
        for (seq, run) in seqs.into_iter().zip(runs(rows, refusals)?) {
            last.insert(seq, run);
        }
        let sources = sources
            .into_iter()
            .map(|source| {
                let run = last.remove(&source.last_seq).ok_or_else(|| {
                    StoreError::backend_message("a source's last run was not read")
                })?;
                Ok(SourceRuns {
                    totals: source.totals()?,
                    last: run,
                    runs: count(source.runs)?,
                    since: from_db_time(source.since),
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(SourcesPage {
            sources,
            total: count(total)?,
        })
    }

    fn reporter_of(
        &self,
        source: &SourceKind,
        name: &SourceName,
    ) -> Result<Option<Uuid>, StoreError> {
        let reporter: Option<String> = self.read(|conn| {
            connector_runs::table
                .filter(connector_runs::source.eq(source.as_str()))
                .filter(connector_runs::name.eq(name.as_str()))
                .order(connector_runs::seq.desc())
                .select(connector_runs::credential_id)
                .first(conn)
                .optional()
        })?;
        reporter
            .map(|id| {
                Uuid::parse_str(&id)
                    .map_err(|_| StoreError::backend_message("a run's credential id is invalid"))
            })
            .transpose()
    }

    fn sources_reported_by(&self, credential: Uuid) -> Result<u64, StoreError> {
        let counted: Vec<Counted> = self.read(|conn| {
            let mut binder = crate::sql::Binder::new(conn.backend());
            let key = binder.text(credential.to_string());
            binder
                .statement(format!(
                    "SELECT COUNT(*) AS n FROM (SELECT source, name FROM connector_runs \
                     WHERE credential_id = {key} GROUP BY source, name) s"
                ))
                .load(conn)
        })?;
        count(counted.first().map_or(0, |c| c.n))
    }

    fn runs_of(
        &self,
        source: &SourceKind,
        name: &SourceName,
        count: usize,
    ) -> Result<Vec<StoredRun>, StoreError> {
        let limit = i64::try_from(count).unwrap_or(i64::MAX);
        let (rows, refusals) = self.read_snapshot(|conn| {
            let rows: Vec<RunRow> = connector_runs::table
                .filter(connector_runs::source.eq(source.as_str()))
                .filter(connector_runs::name.eq(name.as_str()))
                .order(connector_runs::seq.desc())
                .limit(limit)
                .select(RunRow::as_select())
                .load(conn)?;
            let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
            let refusals = refusals_of(conn, &ids)?;
            Ok((rows, refusals))
        })?;
        runs(rows, refusals)
    }
}
