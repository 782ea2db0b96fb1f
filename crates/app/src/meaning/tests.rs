//! The index, its refresh, its cache and the choice of model, against
//! embedders of vectors written by hand.

use chrono::{TimeZone, Utc};
use kenning_domain::{EntityTopic, LanguageId, NewUser, NewUserInput, Scoring, User, UserId};
use kenning_ports::{NewAction, UserStore};
use kenning_store_memory::MemoryStore;
use uuid::Uuid;

use std::sync::Arc;

use kenning_domain::QueryTerm;
use kenning_ports::{Embedder, ExpertiseStore, Scale};

use super::asked::ASKED_REMEMBERED;
use super::{MeaningModels, Meanings};

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
        reread: false,
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
