//! Helpers shared by Kenning's integration tests.

pub mod app;
pub mod contract;
pub mod db;
pub mod documents;

/// Turns each `fn name(backend: Backend)` into a module `name` with one
/// test per backend: `name::sqlite` and `name::postgres`. The PostgreSQL
/// variant says loudly that it was skipped when no server is configured.
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
                fn postgres() {
                    super::$name($crate::db::Backend::Postgres);
                }
            }
        )*
    };
}
