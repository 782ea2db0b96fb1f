//! Which database a command works on, and which commands may create one.

use std::path::Path;
use std::process::{Command, Output};

use super::{fails_with, stderr, stdout, succeeds, Scratch};

/// Runs kenning in `dir` with the default database URL.
fn kenning_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args(args)
        .current_dir(dir)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[test]
fn only_migrate_and_serve_create_a_database_and_every_command_says_where() {
    let scratch = Scratch::new();
    let folder = scratch.0.canonicalize().unwrap();
    let db = folder.join("data/kenning.db");
    let said = format!("database: {}", db.display());
    for args in [
        &["token", "list"][..],
        &["token", "create", "--name", "admin"],
        &["token", "revoke", "6f1c1f3e-0000-4000-8000-000000000000"],
        &["apikey", "list"],
        &["apikey", "create", "--name", "crm"],
        &["purge"],
    ] {
        let out = kenning_in(&folder, args);
        assert_eq!(stderr(&out).lines().next(), Some(said.as_str()), "{args:?}");
        fails_with(
            out,
            &format!(
                "no database at {}; create it with `kenning migrate`",
                db.display()
            ),
        );
        assert!(!folder.join("data").exists(), "{args:?} created it");
    }

    let out = succeeds(kenning_in(&folder, &["migrate"]));
    assert_eq!(stderr(&out).lines().next(), Some(said.as_str()));
    assert!(db.is_file());
    let out = succeeds(kenning_in(&folder, &["token", "list"]));
    assert_eq!(stderr(&out).lines().next(), Some(said.as_str()));
    assert_eq!(stdout(&out).lines().count(), 1, "only the header");
}
