//! What the pages share.

use kenning_app::{ExpertiseService, GroupService, PrivacyService, SessionService, UserService};

use crate::config::WebConfig;

/// What the pages ask: the use cases and the configuration.
#[derive(Debug, Clone)]
pub struct Web {
    pub users: UserService,
    pub groups: GroupService,
    pub expertise: ExpertiseService,
    pub sessions: SessionService,
    pub privacy: PrivacyService,
    pub config: WebConfig,
}
