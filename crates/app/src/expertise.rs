//! Uploads from connectors and what is learned from them.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use kenning_domain::{
    entity_topics, profile_order, query_terms, rank_experts, read_query, related_topics,
    subject_known, Actor, Attribution, EntityTopic, Expert, ExpertsLimit, FieldViolation, GroupId,
    QueryTerm, ReadTerm, RelatedTopic, RelatedTopicsLimit, Rule, ScoredTopic, Scoring, TextTrace,
    Upload, UploadInput, UploadText, UserId, UserTopicsLimit, ACTIONS_COUNTED, PHRASES_PER_TEXT,
};
use kenning_ports::{
    ActionRecord, Clock, Embedder, ExpertiseStore, GroupRepository, NewAction, PrivacyStore,
    Question, RecordError, Recorded, StoreError, TopicExtractor, UploadStage, UserRepository,
    UPLOAD_STAGES,
};
use uuid::Uuid;

use crate::asked::AskedLedger;
use crate::error::{Missing, ServiceError};
use crate::group_commit::{GroupCommit, Lane};
use crate::meaning::Meanings;

/// How many topics are read from a free-text query.
const TOPICS_PER_QUERY: usize = 10;
/// The language a query is also read in when another is detected.
const FALLBACK_LANGUAGE: &str = "en";
/// How many of the best standings on each query topic `experts` reads:
/// far more than it lists, so that a person ranks on every topic that
/// matters, and bounded, so that a topic everybody knows costs no more
/// than one few know.
const STANDINGS_PER_TOPIC: u32 = 300;
/// How many of the actions in which a query topic is most relevant
/// `experts` reads for the documents' evidence: as many as it counts in
/// all, so that the best actions of a query of one topic are all read.
const ACTIONS_PER_TOPIC_READ: u32 = ACTIONS_COUNTED;
/// How many of the newest actions that taught a topic are read to find the
/// topics that go with it.
const RELATED_SAMPLE: u32 = 200;
/// How many contributing actions are listed per topic.
const ACTIONS_PER_TOPIC: u32 = 10;
/// How many of a person's highest standings a profile is ordered from: a
/// bound on the counts read for one profile; a topic below them stands
/// too low to be among the first a reader sees.
const PROFILE_CANDIDATES: usize = 500;

/// What an accepted upload taught.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The id the action was stored under.
    pub action_id: Uuid,
    /// The user the action was recorded for.
    pub user: UserId,
    /// The topics the upload taught, with their relevance in it: none when
    /// the privacy rules kept it from teaching (its person is not learned
    /// about, or its type is excluded).
    pub topics: Vec<ScoredTopic>,
}

/// How a query was read: the language and the topics, with what is known
/// of each.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryReading {
    /// The languages the query was read in (ISO 639-1): the question's
    /// words' own when one was read ("wer kennt sich mit ... aus":
    /// German), then the one detected in the subject; a subject not read
    /// as English is read with English rules too.
    pub languages: Vec<String>,
    /// The topics read, the largest share of the score first, those
    /// nobody learned last; with the learned topics the query reached
    /// through their meaning.
    pub topics: Vec<ReadTerm>,
    /// The model the query's meaning was read with, if any.
    pub meaning_model: Option<String>,
    /// The words read as the question ("who", "can", "help", "with"), as
    /// written: never topics.
    pub asking: Vec<String>,
    /// What the query asks about: the query less its question.
    pub subject: String,
    /// Whether somebody learned a topic the subject writes. When nobody
    /// did, whoever is listed was reached through meaning alone and
    /// scores below 50: the nearest Kenning has, not someone who knows.
    pub subject_known: bool,
}

/// A query as read: its subject's topics (with those reached through
/// meaning, once added), the language it was read in, and its question.
#[derive(Debug)]
struct ReadQuery {
    terms: Vec<QueryTerm>,
    /// The language of the question's words, when any were read, then
    /// those the subject was read in.
    languages: Vec<String>,
    question: Question,
}

/// A topic of a user, with the actions that earned it.
#[derive(Debug, Clone, PartialEq)]
pub struct UserTopic {
    /// The topic, with the user's score on it now.
    pub topic: ScoredTopic,
    /// Up to ten of the user's actions that taught it, newest first.
    pub actions: Vec<ActionRecord>,
}

/// The language the first text was read in, and what an upload of
/// `texts` teaches, best first: each text's key phrases and content words
/// as the extractor reads them (in `language` when given), combined under
/// `scoring`.
fn learned(
    extractor: &dyn TopicExtractor,
    texts: &[UploadText],
    language: Option<&str>,
    scoring: &Scoring,
) -> (Option<String>, Vec<EntityTopic>) {
    let mut read = None;
    let traces: Vec<TextTrace> = texts
        .iter()
        .map(|t| {
            let found = extractor.extract(&t.text, t.format, language, PHRASES_PER_TEXT);
            read.get_or_insert_with(|| found.language.clone());
            TextTrace {
                descriptor: t.descriptor,
                words_judged: extractor.judges_words(&found.language),
                phrases: found.topics,
                words: found.words,
            }
        })
        .collect();
    (read, entity_topics(&traces, scoring))
}

/// Topics scored under `scoring`, each marked shown when an upload showed
/// it and its label reads as a topic.
fn scored(
    extractor: &dyn TopicExtractor,
    topics: &[EntityTopic],
    scoring: &Scoring,
) -> Vec<ScoredTopic> {
    topics
        .iter()
        .map(|t| ScoredTopic {
            key: t.key.clone(),
            label: t.label.clone(),
            score: t.relevance(scoring),
            shown: t.shown && extractor.readable(&t.label),
        })
        .collect()
}

/// What an upload of `texts` would teach under `scoring`, with no store:
/// the language of its first text and every topic it would leave, with
/// its relevance, best first, each marked shown (people read it) or not
/// (kept for ranking alone). The same topics, labels and scale as an
/// upload's answer; `language` overrides detection, which an upload
/// never does.
pub fn taught(
    extractor: &dyn TopicExtractor,
    texts: &[UploadText],
    language: Option<&str>,
    scoring: &Scoring,
) -> (Option<String>, Vec<ScoredTopic>) {
    let (read, topics) = learned(extractor, texts, language, scoring);
    (read, scored(extractor, &topics, scoring))
}

/// Takes uploads and answers who knows what.
#[derive(Clone)]
pub struct ExpertiseService {
    store: Arc<dyn ExpertiseStore>,
    users: Arc<dyn UserRepository>,
    groups: Arc<dyn GroupRepository>,
    extractor: Arc<dyn TopicExtractor>,
    clock: Arc<dyn Clock>,
    scoring: Arc<Scoring>,
    commit: GroupCommit<NewAction, Result<Recorded, RecordError>>,
    meanings: Option<Arc<Meanings>>,
    /// The privacy store, when given: who is learned about, and where the
    /// subjects asked are counted.
    privacy: Option<(Arc<dyn PrivacyStore>, Arc<AskedLedger>)>,
    /// Who a person's say over their profile is recorded as made by.
    actor: Actor,
}

impl std::fmt::Debug for ExpertiseService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpertiseService")
            .field("scoring", &self.scoring)
            .field("meanings", &self.meanings)
            .finish_non_exhaustive()
    }
}

/// What the store answers for one action.
type RecordAnswer = Result<Recorded, RecordError>;

/// The places of `actions` by the lane of their person among `writers`
/// (each person's actions in one part, in their order, so her standings
/// learn them in the order sent, and always in the same lane, so no two
/// writers wait for her row); one part for any writer when there is one
/// writer, or when one alias stands in two lanes (the later of its
/// uploads must be the one refused, so they are written in one
/// transaction, in order).
fn lanes_by_person(actions: &[NewAction], writers: usize) -> Vec<(Lane, Vec<usize>)> {
    let whole = || vec![(Lane::Any, (0..actions.len()).collect())];
    if writers < 2 {
        return whole();
    }
    let mut parts: Vec<Vec<usize>> = vec![Vec::new(); writers];
    let mut alias_lane: HashMap<&str, usize> = HashMap::new();
    for (at, action) in actions.iter().enumerate() {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        action.user_email_key.hash(&mut hasher);
        let lane = usize::try_from(hasher.finish() % writers as u64).unwrap_or_default();
        if let Some(alias) = &action.alias {
            if *alias_lane.entry(alias.as_str()).or_insert(lane) != lane {
                return whole();
            }
        }
        parts[lane].push(at);
    }
    parts
        .into_iter()
        .enumerate()
        .filter(|(_, part)| !part.is_empty())
        .map(|(lane, part)| (Lane::Of(lane), part))
        .collect()
}

fn internal(e: StoreError) -> ServiceError {
    ServiceError::from(e)
}

/// A limit's count as a length.
fn items(limit: u32) -> usize {
    usize::try_from(limit).unwrap_or(usize::MAX)
}

impl ExpertiseService {
    /// The service under `scoring`: uploads name people of `users`,
    /// `experts` may rank the members of one of `groups` alone. Standings
    /// the store built under other settings stay as they are until
    /// [`ExpertiseService::rebuild_standings`].
    pub fn new(
        store: Arc<dyn ExpertiseStore>,
        users: Arc<dyn UserRepository>,
        groups: Arc<dyn GroupRepository>,
        extractor: Arc<dyn TopicExtractor>,
        clock: Arc<dyn Clock>,
        scoring: Scoring,
    ) -> Self {
        let scoring = Arc::new(scoring);
        let record_all = {
            let (store, scoring) = (store.clone(), scoring.clone());
            move |actions: &[NewAction]| store.record_all(actions, &scoring)
        };
        Self {
            commit: GroupCommit::start(
                "kenning-uploads",
                store.upload_writers(),
                Arc::new(record_all),
            ),
            store,
            users,
            groups,
            extractor,
            clock,
            scoring,
            meanings: None,
            privacy: None,
            actor: Actor::embedded(),
        }
    }

    /// The service under the privacy rules of `privacy`: a person who is
    /// not learned about shows no topics, and the subjects asked that at
    /// most one person holds are counted there.
    pub fn with_privacy(mut self, privacy: Arc<dyn PrivacyStore>) -> Self {
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

    /// Every topic `user` holds, with her score on it now, the highest
    /// first: (key, label, score).
    pub fn scored_standings(
        &self,
        user: UserId,
    ) -> Result<Vec<(String, String, f64)>, ServiceError> {
        self.known(user)?;
        let now = self.clock.now();
        let mut held: Vec<(String, String, f64)> = self
            .store
            .standings_of(user)
            .map_err(internal)?
            .into_iter()
            .map(|s| {
                let score = s.standing.score_at(now, &self.scoring);
                (s.key, s.label, score)
            })
            .collect();
        held.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        Ok(held)
    }

    /// Whether `user` is learned about (always, without a privacy store).
    fn learns(&self, user: UserId) -> Result<bool, ServiceError> {
        match &self.privacy {
            Some((store, _)) => Ok(store.learning_of(user)?.is_none_or(|l| l.learns)),
            None => Ok(true),
        }
    }

    /// The service finding topics by their meaning too, with `embedder`:
    /// a query reaches the learned topics nearest to its own (see
    /// [`refresh_meanings`](Self::refresh_meanings)).
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.meanings = Some(Arc::new(Meanings::new(embedder)));
        self
    }

    /// The name of the model topics are found by meaning with, if any.
    pub fn meaning_model(&self) -> Option<&str> {
        self.meanings.as_deref().map(Meanings::model)
    }

    /// How many learned topics a query reaches by meaning now, `None`
    /// without an embedder.
    pub fn meaning_topics(&self) -> Option<usize> {
        self.meanings.as_deref().map(Meanings::topics)
    }

    /// Embeds the topics learned since the last call (and forgets those
    /// nobody knows any more), so that queries reach them by meaning;
    /// returns how many topics are reachable, `None` without an embedder.
    /// Until the first call a query reaches no topic by meaning; a server
    /// calls it at start and then every few seconds.
    pub fn refresh_meanings(&self) -> Result<Option<usize>, ServiceError> {
        self.meanings
            .as_ref()
            .map(|m| m.refresh(self.store.as_ref()))
            .transpose()
            .map_err(internal)
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
        self.store
            .rebuild_if_changed(&self.scoring)
            .map_err(internal)
    }

    /// Checks an upload, extracts its topics and records what it teaches;
    /// returns once it is durable. Uploads of concurrent callers are
    /// written together (see [`ExpertiseService::upload_all`]).
    pub fn upload(&self, input: UploadInput) -> Result<Accepted, ServiceError> {
        self.upload_all(vec![input]).pop().unwrap_or_else(|| {
            Err(internal(StoreError::backend_message(
                "an upload was not answered",
            )))
        })
    }

    /// [`upload`](ExpertiseService::upload) of each of `inputs`, in their
    /// order, with one answer each: an upload refused (invalid, its user
    /// unknown, its alias taken, also by an earlier one of `inputs`) does
    /// not stop the others. Those accepted are written together, with the
    /// uploads of concurrent callers, in one transaction, and are durable
    /// when this returns.
    pub fn upload_all(&self, inputs: Vec<UploadInput>) -> Vec<Result<Accepted, ServiceError>> {
        let now = self.clock.now();
        let mut answers: Vec<Option<Result<Accepted, ServiceError>>> =
            Vec::with_capacity(inputs.len());
        // Where each action's answer goes, and what it taught.
        let mut waiting: Vec<(usize, Uuid, Vec<ScoredTopic>)> = Vec::new();
        let mut actions = Vec::new();
        for (at, input) in inputs.into_iter().enumerate() {
            match Upload::parse(input, now) {
                Ok(upload) => {
                    let (action, scored) = UPLOAD_STAGES.time(UploadStage::Extraction, || {
                        let action = self.action(upload, now);
                        let scored = self.scored(&action);
                        (action, scored)
                    });
                    waiting.push((at, action.id, scored));
                    actions.push(action);
                    answers.push(None);
                }
                Err(errors) => answers.push(Some(Err(errors.into()))),
            }
        }
        let recorded = self.record(actions);
        for ((at, action_id, topics), outcome) in waiting.into_iter().zip(recorded) {
            answers[at] = Some(match outcome {
                // An upload the privacy rules keep from teaching is
                // accepted, and says it taught nothing.
                Ok(Ok(recorded)) => Ok(Accepted {
                    action_id,
                    user: recorded.user,
                    topics: if recorded.taught { topics } else { Vec::new() },
                }),
                Ok(Err(RecordError::UnknownUser)) => Err(ServiceError::UnknownUser),
                Ok(Err(RecordError::DuplicateAlias { action, received })) => {
                    Err(ServiceError::DuplicateAlias {
                        action_id: action,
                        accepted: received,
                    })
                }
                Ok(Err(RecordError::Store(e))) | Err(e) => Err(internal(e)),
            });
        }
        answers
            .into_iter()
            .map(|answer| {
                answer.unwrap_or_else(|| {
                    Err(internal(StoreError::backend_message(
                        "the store answered fewer uploads than it was given",
                    )))
                })
            })
            .collect()
    }

    /// Records `actions` through the writers, one answer each in their
    /// order: as one job for any writer, or, when the store writes with
    /// several writers, as one part a lane ([`lanes_by_person`]), each
    /// written by its lane's writer at once with the others, each in a
    /// transaction of its own (a part that fails fails alone).
    fn record(&self, actions: Vec<NewAction>) -> Vec<Result<RecordAnswer, StoreError>> {
        let count = actions.len();
        if count == 0 {
            return Vec::new();
        }
        let places = lanes_by_person(&actions, self.commit.writers());
        let mut actions: Vec<Option<NewAction>> = actions.into_iter().map(Some).collect();
        let parts: Vec<(Lane, Vec<NewAction>)> = places
            .iter()
            .map(|(lane, part)| {
                let items = part.iter().filter_map(|&at| actions[at].take()).collect();
                (*lane, items)
            })
            .collect();
        let mut answers: Vec<Option<Result<RecordAnswer, StoreError>>> =
            (0..count).map(|_| None).collect();
        for ((_, part), written) in places.iter().zip(self.commit.write_parts(parts)) {
            match written {
                Ok(recorded) => {
                    for (&at, answer) in part.iter().zip(recorded) {
                        answers[at] = Some(Ok(answer));
                    }
                }
                Err(e) => {
                    for &at in part {
                        answers[at] = Some(Err(e.clone()));
                    }
                }
            }
        }
        answers
            .into_iter()
            .map(|answer| {
                answer.unwrap_or_else(|| {
                    Err(StoreError::backend_message(
                        "the store answered fewer uploads than it was given",
                    ))
                })
            })
            .collect()
    }

    /// The action an upload records, its topics extracted.
    fn action(&self, upload: Upload, now: DateTime<Utc>) -> NewAction {
        NewAction {
            id: Uuid::new_v4(),
            user_email_key: upload.user_email.key(),
            entity_type: upload.entity_type.as_str().to_owned(),
            action_type: upload.action_type.as_str().to_owned(),
            action_date: upload.action_date,
            alias: upload.alias.map(|a| a.as_str().to_owned()),
            received: now,
            topics: learned(self.extractor.as_ref(), &upload.texts, None, &self.scoring).1,
        }
    }

    /// The topics an action teaches, scored under the current settings.
    fn scored(&self, action: &NewAction) -> Vec<ScoredTopic> {
        scored(self.extractor.as_ref(), &action.topics, &self.scoring)
    }

    /// At most `limit` users who know about `query`, best first.
    pub fn experts(&self, query: &str, limit: ExpertsLimit) -> Result<Vec<Expert>, ServiceError> {
        self.experts_in(query, limit, None)
    }

    /// [`experts`](Self::experts) among the members of `group` alone when
    /// given (`NotFound` for a group that does not exist): the members
    /// are ranked as they would be among everyone, topics weighted by how
    /// many people of the whole organisation know them.
    pub fn experts_in(
        &self,
        query: &str,
        limit: ExpertsLimit,
        group: Option<GroupId>,
    ) -> Result<Vec<Expert>, ServiceError> {
        self.known_group(group)?;
        let read = self.query_terms(query)?;
        if read.terms.is_empty() {
            return Ok(Vec::new());
        }
        self.rank(&self.with_reached(read.terms), limit, group)
    }

    /// [`experts_in`](Self::experts_in) and [`read_query`](Self::read_query)
    /// at once, the query read a single time: what a page that shows both
    /// asks.
    pub fn experts_read(
        &self,
        query: &str,
        limit: ExpertsLimit,
        group: Option<GroupId>,
    ) -> Result<(Vec<Expert>, QueryReading), ServiceError> {
        self.known_group(group)?;
        let mut read = self.query_terms(query)?;
        let nothing_written = read.terms.is_empty();
        read.terms = self.with_reached(read.terms);
        let experts = if nothing_written {
            Vec::new()
        } else {
            self.rank(&read.terms, limit, group)?
        };
        Ok((experts, self.reading(read)?))
    }

    /// `NotFound` for a group that does not exist.
    fn known_group(&self, group: Option<GroupId>) -> Result<(), ServiceError> {
        match group {
            Some(group) if self.groups.group(group)?.is_none() => {
                Err(ServiceError::NotFound(Missing::Group))
            }
            _ => Ok(()),
        }
    }

    /// At most `limit` people ranked on the query's `terms` (among the
    /// members of `group` alone when given).
    fn rank(
        &self,
        terms: &[QueryTerm],
        limit: ExpertsLimit,
        group: Option<GroupId>,
    ) -> Result<Vec<Expert>, ServiceError> {
        let keys: Vec<String> = terms.iter().map(|t| t.key.clone()).collect();
        let (per_topic, actions) = (STANDINGS_PER_TOPIC, ACTIONS_PER_TOPIC_READ);
        let evidence = match group {
            None => self
                .store
                .evidence(&keys, per_topic, actions, &self.scoring),
            Some(group) => {
                self.store
                    .evidence_within(&keys, per_topic, actions, &self.scoring, group)
            }
        }
        .map_err(internal)?;
        let mut experts = rank_experts(
            terms,
            evidence,
            self.clock.now(),
            &self.scoring,
            items(limit.get()),
        );
        if let (Some((_, ledger)), None) = (&self.privacy, group) {
            ledger.note(terms, &experts, limit);
        }
        for expert in &mut experts {
            self.shown(&mut expert.topics);
        }
        Ok(experts)
    }

    /// Keeps the topics a person reads (shown by an upload and
    /// [`TopicExtractor::readable`]), unless none is: then all stay, so
    /// that every expert says why.
    fn shown(&self, topics: &mut Vec<ScoredTopic>) {
        for topic in topics.iter_mut() {
            topic.shown = topic.shown && self.extractor.readable(&topic.label);
        }
        if topics.iter().any(|t| t.shown) {
            topics.retain(|t| t.shown);
        }
    }

    /// At most `limit` of the topics most often learned together with
    /// `topic` (a topic key or any text that reads as one), the most telling
    /// first: those that go with it more than with everything else.
    pub fn related_topics(
        &self,
        topic: &str,
        limit: RelatedTopicsLimit,
    ) -> Result<Vec<RelatedTopic>, ServiceError> {
        let key = self.topic_key(topic)?;
        let found = self
            .store
            .cooccurring(&key, RELATED_SAMPLE)
            .map_err(internal)?;
        let keys: Vec<String> = found.topics.iter().map(|(k, _, _)| k.clone()).collect();
        let knowing = self.store.people_on(&keys).map_err(internal)?;
        let population = self.store.population().map_err(internal)?;
        // Every related topic ranked, then the best readable ones: tagging
        // stops once the limit is reached.
        Ok(related_topics(
            &key,
            &found.topics,
            found.actions,
            &knowing,
            population,
            usize::MAX,
        )
        .into_iter()
        .filter(|t| self.extractor.readable(&t.label))
        .take(items(limit.get()))
        .collect())
    }

    /// The topics a query is matched on: those of its subject, the query
    /// less the words that ask for a person ("who can help with"), which
    /// are never topics. A query is too short for its language to be told
    /// reliably ("Gloucestershire man arrested for naked gardening" reads
    /// as Danish), so a subject not read as English is also read with
    /// English rules, the extractor's fallback, and both readings count.
    /// A blank query is refused.
    fn query_terms(&self, query: &str) -> Result<ReadQuery, ServiceError> {
        if query.trim().is_empty() {
            return Err(FieldViolation::new("query", Rule::Required).into());
        }
        let question = self.extractor.question(query);
        let read = |language| {
            self.extractor.extract(
                &question.subject,
                kenning_domain::TextFormat::Plain,
                language,
                TOPICS_PER_QUERY,
            )
        };
        let detected = read(None);
        let mut terms = query_terms(&detected.topics, &detected.words);
        // The subject is read in the language detected in it and, when
        // that is not English, with English rules too (a short subject is
        // often detected as another language). The question's words were
        // read in their own language, which comes first: a subject of one
        // word ("Datenschutz") is too short to tell its language by.
        let mut languages: Vec<String> = question.language.iter().cloned().collect();
        for language in [detected.language.clone(), FALLBACK_LANGUAGE.to_owned()] {
            if !languages.contains(&language) {
                languages.push(language);
            }
        }
        if detected.language != FALLBACK_LANGUAGE {
            let english = read(Some(FALLBACK_LANGUAGE));
            for term in query_terms(&english.topics, &english.words) {
                if !terms.iter().any(|t| t.key == term.key) {
                    terms.push(term);
                }
            }
        }
        Ok(ReadQuery {
            terms,
            languages,
            question,
        })
    }

    /// `terms` and the learned topics they reach through their meaning.
    fn with_reached(&self, mut terms: Vec<QueryTerm>) -> Vec<QueryTerm> {
        if let Some(meanings) = &self.meanings {
            let reached = meanings.reach(&terms);
            terms.extend(reached);
        }
        terms
    }

    /// How `query` is read for [`experts`](Self::experts): the topics it
    /// is matched on, each with its weight in the query, how many people
    /// learned it and its share of the score. A topic nobody learned is
    /// why a query finds nobody, or fewer than expected.
    pub fn read_query(&self, query: &str) -> Result<QueryReading, ServiceError> {
        let mut read = self.query_terms(query)?;
        read.terms = self.with_reached(read.terms);
        self.reading(read)
    }

    /// How a read query stands against what is known.
    fn reading(&self, read: ReadQuery) -> Result<QueryReading, ServiceError> {
        let ReadQuery {
            terms,
            languages,
            question,
        } = read;
        let keys: Vec<String> = terms.iter().map(|t| t.key.clone()).collect();
        let knowing = if keys.is_empty() {
            Default::default()
        } else {
            self.store.people_on(&keys).map_err(internal)?
        };
        let population = self.store.population().map_err(internal)?;
        let topics = read_query(&terms, &knowing, population);
        Ok(QueryReading {
            languages,
            subject_known: subject_known(&topics),
            topics,
            meaning_model: self.meaning_model().map(str::to_owned),
            asking: question.asking,
            subject: question.subject,
        })
    }

    /// The key a topic is stored under: the text as given when it is a
    /// key already, else the best key phrase the extractor reads in it.
    fn topic_key(&self, topic: &str) -> Result<String, ServiceError> {
        let topic = topic.trim();
        if topic.is_empty() {
            return Err(FieldViolation::new("topic", Rule::Required).into());
        }
        let found = self.extractor.extract(
            topic,
            kenning_domain::TextFormat::Plain,
            None,
            TOPICS_PER_QUERY,
        );
        let longest = found
            .topics
            .iter()
            .max_by_key(|t| (t.key.split(' ').count(), std::cmp::Reverse(t.key.clone())))
            .map(|t| t.key.clone());
        Ok(longest
            .or_else(|| found.words.first().map(|w| w.key.clone()))
            .unwrap_or_else(|| topic.to_lowercase()))
    }

    /// At most `limit` of the topics `user` knows best, what sets them
    /// apart first (`profile_order`, among their 500
    /// highest standings), with the actions behind each;
    /// `NotFound` when no user has the id.
    pub fn user_topics(
        &self,
        user: UserId,
        limit: UserTopicsLimit,
    ) -> Result<Vec<UserTopic>, ServiceError> {
        self.known(user)?;
        if !self.learns(user)? {
            // Not learned about: nothing is told of them, as `experts`
            // does not offer them.
            return Ok(Vec::new());
        }
        let now = self.clock.now();
        let hidden = self.store.hidden_of(user).map_err(internal)?;
        let mut scored: Vec<ScoredTopic> = self
            .store
            .standings_of(user)
            .map_err(internal)?
            .into_iter()
            .filter(|s| s.shown && hidden.binary_search(&s.key).is_err())
            .map(|s| ScoredTopic {
                score: s.standing.score_at(now, &self.scoring),
                key: s.key,
                label: s.label,
                shown: true,
            })
            .filter(|t| t.score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.key.cmp(&b.key)));
        scored.truncate(PROFILE_CANDIDATES);
        let keys: Vec<String> = scored.iter().map(|t| t.key.clone()).collect();
        let knowing = self.store.people_on(&keys).map_err(internal)?;
        let population = self.store.population().map_err(internal)?;
        profile_order(&mut scored, &knowing, population);
        scored
            .into_iter()
            .filter(|t| self.extractor.readable(&t.label))
            .take(items(limit.get()))
            .map(|topic| {
                let actions = self
                    .store
                    .actions_on(user, &topic.key, &self.scoring, ACTIONS_PER_TOPIC)
                    .map_err(internal)?;
                Ok(UserTopic { topic, actions })
            })
            .collect()
    }

    /// Hides `topic` (a topic key or a text read as one, as
    /// [`related_topics`](Self::related_topics) reads it) from `user`'s
    /// profile and from ranking them, or shows it again (`hidden`
    /// false); returns the topics the user hides now, by key. New uploads
    /// go on teaching it but do not bring it back. `NotFound` when no
    /// user has the id.
    pub fn set_topic_hidden(
        &self,
        user: UserId,
        topic: &str,
        hidden: bool,
    ) -> Result<Vec<String>, ServiceError> {
        self.known(user)?;
        let key = self.topic_key(topic)?;
        let by = Attribution::new(self.actor.clone(), self.clock.now());
        self.store
            .set_hidden(user, &key, hidden, &by)
            .map_err(internal)?;
        self.store.hidden_of(user).map_err(internal)
    }

    /// The same service, a person's say over their profile recorded in the
    /// audit trail as made by `actor` (uploads are not changes of a
    /// person and are not recorded).
    pub fn acting_as(&self, actor: Actor) -> Self {
        Self {
            actor,
            ..self.clone()
        }
    }

    /// The topics `user` hides, by key; `NotFound` when no user has the
    /// id.
    pub fn hidden_topics(&self, user: UserId) -> Result<Vec<String>, ServiceError> {
        self.known(user)?;
        self.store.hidden_of(user).map_err(internal)
    }

    /// The topics `user` hides, each by key with the label people read
    /// it under (the key itself when nobody holds the topic any more);
    /// `NotFound` when no user has the id.
    pub fn hidden_topics_labelled(
        &self,
        user: UserId,
    ) -> Result<Vec<(String, String)>, ServiceError> {
        let keys = self.hidden_topics(user)?;
        let labels = self.store.labels_of(&keys).map_err(internal)?;
        Ok(keys
            .into_iter()
            .map(|key| {
                let label = labels.get(&key).cloned().unwrap_or_else(|| key.clone());
                (key, label)
            })
            .collect())
    }

    /// Up to `max` of `user`'s actions that taught the topic `key`, newest
    /// first: the evidence behind a topic of an expert.
    pub fn evidence_of(
        &self,
        user: UserId,
        key: &str,
        max: u32,
    ) -> Result<Vec<ActionRecord>, ServiceError> {
        self.store
            .actions_on(user, key, &self.scoring, max)
            .map_err(internal)
    }

    /// `NotFound` when no user has the id.
    fn known(&self, user: UserId) -> Result<(), ServiceError> {
        match self.users.get(user).map_err(internal)? {
            Some(_) => Ok(()),
            None => Err(ServiceError::NotFound(Missing::User)),
        }
    }

    /// The settings scores are computed with.
    pub fn scoring(&self) -> &Scoring {
        &self.scoring
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(person: usize, alias: Option<&str>) -> NewAction {
        NewAction {
            id: Uuid::new_v4(),
            user_email_key: format!("person{person}@example.com"),
            entity_type: "document".into(),
            action_type: "create".into(),
            action_date: DateTime::<Utc>::UNIX_EPOCH,
            alias: alias.map(Into::into),
            received: DateTime::<Utc>::UNIX_EPOCH,
            topics: Vec::new(),
        }
    }

    #[test]
    fn a_batch_is_split_by_the_lane_of_each_person_each_part_in_order() {
        let actions: Vec<NewAction> = (0..100)
            .map(|i| action(i % 10, Some(&format!("a{i}"))))
            .collect();
        let parts = lanes_by_person(&actions, 4);
        assert!(parts.len() > 1 && parts.len() <= 4, "{parts:?}");
        let mut every: Vec<usize> = parts.iter().flat_map(|(_, p)| p).copied().collect();
        every.sort_unstable();
        assert_eq!(every, (0..100).collect::<Vec<_>>(), "each action once");
        for (lane, part) in &parts {
            assert!(matches!(lane, Lane::Of(0..=3)), "{lane:?}");
            assert!(part.windows(2).all(|w| w[0] < w[1]), "in order: {part:?}");
        }
        for person in 0..10 {
            let holding: Vec<Lane> = parts
                .iter()
                .filter(|(_, part)| part.iter().any(|&at| at % 10 == person))
                .map(|(lane, _)| *lane)
                .collect();
            assert_eq!(holding.len(), 1, "person {person} in one part");
            // Her lane is the same in another batch, whatever it holds.
            let alone = lanes_by_person(&actions[person..=person], 4);
            assert_eq!(alone, vec![(holding[0], vec![0])], "person {person}");
        }
    }

    #[test]
    fn a_batch_stays_whole_for_one_writer_or_an_alias_in_two_lanes() {
        let many: Vec<NewAction> = (0..100).map(|i| action(i % 10, None)).collect();
        let whole = vec![(Lane::Any, (0..100).collect::<Vec<_>>())];
        assert_eq!(lanes_by_person(&many, 1), whole);
        let mut shared = many.clone();
        // The same alias for every person: some two are in two lanes.
        for action in &mut shared[..10] {
            action.alias = Some("same".into());
        }
        assert_eq!(lanes_by_person(&shared, 4), whole);
        let one_person: Vec<NewAction> = (0..100).map(|_| action(7, None)).collect();
        let parts = lanes_by_person(&one_person, 4);
        assert_eq!(parts.len(), 1, "one person, one lane");
        assert!(matches!(parts[0].0, Lane::Of(_)));
    }
}
