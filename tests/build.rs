//! Sets `kenning_no_postgres` when `KENNING_TEST_POSTGRES_URL` is unset or
//! empty, so the PostgreSQL variants of the tests are compiled as ignored
//! and cargo's summary counts them ("N ignored") instead of passing tests
//! that checked nothing. Cargo rebuilds when the variable changes.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kenning_no_postgres)");
    println!("cargo::rerun-if-env-changed=KENNING_TEST_POSTGRES_URL");
    if std::env::var_os("KENNING_TEST_POSTGRES_URL").is_none_or(|url| url.is_empty()) {
        println!("cargo::rustc-cfg=kenning_no_postgres");
    }
}
