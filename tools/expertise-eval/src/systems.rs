//! The systems compared, each built from one [`World`]: Kenning through its
//! use cases, two BM25 models (Balog, Azzopardi and de Rijke 2006), the most
//! active people, and a random order.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use chrono::SecondsFormat;
use kenning_app::{ExpertiseService, UserService};
use kenning_clock::ManualClock;
use kenning_domain::{
    Expert, ExpertsLimit, LanguageId, NewUserInput, Raw, Scoring, TextInput, UploadInput, UserId,
    UserTopicsLimit,
};
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::Embedder;
use kenning_store_memory::MemoryStore;
use kenning_tools_common::bm25::{Analyzer, Bm25, Parameters};

use crate::rng::SplitMix64;
use crate::world::{within_the_query_limit, World};

/// The names of the systems, in the order of the table's columns.
pub const NAMES: [&str; 9] = [
    "Kenning",
    "Kenning+static",
    "Kenning+model",
    "Kenning+multilingual",
    "Kenning+routed",
    "BM25 profile",
    "BM25 documents",
    "most active",
    "random",
];

/// The most people a system lists: as many as `experts` returns at most.
const MAX_EXPERTS: usize = ExpertsLimit::MAX as usize;

/// How many of the best documents the document model sums per person.
pub const DOCUMENT_DEPTH: usize = 100;

/// A system that ranks people for a question.
pub trait Ranker {
    /// At most [`MAX_EXPERTS`] people, best first; people it finds nothing
    /// for are left out, so the list may be empty.
    fn rank(&mut self, query: &str) -> anyhow::Result<Vec<usize>>;
}

/// Kenning as a deployment runs it: users created through `UserService`,
/// every upload through `ExpertiseService::upload`, questions through
/// `ExpertiseService::experts`, on the in-memory store, with the key-phrase
/// extractor and the default scoring, the clock standing at the moment the
/// questions are asked.
pub struct Kenning {
    service: ExpertiseService,
    store: Arc<MemoryStore>,
    clock: Arc<ManualClock>,
    extractor: Arc<KeyphraseExtractor>,
    person_of: HashMap<UserId, usize>,
    latencies: Vec<Duration>,
}

impl std::fmt::Debug for Kenning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kenning")
            .field("people", &self.person_of.len())
            .finish_non_exhaustive()
    }
}

fn email(person: usize) -> String {
    format!("person{person}@example.com")
}

impl Kenning {
    /// Creates the people and uploads everything of `world`; an upload the
    /// service refuses is an error, since the systems must see the same data.
    pub fn new(world: &World, extractor: Arc<KeyphraseExtractor>) -> anyhow::Result<Self> {
        let store = Arc::new(MemoryStore::new());
        let clock = Arc::new(ManualClock::new(world.now));
        let users = UserService::new(store.clone(), clock.clone(), LanguageId::parse("en")?);
        let mut person_of = HashMap::new();
        for person in 0..world.people.len() {
            let user = users
                .create(NewUserInput {
                    email: email(person),
                    firstname: "Person".into(),
                    lastname: format!("Number {person}"),
                    ..NewUserInput::default()
                })
                .with_context(|| format!("creating person {person}"))?;
            person_of.insert(user.id(), person);
        }
        let service = ExpertiseService::new(
            store.clone(),
            store.clone(),
            store.clone(),
            extractor.clone(),
            clock.clone(),
            Scoring::default(),
        );
        for (i, upload) in world.uploads.iter().enumerate() {
            let texts = upload
                .texts
                .iter()
                .map(|t| {
                    Raw::Value(TextInput {
                        text_format: Raw::Value(if t.html { "html" } else { "plain" }.into()),
                        descriptor: Raw::Value(t.descriptor.as_str().into()),
                        text: Raw::Value(t.body.clone()),
                        refused_fields: Vec::new(),
                    })
                })
                .collect();
            service
                .upload(UploadInput {
                    entity_type: Raw::Value(upload.entity_type.into()),
                    action_type: Raw::Value(upload.action_type.into()),
                    action_date: Raw::Value(
                        upload.date.to_rfc3339_opts(SecondsFormat::Millis, true),
                    ),
                    user_email: Raw::Value(email(upload.person)),
                    texts: Raw::Value(texts),
                    ..UploadInput::default()
                })
                .with_context(|| format!("upload {i} of person {}", upload.person))?;
        }
        Ok(Self {
            service,
            store,
            clock,
            extractor,
            person_of,
            latencies: Vec::new(),
        })
    }

    /// Kenning on the same uploads, finding topics by meaning too with
    /// `embedder` (for the queries in English alone when `others` reads
    /// the rest), every learned topic embedded before the first query.
    pub fn with_meaning(
        &self,
        embedder: Arc<dyn Embedder>,
        others: Option<Arc<dyn Embedder>>,
    ) -> anyhow::Result<Self> {
        let mut service = ExpertiseService::new(
            self.store.clone(),
            self.store.clone(),
            self.store.clone(),
            self.extractor.clone(),
            self.clock.clone(),
            Scoring::default(),
        )
        .with_embedder(embedder);
        if let Some(others) = others {
            service = service.with_other_languages_embedder(others);
        }
        service
            .refresh_meanings()
            .context("embedding the learned topics")?;
        Ok(Self {
            service,
            store: self.store.clone(),
            clock: self.clock.clone(),
            extractor: self.extractor.clone(),
            person_of: self.person_of.clone(),
            latencies: Vec::new(),
        })
    }

    /// Kenning's experts for `query` with the person each one is; the time
    /// the call took is recorded.
    pub fn experts(&mut self, query: &str) -> anyhow::Result<Vec<(usize, Expert)>> {
        let limit = ExpertsLimit::parse(ExpertsLimit::MAX.into())?;
        let query = within_the_query_limit(query);
        let started = Instant::now();
        let experts = self.service.experts(query, limit);
        self.latencies.push(started.elapsed());
        Ok(experts
            .with_context(|| format!("experts({query:?})"))?
            .into_iter()
            .filter_map(|e| self.person_of.get(&e.user).map(|&p| (p, e)))
            .collect())
    }

    /// The labels of `person`'s best `limit` topics, as `userTopics` lists
    /// them.
    pub fn profile(&self, person: usize, limit: i64) -> anyhow::Result<Vec<String>> {
        let user = self
            .person_of
            .iter()
            .find_map(|(user, &p)| (p == person).then_some(*user))
            .with_context(|| format!("person {person} was not created"))?;
        let topics = self
            .service
            .user_topics(user, UserTopicsLimit::parse(limit)?)
            .with_context(|| format!("userTopics of person {person}"))?;
        Ok(topics.into_iter().map(|t| t.topic.label).collect())
    }

    /// How `query` was read: each topic as "label (weight)", with the
    /// similarity of those reached through meaning and how many people
    /// learned each.
    pub fn reading(&self, query: &str) -> anyhow::Result<Vec<String>> {
        let query = within_the_query_limit(query);
        let reading = self
            .service
            .read_query(query)
            .with_context(|| format!("queryReading({query:?})"))?;
        Ok(reading
            .topics
            .iter()
            .map(|t| match t.similarity {
                Some(s) => format!("{:?} ~{s:.2}, {} people", t.label, t.people),
                None => format!("{:?}, {} people", t.label, t.people),
            })
            .collect())
    }

    /// How long each `experts` call took.
    pub fn latencies(&self) -> &[Duration] {
        &self.latencies
    }
}

impl Ranker for Kenning {
    fn rank(&mut self, query: &str) -> anyhow::Result<Vec<usize>> {
        Ok(self.experts(query)?.into_iter().map(|(p, _)| p).collect())
    }
}

/// People by score, best first, equal scores in the order of `tie_break`
/// (a position per person); at most [`MAX_EXPERTS`].
fn by_score(scores: impl IntoIterator<Item = (usize, f64)>, tie_break: &[usize]) -> Vec<usize> {
    let mut scored: Vec<(usize, f64)> = scores.into_iter().collect();
    scored.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(tie_break[a.0].cmp(&tie_break[b.0]))
    });
    scored
        .into_iter()
        .take(MAX_EXPERTS)
        .map(|(p, _)| p)
        .collect()
}

/// A seeded position per person for breaking ties.
fn tie_break(people: usize, rng: &mut SplitMix64) -> Vec<usize> {
    let mut position = vec![0; people];
    for (rank, person) in rng.permutation(people).into_iter().enumerate() {
        position[person] = rank;
    }
    position
}

/// Balog's model 1: each person's uploaded texts joined into one profile
/// document; people ranked by the BM25 score of their profile.
#[derive(Debug)]
pub struct ProfileBm25 {
    analyzer: Arc<Analyzer>,
    index: Bm25,
    tie_break: Vec<usize>,
}

impl ProfileBm25 {
    pub fn new(world: &World, analyzer: Arc<Analyzer>, rng: &mut SplitMix64) -> Self {
        let mut profiles = vec![Vec::new(); world.people.len()];
        for upload in &world.uploads {
            profiles[upload.person].extend(analyzer.terms(&upload.visible()));
        }
        Self {
            index: Bm25::new(&profiles, Parameters::default()),
            analyzer,
            tie_break: tie_break(world.people.len(), rng),
        }
    }
}

impl Ranker for ProfileBm25 {
    fn rank(&mut self, query: &str) -> anyhow::Result<Vec<usize>> {
        let hits = self.index.search(&self.analyzer.terms(query));
        Ok(by_score(hits, &self.tie_break))
    }
}

/// Balog's model 2: BM25 over the uploaded documents; a person's score is
/// the sum of the scores of their documents among the [`DOCUMENT_DEPTH`]
/// best (every document belongs to its uploader alone, with weight 1).
#[derive(Debug)]
pub struct DocumentBm25 {
    analyzer: Arc<Analyzer>,
    index: Bm25,
    owner: Vec<usize>,
    tie_break: Vec<usize>,
}

impl DocumentBm25 {
    pub fn new(world: &World, analyzer: Arc<Analyzer>, rng: &mut SplitMix64) -> Self {
        let documents: Vec<Vec<String>> = world
            .uploads
            .iter()
            .map(|u| analyzer.terms(&u.visible()))
            .collect();
        Self {
            index: Bm25::new(&documents, Parameters::default()),
            analyzer,
            owner: world.uploads.iter().map(|u| u.person).collect(),
            tie_break: tie_break(world.people.len(), rng),
        }
    }
}

impl Ranker for DocumentBm25 {
    fn rank(&mut self, query: &str) -> anyhow::Result<Vec<usize>> {
        let mut scores: HashMap<usize, f64> = HashMap::new();
        for (doc, score) in self
            .index
            .search(&self.analyzer.terms(query))
            .into_iter()
            .take(DOCUMENT_DEPTH)
        {
            *scores.entry(self.owner[doc]).or_default() += score;
        }
        Ok(by_score(scores, &self.tie_break))
    }
}

/// Everyone, by number of uploads, whatever the question.
#[derive(Debug)]
pub struct MostActive(Vec<usize>);

impl MostActive {
    pub fn new(world: &World, rng: &mut SplitMix64) -> Self {
        let mut uploads = vec![0.0; world.people.len()];
        for upload in &world.uploads {
            uploads[upload.person] += 1.0;
        }
        let tie_break = tie_break(world.people.len(), rng);
        Self(by_score(uploads.into_iter().enumerate(), &tie_break))
    }
}

impl Ranker for MostActive {
    fn rank(&mut self, _query: &str) -> anyhow::Result<Vec<usize>> {
        Ok(self.0.clone())
    }
}

/// Everyone, in a new seeded random order for each question.
#[derive(Debug)]
pub struct RandomOrder {
    people: usize,
    rng: SplitMix64,
}

impl RandomOrder {
    pub fn new(world: &World, rng: &mut SplitMix64) -> Self {
        Self {
            people: world.people.len(),
            rng: SplitMix64::new(rng.next_u64()),
        }
    }
}

impl Ranker for RandomOrder {
    fn rank(&mut self, _query: &str) -> anyhow::Result<Vec<usize>> {
        let mut order = self.rng.permutation(self.people);
        order.truncate(MAX_EXPERTS);
        Ok(order)
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Duration};
    use kenning_domain::Descriptor;

    use super::*;
    use crate::world::{Text, Upload};

    fn world() -> World {
        let now = DateTime::from_timestamp(1_735_689_600, 0).unwrap();
        let upload = |person, text: &str| Upload {
            person,
            date: now - Duration::days(1),
            entity_type: "document",
            action_type: "edit",
            texts: vec![Text::plain(Descriptor::Default, text)],
        };
        World {
            people: vec!["barista".into(), "roaster".into(), "idle".into()],
            uploads: vec![
                upload(0, "Espresso extraction: grind size, tamping and crema."),
                upload(0, "Milk steaming for a flat white and latte art."),
                upload(
                    1,
                    "Roasting green coffee beans: first crack and roast profiles.",
                ),
            ],
            queries: Vec::new(),
            now,
        }
    }

    #[test]
    fn the_baselines_rank_the_obvious_person_first() {
        let w = world();
        let analyzer = Arc::new(Analyzer::english());
        let mut rng = SplitMix64::new(1);
        let mut profile = ProfileBm25::new(&w, analyzer.clone(), &mut rng);
        let mut documents = DocumentBm25::new(&w, analyzer, &mut rng);
        assert_eq!(profile.rank("roast profiles").unwrap(), [1]);
        assert_eq!(documents.rank("latte art and crema").unwrap(), [0]);
        assert!(profile.rank("saxophone").unwrap().is_empty());
        let mut active = MostActive::new(&w, &mut rng);
        assert_eq!(active.rank("anything").unwrap()[0], 0);
        let mut random = RandomOrder::new(&w, &mut rng);
        let mut order = random.rank("anything").unwrap();
        order.sort_unstable();
        assert_eq!(order, [0, 1, 2]);
    }

    #[test]
    fn kenning_learns_from_the_uploads() {
        let w = world();
        let mut kenning = Kenning::new(&w, Arc::new(KeyphraseExtractor::new())).unwrap();
        assert_eq!(kenning.rank("roast profiles").unwrap().first(), Some(&1));
        assert_eq!(kenning.latencies().len(), 1);
    }
}
