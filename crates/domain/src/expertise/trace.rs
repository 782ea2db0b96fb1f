//! What an upload leaves behind: its trace.
//!
//! Kenning never keeps an uploaded text. Of each text it keeps a sparse
//! trace: its key phrases with their relevance, and its content words
//! (stemmed, stop words and numbers left out) with a weight that grows
//! with how often the text uses them and saturates as BM25's term
//! frequency does. Word order, stop words, numbers, sentences and
//! everything beyond the [`PHRASES_PER_TEXT`] best phrases and the
//! [`WORDS_PER_TEXT`] most frequent words are gone, so the text cannot be
//! read back; but a broad query ("arrested") and a specific one
//! ("quantum error correction") both meet the people who wrote about it.

use std::collections::HashMap;

use super::scoring::{slot, EntityTopic, Scoring};
use crate::topic::{is_topic_key, TextWord, Topic};
use crate::upload::Descriptor;

/// The most key phrases kept from one text.
pub const PHRASES_PER_TEXT: usize = 40;

/// The most content words kept from one text, the most frequent first.
pub const WORDS_PER_TEXT: usize = 150;

/// The most topics one upload keeps, however many texts it has: about
/// what one long text leaves ([`PHRASES_PER_TEXT`] and
/// [`WORDS_PER_TEXT`]), so that a thread of a hundred messages costs the
/// store no more than a long document.
pub const TOPICS_PER_UPLOAD: usize = 200;

/// How many of an upload's [`TOPICS_PER_UPLOAD`] go first to its key
/// phrases of two or more words, the most relevant first: a phrase's
/// relevance (at most one) is on another scale than a word's count, and
/// the phrases say most precisely what an upload is about.
const PHRASES_KEPT_FIRST: usize = 60;

/// How quickly a word's weight in a text saturates with its count
/// (BM25's k1).
const WORD_SATURATION: f64 = 1.2;

/// How much a long text's counts are discounted for its length (BM25's b).
const WORD_LENGTH_NORMALISATION: f64 = 0.75;

/// The content words of a typical text (about 1 KB of prose), against
/// which a text's length is normalised.
const TYPICAL_TEXT_WORDS: f64 = 100.0;

/// What the extractor found in one text of an upload.
#[derive(Debug, Clone, PartialEq)]
pub struct TextTrace {
    /// How much the text says about its entity.
    pub descriptor: Descriptor,
    /// Key phrases, best first.
    pub phrases: Vec<Topic>,
    /// Content words with their counts, most frequent first.
    pub words: Vec<TextWord>,
    /// Whether people may read its content words: the extractor can tell
    /// a noun from a verb in the text's language, so each word is judged
    /// when read ([`EntityTopic::shown`] stays true for it). Otherwise
    /// only key phrases of two or more words and words written as names
    /// are shown.
    pub words_judged: bool,
}

/// A word's weight in a text of `length` content words: its count,
/// saturated and normalised for length as BM25 does; about one for a word
/// used once in a typical text, at most `WORD_SATURATION + 1`.
fn word_weight(count: u32, length: f64) -> f64 {
    let count = f64::from(count);
    let norm =
        1.0 - WORD_LENGTH_NORMALISATION + WORD_LENGTH_NORMALISATION * length / TYPICAL_TEXT_WORDS;
    count * (WORD_SATURATION + 1.0) / (count + WORD_SATURATION * norm)
}

/// Whether a label is written as a name or an acronym: with a capital
/// (a word's label keeps one only where the text writes it so inside a
/// sentence).
fn is_name(label: &str) -> bool {
    label.chars().any(char::is_uppercase)
}

/// The trace of an entity from its texts, best first under `scoring`: the
/// key phrases (at most [`PHRASES_PER_TEXT`] per text) with their
/// relevance and the content words (at most [`WORDS_PER_TEXT`] per text)
/// with their weight, per descriptor, summed over the texts; a one-word
/// phrase and the word meet under one key. The label is the one of the
/// largest single contribution. A key is shown when a text has its words
/// judged when read ([`TextTrace::words_judged`]), or has it as a key
/// phrase of two or more words, or writes it as a name: where the words
/// cannot be judged, a one-word key phrase may be an adverb or a word
/// every text uses as much as a content word may. Keys that cannot be topics
/// ([`is_topic_key`]) are left out.
pub fn entity_topics(texts: &[TextTrace], scoring: &Scoring) -> Vec<EntityTopic> {
    let mut combined: HashMap<String, (EntityTopic, f64)> = HashMap::new();
    for text in texts {
        let factor = scoring.descriptor_factor(text.descriptor);
        let length = text.words.iter().map(|w| f64::from(w.count)).sum::<f64>();
        let phrases = text.phrases.iter().take(PHRASES_PER_TEXT).map(|p| {
            let shown = text.words_judged || p.key.contains(' ') || is_name(&p.label);
            (&p.key, &p.label, p.relevance, shown)
        });
        let words = text.words.iter().take(WORDS_PER_TEXT).map(|w| {
            let shown = text.words_judged || is_name(&w.label);
            (&w.key, &w.label, word_weight(w.count, length), shown)
        });
        for (key, label, relevance, shown) in phrases.chain(words) {
            if !is_topic_key(key) {
                continue;
            }
            let (entry, best) = combined.entry(key.clone()).or_insert((
                EntityTopic {
                    key: key.clone(),
                    label: label.clone(),
                    by_descriptor: [0.0; 3],
                    shown: false,
                },
                f64::NEG_INFINITY,
            ));
            entry.by_descriptor[slot(text.descriptor)] += relevance;
            entry.shown |= shown;
            if factor * relevance > *best {
                *best = factor * relevance;
                entry.label.clone_from(label);
            }
        }
    }
    let mut topics: Vec<EntityTopic> = combined.into_values().map(|(t, _)| t).collect();
    by_relevance(&mut topics, scoring);
    bounded(topics, scoring)
}

/// `topics` best first by their relevance under `scoring`, then by key.
fn by_relevance(topics: &mut [EntityTopic], scoring: &Scoring) {
    topics.sort_by(|a, b| {
        b.relevance(scoring)
            .total_cmp(&a.relevance(scoring))
            .then(a.key.cmp(&b.key))
    });
}

/// At most [`TOPICS_PER_UPLOAD`] of `topics` (given best first): the
/// first [`PHRASES_KEPT_FIRST`] phrases of two or more words, then the
/// most relevant of the rest; best first.
fn bounded(topics: Vec<EntityTopic>, scoring: &Scoring) -> Vec<EntityTopic> {
    if topics.len() <= TOPICS_PER_UPLOAD {
        return topics;
    }
    let (mut kept, mut rest): (Vec<EntityTopic>, Vec<EntityTopic>) = (Vec::new(), Vec::new());
    for topic in topics {
        if topic.key.contains(' ') && kept.len() < PHRASES_KEPT_FIRST {
            kept.push(topic);
        } else {
            rest.push(topic);
        }
    }
    rest.truncate(TOPICS_PER_UPLOAD - kept.len());
    kept.append(&mut rest);
    by_relevance(&mut kept, scoring);
    kept
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;
    use crate::expertise::fixtures::word;

    fn topic(key: &str, relevance: f64) -> Topic {
        Topic {
            key: key.into(),
            label: key.to_uppercase(),
            relevance,
        }
    }

    fn phrases(descriptor: Descriptor, phrases: Vec<Topic>) -> TextTrace {
        TextTrace {
            descriptor,
            phrases,
            words: Vec::new(),
            words_judged: false,
        }
    }

    fn written(key: &str, label: &str, relevance: f64) -> Topic {
        Topic {
            key: key.into(),
            label: label.into(),
            relevance,
        }
    }

    #[test]
    fn entity_topics_weigh_texts_by_descriptor() {
        let s = Scoring::default();
        let topics = entity_topics(
            &[
                phrases(Descriptor::Primary, vec![topic("rust", 1.0)]),
                phrases(
                    Descriptor::Secondary,
                    vec![topic("rust", 0.5), topic("cargo", 1.0)],
                ),
            ],
            &s,
        );
        assert_eq!(topics.len(), 2);
        assert_eq!(topics[0].key, "rust");
        assert_eq!(topics[0].by_descriptor, [1.0, 0.0, 0.5]);
        assert!((topics[0].relevance(&s) - 1.75).abs() < 1e-12);
        assert_eq!(topics[1].key, "cargo");
        assert!((topics[1].relevance(&s) - 0.5).abs() < 1e-12);
        // Other factors re-weigh the same stored sums.
        let flat = Scoring::new([], 1.0, [1.0, 1.0, 1.0], Duration::days(365)).unwrap();
        assert!((topics[0].relevance(&flat) - 1.5).abs() < 1e-12);
    }

    #[test]
    fn a_text_leaves_its_phrases_and_its_words_with_saturating_weights() {
        let s = Scoring::default();
        let filler: Vec<TextWord> = (0..96).map(|i| word(&format!("w{i}"), "w", 1)).collect();
        let mut words = vec![
            word("kubernet", "Kubernetes", 3),
            word("cluster", "clusters", 1),
        ];
        words.extend(filler);
        let topics = entity_topics(
            &[TextTrace {
                descriptor: Descriptor::Default,
                words_judged: true,
                phrases: vec![
                    Topic {
                        key: "kubernet cluster".into(),
                        label: "Kubernetes clusters".into(),
                        relevance: 1.0,
                    },
                    topic(&"x".repeat(65), 0.9),
                    topic("kubernet", 0.5),
                ],
                words,
            }],
            &s,
        );
        let weight = |key: &str| {
            topics
                .iter()
                .find(|t| t.key == key)
                .map(|t| (t.label.clone(), t.relevance(&s)))
        };
        // A typical text (100 words): a word used once weighs one.
        let (label, once) = weight("cluster").unwrap();
        assert_eq!(label, "clusters");
        assert!((once - 1.0).abs() < 1e-9, "{once}");
        // Three uses weigh more than one, less than three; the one-word
        // phrase adds its relevance under the same key.
        let (label, kubernetes) = weight("kubernet").unwrap();
        assert_eq!(label, "Kubernetes", "the largest contribution names it");
        let thrice = kubernetes - 0.5;
        assert!(thrice > 1.5 && thrice < 2.2, "{thrice}");
        assert!(weight("kubernet cluster").is_some());
        assert!(weight(&"x".repeat(65)).is_none(), "no word of 65 letters");
        assert_eq!(topics.len(), 2 + 1 + 96);

        // Beyond the most frequent words of a text, nothing is kept.
        let many: Vec<TextWord> = (0..WORDS_PER_TEXT + 10)
            .map(|i| word(&format!("w{i}"), "w", 1))
            .collect();
        let kept = entity_topics(
            &[TextTrace {
                descriptor: Descriptor::Default,
                phrases: Vec::new(),
                words: many,
                words_judged: true,
            }],
            &s,
        );
        assert_eq!(kept.len(), WORDS_PER_TEXT);
    }

    #[test]
    fn unjudged_words_rank_alone_key_phrases_and_names_are_shown() {
        let s = Scoring::default();
        let judged = |words_judged| TextTrace {
            descriptor: Descriptor::Default,
            words_judged,
            phrases: vec![
                written("helm chart", "helm charts", 1.0),
                written("pod", "pods", 0.5),
                written("kubernet", "Kubernetes", 0.4),
            ],
            words: vec![
                word("helm", "Helm", 3),
                word("run", "running", 2),
                word("pod", "pods", 2),
                word("chart", "charts", 1),
            ],
        };
        let judged_later: Vec<bool> = entity_topics(&[judged(true)], &s)
            .into_iter()
            .map(|t| t.shown)
            .collect();
        assert!(judged_later.iter().all(|shown| *shown), "judged when read");
        let shown: HashMap<String, bool> = entity_topics(&[judged(false)], &s)
            .into_iter()
            .map(|t| (t.key, t.shown))
            .collect();
        assert!(shown["helm chart"], "a key phrase");
        assert!(!shown["pod"], "a one-word key phrase, not a name");
        assert!(shown["kubernet"], "a one-word key phrase written as a name");
        assert!(shown["helm"], "a name");
        assert!(!shown["run"]);
        assert!(!shown["chart"], "inside a phrase, not one itself");
    }

    #[test]
    fn an_upload_of_many_texts_keeps_a_bounded_number_of_topics_its_phrases_first() {
        let s = Scoring::default();
        // A hundred messages, each with its own two phrases and words.
        let texts: Vec<TextTrace> = (0..100)
            .map(|n| TextTrace {
                descriptor: Descriptor::Default,
                phrases: vec![
                    written(&format!("phrase{n} one"), "p", 0.2),
                    written(&format!("phrase{n} two"), "p", 0.1),
                ],
                words: (0..5)
                    .map(|w| word(&format!("word{n}x{w}"), "w", 2))
                    .collect(),
                words_judged: true,
            })
            .collect();
        let topics = entity_topics(&texts, &s);
        assert_eq!(topics.len(), TOPICS_PER_UPLOAD);
        let phrases = topics.iter().filter(|t| t.key.contains(' ')).count();
        assert_eq!(
            phrases, PHRASES_KEPT_FIRST,
            "words weigh more, phrases go first"
        );
        let relevance: Vec<f64> = topics.iter().map(|t| t.relevance(&s)).collect();
        assert!(relevance.windows(2).all(|w| w[0] >= w[1]), "best first");
        // One text is never cut.
        assert_eq!(entity_topics(&texts[..1], &s).len(), 7);
    }
}
