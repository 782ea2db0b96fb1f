//! The expertise service: the ports it drives, its settings, and what
//! every use case of it checks first.

use std::sync::Arc;

use kenning_domain::{Actor, Scoring, User, UserId};
use kenning_ports::{
    Clock, ExpertiseStore, GroupStore, NewAction, PrivacyStore, RecordError, Recorded, StoreError,
    TopicExtractor, UserStore,
};

use crate::access::{Caller, Operation};
use crate::asked::AskedLedger;
use crate::batched_writes::WriteBatcher;
use crate::error::{Missing, ServiceError};
use crate::meaning::MeaningModels;

/// Takes uploads and answers who knows what.
#[derive(Clone)]
pub struct ExpertiseService {
    pub(super) store: Arc<dyn ExpertiseStore>,
    pub(super) users: Arc<dyn UserStore>,
    pub(super) groups: Arc<dyn GroupStore>,
    pub(super) extractor: Arc<dyn TopicExtractor>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) scoring: Arc<Scoring>,
    pub(super) commit: WriteBatcher<NewAction, Result<Recorded, RecordError>>,
    pub(super) meanings: MeaningModels,
    /// The privacy store, when given: who is learned about, and where the
    /// subjects asked are counted.
    pub(super) privacy: Option<(Arc<dyn PrivacyStore>, Arc<AskedLedger>)>,
    /// Who a person's say over their profile is recorded as made by.
    pub(super) actor: Actor,
    /// Who calls: each use case asks whether they may.
    pub(super) caller: Caller,
}

impl std::fmt::Debug for ExpertiseService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpertiseService")
            .field("scoring", &self.scoring)
            .field("meanings", &self.meanings)
            .finish_non_exhaustive()
    }
}

pub(super) fn internal(e: StoreError) -> ServiceError {
    ServiceError::from(e)
}

/// A limit's count as a length.
pub(super) fn items(limit: u32) -> usize {
    usize::try_from(limit).unwrap_or(usize::MAX)
}

impl ExpertiseService {
    /// The service under `scoring`: uploads name people of `users`,
    /// `experts` may rank the members of one of `groups` alone. Standings
    /// the store built under other settings stay as they are until
    /// [`ExpertiseService::rebuild_standings`]. It serves the operator
    /// until [`Gate::called_by`](crate::Gate::called_by) names the caller.
    pub fn new(
        store: Arc<dyn ExpertiseStore>,
        users: Arc<dyn UserStore>,
        groups: Arc<dyn GroupStore>,
        extractor: Arc<dyn TopicExtractor>,
        clock: Arc<dyn Clock>,
        scoring: Scoring,
    ) -> Self {
        let scoring = Arc::new(scoring);
        Self {
            commit: upload_writers(&store, &scoring, 1),
            store,
            users,
            groups,
            extractor,
            clock,
            scoring,
            meanings: MeaningModels::default(),
            privacy: None,
            actor: Actor::embedded(),
            caller: Caller::operator(),
        }
    }

    /// The service with `writers` writers of uploads (at least one), each
    /// writing its own transactions at once with the others: one suits a
    /// store that writes one transaction at a time anyway (SQLite); the
    /// composition root, which knows the store, says how many.
    pub fn with_writers(mut self, writers: usize) -> Self {
        if !self.caller.is_operator() {
            return self;
        }
        self.commit = upload_writers(&self.store, &self.scoring, writers);
        self
    }

    /// The service under the privacy rules of `privacy`: a person who is
    /// not learned about shows no topics, and the subjects asked that at
    /// most one person holds are counted there.
    pub fn with_privacy(mut self, privacy: Arc<dyn PrivacyStore>) -> Self {
        if !self.caller.is_operator() {
            return self;
        }
        let ledger = Arc::new(AskedLedger::new(privacy.clone(), self.clock.clone()));
        self.privacy = Some((privacy, ledger));
        self
    }

    /// Writes the counts of subjects asked gathered so far.
    pub fn flush_asked(&self) {
        if let Some((_, ledger)) = &self.privacy {
            ledger.flush();
        }
    }

    /// Whether `user` is learned about (always, without a privacy store).
    pub(super) fn learns(&self, user: UserId) -> Result<bool, ServiceError> {
        match &self.privacy {
            Some((store, _)) => Ok(store.learning_of(user)?.is_none_or(|l| l.learns)),
            None => Ok(true),
        }
    }

    /// Recomputes the stored standings from the stored actions when they
    /// were built under other settings than this service's; returns
    /// whether it did. It may run while the service serves: the store
    /// rebuilds a few learners at a time, each batch replacing theirs at
    /// once, so until it ends `experts` ranks people partly on the old
    /// standings, and uploads meanwhile count under the new settings. The
    /// settings are recorded last: a rebuild cut short starts again at the
    /// next call.
    pub fn rebuild_standings(&self) -> Result<bool, ServiceError> {
        self.caller.require(Operation::RunRound)?;
        self.store
            .rebuild_if_changed(&self.scoring)
            .map_err(internal)
    }

    /// The same service, a person's say over their profile recorded in the
    /// audit trail as made by `actor` (uploads are not changes of a
    /// person and are not recorded).
    pub fn acting_as(&self, actor: Actor) -> Self {
        if !self.caller.is_operator() {
            return self.clone();
        }
        Self {
            actor,
            ..self.clone()
        }
    }

    /// The same service for `caller`: asking who knows what, and reading
    /// the people and topics of an answer, needs `expertise:read` (a
    /// person may); a person reads and changes their own hidden topics
    /// only, a token with `users:read`/`users:write` anyone's.
    pub(crate) fn called_by(&self, caller: Caller) -> Self {
        Self {
            caller,
            ..self.clone()
        }
    }

    /// The person `user`, as the directory holds them, for a caller who
    /// may read expertise: whom an answer names, whose profile is read;
    /// `NotFound` when no user has the id.
    pub fn person(&self, user: UserId) -> Result<User, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        self.require_user(user)
    }

    /// The people `users` (ids of nobody left out), in one read, for a
    /// caller who may read expertise: those an answer names.
    pub fn people(&self, users: &[UserId]) -> Result<Vec<User>, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        self.users.get_many(users).map_err(internal)
    }

    /// Whether `user` is learned about now (a profile of someone who is
    /// not shows no topics), for a caller who may read expertise.
    pub fn learns_about(&self, user: UserId) -> Result<bool, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        self.require_user(user)?;
        self.learns(user)
    }

    /// The user `user`; `NotFound` when no user has the id.
    pub(super) fn require_user(&self, user: UserId) -> Result<User, ServiceError> {
        self.users
            .get(user)
            .map_err(internal)?
            .ok_or(ServiceError::NotFound(Missing::User))
    }

    /// The settings scores are computed with.
    pub fn scoring(&self) -> &Scoring {
        &self.scoring
    }
}

/// The writers of uploads: `writers` threads recording through `store`
/// under `scoring`.
fn upload_writers(
    store: &Arc<dyn ExpertiseStore>,
    scoring: &Arc<Scoring>,
    writers: usize,
) -> WriteBatcher<NewAction, Result<Recorded, RecordError>> {
    let (store, scoring) = (store.clone(), scoring.clone());
    let record_all = move |actions: &[NewAction]| store.record_all(actions, &scoring);
    WriteBatcher::new("kenning-uploads", writers.max(1), Arc::new(record_all))
}
