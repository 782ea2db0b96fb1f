//! The commands on PostgreSQL, run many times: a command that crashes on
//! its way out fails only now and then.

use std::process::Output;

use diesel::{Connection, PgConnection, RunQueryDsl};

use super::{kenning, stderr, stdout};

const POSTGRES_ENV: &str = "KENNING_TEST_POSTGRES_URL";

/// A new database on the server named by `KENNING_TEST_POSTGRES_URL`,
/// dropped at the end of the test.
struct PostgresDatabase {
    admin_url: String,
    name: String,
    url: String,
}

impl PostgresDatabase {
    /// `None`, after saying so, when no server is named.
    fn fresh() -> Option<Self> {
        let admin_url = match std::env::var(POSTGRES_ENV) {
            Ok(url) if !url.is_empty() => url,
            _ => {
                eprintln!(
                    "SKIPPED: {POSTGRES_ENV} is not set, so the PostgreSQL CLI test did not run"
                );
                return None;
            }
        };
        let name = format!("kenning_cli_{}", uuid::Uuid::new_v4().simple());
        let mut admin = PgConnection::establish(&admin_url)
            .unwrap_or_else(|e| panic!("{POSTGRES_ENV} is set but unusable: {e}"));
        // A linguistic collation, as the official image's: no query may
        // depend on a bytewise order without saying so.
        diesel::sql_query(format!(
            "CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'"
        ))
        .execute(&mut admin)
        .unwrap();
        // The admin URL with its database name replaced.
        let (base, query) = admin_url
            .split_once('?')
            .map_or((admin_url.as_str(), None), |(b, q)| (b, Some(q)));
        let scheme_end = base.find("://").map_or(0, |i| i + 3);
        let server = base[scheme_end..]
            .find('/')
            .map_or(base, |i| &base[..scheme_end + i]);
        let url = match query {
            Some(q) => format!("{server}/{name}?{q}"),
            None => format!("{server}/{name}"),
        };
        Some(Self {
            admin_url,
            name,
            url,
        })
    }
}

impl Drop for PostgresDatabase {
    fn drop(&mut self) {
        if let Ok(mut admin) = PgConnection::establish(&self.admin_url) {
            let _ = diesel::sql_query(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .execute(&mut admin);
        }
    }
}

/// How many times each command runs; a crash at exit showed in about one
/// run in five.
const RUNS: usize = 50;

fn describe(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status,
        stdout(output),
        stderr(output)
    )
}

#[test]
#[cfg_attr(kenning_no_postgres, ignore = "set KENNING_TEST_POSTGRES_URL to run")]
fn every_command_exits_cleanly_every_time() {
    let Some(db) = PostgresDatabase::fresh() else {
        return;
    };
    for args in [
        &["migrate"][..],
        &["purge"],
        &["token", "list"],
        &["apikey", "list"],
        &["token", "create", "--name", "admin"],
    ] {
        for run in 1..=RUNS {
            let out = kenning(&db.url, args);
            assert!(
                out.status.success(),
                "run {run} of {args:?}: {}",
                describe(&out)
            );
        }
    }
    let tokens = stdout(&kenning(&db.url, &["token", "list"]));
    assert_eq!(
        tokens.lines().count(),
        RUNS + 1,
        "every token was stored once"
    );
}
