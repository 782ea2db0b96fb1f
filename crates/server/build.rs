//! For the CLI tests only: sets `kenning_no_postgres` when
//! `KENNING_TEST_POSTGRES_URL` is unset or empty, `kenning_no_dovecot`
//! when Dovecot or openssl is not installed, and `kenning_no_shared_data`
//! when the shared data folder (`../shared/data` beside the repository)
//! holds no Stack Exchange dump, so those tests are compiled
//! as ignored and cargo's summary counts them ("N ignored") instead of
//! passing tests that checked nothing. Cargo rebuilds when the variable
//! changes or a program is installed. The binary itself looks at neither.

use std::path::Path;

/// Where the tests look for `dovecot` and `openssl` (not `PATH`, which
/// differs between the shells cargo is run from and would rebuild).
const PROGRAM_DIRS: &[&str] = &["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kenning_no_postgres)");
    println!("cargo::rerun-if-env-changed=KENNING_TEST_POSTGRES_URL");
    if std::env::var_os("KENNING_TEST_POSTGRES_URL").is_none_or(|url| url.is_empty()) {
        println!("cargo::rustc-cfg=kenning_no_postgres");
    }
    println!("cargo::rustc-check-cfg=cfg(kenning_no_shared_data)");
    let coffee = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/expertise/coffee/Posts.xml");
    println!("cargo::rerun-if-changed={}", coffee.display());
    if !coffee.is_file() {
        println!("cargo::rustc-cfg=kenning_no_shared_data");
    }
    println!("cargo::rustc-check-cfg=cfg(kenning_no_dovecot)");
    let find = |program: &str| {
        PROGRAM_DIRS
            .iter()
            .map(|dir| Path::new(dir).join(program))
            .find(|path| path.is_file())
    };
    match (find("dovecot"), find("openssl")) {
        (Some(dovecot), Some(openssl)) => {
            // Removed, they are looked for again.
            println!("cargo::rerun-if-changed={}", dovecot.display());
            println!("cargo::rerun-if-changed={}", openssl.display());
        }
        _ => {
            println!("cargo::rustc-cfg=kenning_no_dovecot");
            // An install changes these folders.
            for dir in PROGRAM_DIRS
                .iter()
                .map(Path::new)
                .filter(|dir| dir.is_dir())
            {
                println!("cargo::rerun-if-changed={}", dir.display());
            }
        }
    }
}
