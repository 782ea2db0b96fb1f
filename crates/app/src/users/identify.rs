//! Who a source's identities are: the users a connector's uploads may
//! name, found as the directory is read by key.

use kenning_domain::{Email, IdentityInput, Raw, SourceIdentity};

use super::UserService;
use crate::access::Operation;
use crate::error::ServiceError;

impl UserService {
    /// For each identity of `identities` (1 to
    /// [`SourceIdentity::MAX_PER_REQUEST`], in their order), the e-mail
    /// address, as stored, of the user an upload naming it would teach;
    /// `None` for an identity that is nobody such. The user is the one
    /// holding its e-mail address (without regard to case), else the one
    /// holding its externalId (exactly): the first found decides, and
    /// only if uploads may teach them ([`kenning_domain::Status::learns`],
    /// the rule that refuses an upload as `UnknownUser`): not one pending
    /// deletion or deleted, a deactivated one still. Creates nobody and
    /// tells nothing else about anyone; whether a person turned learning
    /// off is not said, as an upload for them is accepted too.
    /// `ValidationError`, naming each bad identity, when the request is
    /// not such a list. A connector's question (and the operator's):
    /// `Forbidden` to any other caller.
    pub fn identify(
        &self,
        identities: Raw<Vec<Raw<IdentityInput>>>,
    ) -> Result<Vec<Option<Email>>, ServiceError> {
        self.caller.require(Operation::IdentifyPeople)?;
        SourceIdentity::parse_all(identities)?
            .iter()
            .map(|identity| self.learner(identity))
            .collect()
    }

    /// The address of the user an upload naming `identity` would teach.
    fn learner(&self, identity: &SourceIdentity) -> Result<Option<Email>, ServiceError> {
        for key in identity.keys() {
            if let Some(user) = self.users.get_by_key(key)? {
                let learns = user.status().learns();
                return Ok(user.profile().filter(|_| learns).map(|p| p.email.clone()));
            }
        }
        Ok(None)
    }
}
