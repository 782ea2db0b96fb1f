//! Where a database URL points: the backend its scheme names, and the
//! SQLite file or the PostgreSQL server, as opened and as shown to people.

use std::path::{Path, PathBuf};

/// Why `Database::connect` or `Database::migrate` failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error(
        "unsupported database URL scheme `{0}`: use sqlite://PATH, a file path, or postgres://..."
    )]
    UnsupportedScheme(String),
    #[error("an in-memory SQLite database would not be shared by the connection pool; use a file")]
    InMemorySqlite,
    #[error("cannot create the folder {path}: {source}")]
    CreateFolder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open the {backend} database: {message}")]
    Connect {
        backend: &'static str,
        message: String,
    },
    #[error("cannot apply migrations: {0}")]
    Migrate(String),
    #[error("cannot resolve the database path {path}: {source}")]
    Resolve {
        path: String,
        source: std::io::Error,
    },
}

/// Where a database URL points.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Sqlite(String),
    Postgres(String),
}

fn target(url: &str) -> Result<Target, OpenError> {
    let url = url.trim();
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Target::Postgres(url.to_owned()));
    }
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    if path.is_empty() || path == ":memory:" || path.starts_with("file::memory:") {
        return Err(OpenError::InMemorySqlite);
    }
    // `scheme://...` that is none of ours; a Windows drive letter or a
    // relative path with a colon later on is still a path.
    if let Some((scheme, _)) = url.split_once("://") {
        if path == url {
            return Err(OpenError::UnsupportedScheme(scheme.to_owned()));
        }
    }
    Ok(Target::Sqlite(path.to_owned()))
}

/// Where a database URL points, as the operator should see it: a SQLite
/// path made absolute against the working directory (the file that will be
/// opened), a PostgreSQL URL without its password or parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The path given to SQLite: absolute, unless it is a `file:` URI or
    /// the working directory is not UTF-8, which are kept as given.
    Sqlite(String),
    /// The full PostgreSQL URL, credentials included; `Display` leaves them out.
    Postgres(String),
}

impl Location {
    /// Reads a database URL (see `Database::connect_with`) and resolves a
    /// relative SQLite path against the working directory.
    pub fn parse(url: &str) -> Result<Self, OpenError> {
        match target(url)? {
            Target::Postgres(url) => Ok(Location::Postgres(url)),
            Target::Sqlite(path) if path.starts_with("file:") => Ok(Location::Sqlite(path)),
            Target::Sqlite(path) => match std::path::absolute(&path) {
                Ok(absolute) => Ok(Location::Sqlite(
                    absolute.into_os_string().into_string().unwrap_or(path),
                )),
                Err(source) => Err(OpenError::Resolve { path, source }),
            },
        }
    }

    /// The backend the location is on.
    pub(crate) fn backend(&self) -> Backend {
        match self {
            Location::Sqlite(_) => Backend::Sqlite,
            Location::Postgres(_) => Backend::Postgres,
        }
    }

    /// Whether there is a database to open: the SQLite file exists.
    /// Connecting never creates a PostgreSQL database, so that is always
    /// taken to exist (a missing one fails to connect).
    pub fn exists(&self) -> bool {
        match self {
            Location::Sqlite(path) => Path::new(path).is_file(),
            Location::Postgres(_) => true,
        }
    }
}

/// The database software behind a location or a connection, for the
/// decisions that differ between them without a connection at hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// Its name for people: `SQLite` or `PostgreSQL`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Sqlite(path) => f.write_str(path),
            Location::Postgres(url) => f.write_str(&without_secrets(url)),
        }
    }
}

/// A `postgres://` URL without the password and the parameters after `?`
/// (which may hold a password too), for messages and logs.
fn without_secrets(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let Some((scheme, rest)) = url.split_once("://") else {
        return String::new();
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{user}@{host}")
        }
        None => authority.to_owned(),
    };
    if path.is_empty() {
        format!("{scheme}://{authority}")
    } else {
        format!("{scheme}://{authority}/{path}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_picks_the_backend() {
        assert_eq!(
            target("postgres://u@h/db").unwrap(),
            Target::Postgres("postgres://u@h/db".into())
        );
        assert_eq!(
            target("postgresql://h/db").unwrap(),
            Target::Postgres("postgresql://h/db".into())
        );
        assert_eq!(
            target("sqlite://data/k.db").unwrap(),
            Target::Sqlite("data/k.db".into())
        );
        assert_eq!(
            target("sqlite:///tmp/k.db").unwrap(),
            Target::Sqlite("/tmp/k.db".into())
        );
        assert_eq!(
            target("sqlite:k.db").unwrap(),
            Target::Sqlite("k.db".into())
        );
        assert_eq!(
            target("data/k.db").unwrap(),
            Target::Sqlite("data/k.db".into())
        );
    }

    #[test]
    fn unknown_schemes_and_memory_databases_are_refused() {
        assert!(matches!(
            target("mysql://root:secret@h/db"),
            Err(OpenError::UnsupportedScheme(s)) if s == "mysql"
        ));
        assert!(matches!(target(":memory:"), Err(OpenError::InMemorySqlite)));
        assert!(matches!(
            target("sqlite://"),
            Err(OpenError::InMemorySqlite)
        ));
    }

    #[test]
    fn a_location_is_absolute_and_keeps_no_secret() {
        let here = std::env::current_dir().unwrap();
        let expected = here.join("data/k.db").to_str().unwrap().to_owned();
        assert_eq!(
            Location::parse("sqlite://data/k.db").unwrap(),
            Location::Sqlite(expected.clone())
        );
        assert_eq!(Location::parse("data/k.db").unwrap().to_string(), expected);
        assert_eq!(
            Location::parse("sqlite:///tmp/k.db").unwrap().to_string(),
            "/tmp/k.db"
        );
        assert_eq!(
            Location::parse("postgres://kenning:hunter2@db:5432/kenning?password=hunter2")
                .unwrap()
                .to_string(),
            "postgres://kenning@db:5432/kenning"
        );
        assert_eq!(
            Location::parse("postgresql://db").unwrap().to_string(),
            "postgresql://db"
        );
    }
}
