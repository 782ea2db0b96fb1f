//! Evaluation 3: what a person reads. Synthetic people each upload
//! [`DOCUMENTS_PER_PERSON`] documents of a keyphrase dataset; a profile is
//! their best [`PROFILE_SIZE`] topics. Measured against the gold key
//! phrases of the person's documents:
//!
//! - **precision**: the share of the profile that matches a gold phrase or
//!   a gold phrase's head noun (its last word), both folded as the
//!   keyphrase protocol folds them (lower case, Snowball-stemmed);
//! - **verbs or function words**: the share of the profile that is a verb,
//!   an adverb or a function word (stop word), or a phrase that starts or
//!   ends on one, judged by english-pos-tagger on the label alone
//!   (English datasets) and the NLTK stop words (every dataset).
//!
//! Systems: Kenning's `userTopics` through the use cases; the top words by
//! tf-idf over each person's raw texts (idf over people); and YAKE's
//! phrases (yake-rust, ten per document) summed over the person's
//! documents, each weighing the reciprocal of its rank in its document.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock};

use chrono::Duration;
use english_pos_tagger::Tagger;
use kenning_domain::Descriptor;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_keyphrase_eval::{Dataset, Normalizer, YakeRust};
use rust_stemmers::{Algorithm, Stemmer};

use crate::rng::SplitMix64;
use crate::systems::Kenning;
use crate::world::{Text, Upload, World};

/// How many documents each synthetic person uploads.
pub const DOCUMENTS_PER_PERSON: usize = 10;
/// The most people per dataset.
const MAX_PEOPLE: usize = 100;
/// How many topics make a profile.
pub const PROFILE_SIZE: usize = 15;
/// How many phrases YAKE gives per document.
const YAKE_PER_DOCUMENT: usize = 10;

/// The systems, in the order of the table's columns.
pub const SYSTEMS: [&str; 3] = ["Kenning userTopics", "tf-idf words", "YAKE summed"];

static TAGGER: LazyLock<Tagger> = LazyLock::new(Tagger::new);

/// One dataset's row: per system, the mean precision and the mean share of
/// verbs or function words (`None` where it cannot be judged).
#[derive(Debug, Clone)]
pub struct Row {
    pub dataset: String,
    pub language: String,
    pub people: usize,
    pub precision: [f64; 3],
    /// The same with whole gold phrases only, no head nouns.
    pub exact: [f64; 3],
    pub wrong_kind: [Option<f64>; 3],
}

/// A person's documents, `DOCUMENTS_PER_PERSON` each, dealt at random.
pub(crate) fn deal(dataset: &Dataset, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = SplitMix64::new(seed);
    rng.permutation(dataset.documents.len())
        .chunks_exact(DOCUMENTS_PER_PERSON)
        .take(MAX_PEOPLE)
        .map(<[usize]>::to_vec)
        .collect()
}

fn stemmer(language: &str) -> Stemmer {
    Stemmer::create(match language {
        "fr" => Algorithm::French,
        "de" => Algorithm::German,
        "es" => Algorithm::Spanish,
        "it" => Algorithm::Italian,
        "pt" => Algorithm::Portuguese,
        "nl" => Algorithm::Dutch,
        _ => Algorithm::English,
    })
}

fn stop_words(language: &str) -> HashSet<String> {
    stop_words::get(language)
        .into_iter()
        .map(|w| w.trim().to_lowercase())
        .collect()
}

/// The best words of each person by tf-idf (idf over people), stemmed.
fn tf_idf(people: &[String], language: &str) -> Vec<Vec<String>> {
    let stem = stemmer(language);
    let stops = stop_words(language);
    // Per person: stem -> (count, the form first seen).
    let counted: Vec<HashMap<String, (f64, String)>> = people
        .iter()
        .map(|text| {
            let mut counts: HashMap<String, (f64, String)> = HashMap::new();
            for word in text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.chars().nth(1).is_some())
                .map(str::to_lowercase)
                .filter(|w| !stops.contains(w) && !w.chars().all(|c| c.is_ascii_digit()))
            {
                let key = stem.stem(&word).into_owned();
                counts.entry(key).or_insert((0.0, word)).0 += 1.0;
            }
            counts
        })
        .collect();
    let mut df: HashMap<&str, f64> = HashMap::new();
    for counts in &counted {
        for key in counts.keys() {
            *df.entry(key.as_str()).or_default() += 1.0;
        }
    }
    let n = people.len() as f64;
    counted
        .iter()
        .map(|counts| {
            let mut scored: Vec<(&String, f64)> = counts
                .iter()
                .map(|(key, (tf, word))| {
                    let idf = (n / df.get(key.as_str()).copied().unwrap_or(1.0)).ln() + 1.0;
                    (word, tf * idf)
                })
                .collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
            scored
                .into_iter()
                .take(PROFILE_SIZE)
                .map(|(w, _)| w.clone())
                .collect()
        })
        .collect()
}

/// YAKE's phrases of each document, summed per person by reciprocal rank.
fn yake(
    dataset: &Dataset,
    hands: &[Vec<usize>],
    normalizer: &Normalizer,
) -> Option<Vec<Vec<String>>> {
    let yake = YakeRust::new(&dataset.language)?;
    Some(
        hands
            .iter()
            .map(|hand| {
                let mut summed: HashMap<String, (f64, String)> = HashMap::new();
                for &d in hand {
                    let text = YakeRust::prepare(&dataset.documents[d].text);
                    for (rank, phrase) in yake
                        .keywords(&text, YAKE_PER_DOCUMENT)
                        .into_iter()
                        .enumerate()
                    {
                        let entry = summed
                            .entry(normalizer.phrase(&phrase))
                            .or_insert((0.0, phrase));
                        entry.0 += 1.0 / (rank as f64 + 1.0);
                    }
                }
                let mut best: Vec<(f64, String)> = summed.into_values().collect();
                best.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                best.into_iter()
                    .take(PROFILE_SIZE)
                    .map(|(_, p)| p)
                    .collect()
            })
            .collect(),
    )
}

/// The share of `profile` matching a gold phrase or a gold head noun.
fn precision(profile: &[String], gold: &HashSet<String>, normalizer: &Normalizer) -> f64 {
    if profile.is_empty() {
        return 0.0;
    }
    let hits = profile
        .iter()
        .filter(|p| gold.contains(&normalizer.phrase(p)))
        .count();
    hits as f64 / profile.len() as f64
}

/// Whether a word is a verb, an adverb or a function word by its tag.
fn wrong_word(tag: Option<&str>) -> bool {
    matches!(
        tag.unwrap_or("NN"),
        "VB" | "VBD"
            | "VBP"
            | "VBZ"
            | "VBG"
            | "MD"
            | "RB"
            | "RBR"
            | "RBS"
            | "DT"
            | "IN"
            | "CC"
            | "PRP"
            | "PRP$"
            | "TO"
            | "WDT"
            | "WP"
            | "WRB"
            | "EX"
            | "PDT"
            | "CD"
    )
}

/// Whether a topic is a verb or function word, or a phrase that starts or
/// ends on one: `english` judges by tag, every language by stop words.
fn wrong_kind(topic: &str, english: bool, stops: &HashSet<String>) -> bool {
    let words: Vec<&str> = topic.split_whitespace().collect();
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return true;
    };
    if [first, last]
        .iter()
        .any(|w| stops.contains(&w.to_lowercase()))
    {
        return true;
    }
    if !english {
        return false;
    }
    let tags = TAGGER.tag_raw_tokens(&words);
    let tag = |i: usize| tags.get(i).and_then(|t| t.pos.as_deref());
    // A gerund ends a phrase well ("machine learning"), not a single word.
    let last_tag = tag(words.len() - 1);
    let last_wrong = if words.len() == 1 {
        wrong_word(last_tag) || last_tag == Some("VBN")
    } else {
        wrong_word(last_tag) && last_tag != Some("VBG")
    };
    let first_wrong = wrong_word(tag(0)) && tag(0) != Some("VBG");
    last_wrong || first_wrong
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The world in which each person of `hands` uploaded their documents of
/// `dataset` the day before the questions, and nothing is asked yet.
pub(crate) fn uploaded(dataset: &Dataset, hands: &[Vec<usize>]) -> World {
    let now = chrono::DateTime::from_timestamp(1_735_689_600, 0).unwrap_or_default();
    World {
        people: (0..hands.len()).map(|p| format!("person {p}")).collect(),
        uploads: hands
            .iter()
            .enumerate()
            .flat_map(|(person, hand)| hand.iter().map(move |&d| (person, d)))
            .map(|(person, d)| Upload {
                person,
                date: now - Duration::days(1),
                entity_type: "document",
                action_type: "edit",
                texts: vec![Text::plain(
                    Descriptor::Default,
                    dataset.documents[d].text.as_str(),
                )],
            })
            .collect(),
        queries: Vec::new(),
        now,
    }
}

/// The profile measures of every system on `dataset`.
pub fn evaluate(
    dataset: &Dataset,
    extractor: &Arc<KeyphraseExtractor>,
    seed: u64,
) -> anyhow::Result<Row> {
    let normalizer = Normalizer::new(&dataset.language)?;
    let hands = deal(dataset, seed);
    anyhow::ensure!(hands.len() >= 2, "{} has too few documents", dataset.name);
    let world = uploaded(dataset, &hands);
    let kenning = Kenning::new(&world, extractor.clone())?;
    let texts: Vec<String> = hands
        .iter()
        .map(|hand| {
            hand.iter()
                .map(|&d| dataset.documents[d].text.as_str())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .collect();
    let mut profiles: Vec<Vec<Vec<String>>> = vec![
        (0..hands.len())
            .map(|p| kenning.profile(p, PROFILE_SIZE as i64))
            .collect::<anyhow::Result<_>>()?,
        tf_idf(&texts, &dataset.language),
    ];
    let yake = yake(dataset, &hands, &normalizer);
    let has_yake = yake.is_some();
    profiles.push(yake.unwrap_or_else(|| vec![Vec::new(); hands.len()]));

    let stops = stop_words(&dataset.language);
    let english = dataset.language == "en";
    let mut row = Row {
        dataset: dataset.name.clone(),
        language: dataset.language.clone(),
        people: hands.len(),
        precision: [0.0; 3],
        exact: [0.0; 3],
        wrong_kind: [None; 3],
    };
    for (system, of_people) in profiles.iter().enumerate() {
        if system == 2 && !has_yake {
            continue;
        }
        let mut precisions = Vec::new();
        let mut exact = Vec::new();
        let mut wrong = Vec::new();
        for (person, profile) in of_people.iter().enumerate() {
            let mut gold = HashSet::new();
            let mut phrases = HashSet::new();
            for &d in &hands[person] {
                for phrase in &dataset.documents[d].gold {
                    let folded = normalizer.phrase(phrase);
                    if let Some(head) = folded.split(' ').next_back() {
                        gold.insert(head.to_owned());
                    }
                    phrases.insert(folded.clone());
                    gold.insert(folded);
                }
            }
            precisions.push(precision(profile, &gold, &normalizer));
            exact.push(precision(profile, &phrases, &normalizer));
            let bad = profile
                .iter()
                .filter(|t| wrong_kind(t, english, &stops))
                .count();
            wrong.push(if profile.is_empty() {
                0.0
            } else {
                bad as f64 / profile.len() as f64
            });
        }
        row.precision[system] = mean(&precisions);
        row.exact[system] = mean(&exact);
        row.wrong_kind[system] = Some(mean(&wrong));
    }
    Ok(row)
}

/// The profile table.
pub fn table(rows: &[Row]) -> String {
    let mut header = vec!["dataset".to_owned(), "lang".into(), "people".into()];
    for name in SYSTEMS {
        header.push(format!("{name} P@{PROFILE_SIZE}"));
    }
    for name in SYSTEMS {
        header.push(format!("{name} P@{PROFILE_SIZE} whole phrases"));
    }
    for name in SYSTEMS {
        header.push(format!("{name} verbs or function words"));
    }
    let mut out = format!(
        "| {} |\n|{}\n",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for row in rows {
        let mut cells = vec![
            row.dataset.clone(),
            row.language.clone(),
            row.people.to_string(),
        ];
        cells.extend(row.precision.iter().map(|p| format!("{p:.3}")));
        cells.extend(row.exact.iter().map(|p| format!("{p:.3}")));
        cells.extend(
            row.wrong_kind
                .iter()
                .map(|w| w.map_or_else(|| "n/a".to_owned(), |w| format!("{w:.3}"))),
        );
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_topic_matches_a_gold_phrase_or_its_head() {
        let normalizer = Normalizer::new("en").unwrap();
        let gold: HashSet<String> = ["neural network", "network"].map(String::from).into();
        let profile = ["Neural Networks", "networks", "training", "trains"].map(String::from);
        assert!((precision(&profile, &gold, &normalizer) - 0.5).abs() < 1e-12);
        assert_eq!(precision(&[], &gold, &normalizer), 0.0);
    }

    #[test]
    fn verbs_function_words_and_fragments_are_the_wrong_kind() {
        let stops = stop_words("en");
        for bad in [
            "running",
            "the",
            "paid",
            "quickly",
            "deployment keeps",
            "of networks",
        ] {
            assert!(wrong_kind(bad, true, &stops), "{bad}");
        }
        for good in ["Helm charts", "networks", "machine learning", "VAT"] {
            assert!(!wrong_kind(good, true, &stops), "{good}");
        }
        assert!(!wrong_kind("réseau neuronal", false, &stop_words("fr")));
        assert!(wrong_kind("le réseau", false, &stop_words("fr")));
    }

    #[test]
    fn tf_idf_prefers_a_persons_own_words() {
        let people = vec![
            "graphs graphs graphs common common".to_owned(),
            "kernels kernels common".to_owned(),
        ];
        let best = tf_idf(&people, "en");
        assert_eq!(best[0][0], "graphs");
        assert_eq!(best[1][0], "kernels");
    }
}
