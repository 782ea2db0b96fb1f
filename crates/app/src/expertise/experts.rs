//! Who knows about a query: the query read for topics, the people
//! ranked on them, and how the query was read, with how many people
//! `experts` would rank on each of its topics.

use std::collections::{HashMap, HashSet};

use kenning_domain::{
    dropped_words, holders, query_terms, query_text, rank_experts, read_query, subject_known,
    with_declared, worth_showing, Answer, Evidence, Expert, ExpertsLimit, GroupId, QueryTerm,
    ReadTerm, ScoredTopic, TopicText, UserId, ACTIONS_COUNTED,
};
use kenning_ports::Question;

use super::service::{internal, items, ExpertiseService};
use crate::access::Operation;
use crate::error::{Missing, ServiceError};
use crate::meaning::ENGLISH as FALLBACK_LANGUAGE;

/// How many topics are read from a free-text query.
const TOPICS_PER_QUERY: usize = 10;
/// How many of the best standings on each query topic `experts` reads:
/// far more than it lists, so that a person ranks on every topic that
/// matters, and bounded, so that a topic everybody knows costs no more
/// than one few know.
const STANDINGS_PER_TOPIC: u32 = 300;
/// How many of the actions in which a query topic is most relevant
/// `experts` reads for the documents' evidence: as many as it counts in
/// all, so that the best actions of a query of one topic are all read.
const ACTIONS_PER_TOPIC_READ: u32 = ACTIONS_COUNTED;

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
    /// nobody holds last, each with how many people `experts` would rank
    /// on it ([`holders`]); with the learned topics the query reached
    /// through their meaning.
    pub topics: Vec<ReadTerm>,
    /// The model the query's meaning was read with, if any.
    pub meaning_model: Option<String>,
    /// The words read as the question ("who", "can", "help", "with"), as
    /// written: never topics.
    pub asking: Vec<String>,
    /// What the query asks about: the query less its question.
    pub subject: String,
    /// The words of the subject that became no topic (stop words,
    /// numbers, a letter alone), as written: what Kenning dropped, so
    /// that it is seen dropped rather than missing.
    pub dropped: Vec<String>,
    /// Whether somebody `experts` would rank holds a topic the subject
    /// writes. When nobody does, whoever is listed was reached through
    /// meaning alone.
    pub subject_known: bool,
    /// What `experts` answers, counted over its longest list
    /// ([`ExpertsLimit::MAX`]): how many people score 50 or more ("this
    /// is the person") and how many more are the nearest Kenning has.
    pub answer: Answer,
}

/// A query as read: its subject's topics (with those reached through
/// meaning, once added), the language it was read in, and its question.
#[derive(Debug)]
struct ParsedQuery {
    terms: Vec<QueryTerm>,
    /// The language of the question's words, when any were read, then
    /// those the subject was read in.
    languages: Vec<String>,
    question: Question,
    /// The model its meaning was read with, once read.
    model: Option<String>,
}

/// The people a query's topics rank, at most the longest list, with what
/// they come to and how many people hold each topic.
struct Answered {
    experts: Vec<Expert>,
    answer: Answer,
    held: HashMap<String, u64>,
}

impl ExpertiseService {
    /// At most `limit` users who know about `query`, best first; nobody
    /// scoring under [`NEAREST_FLOOR`](kenning_domain::NEAREST_FLOOR), who
    /// shares a word of the question or less. Every door lists these.
    pub fn experts(&self, query: &str, limit: ExpertsLimit) -> Result<Vec<Expert>, ServiceError> {
        self.experts_in(query, limit, None)
    }

    /// [`experts`](Self::experts) among the members of `group` alone when
    /// given (`NotFound` for a group that does not exist): the members in
    /// the order and with the scores the whole organisation's answer gives
    /// them: it is ranked among everyone and narrowed.
    pub fn experts_in(
        &self,
        query: &str,
        limit: ExpertsLimit,
        group: Option<GroupId>,
    ) -> Result<Vec<Expert>, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        self.known_group(group)?;
        let read = self.query_terms(query)?;
        if read.terms.is_empty() {
            return Ok(Vec::new());
        }
        let (terms, _) = self.with_reached(read.terms, read.question.language.as_deref());
        let (mut experts, _) = self.ranked(&terms, group)?;
        experts.truncate(items(limit.get()));
        Ok(self.shown(&terms, experts, limit, group))
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
        self.caller.require(Operation::ReadExpertise)?;
        self.known_group(group)?;
        let mut read = self.query_terms(query)?;
        let nothing_written = read.terms.is_empty();
        (read.terms, read.model) = self.with_reached(read.terms, read.question.language.as_deref());
        let (experts, answer, held) = if nothing_written {
            (Vec::new(), Answer::default(), None)
        } else {
            let Answered {
                mut experts,
                answer,
                held,
            } = self.answered(&read.terms, group)?;
            experts.truncate(items(limit.get()));
            (
                self.shown(&read.terms, experts, limit, group),
                answer,
                Some(held),
            )
        };
        let held = match held {
            Some(held) => held,
            None => self.holders(&read.terms)?,
        };
        Ok((experts, self.reading(read, held, answer)?))
    }

    /// [`ranked`](Self::ranked), at most the longest list
    /// ([`ExpertsLimit::MAX`]), with what that list answers: the same
    /// reads rank every candidate, so counting beyond a page costs nothing
    /// more.
    fn answered(
        &self,
        terms: &[QueryTerm],
        group: Option<GroupId>,
    ) -> Result<Answered, ServiceError> {
        let (mut experts, held) = self.ranked(terms, group)?;
        experts.truncate(items(ExpertsLimit::MAX));
        let answer = Answer::of(experts.iter().map(|e| e.score));
        Ok(Answered {
            experts,
            answer,
            held,
        })
    }

    /// Everyone ranked on `terms` among the whole organisation, best
    /// first, with how many people hold each topic; of the members of
    /// `group` alone when given, in the same order and with the same
    /// scores, so that narrowing an answer to a group never reorders it.
    /// A member the organisation's read left out (when more than
    /// [`STANDINGS_PER_TOPIC`] people hold every topic they hold, better)
    /// is ranked among the members and listed after, never above.
    fn ranked(
        &self,
        terms: &[QueryTerm],
        group: Option<GroupId>,
    ) -> Result<(Vec<Expert>, HashMap<String, u64>), ServiceError> {
        let evidence = self.evidence(terms, None)?;
        let held = self.holders_of(&evidence);
        let every_holder_read = evidence
            .knowing
            .values()
            .all(|n| *n <= u64::from(STANDINGS_PER_TOPIC));
        let all = rank_experts(terms, evidence, self.clock.now(), &self.scoring, usize::MAX);
        let Some(group) = group else {
            return Ok((all, held));
        };
        let members = self
            .groups
            .group(group)?
            .map(|g| g.attributes().members.clone())
            .unwrap_or_default();
        let mut within: Vec<Expert> = all
            .into_iter()
            .filter(|e| members.contains(&e.user))
            .collect();
        if !every_holder_read {
            self.add_members_left_out(terms, group, &mut within)?;
        }
        Ok((within, held))
    }

    /// The members of `group` ranked among themselves that `within` (the
    /// whole organisation's answer, narrowed to them) lacks, after it,
    /// none scoring above its last.
    fn add_members_left_out(
        &self,
        terms: &[QueryTerm],
        group: GroupId,
        within: &mut Vec<Expert>,
    ) -> Result<(), ServiceError> {
        let evidence = self.evidence(terms, Some(group))?;
        let listed: HashSet<UserId> = within.iter().map(|e| e.user).collect();
        let floor = within.last().map_or(100.0, |e| e.score);
        let more = rank_experts(terms, evidence, self.clock.now(), &self.scoring, usize::MAX)
            .into_iter()
            .filter(|e| !listed.contains(&e.user))
            .map(|mut e| {
                e.score = e.score.min(floor);
                e
            });
        within.extend(more);
        Ok(())
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

    /// What ranking `terms` reads (of the members of `group` alone when
    /// given).
    fn evidence(
        &self,
        terms: &[QueryTerm],
        group: Option<GroupId>,
    ) -> Result<Evidence, ServiceError> {
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
        let declared = self.declared_on(terms, group)?;
        Ok(with_declared(evidence, declared, &self.scoring))
    }

    /// How many people `experts` would rank on each of `terms`' topics
    /// ([`holders`]), from the best standings on each and who says they
    /// know it.
    fn holders(&self, terms: &[QueryTerm]) -> Result<HashMap<String, u64>, ServiceError> {
        if terms.is_empty() {
            return Ok(HashMap::new());
        }
        let keys: Vec<String> = terms.iter().map(|t| t.key.clone()).collect();
        let evidence = self
            .store
            .evidence(&keys, STANDINGS_PER_TOPIC, 0, &self.scoring)
            .map_err(internal)?;
        let declared = self.declared_on(terms, None)?;
        Ok(self.holders_of(&with_declared(evidence, declared, &self.scoring)))
    }

    /// [`holders`] of `evidence`, read among everyone.
    fn holders_of(&self, evidence: &Evidence) -> HashMap<String, u64> {
        holders(
            evidence,
            STANDINGS_PER_TOPIC,
            self.clock.now(),
            &self.scoring,
        )
    }

    /// `experts` as a list of `limit` shows them (of the members of
    /// `group` alone when given): the question counted in the ledger of
    /// questions, those under the floor ([`worth_showing`]) left out, each
    /// person's topics those a person reads.
    fn shown(
        &self,
        terms: &[QueryTerm],
        mut experts: Vec<Expert>,
        limit: ExpertsLimit,
        group: Option<GroupId>,
    ) -> Vec<Expert> {
        if let (Some((_, ledger)), None) = (&self.privacy, group) {
            ledger.note(terms, &experts, limit);
        }
        // Under the floor a person shares a word of the question or less:
        // no door lists them, so every door lists the same people.
        experts.retain(|e| worth_showing(e.score));
        for expert in &mut experts {
            self.keep_readable(&mut expert.topics);
        }
        experts
    }

    /// Keeps the topics a person reads (shown by an upload and
    /// [`TopicExtractor::readable`](kenning_ports::TopicExtractor::readable)),
    /// unless none is: then all stay, so that every expert says why.
    fn keep_readable(&self, topics: &mut Vec<ScoredTopic>) {
        for topic in topics.iter_mut() {
            topic.shown = topic.shown && self.extractor.readable(&topic.label);
        }
        if topics.iter().any(|t| t.shown) {
            topics.retain(|t| t.shown);
        }
    }

    /// The topics a query is matched on: those of its subject, the query
    /// less the words that ask for a person ("who can help with"), which
    /// are never topics. A query is too short for its language to be told
    /// reliably ("Gloucestershire man arrested for naked gardening" reads
    /// as Danish), so a subject not read as English is also read with
    /// English rules, the extractor's fallback, and every reading counts
    /// (a word nobody learned, only as the first reading gives it:
    /// [`QueryTerm::reread`]).
    /// A blank query, and one longer than
    /// [`MAX_QUERY_CHARS`](kenning_domain::MAX_QUERY_CHARS)
    /// characters, is refused.
    fn query_terms(&self, query: &str) -> Result<ParsedQuery, ServiceError> {
        let query = query_text(query)?;
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
        // read in their own language, which comes first, and the subject
        // is read in it too: a subject of one word ("Datenschutz",
        // "Zollanmeldungen") is too short to tell its language by, and
        // read as German its compounds give their parts.
        let mut languages: Vec<String> = question.language.iter().cloned().collect();
        for language in [detected.language.clone(), FALLBACK_LANGUAGE.to_owned()] {
            if !languages.contains(&language) {
                languages.push(language);
            }
        }
        for language in languages.iter().filter(|l| **l != detected.language) {
            let again = read(Some(language.as_str()));
            for term in query_terms(&again.topics, &again.words) {
                if !terms.iter().any(|t| t.key == term.key) {
                    terms.push(QueryTerm {
                        reread: true,
                        ..term
                    });
                }
            }
        }
        Ok(ParsedQuery {
            terms,
            languages,
            question,
            model: None,
        })
    }

    /// How `query` is read for [`experts`](Self::experts): the topics it
    /// is matched on, each with its weight in the query, how many people
    /// `experts` would rank on it ([`holders`]: never one who hid it or
    /// whom it does not rank) and its share of the score. A topic nobody
    /// holds is why a query finds nobody, or fewer than expected.
    pub fn read_query(&self, query: &str) -> Result<QueryReading, ServiceError> {
        self.caller.require(Operation::ReadExpertise)?;
        let mut read = self.query_terms(query)?;
        (read.terms, read.model) = self.with_reached(read.terms, read.question.language.as_deref());
        if read.terms.is_empty() {
            return self.reading(read, HashMap::new(), Answer::default());
        }
        let Answered { answer, held, .. } = self.answered(&read.terms, None)?;
        self.reading(read, held, answer)
    }

    /// How a read query stands against what is known: `held`, how many
    /// people `experts` would rank on each topic.
    fn reading(
        &self,
        read: ParsedQuery,
        held: HashMap<String, u64>,
        answer: Answer,
    ) -> Result<QueryReading, ServiceError> {
        let ParsedQuery {
            terms,
            languages,
            question,
            model,
        } = read;
        let population = self.store.population().map_err(internal)?;
        let topics = read_query(&terms, &held, population);
        let written = topics.iter().filter(|t| t.similarity.is_none());
        let dropped = dropped_words(&question.subject, written.map(|t| t.label.as_str()));
        Ok(QueryReading {
            dropped,
            languages,
            subject_known: subject_known(&topics),
            topics,
            meaning_model: model,
            asking: question.asking,
            subject: question.subject,
            answer,
        })
    }

    /// The key a topic is stored under: the text as given when it is a
    /// key already, else the best key phrase the extractor reads in it.
    /// Refused when `topic` is no [`TopicText`].
    pub(super) fn topic_key(&self, topic: &str) -> Result<String, ServiceError> {
        let topic = TopicText::parse(topic)?;
        let topic = topic.as_str();
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
}
