//! What every handler shares: the use cases, the schema, the metrics, the
//! rate limits and the configuration.

use std::sync::Arc;

use kenning_app::{AuditService, CredentialService, ExpertiseService, GroupService, UserService};
use kenning_graphql::Schema;

use crate::config::HttpConfig;
use crate::metrics::Metrics;
use crate::throttle::Throttle;

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    pub users: UserService,
    pub credentials: CredentialService,
    pub groups: GroupService,
    pub expertise: ExpertiseService,
    pub audit: AuditService,
    pub schema: Arc<Schema>,
    pub metrics: Arc<Metrics>,
    pub(crate) throttle: Arc<Throttle>,
    pub config: HttpConfig,
}

impl AppState {
    /// The state of a fresh process: its metrics and rate limits start
    /// from zero.
    pub fn new(
        users: UserService,
        credentials: CredentialService,
        groups: GroupService,
        expertise: ExpertiseService,
        audit: AuditService,
        schema: Schema,
        config: HttpConfig,
    ) -> Self {
        Self {
            users,
            credentials,
            groups,
            expertise,
            audit,
            schema: Arc::new(schema),
            metrics: Arc::new(Metrics::default()),
            throttle: Arc::new(Throttle::new(
                config.auth_failures_per_minute,
                config.requests_per_minute,
            )),
            config,
        }
    }
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
