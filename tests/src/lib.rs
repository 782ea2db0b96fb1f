//! Helpers shared by Kenning's integration tests.

pub mod app;
pub mod contract;
pub mod db;
pub mod documents;

/// Turns each `fn name(backend: Backend)` into a module `name` with one
/// test per backend: `name::sqlite` and `name::postgres`. Built without
/// `KENNING_TEST_POSTGRES_URL` (see `build.rs`), the PostgreSQL variant is
/// ignored, so the test summary shows that it did not run.
#[macro_export]
macro_rules! on_every_backend {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn sqlite() {
                    super::$name($crate::db::Backend::Sqlite);
                }

                #[test]
                #[cfg_attr(kenning_no_postgres, ignore = "set KENNING_TEST_POSTGRES_URL to run")]
                fn postgres() {
                    super::$name($crate::db::Backend::Postgres);
                }
            }
        )*
    };
}
