//! Changes read, made and written at the version read, again when the
//! resource changed in between: the `patch` use cases.

use crate::error::ServiceError;

/// How many times a `patch` reads and changes a resource that changed
/// between its read and its write before it gives up with
/// `StaleVersion`.
pub const PATCH_ATTEMPTS: usize = 3;

/// Runs `attempt` (a read, a change and a write at the version read)
/// until its write is not refused for a stale version, at most
/// [`PATCH_ATTEMPTS`] times; with `expected` once, as the caller asked
/// for that version alone. `attempt`'s outer error ends it at once; its
/// inner result is the write's.
pub(crate) fn retry_stale<T, E: From<ServiceError>>(
    expected: Option<u64>,
    mut attempt: impl FnMut() -> Result<Result<T, ServiceError>, E>,
) -> Result<T, E> {
    let mut made = 0;
    loop {
        made += 1;
        match attempt()? {
            Err(ServiceError::StaleVersion { .. })
                if expected.is_none() && made < PATCH_ATTEMPTS => {}
            written => return written.map_err(E::from),
        }
    }
}
