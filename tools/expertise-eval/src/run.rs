//! Runs every system on every query of an evaluation and keeps what the
//! report needs: the tallies, Kenning's latencies, and a few of its misses.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use kenning_domain::TextFormat;
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::{Embedder, TopicExtractor};
use kenning_tools_common::bm25::Analyzer;

use crate::metrics::{judge, Tally};
use crate::rng::SplitMix64;
use crate::systems::{DocumentBm25, Kenning, MostActive, ProfileBm25, RandomOrder, Ranker, NAMES};
use crate::world::{Asked, Evaluation, Query, World};

/// How many people a failure report lists per system.
const SHOWN: usize = 3;
/// How many topics a failure report lists per expert or query.
const SHOWN_TOPICS: usize = 5;
/// How many characters of a query a failure report quotes.
const QUOTED_CHARS: usize = 160;

/// A query Kenning got wrong, described for a reader.
#[derive(Debug, Clone)]
pub struct Failure {
    pub form: &'static str,
    pub lines: Vec<String>,
}

/// What one evaluation measured.
#[derive(Debug)]
pub struct Outcome {
    pub name: String,
    pub forms: Vec<&'static str>,
    /// Per query form, per system (in the order of [`NAMES`]).
    pub tallies: Vec<[Tally; NAMES.len()]>,
    pub worlds: usize,
    /// Of the first world (every world has as many).
    pub people: usize,
    /// Per world, on average.
    pub uploads: usize,
    pub note: String,
    /// The latencies of `experts`, per variant of Kenning (the first
    /// [`KENNINGS`] of [`NAMES`]).
    pub latencies: [Vec<Duration>; KENNINGS],
    /// Queries Kenning answered with nobody and BM25 profile with somebody
    /// (so the words were in the uploads).
    pub unanswered: Vec<Failure>,
    /// Queries where Kenning's first person was wrong and BM25 profile's right.
    pub missed: Vec<Failure>,
    /// Queries where Kenning with the model put a wrong person first (or
    /// nobody), with how it read them.
    pub misread: Vec<Failure>,
    /// Per variant of Kenning, over the queries asked as questions: how
    /// many of the topics that earned the first [`LISTED`] experts their
    /// place are words of the question rather than of the query, and how
    /// many topics those were in all.
    pub question_topics: [(usize, usize); KENNINGS],
}

/// How many of the experts listed for a question are looked into for the
/// question's words.
pub const LISTED: usize = 10;

/// The keys of the words and phrases a question adds to the query it
/// wraps, read as Kenning reads a query (in the detected language and in
/// English).
fn question_keys(extractor: &KeyphraseExtractor, asked: &Asked) -> HashSet<String> {
    let keys = |text: &str| -> HashSet<String> {
        [None, Some("en")]
            .into_iter()
            .flat_map(|language| {
                let read = extractor.extract(text, TextFormat::Plain, language, 20);
                read.topics
                    .into_iter()
                    .map(|t| t.key)
                    .chain(read.words.into_iter().map(|w| w.key))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let bare = keys(&asked.bare);
    keys(&asked.template.replace("{}", " "))
        .into_iter()
        .filter(|k| !bare.contains(k))
        .collect()
}

/// How many of the topics of the first [`LISTED`] `experts` are among
/// `question` keys, and how many topics they listed.
fn count_question_topics(
    experts: &[(usize, kenning_domain::Expert)],
    question: &HashSet<String>,
) -> (usize, usize) {
    let topics = experts.iter().take(LISTED).flat_map(|(_, e)| &e.topics);
    topics.fold((0, 0), |(asking, all), t| {
        (asking + usize::from(question.contains(&t.key)), all + 1)
    })
}

/// How many of the systems are Kenning: without meaning, with static
/// vectors, with the English model and with the multilingual one.
pub const KENNINGS: usize = 5;

/// The embedders Kenning finds topics by meaning with: static vectors
/// distilled from the English model, the English model, the multilingual
/// model; Kenning with each of them, then with the English model for
/// queries in English and the multilingual one for the others, in the
/// order of [`NAMES`] after Kenning without meaning.
#[derive(Clone)]
pub struct Embedders(pub [Arc<dyn Embedder>; 3]);

impl std::fmt::Debug for Embedders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|e| e.model()))
            .finish()
    }
}

impl Embedders {
    /// `kenning` with each of the embedders, then routed by the query's
    /// language.
    pub fn meanings(&self, kenning: &Kenning) -> anyhow::Result<Vec<Kenning>> {
        let [_, english, multilingual] = &self.0;
        let mut each = self
            .0
            .iter()
            .map(|embedder| kenning.with_meaning(embedder.clone(), None))
            .collect::<anyhow::Result<Vec<_>>>()?;
        each.push(kenning.with_meaning(english.clone(), Some(multilingual.clone()))?);
        Ok(each)
    }
}

/// Where Kenning with the multilingual model stands in [`NAMES`].
const MULTILINGUAL: usize = 3;

/// Runs `evaluation`; `seed` fixes the baselines' tie-breaks and random
/// orders; up to `failures` examples of each kind are kept.
pub fn run(
    evaluation: &Evaluation,
    extractor: &Arc<KeyphraseExtractor>,
    analyzer: &Arc<Analyzer>,
    embedders: &Embedders,
    seed: u64,
    failures: usize,
) -> anyhow::Result<Outcome> {
    let mut outcome = Outcome {
        name: evaluation.name.clone(),
        forms: evaluation.forms.clone(),
        tallies: vec![Default::default(); evaluation.forms.len()],
        worlds: evaluation.worlds.len(),
        people: evaluation.worlds.first().map_or(0, |w| w.people.len()),
        uploads: evaluation
            .worlds
            .iter()
            .map(|w| w.uploads.len())
            .sum::<usize>()
            / evaluation.worlds.len().max(1),
        note: evaluation.note.clone(),
        latencies: Default::default(),
        unanswered: Vec::new(),
        missed: Vec::new(),
        misread: Vec::new(),
        question_topics: Default::default(),
    };
    for (w, world) in evaluation.worlds.iter().enumerate() {
        let mut rng = SplitMix64::new(seed.wrapping_add(w as u64));
        let mut kenning = Kenning::new(world, extractor.clone())?;
        let mut meanings = embedders.meanings(&kenning)?;
        let mut profile = ProfileBm25::new(world, analyzer.clone(), &mut rng);
        let mut peers: [Box<dyn Ranker>; 3] = [
            Box::new(DocumentBm25::new(world, analyzer.clone(), &mut rng)),
            Box::new(MostActive::new(world, &mut rng)),
            Box::new(RandomOrder::new(world, &mut rng)),
        ];
        for query in &world.queries {
            let question = query
                .asked
                .as_ref()
                .map(|asked| question_keys(extractor, asked));
            let experts = kenning.experts(&query.text)?;
            let ranked: Vec<usize> = experts.iter().map(|(p, _)| *p).collect();
            if let Some(question) = &question {
                let (asking, all) = count_question_topics(&experts, question);
                outcome.question_topics[0].0 += asking;
                outcome.question_topics[0].1 += all;
            }
            let by_profile = profile.rank(&query.text)?;
            let tallies = &mut outcome.tallies[query.form];
            tallies[0].add(judge(&ranked, &query.relevant));
            for (k, (tally, meaning)) in tallies[1..KENNINGS]
                .iter_mut()
                .zip(&mut meanings)
                .enumerate()
            {
                let listed = meaning.experts(&query.text)?;
                if let Some(question) = &question {
                    let (asking, all) = count_question_topics(&listed, question);
                    outcome.question_topics[k + 1].0 += asking;
                    outcome.question_topics[k + 1].1 += all;
                }
                let by_meaning: Vec<usize> = listed.iter().map(|(p, _)| *p).collect();
                tally.add(judge(&by_meaning, &query.relevant));
                let wrong = by_meaning
                    .first()
                    .is_none_or(|p| !query.relevant.contains(p));
                // The multilingual model's misses, with what the query reached.
                if k + 1 == MULTILINGUAL && wrong && outcome.misread.len() < failures {
                    let mut lines = describe(world, query, &by_profile);
                    let got: Vec<String> = by_meaning
                        .iter()
                        .take(SHOWN)
                        .map(|&p| person(world, query, p))
                        .collect();
                    lines[1] = format!("{}: {}", NAMES[k + 1], list(&got));
                    lines.push(format!("read as: {}", list(&meaning.reading(&query.text)?)));
                    outcome.misread.push(Failure {
                        form: evaluation.forms[query.form],
                        lines,
                    });
                }
            }
            tallies[KENNINGS].add(judge(&by_profile, &query.relevant));
            for (tally, peer) in tallies[KENNINGS + 1..].iter_mut().zip(&mut peers) {
                tally.add(judge(&peer.rank(&query.text)?, &query.relevant));
            }

            let form = evaluation.forms[query.form];
            let profile_right = by_profile
                .first()
                .is_some_and(|p| query.relevant.contains(p));
            if ranked.is_empty() && !by_profile.is_empty() && outcome.unanswered.len() < failures {
                let topics = extractor
                    .extract(&query.text, TextFormat::Plain, None, SHOWN_TOPICS)
                    .topics;
                let labels: Vec<String> = topics.iter().map(|t| format!("{:?}", t.label)).collect();
                let mut lines = describe(world, query, &by_profile);
                lines.insert(
                    1,
                    format!("Kenning: nobody; the query's topics: {}", list(&labels)),
                );
                outcome.unanswered.push(Failure { form, lines });
            } else if !ranked.is_empty()
                && !query.relevant.contains(&ranked[0])
                && profile_right
                && outcome.missed.len() < failures
            {
                let mut lines = describe(world, query, &by_profile);
                let shown: Vec<String> = experts
                    .iter()
                    .take(SHOWN)
                    .map(|(p, e)| {
                        let topics: Vec<&str> = e
                            .topics
                            .iter()
                            .take(SHOWN_TOPICS)
                            .map(|t| t.label.as_str())
                            .collect();
                        format!("{} [{}]", person(world, query, *p), topics.join(", "))
                    })
                    .collect();
                let right_at = ranked
                    .iter()
                    .position(|p| query.relevant.contains(p))
                    .map_or("not listed".to_owned(), |i| format!("rank {}", i + 1));
                lines.insert(
                    1,
                    format!("Kenning (right person at {right_at}): {}", list(&shown)),
                );
                outcome.missed.push(Failure { form, lines });
            }
        }
        outcome.latencies[0].extend_from_slice(kenning.latencies());
        for (latencies, meaning) in outcome.latencies[1..].iter_mut().zip(&meanings) {
            latencies.extend_from_slice(meaning.latencies());
        }
    }
    Ok(outcome)
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join("; ")
    }
}

/// A person's name, marked when right for `query`.
fn person(world: &World, query: &Query, p: usize) -> String {
    let name = world.people.get(p).map_or("?", String::as_str);
    if query.relevant.contains(&p) {
        format!("{name} (right)")
    } else {
        name.to_owned()
    }
}

/// The query, then BM25 profile's first people.
fn describe(world: &World, query: &Query, by_profile: &[usize]) -> Vec<String> {
    let mut quoted: String = query.text.chars().take(QUOTED_CHARS).collect();
    if quoted.len() < query.text.len() {
        quoted.push('…');
    }
    let bm25: Vec<String> = by_profile
        .iter()
        .take(SHOWN)
        .map(|&p| person(world, query, p))
        .collect();
    let right: Vec<&str> = query
        .relevant
        .iter()
        .map(|&p| world.people.get(p).map_or("?", String::as_str))
        .collect();
    vec![
        format!(
            "query {:?}, right: {}",
            quoted.replace('\n', " "),
            right.join(", ")
        ),
        format!("BM25 profile: {}", list(&bm25)),
    ]
}
