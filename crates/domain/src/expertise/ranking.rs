//! Who knows about a query.
//!
//! People are ranked as BM25 ranks documents, with a person's standing on
//! a topic in place of a term's frequency:
//!
//! - a topic few people know counts more than one everybody has ("year",
//!   "people"): each query topic is weighted by its inverse document
//!   frequency over the people who learned anything;
//! - a standing saturates: the tenth upload on a topic adds less than the
//!   first, so a specialist's few precise uploads can beat a generalist's
//!   many broad ones; it saturates against the standings of the others
//!   who know the topic (never less than a floor of about one upload), so
//!   that a person's own evidence only ever raises their share;
//! - what else a person uploads neither raises nor lowers it: the
//!   maintainer who wrote most of an area is not read against the volume
//!   of her work elsewhere (BM25's length normalisation ranked her below
//!   people who touched the area a few times).
//!
//! That is the person's evidence (Balog et al.'s profile model). The
//! documents' evidence (their document model) is fused with it: the
//! actions in which the query's topics are most relevant are scored as
//! BM25 scores documents, and a person earns the scores of their actions
//! among the best [`ACTIONS_COUNTED`]. Unlike a standing, this evidence
//! does not saturate: several actions that each match the query well count
//! for more than one, as far as they are among the best.
//!
//! The score a reader sees is on a fixed scale (0 to 100): the mean of the
//! share of the query's weight the person covers (a topic fully covered
//! when the person's standing on it is far above that of the others who
//! know it) and the person's documents' score relative to the best
//! person's, scaled to the best covered share. The plain weighted sum of
//! standings stays available as the raw score.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::evidence::{ActionTopic, Evidence, Population};
use super::scoring::Scoring;
use super::standing::{ScoredTopic, StoredStanding};
use crate::topic::{is_topic_key, TextWord, Topic};
use crate::user::UserId;
use term::learned_weight;
pub use term::QueryTerm;

/// How quickly a person's standing on a topic saturates (BM25's k1), in
/// units of the mean standing of the *other* people who know the topic,
/// never less than [`STANDING_FLOOR`]: a person with this many times that
/// covers half of the topic. The others', so that a person's own evidence
/// only ever raises their share; relative to them, so that standing out
/// among many who know a topic takes more than being its only learner.
const PERSON_SATURATION: f64 = 1.2;

/// The smallest standing the saturation is measured against: about what
/// one upload that names a topic once teaches. A topic nobody else knows
/// is covered half by a standing of 1.2 and four fifths by 4.8, two or
/// three uploads that are about it; as the material ages its share fades
/// with it.
const STANDING_FLOOR: f64 = 1.0;

/// How much of the documents' evidence covers a query half: the summed
/// match of a person's best actions, each the share of the query's weight
/// it matches times its relevance (about one for an upload that names
/// every topic of the query once).
const DOCUMENTS_SATURATION: f64 = 1.0;

/// How many of the actions that match a query best earn their users
/// document evidence (as in the BM25 document model, which sums a person's
/// documents among the 100 best).
pub const ACTIONS_COUNTED: u32 = 100;

/// The weight a query's topics are measured against: the sum of weight
/// times idf (`idf_of` a key; `None` when nobody learned it) of the
/// learned topics the query writes, or, when it writes none, of the topics
/// it reached through their meaning. Topics reached besides written ones
/// only add to a person's share, so that matching the query's own words
/// counts most.
fn query_weight(query: &[QueryTerm], idf_of: impl Fn(&str) -> Option<f64>) -> f64 {
    let written = learned_weight(query, &idf_of, true);
    if written > 0.0 {
        written
    } else {
        learned_weight(query, &idf_of, false)
    }
}

/// The weight of everything the query writes: [`query_weight`]'s written
/// topics, and each word nobody learned that weighs
/// ([`term::weighing_unknown`]) as much as a topic one person learned
/// (`unknown_idf`).
fn written_weight(
    query: &[QueryTerm],
    idf_of: impl Fn(&str) -> Option<f64>,
    unknown_idf: f64,
    weighing: &[bool],
) -> f64 {
    query
        .iter()
        .zip(weighing.iter().copied())
        .filter(|(t, _)| t.written())
        .filter_map(|(t, weighs)| match idf_of(&t.key) {
            Some(idf) => Some(t.weight * idf),
            None => weighs.then_some(t.weight * unknown_idf),
        })
        .sum()
}

/// How much of a query somebody holds, in [0, 1]: every score is
/// multiplied by it, so that it says how much of the query the person
/// answers, while the order of the people stays that of the part held.
/// The share of the written weight ([`written_weight`]) that learned
/// topics carry; when the query writes no learned topic, the greatest
/// weight a topic reached through meaning carries against it (whoever is
/// found so scores under 50 besides: [`reached::MEANING_ALONE_CEILING`]).
fn held_share(
    query: &[QueryTerm],
    idf_of: impl Fn(&str) -> Option<f64> + Copy,
    unknown_idf: f64,
) -> f64 {
    let weighing = term::weighing_unknown(query, &idf_of);
    let all = written_weight(query, idf_of, unknown_idf, &weighing);
    if all <= 0.0 {
        return 0.0;
    }
    let known: f64 = query
        .iter()
        .filter(|t| t.written())
        .filter_map(|t| idf_of(&t.key).map(|idf| t.weight * idf))
        .sum();
    let held = if known > 0.0 {
        known
    } else {
        query
            .iter()
            .filter(|t| !t.written())
            .filter_map(|t| idf_of(&t.key).map(|idf| t.weight * idf))
            .fold(0.0, f64::max)
    };
    (held / all).min(1.0)
}

/// A user who knows about a query, with the topics that earned it.
#[derive(Debug, Clone, PartialEq)]
pub struct Expert {
    /// Who it is.
    pub user: UserId,
    /// How well the user answers the query, from 0 to 100, and the order
    /// of the list: the mean of the share of the query's weight the user
    /// covers and the user's documents' evidence, saturated. At least 80
    /// for someone with several uploads about every topic of the query.
    pub score: f64,
    /// The sum over the query's topics of their weight in the query times
    /// the user's standing on them.
    pub raw_score: f64,
    /// Whether the user was found through meaning alone: they hold none
    /// of the learned topics the query writes, only topics it reached
    /// through their meaning. Such a person is listed after everyone who
    /// holds a written topic and scores under 50.
    pub through_meaning: bool,
    /// The query's topics the user knows, the most telling first.
    pub topics: Vec<ScoredTopic>,
}

/// The runs of two or more words of a phrase key, the whole phrase
/// included: "python panda datafram" gives itself, "python panda" and
/// "panda datafram".
fn sub_phrases(key: &str) -> Vec<String> {
    let words: Vec<&str> = key.split(' ').collect();
    let mut runs = Vec::new();
    for len in (2..=words.len()).rev() {
        for run in words.windows(len) {
            runs.push(run.join(" "));
        }
    }
    runs
}

/// The topics a query is matched on: every content word of the query, and
/// every phrase the extractor found in it with the runs of two or more of
/// its words ("python pandas dataframe" also asks for "pandas
/// dataframe"). A query is short, so each of its words counts, whatever
/// the extractor thinks of it. Each key once: a word weighs as often as
/// the query uses it (a query that says a word three times is about it),
/// a phrase one.
pub fn query_terms(phrases: &[Topic], words: &[TextWord]) -> Vec<QueryTerm> {
    let mut terms: Vec<QueryTerm> = Vec::new();
    let mut add = |key: String, label: &str| {
        if is_topic_key(&key) && !terms.iter().any(|t| t.key == key) {
            terms.push(QueryTerm {
                key,
                label: label.to_owned(),
                weight: 1.0,
                similarity: None,
                reread: false,
            });
        }
    };
    for word in words {
        add(word.key.clone(), &word.label);
    }
    for phrase in phrases {
        if phrase.key.contains(' ') {
            for run in sub_phrases(&phrase.key) {
                let label = if run == phrase.key {
                    phrase.label.as_str()
                } else {
                    run.as_str()
                };
                add(run.clone(), label);
            }
        } else {
            add(phrase.key.clone(), &phrase.label);
        }
    }
    for word in words {
        if let Some(t) = terms.iter_mut().find(|t| t.key == word.key) {
            t.weight = f64::from(word.count);
        }
    }
    terms
}

/// A topic's inverse document frequency over `people`, `knowing` of whom
/// learned it (BM25's, always positive).
pub(super) fn idf(people: f64, knowing: f64) -> f64 {
    (1.0 + (people - knowing + 0.5) / (knowing + 0.5)).ln()
}

/// The people idf is counted over: the population, and never fewer than
/// know any one of the topics in `knowing`.
pub(super) fn people_counted(population: Population, knowing: &HashMap<String, u64>) -> f64 {
    let most = knowing.values().copied().max().unwrap_or(0);
    population.people.max(most) as f64
}

/// Each user's documents' evidence: the actions scored as BM25 scores
/// documents (the stored relevance of a word is already its saturated
/// count), query weight times idf times relevance summed over the query's
/// topics, relative to the query's whole weight `coverable`, and each
/// user's scores summed over their actions among the best
/// [`ACTIONS_COUNTED`].
fn documents_evidence(
    weight: &HashMap<&str, f64>,
    topics: &HashMap<String, TermStatistics>,
    actions: Vec<ActionTopic>,
    coverable: f64,
) -> HashMap<UserId, f64> {
    let mut scored: HashMap<Uuid, (UserId, f64)> = HashMap::new();
    for a in actions {
        let (Some(w), Some(topic)) = (weight.get(a.key.as_str()), topics.get(&a.key)) else {
            continue;
        };
        scored.entry(a.action).or_insert((a.user, 0.0)).1 += w * topic.idf * a.relevance;
    }
    let mut best: Vec<(Uuid, UserId, f64)> = scored
        .into_iter()
        .map(|(action, (user, score))| (action, user, score))
        .filter(|(_, _, score)| *score > 0.0)
        .collect();
    best.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
    best.truncate(usize::try_from(ACTIONS_COUNTED).unwrap_or(usize::MAX));
    let mut by_user: HashMap<UserId, f64> = HashMap::new();
    for (_, user, score) in best {
        *by_user.entry(user).or_default() += score / coverable;
    }
    by_user
}

/// Per query topic: its idf, and how many standings on it were read and
/// their sum (the others' mean is the sum less one's own over the rest).
#[derive(Debug, Clone, Copy, Default)]
struct TermStatistics {
    idf: f64,
    read: f64,
    sum: f64,
}

impl TermStatistics {
    /// The share of the topic a standing of `score` covers, in [0, 1):
    /// saturated against the mean of the other standings read on it,
    /// never less than [`STANDING_FLOOR`].
    fn covered(&self, score: f64) -> f64 {
        let others = if self.read > 1.0 {
            ((self.sum - score) / (self.read - 1.0)).max(0.0)
        } else {
            0.0
        };
        score / (score + PERSON_SATURATION * others.max(STANDING_FLOOR))
    }
}

/// Ranks the users of the evidence's standings for `query`, best first by
/// [`Expert::score`], at most `limit`. Users with no positive standing on
/// any query topic are not listed.
pub fn rank_experts(
    query: &[QueryTerm],
    evidence: Evidence,
    now: DateTime<Utc>,
    scoring: &Scoring,
    limit: usize,
) -> Vec<Expert> {
    let asked: HashSet<&str> = query.iter().map(|t| t.key.as_str()).collect();
    let Evidence {
        standings,
        knowing,
        population,
        mut actions,
        hidden,
        declared,
    } = evidence;
    let is_hidden =
        |user: UserId, key: &str| !hidden.is_empty() && hidden.contains(&(user, key.to_owned()));
    actions.retain(|a| !is_hidden(a.user, &a.key));
    let standings = standings
        .into_iter()
        .filter(|s| asked.contains(s.key.as_str()) && !is_hidden(s.user, &s.key))
        .collect();
    let known = scored_since_the_subject(standings, now, scoring);
    let (topics, people) = query_topics(&known, &knowing, &population);
    let idf_of = |key: &str| topics.get(key).map(|topic| topic.idf);
    let query = &reached::weigh_reached(query, idf_of);
    let weight: HashMap<&str, f64> = query.iter().map(|t| (t.key.as_str(), t.weight)).collect();
    let coverable = query_weight(query, idf_of);
    if coverable <= 0.0 {
        return Vec::new();
    }
    let answerable = held_share(query, idf_of, idf(people.max(1.0), 1.0));
    let covering = Covering {
        written: query
            .iter()
            .filter(|t| t.written())
            .map(|t| t.key.as_str())
            .collect(),
        weight: &weight,
        topics: &topics,
        declared: &declared,
    };
    let experts = covering.experts(known);
    let documents = documents_evidence(&weight, &topics, actions, coverable);
    let mut ranked: Vec<Expert> = experts
        .into_values()
        .map(|(expert, shares)| {
            let matched = documents.get(&expert.user).copied().unwrap_or_default();
            scored(expert, shares, coverable, answerable, matched)
        })
        .collect();
    ranked.sort_by(|a, b| {
        a.through_meaning
            .cmp(&b.through_meaning)
            .then(b.score.total_cmp(&a.score))
            .then(b.raw_score.total_cmp(&a.raw_score))
            .then(a.user.cmp(&b.user))
    });
    let mut scores: Vec<(f64, bool)> = ranked
        .iter()
        .map(|e| (e.score, e.through_meaning))
        .collect();
    let subject_held = learned_weight(query, &idf_of, true) > 0.0;
    reached::meaning_after_written(&mut scores, subject_held);
    for (expert, (score, _)) in ranked.iter_mut().zip(scores) {
        expert.score = score;
    }
    ranked.truncate(limit);
    ranked
}

/// The most half-lives time takes off a standing when it is read (at
/// least a sixteenth of it is left): recency orders the people active on
/// a subject, and its earlier authors, however long ago, keep enough to
/// stand among the first few when they wrote several times as much as
/// anyone since.
const MOST_HALF_LIVES: i32 = 4;

/// Each of `standings` with its score when its topic was last written
/// about: decayed from the person's last action on the topic to the
/// newest action anybody took on it (never later than `now`), by at most
/// [`MOST_HALF_LIVES`]. Recency decides between people active on a
/// subject, and does not erase the people who ever were: when nobody
/// wrote about a topic since, its last authors keep their whole standing,
/// and when others did, its earlier authors keep at least a sixteenth of
/// theirs.
/// Standings of no score are left out.
fn scored_since_the_subject(
    standings: Vec<StoredStanding>,
    now: DateTime<Utc>,
    scoring: &Scoring,
) -> Vec<(StoredStanding, f64)> {
    let least_left = 0.5_f64.powi(MOST_HALF_LIVES);
    let mut newest: HashMap<String, DateTime<Utc>> = HashMap::new();
    for s in &standings {
        let at = newest.entry(s.key.clone()).or_insert(s.standing.as_of);
        *at = (*at).max(s.standing.as_of);
    }
    standings
        .into_iter()
        .map(|s| {
            let subject = newest.get(&s.key).copied().unwrap_or(now).min(now);
            let aged = s.standing.score_at(subject.max(s.standing.as_of), scoring);
            let score = aged.max(s.standing.score * least_left);
            (s, score)
        })
        .filter(|(_, score)| *score > 0.0)
        .collect()
}

/// What is known of each query topic `known` holds standings on (how many
/// standings were read, their sum, its idf among `people`), and how many
/// people the idf counts: the population, or more when a topic's holders
/// outnumber it.
fn query_topics(
    known: &[(StoredStanding, f64)],
    knowing: &HashMap<String, u64>,
    population: &Population,
) -> (HashMap<String, TermStatistics>, f64) {
    let mut topics: HashMap<String, TermStatistics> = HashMap::new();
    for (s, score) in known {
        let entry = topics.entry(s.key.clone()).or_default();
        entry.read += 1.0;
        entry.sum += score;
    }
    let people_knowing =
        |key: &str, read: f64| knowing.get(key).map_or(read, |n| (*n as f64).max(read));
    let most = topics
        .iter()
        .map(|(key, t)| people_knowing(key, t.read))
        .fold(0.0, f64::max);
    let people = (population.people as f64).max(most);
    for (key, topic) in &mut topics {
        topic.idf = idf(people, people_knowing(key, topic.read));
    }
    (topics, people)
}

/// How much of a query each standing covers.
struct Covering<'a> {
    /// The topics the query writes (not reached through meaning).
    written: HashSet<&'a str>,
    weight: &'a HashMap<&'a str, f64>,
    topics: &'a HashMap<String, TermStatistics>,
    declared: &'a HashSet<(UserId, String)>,
}

impl Covering<'_> {
    /// Each person of `known` with the sum of what their standings cover
    /// (not yet a score) and the topics, with what each covers, in the
    /// order of the keys.
    fn experts(
        &self,
        mut known: Vec<(StoredStanding, f64)>,
    ) -> HashMap<UserId, (Expert, Vec<f64>)> {
        let mut experts: HashMap<UserId, (Expert, Vec<f64>)> = HashMap::new();
        known.sort_by(|a, b| a.0.key.cmp(&b.0.key).then(a.0.user.cmp(&b.0.user)));
        for (s, score) in known {
            let w = self.weight.get(s.key.as_str()).copied().unwrap_or_default();
            let topic = self.topics.get(&s.key).copied().unwrap_or_default();
            let covered = w * topic.idf * topic.covered(score);
            let (expert, shares) = experts.entry(s.user).or_insert((
                Expert {
                    user: s.user,
                    score: 0.0,
                    raw_score: 0.0,
                    through_meaning: true,
                    topics: Vec::new(),
                },
                Vec::new(),
            ));
            expert.score += covered;
            expert.raw_score += w * score;
            expert.through_meaning &= !self.written.contains(s.key.as_str());
            let says = self.declared.contains(&(s.user, s.key.clone()));
            expert.topics.push(ScoredTopic {
                key: s.key,
                label: s.label,
                score,
                shown: s.shown,
                declared: says,
            });
            shares.push(covered);
        }
        experts
    }
}

/// `expert` scored: its topics ordered by `shares` (what each covers),
/// its score from 0 to 100 the mean of the share of the `coverable` query
/// it covers and of its documents' evidence (`matched`, saturated), times
/// the share of the query anyone holds (`answerable`).
fn scored(
    mut expert: Expert,
    shares: Vec<f64>,
    coverable: f64,
    answerable: f64,
    matched: f64,
) -> Expert {
    let mut order: Vec<(f64, ScoredTopic)> = shares.into_iter().zip(expert.topics).collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.key.cmp(&b.1.key)));
    expert.topics = order.into_iter().map(|(_, t)| t).collect();
    let own = (expert.score / coverable).min(1.0);
    let documents = matched / (matched + DOCUMENTS_SATURATION);
    expert.score = (100.0 * answerable * (own + documents) / 2.0).clamp(0.0, 100.0);
    expert
}

/// A topic read from a query, and what Kenning knows of it: so that an
/// empty or odd answer can be understood.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadTerm {
    /// The topic's key.
    pub key: String,
    /// The topic as the query wrote it.
    pub label: String,
    /// How much the query asks for it (how often it says a word; a phrase
    /// one).
    pub weight: f64,
    /// How many people hold it, as [`read_query`] was given them (a
    /// reading counts those `experts` would rank: [`holders`](super::holders));
    /// 0 when nobody does, and then it finds nobody.
    pub people: u64,
    /// The share of the query's weight it carries in the score, in [0, 1]:
    /// its weight times its specificity (idf over people) over the sum of
    /// those of the topics the query writes, a word nobody learned counted
    /// as specific as a topic one person learned (when it weighs:
    /// [`QueryTerm::reread`]) and a phrase nobody learned not at all. The
    /// shares of the written topics add up to one, and the share of a word
    /// nobody learned is a share nobody covers; a topic reached through
    /// meaning adds its share on top.
    pub share: f64,
    /// `None` for a topic the query writes; for a learned topic the query
    /// reached through its meaning, the cosine similarity of the two.
    pub similarity: Option<f64>,
}

/// Whether somebody holds the subject of a query read as `read`
/// ([`read_query`]): a topic the query writes, not one reached through
/// meaning, that somebody learned. When nobody does, every score is
/// under 50 (see [`rank_experts`]).
pub fn subject_known(read: &[ReadTerm]) -> bool {
    read.iter().any(|t| t.similarity.is_none() && t.people > 0)
}

/// The fewest people who must have learned anything before a topic most
/// of them hold reads as common to the organisation rather than a
/// subject of a few.
const COMMON_AMONG: f64 = 3.0;

/// `topics`, a person's topics scored by their standing, in the order a
/// profile shows them: the topics most of the people who learned anything
/// (`population`) hold ("team", "number" in a small company; more than
/// half of them, when there are at least three) after every
/// other, since they set nobody apart however often the person writes
/// them. Within each part, standing times the share of the people that do
/// not hold the topic (`knowing`), the person counted as one of them, so
/// that what many hold gives way to what few do, while a topic a few
/// others share stays near its standing (a full idf would put any single
/// mention first); on a tie, by key. Where one person learned everything
/// it is the order of the standings. The scores are left as they are.
pub fn profile_order(
    topics: &mut [ScoredTopic],
    knowing: &HashMap<String, u64>,
    population: Population,
) {
    let people = people_counted(population, knowing).max(1.0);
    let held = |t: &ScoredTopic| knowing.get(&t.key).copied().unwrap_or(1).max(1) as f64;
    let common = |t: &ScoredTopic| people >= COMMON_AMONG && 2.0 * held(t) > people;
    let weight = |t: &ScoredTopic| t.score * (people - held(t) + 1.0) / people;
    topics.sort_by(|a, b| {
        common(a)
            .cmp(&common(b))
            .then(weight(b).total_cmp(&weight(a)))
            .then(a.key.cmp(&b.key))
    });
}

/// How `query` is read against what is known: each topic with its weight,
/// how many of the `population` hold it (`knowing`, such as
/// [`holders`](super::holders); topics left out are held by nobody) and
/// its share of the score, the held topics first by their share, then
/// the topics nobody holds. A word nobody learned that does not weigh
/// (another language's reading of the query: [`QueryTerm::reread`], or
/// of a word another reading of which was learned) is left out.
pub fn read_query(
    query: &[QueryTerm],
    knowing: &HashMap<String, u64>,
    population: Population,
) -> Vec<ReadTerm> {
    let people = people_counted(population, knowing);
    let idf_of = |key: &str| {
        let n = knowing.get(key).copied().unwrap_or(0);
        (n > 0).then(|| idf(people, n as f64))
    };
    let query = &reached::weigh_reached(query, idf_of);
    let unknown_idf = idf(people.max(1.0), 1.0);
    let weighing = term::weighing_unknown(query, &idf_of);
    let mut read: Vec<ReadTerm> = query
        .iter()
        .zip(weighing.iter().copied())
        .filter_map(|(t, weighs)| {
            let n = knowing.get(&t.key).copied().unwrap_or(0);
            // Another reading of a word that is read already.
            let other_reading = n == 0 && !weighs && t.written_word();
            (!other_reading).then(|| ReadTerm {
                key: t.key.clone(),
                label: t.label.clone(),
                weight: t.weight,
                people: n,
                share: if n > 0 {
                    t.weight * idf(people, n as f64)
                } else if weighs {
                    t.weight * unknown_idf
                } else {
                    0.0
                },
                similarity: t.similarity,
            })
        })
        .collect();
    let written = written_weight(query, idf_of, unknown_idf, &weighing);
    let total = if written > 0.0 {
        written
    } else {
        query_weight(query, idf_of)
    };
    if total > 0.0 {
        for t in &mut read {
            t.share /= total;
        }
    }
    // The learned first, then those nobody learned; a stable sort keeps
    // the query's order among equal shares.
    read.sort_by(|a, b| {
        (a.people == 0)
            .cmp(&(b.people == 0))
            .then(b.share.total_cmp(&a.share))
    });
    read
}

mod reached;
mod term;

#[cfg(test)]
mod tests;
