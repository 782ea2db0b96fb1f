//! How much a user knows about a topic.
//!
//! expertise(user, topic) = Σ over the user's actions of
//! weight(action_type) × relevance(topic in the entity) × decay(age), where
//! relevance sums each text's relevance times its descriptor's factor and
//! decay halves the contribution every half-life.
//!
//! The sum is kept as a [`Standing`]: the score as of one moment. Adding an
//! action or reading the score later only needs that moment and the
//! half-life, so reads never go back to the actions.

mod answer;
mod declared;
mod dropped;
mod evidence;
mod holders;
mod ranking;
mod related;
mod scoring;
mod standing;
mod trace;

pub use answer::{worth_showing, Answer, Band, Verdict, NEAREST_FLOOR, THE_PERSON};
pub use declared::{with_declared, DeclaredTopic, MAX_DECLARED_TOPICS};
pub use dropped::dropped_words;
pub use evidence::{ActionTopic, Evidence, Population};
pub use holders::holders;
pub use ranking::{
    profile_order, query_terms, rank_experts, read_query, subject_known, Expert, QueryTerm,
    ReadTerm, ACTIONS_COUNTED,
};
pub use related::{commonest_labels, related_topics, RelatedTopic};
pub use scoring::{EntityTopic, Scoring, ScoringError};
pub use standing::{
    LabelledStanding, ScoredTopic, Standing, StandingChanges, StoredStanding, TopicLabel,
};
pub use trace::{entity_topics, TextTrace, PHRASES_PER_TEXT, WORDS_PER_TEXT};

#[cfg(test)]
mod fixtures;
