//! What every handler shares: the gate to the use cases, the schema, the
//! metrics, the rate limits and the configuration.

use std::sync::Arc;

use kenning_app::Gate;
use kenning_graphql::Schema;

use crate::config::HttpConfig;
use crate::metrics::Metrics;
use crate::throttle::Throttle;

/// What the handlers share: the gate to the use cases (a handler reaches
/// them for the request's caller, or with the connector's key), the
/// schema, the metrics, the rate limits and the configuration.
#[derive(Clone)]
pub struct AppState {
    pub gate: Gate,
    pub schema: Arc<Schema>,
    pub metrics: Arc<Metrics>,
    pub(crate) throttle: Arc<Throttle>,
    pub config: HttpConfig,
    /// The web app for people, over the same use cases.
    pub web: kenning_web::Web,
}

impl AppState {
    /// The state of a fresh process before `gate`, with the web app set
    /// up as `web` says: its metrics and rate limits start from zero.
    pub fn new(
        gate: Gate,
        schema: Schema,
        config: HttpConfig,
        web: kenning_web::WebConfig,
    ) -> Self {
        let web = kenning_web::Web {
            gate: gate.clone(),
            config: web,
        };
        Self {
            gate,
            schema: Arc::new(schema),
            metrics: Arc::new(Metrics::default()),
            throttle: Arc::new(Throttle::new(
                config.auth_failures_per_minute,
                config.requests_per_minute,
            )),
            config,
            web,
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
