//! Which database a command works on, and which commands may create one.

use std::path::Path;
use std::process::{Command, Output};

use super::{fails_with, stderr, stdout, succeeds, Scratch};

/// Runs kenning in `dir` with the default database URL, the user's data
/// folder being `data_home`.
fn kenning_in(dir: &Path, data_home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args(args)
        .current_dir(dir)
        .env_remove("DATABASE_URL")
        .env("XDG_DATA_HOME", data_home)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[test]
fn only_migrate_and_serve_create_a_database_and_every_command_says_where() {
    let scratch = Scratch::new();
    let folder = scratch.0.canonicalize().unwrap();
    let (here, elsewhere, share) = (
        folder.join("here"),
        folder.join("elsewhere"),
        folder.join("share"),
    );
    for dir in [&here, &elsewhere] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let db = share.join("kenning/kenning.db");
    let said = format!("database: {}", db.display());
    for args in [
        &["token", "list"][..],
        &["token", "create", "--name", "admin"],
        &["token", "revoke", "6f1c1f3e-0000-4000-8000-000000000000"],
        &["apikey", "list"],
        &["apikey", "create", "--name", "crm"],
        &["purge"],
    ] {
        let out = kenning_in(&here, &share, args);
        assert_eq!(stderr(&out).lines().next(), Some(said.as_str()), "{args:?}");
        fails_with(
            out,
            &format!(
                "no database at {}; create it with `kenning migrate`",
                db.display()
            ),
        );
        assert!(!share.join("kenning").exists(), "{args:?} created it");
    }

    let out = succeeds(kenning_in(&here, &share, &["migrate"]));
    assert_eq!(stderr(&out).lines().next(), Some(said.as_str()));
    assert!(db.is_file());
    // The default does not depend on the folder a command runs in.
    let out = succeeds(kenning_in(&elsewhere, &share, &["token", "list"]));
    assert_eq!(stderr(&out).lines().next(), Some(said.as_str()));
    assert_eq!(stdout(&out).lines().count(), 1, "only the header");
}

#[test]
fn without_a_data_folder_the_default_is_under_home() {
    let scratch = Scratch::new();
    let home = scratch.0.canonicalize().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args(["token", "list"])
        .current_dir(&home)
        .env_remove("DATABASE_URL")
        .env_remove("XDG_DATA_HOME")
        .env("HOME", &home)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let db = home.join(".local/share/kenning/kenning.db");
    assert_eq!(
        stderr(&out).lines().next(),
        Some(format!("database: {}", db.display()).as_str())
    );
}
