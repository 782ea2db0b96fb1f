//! Topics found by their meaning: a vector for every learned topic, kept in
//! memory, and the topics nearest to a query's, so that "automobile" finds
//! the people who learned "car".
//!
//! Nothing here is stored: the vectors are computed from the topics' labels
//! (never from an uploaded text) by the [`Embedder`] and rebuilt by any
//! instance from the store's topics, so several instances each keep their
//! own copy of the same index.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use kenning_domain::QueryTerm;
use kenning_ports::{Embedder, ExpertiseStore, Scale, StoreError};

/// How many learned topics one topic of a query reaches at most.
const REACHED_PER_TOPIC: usize = 3;
/// How many of a query's topics nobody learned are sought by their
/// meaning, the first in the query's order (its words before its
/// phrases): each costs a pass over the index.
const UNKNOWN_SOUGHT: usize = 2;
/// How many learned topics the query as a whole (the mean of its topics'
/// vectors) reaches at most.
const REACHED_PER_QUERY: usize = 5;
/// How many labels are asked of the store, and embedded, at once while
/// indexing.
const LABELS_PER_READ: usize = 256;
/// How often a refresh that embeds many topics lets queries see those it
/// has embedded so far.
const PUBLISHED_EVERY: Duration = Duration::from_secs(1);
/// How many texts of queries that nobody learned keep their vectors, so
/// that a question asked again does not run the model again.
const ASKED_REMEMBERED: usize = 4096;

/// The vectors of the latest texts queries asked that the index does not
/// hold, the oldest forgotten first.
#[derive(Debug, Default)]
struct Asked {
    vectors: HashMap<String, Option<Vec<f32>>>,
    order: VecDeque<String>,
}

impl Asked {
    fn remember(&mut self, text: &str, vector: Option<Vec<f32>>) {
        if self.vectors.contains_key(text) {
            return;
        }
        if self.order.len() >= ASKED_REMEMBERED {
            if let Some(oldest) = self.order.pop_front() {
                self.vectors.remove(&oldest);
            }
        }
        self.order.push_back(text.to_owned());
        self.vectors.insert(text.to_owned(), vector);
    }
}

/// A unit vector in eight bits a component: its components times `scale`,
/// rounded, `scale` spreading the largest over the whole range. A quarter
/// of the memory of 32-bit floats, for an error of the similarity well
/// under 0.01.
#[derive(Debug, Clone)]
struct Quantized {
    codes: Vec<i8>,
    scale: f32,
}

impl Quantized {
    fn new(vector: &[f32]) -> Self {
        let largest = vector.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if largest > 0.0 {
            f32::from(i8::MAX) / largest
        } else {
            1.0
        };
        let codes = vector
            .iter()
            // In range by construction: |x| * scale <= 127.
            .map(|x| (x * scale).round().clamp(-127.0, 127.0) as i8)
            .collect();
        Self { codes, scale }
    }
}

/// How many products of a dot product are summed side by side: lanes
/// the compiler keeps in vector registers.
const LANES: usize = 16;

/// The similarity of two quantized unit vectors of one length.
fn similarity(a: &[i8], a_scale: f32, b: &[i8], b_scale: f32) -> f32 {
    let mut sums = [0i32; LANES];
    let (a_chunks, b_chunks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: i32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..LANES {
            sums[lane] += i32::from(i16::from(x[lane]) * i16::from(y[lane]));
        }
    }
    (sums.iter().sum::<i32>() + tail) as f32 / (a_scale * b_scale)
}

/// The learned topics' vectors, quantized, one row of `dimensions` per
/// key.
#[derive(Debug, Clone, Default)]
struct Index {
    keys: Vec<String>,
    labels: Vec<String>,
    codes: Vec<i8>,
    scales: Vec<f32>,
    at: HashMap<String, usize>,
    /// Learned keys the embedder found no meaning in (no label, or no
    /// token it knows): not asked of the store again while learned.
    meaningless: HashSet<String>,
}

/// A vector to find the nearest rows of: at most `limit`, above its
/// `scale`'s noise, for a query topic of `weight` (one for the whole
/// query).
#[derive(Debug)]
struct Sought {
    vector: Quantized,
    limit: usize,
    scale: Scale,
    weight: f64,
}

impl Index {
    fn push(&mut self, key: String, label: String, codes: &[i8], scale: f32) {
        self.at.insert(key.clone(), self.keys.len());
        self.keys.push(key);
        self.labels.push(label);
        self.codes.extend_from_slice(codes);
        self.scales.push(scale);
    }

    /// The vector of `row`, read back from its eight bits.
    fn vector(&self, row: usize, dimensions: usize) -> Vec<f32> {
        let scale = self.scales[row];
        self.codes[row * dimensions..(row + 1) * dimensions]
            .iter()
            .map(|c| f32::from(*c) / scale)
            .collect()
    }

    /// The rows nearest to each of `sought`, best first, in one pass over
    /// the index; rows in `skip` are passed over.
    fn nearest(
        &self,
        sought: &[Sought],
        skip: &HashSet<usize>,
        dimensions: usize,
    ) -> Vec<Vec<(usize, f32)>> {
        let mut found: Vec<Vec<(usize, f32)>> = vec![Vec::new(); sought.len()];
        let rows = self.codes.chunks_exact(dimensions.max(1)).zip(&self.scales);
        for (row, (codes, scale)) in rows.enumerate() {
            for (s, best) in sought.iter().zip(found.iter_mut()) {
                let near = similarity(&s.vector.codes, s.vector.scale, codes, *scale);
                if near <= s.scale.noise
                    || (best.len() == s.limit && best.last().is_some_and(|(_, b)| *b >= near))
                    || skip.contains(&row)
                {
                    continue;
                }
                let at = best.partition_point(|(_, b)| *b >= near);
                best.insert(at, (row, near));
                best.truncate(s.limit);
            }
        }
        found
    }
}

/// The dot product of two vectors of one length.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Learned topics by meaning, for one embedder.
pub(crate) struct Meanings {
    embedder: Arc<dyn Embedder>,
    index: RwLock<Arc<Index>>,
    asked: Mutex<Asked>,
}

impl std::fmt::Debug for Meanings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Meanings")
            .field("model", &self.embedder.model())
            .field("topics", &self.index().keys.len())
            .finish()
    }
}

impl Meanings {
    pub(crate) fn new(embedder: Arc<dyn Embedder>) -> Self {
        Self {
            embedder,
            index: RwLock::new(Arc::new(Index::default())),
            asked: Mutex::new(Asked::default()),
        }
    }

    /// The vectors of `texts`, each embedded once while remembered
    /// ([`ASKED_REMEMBERED`]).
    fn embed_asked(&self, texts: &[&str]) -> Vec<Option<Vec<f32>>> {
        let lock = || match self.asked.lock() {
            Ok(asked) => asked,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut vectors: Vec<Option<Option<Vec<f32>>>> = {
            let asked = lock();
            texts
                .iter()
                .map(|t| asked.vectors.get(*t).cloned())
                .collect()
        };
        let missing: Vec<&str> = texts
            .iter()
            .zip(&vectors)
            .filter(|(_, v)| v.is_none())
            .map(|(t, _)| *t)
            .collect();
        if !missing.is_empty() {
            let embedded = self.embedder.embed_all(&missing);
            let mut asked = lock();
            let mut embedded = missing.iter().zip(embedded);
            for vector in vectors.iter_mut().filter(|v| v.is_none()) {
                if let Some((text, fresh)) = embedded.next() {
                    asked.remember(text, fresh.clone());
                    *vector = Some(fresh);
                }
            }
        }
        vectors.into_iter().map(Option::flatten).collect()
    }

    pub(crate) fn model(&self) -> &str {
        self.embedder.model()
    }

    /// How many tokens of the model's vocabulary spell `words`, in all.
    fn pieces(&self, words: &[&str]) -> usize {
        words.iter().map(|w| self.embedder.pieces(w)).sum()
    }

    /// How many topics the index holds.
    pub(crate) fn topics(&self) -> usize {
        self.index().keys.len()
    }

    fn index(&self) -> Arc<Index> {
        match self.index.read() {
            Ok(index) => index.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Brings the index up to the store's learned topics: embeds those it
    /// lacks (a topic without meaning to the embedder is remembered as
    /// such, not read again), drops those nobody knows any more. Returns
    /// how many topics it holds. Queries meanwhile use the index as it
    /// was, and see the topics embedded so far at least every
    /// [`PUBLISHED_EVERY`]: a refresh with thousands of new topics to run
    /// through the model makes them reachable as it goes, not all at its
    /// end.
    pub(crate) fn refresh(&self, store: &dyn ExpertiseStore) -> Result<usize, StoreError> {
        let old = self.index();
        let keys = store.learned_keys()?;
        let dimensions = self.embedder.dimensions();
        let missing: Vec<String> = keys
            .iter()
            .filter(|k| !old.at.contains_key(*k) && !old.meaningless.contains(*k))
            .cloned()
            .collect();
        if missing.is_empty() && keys.len() == old.keys.len() + old.meaningless.len() {
            return Ok(old.keys.len());
        }
        // What is still learned keeps its vector.
        let mut index = Index::default();
        for key in keys {
            if let Some(&row) = old.at.get(&key) {
                let codes = &old.codes[row * dimensions..(row + 1) * dimensions];
                let label = old.labels[row].clone();
                index.push(key, label, codes, old.scales[row]);
            } else if old.meaningless.contains(&key) {
                index.meaningless.insert(key);
            }
        }
        let mut published = Instant::now();
        for chunk in missing.chunks(LABELS_PER_READ) {
            let labels = store.labels_of(chunk)?;
            let texts: Vec<&str> = chunk
                .iter()
                .filter_map(|k| labels.get(k).map(String::as_str))
                .collect();
            let vectors: HashMap<&str, Vec<f32>> = texts
                .iter()
                .zip(self.embedder.embed_all(&texts))
                .filter_map(|(label, vector)| Some((*label, vector?)))
                .collect();
            for key in chunk {
                match labels
                    .get(key)
                    .and_then(|label| Some((label, vectors.get(label.as_str())?)))
                {
                    Some((label, vector)) => {
                        let quantized = Quantized::new(vector);
                        index.push(
                            key.clone(),
                            label.clone(),
                            &quantized.codes,
                            quantized.scale,
                        );
                    }
                    None => {
                        index.meaningless.insert(key.clone());
                    }
                }
            }
            if published.elapsed() >= PUBLISHED_EVERY {
                self.publish(index.clone());
                published = Instant::now();
            }
        }
        let held = index.keys.len();
        self.publish(index);
        Ok(held)
    }

    /// Makes `index` the one queries use.
    fn publish(&self, index: Index) {
        match self.index.write() {
            Ok(mut slot) => *slot = Arc::new(index),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(index),
        }
    }

    /// The learned topics `query` reaches through its meaning: for each of
    /// its first [`UNKNOWN_SOUGHT`] topics nobody learned (a word, or a
    /// phrase with such a word) the nearest few, and for the query as a
    /// whole (the mean of its topics' vectors) the nearest few, each above
    /// its [`floor`](Self::floor). A topic the query writes is not
    /// reached; one reached twice keeps its greater weight, which is the
    /// weight of the query topic that reached it (one for the whole query)
    /// times its nearness on the embedder's scale
    /// ([`Scale::nearness`](kenning_ports::Scale::nearness)): the same
    /// subject in other words counts as if written, the barely related
    /// hardly at all.
    pub(crate) fn reach(&self, query: &[QueryTerm]) -> Vec<QueryTerm> {
        let index = self.index();
        if index.keys.is_empty() {
            return Vec::new();
        }
        let dimensions = self.embedder.dimensions();
        let unknown = |key: &str| !index.at.contains_key(key);
        // A topic somebody learned is in the index already, and a phrase of
        // learned words means what they mean together: only a topic with a
        // word nobody learned is embedded (the model runs for those alone).
        let written: Vec<&QueryTerm> = query
            .iter()
            .filter(|t| t.written() && (!unknown(&t.key) || t.key.split(' ').any(unknown)))
            .collect();
        let fresh: Vec<&str> = written
            .iter()
            .filter(|t| unknown(&t.key))
            .map(|t| t.label.as_str())
            .collect();
        let mut embedded_fresh = self.embed_asked(&fresh).into_iter();
        let vectors: Vec<Option<Vec<f32>>> = written
            .iter()
            .map(|t| match index.at.get(&t.key) {
                Some(&row) => Some(index.vector(row, dimensions)),
                None => embedded_fresh.next().flatten(),
            })
            .collect();
        let mut queries: Vec<Sought> = Vec::new();
        let mut whole = vec![0.0f32; dimensions];
        let mut embedded = 0;
        for (term, vector) in written.iter().zip(vectors) {
            let Some(vector) = vector else {
                continue;
            };
            for (sum, x) in whole.iter_mut().zip(&vector) {
                *sum += x * term.weight as f32;
            }
            embedded += 1;
            // A topic somebody learned is matched as written; one nobody
            // learned is sought by its meaning.
            if unknown(&term.key) && queries.len() < UNKNOWN_SOUGHT {
                queries.push(Sought {
                    scale: self.embedder.scale(&vector),
                    vector: Quantized::new(&vector),
                    limit: REACHED_PER_TOPIC,
                    weight: term.weight,
                });
            }
        }
        if embedded > 1 {
            let norm = dot(&whole, &whole).sqrt();
            if norm > 0.0 {
                whole.iter_mut().for_each(|x| *x /= norm);
                queries.push(Sought {
                    scale: self.embedder.scale(&whole),
                    vector: Quantized::new(&whole),
                    limit: REACHED_PER_QUERY,
                    weight: 1.0,
                });
            }
        }
        let skip: HashSet<usize> = query
            .iter()
            .filter_map(|t| index.at.get(&t.key).copied())
            .collect();
        let found = index.nearest(&queries, &skip, dimensions);
        let mut reached: Vec<QueryTerm> = Vec::new();
        for (near, sought) in found.into_iter().zip(&queries) {
            for (row, similarity) in near {
                let nearness = f64::from(sought.scale.nearness(similarity));
                let similarity = f64::from(similarity);
                let term = QueryTerm {
                    key: index.keys[row].clone(),
                    label: index.labels[row].clone(),
                    weight: sought.weight * nearness,
                    similarity: Some(similarity),
                };
                // The greater weight wins, then the nearer.
                let rank = |t: &QueryTerm| (t.weight, t.similarity.unwrap_or(0.0));
                match reached.iter_mut().find(|t| t.key == term.key) {
                    Some(known) if rank(known) >= rank(&term) => {}
                    Some(known) => *known = term,
                    None => reached.push(term),
                }
            }
        }
        reached
    }
}

/// The language whose queries the first embedder reads when another reads
/// the rest.
const FIRST_LANGUAGE: &str = "en";

/// The embedders a query's meaning is read with.
#[derive(Debug, Clone, Default)]
pub(crate) struct MeaningModels {
    /// Reads every query, or those read in English first when `others` is
    /// given.
    pub(crate) first: Option<Arc<Meanings>>,
    /// Reads the queries read in another language first.
    pub(crate) others: Option<Arc<Meanings>>,
}

impl MeaningModels {
    /// Each embedder, once.
    pub(crate) fn each(&self) -> impl Iterator<Item = &Arc<Meanings>> {
        self.first.iter().chain(&self.others)
    }

    /// The embedders for a query whose question's words were read in
    /// `frame`, if any: the English one for a question asked in English,
    /// the one for other languages for a question asked in another. A
    /// query without such words ("Datenschutz", "data protection") is too
    /// short to tell its language by: the model whose vocabulary spells
    /// its `words` with fewer tokens reads it, for the other spells them
    /// from pieces it reads apart ("dat", "ens": "date"); both read it
    /// when both spell them alike (each holds each word whole, or both
    /// split "k8s" in three).
    pub(crate) fn for_query(&self, frame: Option<&str>, words: &[&str]) -> Vec<&Arc<Meanings>> {
        match (&self.first, &self.others, frame) {
            (Some(first), Some(_), Some(FIRST_LANGUAGE)) => vec![first],
            (_, Some(others), Some(_)) => vec![others],
            (Some(first), Some(others), None) => {
                match first.pieces(words).cmp(&others.pieces(words)) {
                    std::cmp::Ordering::Less => vec![first],
                    std::cmp::Ordering::Greater => vec![others],
                    // No word, or spelled alike.
                    std::cmp::Ordering::Equal => vec![first, others],
                }
            }
            _ => self.each().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use kenning_domain::{EntityTopic, LanguageId, NewUser, NewUserInput, Scoring, User, UserId};
    use kenning_ports::{NewAction, UserStore};
    use kenning_store_memory::MemoryStore;
    use uuid::Uuid;

    use super::*;

    /// Vectors written by hand: cars along one axis, baking along another.
    #[derive(Debug)]
    struct Table;

    impl Embedder for Table {
        fn model(&self) -> &str {
            "table"
        }

        fn dimensions(&self) -> usize {
            3
        }

        fn embed(&self, text: &str) -> Option<Vec<f32>> {
            let v: [f32; 3] = match text.to_lowercase().as_str() {
                "car" => [1.0, 0.0, 0.0],
                "automobile" => [0.96, 0.28, 0.0],
                "vehicle" => [0.8, 0.6, 0.0],
                "bread" => [0.0, 0.0, 1.0],
                "baking" => [0.0, 0.28, 0.96],
                "banana" => [0.0, 0.6, 0.8],
                _ => return None,
            };
            Some(v.to_vec())
        }

        fn related_above(&self, _vector: &[f32]) -> f32 {
            0.7
        }

        fn scale(&self, _vector: &[f32]) -> Scale {
            Scale {
                noise: 0.7,
                same: 0.9,
            }
        }

        fn pieces(&self, word: &str) -> usize {
            if self.embed(word).is_some() {
                1
            } else {
                word.len()
            }
        }
    }

    fn store_knowing(keys: &[&str]) -> MemoryStore {
        let store = MemoryStore::new();
        let now = Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap();
        let input = NewUserInput {
            email: "ada@example.com".into(),
            firstname: "Ada".into(),
            lastname: "Lovelace".into(),
            ..NewUserInput::default()
        };
        let new = NewUser::parse(input, &LanguageId::parse("en").unwrap()).unwrap();
        let user = User::register(UserId::from_uuid(Uuid::new_v4()), new, now);
        let by = kenning_domain::Attribution::new(kenning_domain::Actor::embedded(), now);
        UserStore::insert(&store, &user, &by).unwrap();
        let action = NewAction {
            id: Uuid::new_v4(),
            user_email_key: "ada@example.com".into(),
            entity_type: "document".into(),
            action_type: "edit".into(),
            action_date: now,
            alias: None,
            received: now,
            topics: keys
                .iter()
                .map(|key| EntityTopic {
                    key: (*key).into(),
                    label: key.to_uppercase(),
                    by_descriptor: [0.0, 1.0, 0.0],
                    shown: true,
                })
                .collect(),
        };
        store.record(&action, &Scoring::default()).unwrap();
        store
    }

    fn written(key: &str) -> QueryTerm {
        QueryTerm {
            key: key.into(),
            label: key.into(),
            weight: 1.0,
            similarity: None,
        }
    }

    #[test]
    fn a_query_reaches_the_learned_topics_near_its_own() {
        let store = store_knowing(&["car", "bread", "unembeddable"]);
        let meanings = Meanings::new(Arc::new(Table));
        assert!(
            meanings.reach(&[written("automobile")]).is_empty(),
            "not indexed yet"
        );
        assert_eq!(
            meanings.refresh(&store).unwrap(),
            2,
            "what has no vector is left out"
        );
        assert!(
            meanings.index().meaningless.contains("unembeddable"),
            "and is not read again"
        );
        assert_eq!(meanings.refresh(&store).unwrap(), 2, "nothing changed");

        let reached = meanings.reach(&[written("automobile")]);
        assert_eq!(reached.len(), 1, "{reached:?}");
        let car = &reached[0];
        assert_eq!((car.key.as_str(), car.label.as_str()), ("car", "CAR"));
        // Eight bits a component read it to within 0.01.
        let similarity = car.similarity.unwrap();
        assert!((similarity - 0.96).abs() < 0.01, "{car:?}");
        // Above the same subject on the table's scale: as if written.
        assert!((car.weight - 1.0).abs() < 1e-6, "{car:?}");

        assert!(
            meanings
                .reach(&[written("vehicle")])
                .iter()
                .all(|t| t.key == "car"),
            "bread is not near a vehicle"
        );
        assert!(
            meanings.reach(&[written("car")]).is_empty(),
            "a topic the query writes is not reached again"
        );
    }

    /// [`Table`], counting the texts it is asked to embed.
    #[derive(Debug, Default)]
    struct Counting(std::sync::atomic::AtomicUsize);

    impl Embedder for Counting {
        fn model(&self) -> &str {
            Table.model()
        }

        fn dimensions(&self) -> usize {
            Table.dimensions()
        }

        fn embed(&self, text: &str) -> Option<Vec<f32>> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Table.embed(text)
        }

        fn related_above(&self, vector: &[f32]) -> f32 {
            Table.related_above(vector)
        }

        fn scale(&self, vector: &[f32]) -> Scale {
            Table.scale(vector)
        }

        fn pieces(&self, word: &str) -> usize {
            Table.pieces(word)
        }
    }

    #[test]
    fn a_question_asked_again_is_not_embedded_again() {
        let store = store_knowing(&["car"]);
        let counting = Arc::new(Counting::default());
        let meanings = Meanings::new(counting.clone());
        meanings.refresh(&store).unwrap();
        let indexed = counting.0.load(std::sync::atomic::Ordering::SeqCst);
        let first = meanings.reach(&[written("automobile"), written("nonsense")]);
        let again = meanings.reach(&[written("automobile"), written("nonsense")]);
        assert_eq!(first, again);
        assert_eq!(first.len(), 1, "{first:?}");
        assert_eq!(
            counting.0.load(std::sync::atomic::Ordering::SeqCst) - indexed,
            2,
            "each text once, the one without meaning too"
        );
        // The oldest are forgotten past the limit, and asked again.
        {
            let mut asked = meanings.asked.lock().unwrap();
            for n in 0..ASKED_REMEMBERED {
                asked.remember(&format!("filler {n}"), None);
            }
            assert_eq!(asked.vectors.len(), ASKED_REMEMBERED);
            assert!(!asked.vectors.contains_key("automobile"));
        }
        meanings.reach(&[written("automobile")]);
        assert_eq!(
            counting.0.load(std::sync::atomic::Ordering::SeqCst) - indexed,
            3
        );
    }

    #[test]
    fn a_related_topic_weighs_by_its_nearness_on_the_scale() {
        let store = store_knowing(&["car"]);
        let meanings = Meanings::new(Arc::new(Table));
        meanings.refresh(&store).unwrap();
        // "vehicle" is 0.8 from car: half way from the noise (0.7) to the
        // same subject (0.9), so half a topic.
        let reached = meanings.reach(&[written("vehicle")]);
        assert_eq!(reached.len(), 1, "{reached:?}");
        assert!((reached[0].weight - 0.5).abs() < 0.06, "{reached:?}");
        // Nothing is reached at or below the floor: "banana" is 0.48 from
        // nothing learned here but stands below it.
        assert!(meanings.reach(&[written("banana")]).is_empty());
    }

    #[test]
    fn a_topic_reached_from_several_sides_is_reached_once_at_its_nearest() {
        let store = store_knowing(&["baking"]);
        let meanings = Meanings::new(Arc::new(Table));
        meanings.refresh(&store).unwrap();
        // Bread is 0.96 from baking, banana 0.936, the two together 0.988.
        let reached = meanings.reach(&[written("bread"), written("banana")]);
        assert_eq!(reached.len(), 1, "{reached:?}");
        assert_eq!(reached[0].key, "baking");
        let similarity = reached[0].similarity.unwrap();
        assert!(similarity > 0.98, "the whole query is nearest: {reached:?}");
    }

    #[test]
    fn eight_bits_a_component_keep_the_similarity_to_a_hundredth() {
        // Deterministic, spread vectors of the model's length.
        let vector = |seed: u32| -> Vec<f32> {
            let raw: Vec<f32> = (0..384u32)
                .map(|i| {
                    let mixed = i.wrapping_mul(2_654_435_761) ^ seed.wrapping_mul(40_503);
                    (mixed % 1000) as f32 - 499.5
                })
                .collect();
            let norm = dot(&raw, &raw).sqrt();
            raw.into_iter().map(|x| x / norm).collect()
        };
        for (a, b) in [(1, 2), (3, 4), (5, 5)] {
            let (a, b) = (vector(a), vector(b));
            let (qa, qb) = (Quantized::new(&a), Quantized::new(&b));
            let exact = dot(&a, &b);
            let read = similarity(&qa.codes, qa.scale, &qb.codes, qb.scale);
            assert!((exact - read).abs() < 0.01, "{exact} read as {read}");
        }
        let zero = Quantized::new(&[0.0; 4]);
        assert_eq!((zero.codes, zero.scale), (vec![0; 4], 1.0));
    }

    #[test]
    fn a_refresh_forgets_the_topics_nobody_knows_any_more() {
        let meanings = Meanings::new(Arc::new(Table));
        meanings.refresh(&store_knowing(&["car", "bread"])).unwrap();
        assert_eq!(meanings.refresh(&store_knowing(&["bread"])).unwrap(), 1);
        assert!(meanings.reach(&[written("automobile")]).is_empty());
    }

    /// [`Table`] under a `name`, whose vocabulary holds `words` whole and
    /// spells any other in three pieces.
    #[derive(Debug)]
    struct Holding(&'static str, &'static [&'static str]);

    impl Embedder for Holding {
        fn model(&self) -> &str {
            self.0
        }

        fn dimensions(&self) -> usize {
            Table.dimensions()
        }

        fn embed(&self, text: &str) -> Option<Vec<f32>> {
            Table.embed(text)
        }

        fn related_above(&self, vector: &[f32]) -> f32 {
            Table.related_above(vector)
        }

        fn scale(&self, vector: &[f32]) -> Scale {
            Table.scale(vector)
        }

        fn pieces(&self, word: &str) -> usize {
            if self.1.contains(&word) {
                1
            } else {
                3
            }
        }
    }

    #[test]
    fn a_bare_query_is_read_by_the_model_that_spells_its_words_with_fewer_pieces() {
        let english = Holding("english", &["data", "protection", "payroll"]);
        let many = Holding("many", &["datenschutz", "data", "protection"]);
        let models = MeaningModels {
            first: Some(Arc::new(Meanings::new(Arc::new(english)))),
            others: Some(Arc::new(Meanings::new(Arc::new(many)))),
        };
        let read = |frame: Option<&str>, words: &[&str]| -> Vec<String> {
            let chosen = models.for_query(frame, words);
            chosen.iter().map(|m| m.model().to_owned()).collect()
        };
        assert_eq!(read(None, &["datenschutz"]), ["many"], "a German word");
        assert_eq!(read(None, &["payroll"]), ["english"], "an English word");
        assert_eq!(
            read(None, &["data", "protection"]),
            ["english", "many"],
            "words both hold"
        );
        assert_eq!(
            read(None, &["data", "datenschutz"]),
            ["many"],
            "fewer pieces in all"
        );
        assert_eq!(read(None, &["k8s"]), ["english", "many"], "spelled alike");
        assert_eq!(
            read(None, &["payroll", "datenschutz"]),
            ["english", "many"],
            "as many pieces in each"
        );
        assert_eq!(read(None, &[]), ["english", "many"], "no word");
        assert_eq!(
            read(Some("en"), &["datenschutz"]),
            ["english"],
            "asked in English"
        );
        assert_eq!(read(Some("de"), &["payroll"]), ["many"], "asked in German");
    }
}
