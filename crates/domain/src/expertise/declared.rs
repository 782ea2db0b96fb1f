//! Topics a person says they know: what Kenning missed, added by the
//! person themselves. A declaration ranks as one upload about the topic
//! at its date would, without the documents' evidence an upload brings,
//! so a person who only says they know never stands above someone whose
//! uploads taught the same.

use chrono::{DateTime, Utc};

use super::evidence::Evidence;
use super::scoring::Scoring;
use super::standing::{Standing, StoredStanding};
use crate::user::UserId;

/// The most topics one person may say they know: a short list of what
/// their uploads do not show, not a second profile.
pub const MAX_DECLARED_TOPICS: usize = 20;

/// A topic a person says they know.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclaredTopic {
    /// The topic's key, as a query reads it.
    pub key: String,
    /// The topic as the person wrote it.
    pub label: String,
    /// When they said so; it ages from then as an upload would.
    pub declared: DateTime<Utc>,
}

/// `evidence` with the topics people say they know (`declared`, each
/// with whose it is): a person's declaration on a topic they have no
/// standing on enters as the standing one upload about it teaches under
/// `scoring` ([`Scoring::one_upload`]) as of the declaration, and counts
/// them among the people who know it; where their uploads taught it
/// already, the learned standing stands alone. Declarations of topics the
/// person hid are left out, as their standings are.
pub fn with_declared(
    mut evidence: Evidence,
    declared: Vec<(UserId, DeclaredTopic)>,
    scoring: &Scoring,
) -> Evidence {
    for (user, topic) in declared {
        let learned = evidence
            .standings
            .iter()
            .any(|s| s.user == user && s.key == topic.key);
        if learned || evidence.hidden.contains(&(user, topic.key.clone())) {
            continue;
        }
        *evidence.knowing.entry(topic.key.clone()).or_default() += 1;
        evidence.declared.insert((user, topic.key.clone()));
        evidence.standings.push(StoredStanding {
            user,
            key: topic.key,
            label: topic.label,
            standing: Standing {
                score: scoring.one_upload(),
                as_of: topic.declared,
            },
            shown: true,
        });
    }
    evidence
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use uuid::Uuid;

    use super::*;
    use crate::expertise::evidence::Population;
    use crate::expertise::fixtures::t;
    use crate::expertise::ranking::{rank_experts, QueryTerm};

    fn person() -> UserId {
        UserId::from_uuid(Uuid::new_v4())
    }

    fn declared(key: &str) -> DeclaredTopic {
        DeclaredTopic {
            key: key.into(),
            label: key.into(),
            declared: t(0),
        }
    }

    fn query(key: &str) -> Vec<QueryTerm> {
        vec![QueryTerm {
            key: key.into(),
            label: key.into(),
            weight: 1.0,
            similarity: None,
            reread: false,
        }]
    }

    #[test]
    fn a_declaration_finds_the_person_when_no_upload_taught_the_topic() {
        let ada = person();
        let scoring = Scoring::default();
        let evidence = with_declared(
            Evidence {
                population: Population {
                    people: 3,
                    actions: 30,
                },
                ..Evidence::default()
            },
            vec![(ada, declared("cobol"))],
            &scoring,
        );
        assert_eq!(evidence.knowing, HashMap::from([("cobol".to_owned(), 1)]));
        let experts = rank_experts(&query("cobol"), evidence, t(1), &scoring, 10);
        assert_eq!(experts.len(), 1);
        assert_eq!(experts[0].user, ada);
        assert!(experts[0].score > 0.0);
        assert!(experts[0].topics[0].declared, "said, not taught");
    }

    #[test]
    fn learned_standings_and_hidden_topics_are_not_overridden() {
        let (ada, grace) = (person(), person());
        let learned = StoredStanding {
            user: ada,
            key: "cobol".into(),
            label: "COBOL".into(),
            standing: Standing {
                score: 4.0,
                as_of: t(0),
            },
            shown: true,
        };
        let evidence = Evidence {
            standings: vec![learned.clone()],
            knowing: HashMap::from([("cobol".to_owned(), 1)]),
            hidden: [(grace, "cobol".to_owned())].into_iter().collect(),
            ..Evidence::default()
        };
        let evidence = with_declared(
            evidence,
            vec![(ada, declared("cobol")), (grace, declared("cobol"))],
            &Scoring::default(),
        );
        assert_eq!(evidence.standings, vec![learned]);
        assert_eq!(evidence.knowing["cobol"], 1);
    }
}
