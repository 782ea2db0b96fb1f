//! What the pages share.

use kenning_app::Gate;

use crate::config::WebConfig;

/// What the pages ask: the gate to the use cases (a page reaches them as
/// its visitor, as the visitor may call them; anyone may
/// sign in) and the configuration.
#[derive(Debug, Clone)]
pub struct Web {
    pub gate: Gate,
    pub config: WebConfig,
}
