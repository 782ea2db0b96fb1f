//! Who is asking, on one request: a person's session, with what the
//! person is to the access rules (themselves, or an administrator).

use kenning_app::{Caller, Session, UseCases};

use crate::state::Web;

/// A person's session, with who the person is to the access rules on this
/// request: themselves, or an administrator.
#[derive(Debug, Clone)]
pub(crate) struct Visitor {
    pub(crate) session: Session,
    pub(crate) caller: Caller,
}

impl Visitor {
    /// The use cases of `app` as the visitor calls them: each refuses
    /// what the visitor may not do (the access rules are the use
    /// cases'), their changes recorded as the person's.
    pub(crate) fn use_cases(&self, app: &Web) -> UseCases {
        app.gate.called_by(self.caller.clone(), self.actor())
    }

    /// Whether the person is an administrator on this request.
    pub(crate) fn is_administrator(&self) -> bool {
        self.caller.is_administrator()
    }
}

impl std::ops::Deref for Visitor {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.session
    }
}
