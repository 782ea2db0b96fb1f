//! What the pages share.

use kenning_app::UseCases;

use crate::config::WebConfig;

/// What the pages ask: the use cases (as fields of their own, through
/// `Deref`; a page narrows them to its visitor) and the configuration.
#[derive(Debug, Clone)]
pub struct Web {
    pub use_cases: UseCases,
    pub config: WebConfig,
}

impl std::ops::Deref for Web {
    type Target = UseCases;

    fn deref(&self) -> &UseCases {
        &self.use_cases
    }
}
