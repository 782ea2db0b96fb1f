//! An upload's path: its texts read for topics, the action written
//! through the writers in lanes by person, and each upload answered.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use chrono::{DateTime, Utc};
use kenning_domain::{
    entity_topics, Descriptor, EntityTopic, ScoredTopic, Scoring, TextFormat, TextTrace, Upload,
    UploadInput, UploadText, UserId, PHRASES_PER_TEXT,
};
use kenning_ports::{
    NewAction, RecordError, Recorded, StoreError, TopicExtractor, UploadStage, UPLOAD_STAGES,
};
use uuid::Uuid;

use super::service::{internal, ExpertiseService};
use crate::access::Operation;
use crate::batched_writes::Lane;
use crate::error::ServiceError;

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

/// The language the upload was read in, and what an upload of `texts`
/// teaches, best first: each text's key phrases and content words as the
/// extractor reads them, combined under `scoring`. Every text is read in
/// one language: `language` when given, else the one its texts tell
/// together ([`TopicExtractor::language_of`] of all but the `secondary`
/// ones: changed paths, a channel's name, what a reply answered, which
/// tell no language). A title alone is often too few words to tell a
/// language by ("tree/container: remove event listeners on destroy" read
/// as French teaches `tre` and `listener`, its English body `tree` and
/// `listen`), and a secondary text always is (`sway tree view.c`). When
/// the extractor tells no language, each text is read on its own and a
/// secondary one in the language the first was read in.
fn read_topics(
    extractor: &dyn TopicExtractor,
    texts: &[UploadText],
    language: Option<&str>,
    scoring: &Scoring,
) -> (Option<String>, Vec<EntityTopic>) {
    let told = match language {
        Some(given) => Some(given.to_owned()),
        None => {
            let telling: Vec<(&str, TextFormat)> = texts
                .iter()
                .filter(|t| t.descriptor != Descriptor::Secondary)
                .map(|t| (t.text.as_str(), t.format))
                .collect();
            extractor.language_of(&telling)
        }
    };
    let mut read: Option<String> = None;
    let mut traces: Vec<TextTrace> = Vec::with_capacity(texts.len());
    for t in texts {
        let beside = (t.descriptor == Descriptor::Secondary)
            .then_some(read.as_deref())
            .flatten();
        let found = extractor.extract(
            &t.text,
            t.format,
            told.as_deref().or(beside),
            PHRASES_PER_TEXT,
        );
        read.get_or_insert_with(|| found.language.clone());
        traces.push(TextTrace {
            descriptor: t.descriptor,
            words_judged: extractor.judges_words(&found.language),
            phrases: found.topics,
            words: found.words,
        });
    }
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
            declared: false,
        })
        .collect()
}

/// What an upload of `texts` would teach under `scoring`, with no store:
/// the language of its first text and every topic it would leave, with
/// its relevance, best first, each marked shown (people read it) or not
/// (kept for ranking alone). The same topics, labels and scale as an
/// upload's answer; `language` overrides detection, which an upload
/// never does.
pub fn preview_topics(
    extractor: &dyn TopicExtractor,
    texts: &[UploadText],
    language: Option<&str>,
    scoring: &Scoring,
) -> (Option<String>, Vec<ScoredTopic>) {
    let (read, topics) = read_topics(extractor, texts, language, scoring);
    (read, scored(extractor, &topics, scoring))
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

impl ExpertiseService {
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
    ///
    /// The connector door's ([`crate::Gate::connector`]) and the
    /// operator's: `Forbidden`, each, to any other caller.
    pub fn upload_all(&self, inputs: Vec<UploadInput>) -> Vec<Result<Accepted, ServiceError>> {
        if let Err(refusal) = self.caller.require(Operation::Upload) {
            return inputs.iter().map(|_| Err(refusal.clone())).collect();
        }
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
            topics: read_topics(self.extractor.as_ref(), &upload.texts, None, &self.scoring).1,
        }
    }

    /// The topics an action teaches, scored under the current settings.
    fn scored(&self, action: &NewAction) -> Vec<ScoredTopic> {
        scored(self.extractor.as_ref(), &action.topics, &self.scoring)
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

    /// An extractor that reads a text with "ist" in it as German, any
    /// other as French, notes the language it was asked to read in, and,
    /// when it `tells` one, tells the language of texts read together
    /// (noting the texts it was given).
    #[derive(Default)]
    struct Noting {
        asked: std::sync::Mutex<Vec<Option<String>>>,
        tells: Option<&'static str>,
        told_from: std::sync::Mutex<Vec<String>>,
    }

    impl Noting {
        fn asked(&self) -> Vec<Option<String>> {
            self.asked.lock().map(|a| a.clone()).unwrap_or_default()
        }
    }

    impl TopicExtractor for Noting {
        fn extract(
            &self,
            text: &str,
            _format: TextFormat,
            language: Option<&str>,
            _limit: usize,
        ) -> kenning_ports::Extraction {
            if let Ok(mut asked) = self.asked.lock() {
                asked.push(language.map(str::to_owned));
            }
            let detected = if text.contains("ist") { "de" } else { "fr" };
            kenning_ports::Extraction {
                language: language.unwrap_or(detected).to_owned(),
                topics: Vec::new(),
                words: Vec::new(),
            }
        }

        fn language_of(&self, texts: &[(&str, TextFormat)]) -> Option<String> {
            if let Ok(mut told_from) = self.told_from.lock() {
                told_from.extend(texts.iter().map(|(t, _)| (*t).to_owned()));
            }
            self.tells.map(str::to_owned)
        }
    }

    fn text(descriptor: Descriptor, text: &str) -> UploadText {
        UploadText {
            format: TextFormat::Plain,
            descriptor,
            text: text.to_owned(),
        }
    }

    #[test]
    fn a_secondary_text_is_read_in_the_language_of_the_first() {
        let texts = [
            text(Descriptor::Primary, "Der Baum ist neu"),
            text(Descriptor::Default, "mehr Text"),
            text(Descriptor::Secondary, "sway tree view.c"),
        ];
        let noting = Noting::default();
        let (read, _) = read_topics(&noting, &texts, None, &Scoring::default());
        assert_eq!(read.as_deref(), Some("de"));
        assert_eq!(noting.asked(), [None, None, Some("de".to_owned())]);
        // A language the upload names is every text's, and none is told.
        let noting = Noting::default();
        read_topics(&noting, &texts, Some("en"), &Scoring::default());
        assert_eq!(noting.asked(), vec![Some("en".to_owned()); 3]);
        assert!(noting
            .told_from
            .lock()
            .map(|t| t.is_empty())
            .unwrap_or(false));
    }

    #[test]
    fn every_text_is_read_in_the_language_the_texts_tell_together() {
        let texts = [
            text(Descriptor::Primary, "Add support for HDR10 output"),
            text(
                Descriptor::Default,
                "The output is drawn with the colour manager.",
            ),
            text(Descriptor::Secondary, "sway tree view.c"),
        ];
        let noting = Noting {
            tells: Some("en"),
            ..Noting::default()
        };
        let (read, _) = read_topics(&noting, &texts, None, &Scoring::default());
        assert_eq!(read.as_deref(), Some("en"));
        assert_eq!(noting.asked(), vec![Some("en".to_owned()); 3]);
        let told_from = noting
            .told_from
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default();
        assert_eq!(
            told_from,
            [texts[0].text.clone(), texts[1].text.clone()],
            "a secondary text tells no language"
        );
    }
}
