//! Helpers shared by Kenning's integration tests.

pub mod app;
#[cfg(test)]
mod architecture;
#[cfg(test)]
#[deny(dead_code)]
mod contract;
pub mod db;
pub mod documents;

/// `#[on_every_backend]` on `fn name(backend: Backend)` defines the tests
/// `name::sqlite` and `name::postgres`. Built without
/// `KENNING_TEST_POSTGRES_URL` (see `build.rs`), the PostgreSQL variant is
/// ignored, so the test summary shows that it did not run.
pub use kenning_test_macros::on_every_backend;
