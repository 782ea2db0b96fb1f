//! How many people hold a topic, as an answer may say: those `experts`
//! would rank on it, never someone it leaves out.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::evidence::Evidence;
use super::scoring::Scoring;

/// How many people [`rank_experts`](super::rank_experts) would rank on each
/// topic of `evidence`, read with at most `per_key` standings a topic (the
/// best standings of people `experts` ranks, as
/// `ExpertiseStore::evidence` reads them): those whose standing is above
/// zero at `now` and who did not hide the topic. Topics nobody is ranked
/// on are left out, so a topic that only people who hid it, or people
/// `experts` does not rank, hold counts as a topic nobody learned.
///
/// When `per_key` standings of a topic were read, more people may hold it
/// than were read, and the count is that of everyone who learned it
/// (`evidence.knowing`): at least `per_key` people `experts` ranks hold it
/// then, a crowd in which no one person's choice or status shows, and
/// counting them all would cost a read of every standing on the topic.
pub fn holders(
    evidence: &Evidence,
    per_key: u32,
    now: DateTime<Utc>,
    scoring: &Scoring,
) -> HashMap<String, u64> {
    let mut read: HashMap<&str, (u64, u64)> = HashMap::new();
    for standing in &evidence.standings {
        let (rows, ranked) = read.entry(standing.key.as_str()).or_default();
        *rows += 1;
        let hidden = evidence
            .hidden
            .contains(&(standing.user, standing.key.clone()));
        if !hidden && standing.standing.score_at(now, scoring) > 0.0 {
            *ranked += 1;
        }
    }
    read.into_iter()
        .filter_map(|(key, (rows, ranked))| {
            let counted = if rows >= u64::from(per_key) {
                evidence
                    .knowing
                    .get(key)
                    .copied()
                    .unwrap_or(rows)
                    .max(ranked)
            } else {
                ranked
            };
            (counted > 0).then(|| (key.to_owned(), counted))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expertise::fixtures::t;
    use crate::{Standing, StoredStanding, UserId};
    use uuid::Uuid;

    fn standing(user: UserId, key: &str, score: f64) -> StoredStanding {
        StoredStanding {
            user,
            key: key.into(),
            label: key.into(),
            standing: Standing { score, as_of: t(0) },
            shown: true,
        }
    }

    #[test]
    fn people_who_hid_a_topic_are_not_counted_and_a_crowd_is_counted_whole() {
        let people: Vec<UserId> = (0..4).map(|_| UserId::from_uuid(Uuid::new_v4())).collect();
        let evidence = Evidence {
            standings: vec![
                standing(people[0], "vat", 2.0),
                standing(people[1], "vat", 1.0),
                standing(people[0], "helm", 1.0),
                standing(people[2], "cobol", 0.0),
                standing(people[0], "yaml", 3.0),
                standing(people[1], "yaml", 2.0),
                standing(people[2], "yaml", 1.0),
            ],
            knowing: HashMap::from([
                ("vat".to_owned(), 5),
                ("helm".to_owned(), 1),
                ("cobol".to_owned(), 1),
                ("yaml".to_owned(), 40),
            ]),
            hidden: [
                (people[1], "vat".to_owned()),
                (people[0], "helm".to_owned()),
                (people[0], "yaml".to_owned()),
            ]
            .into_iter()
            .collect(),
            ..Evidence::default()
        };
        let counted = holders(&evidence, 3, t(1), &Scoring::default());
        // One of the two read holds vat and did not hide it; the only
        // holder of helm hid it, and nobody holds cobol above zero: both
        // read as topics nobody learned. Three standings of yaml were read,
        // as many as asked for, so everyone who learned it is counted.
        assert_eq!(
            counted,
            HashMap::from([("vat".to_owned(), 1), ("yaml".to_owned(), 40)])
        );
    }
}
