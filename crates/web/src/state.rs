//! What the pages share.

use kenning_app::{
    AuditService, CredentialService, ExpertiseService, GroupService, PrivacyService,
    SessionService, UserService,
};

use crate::config::WebConfig;

/// What the pages ask: the use cases and the configuration.
#[derive(Debug, Clone)]
pub struct Web {
    pub users: UserService,
    pub groups: GroupService,
    pub expertise: ExpertiseService,
    pub sessions: SessionService,
    pub privacy: PrivacyService,
    /// For the admin console alone.
    pub audit: AuditService,
    /// For the admin console alone.
    pub credentials: CredentialService,
    pub config: WebConfig,
}
