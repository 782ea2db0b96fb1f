//! slack: for each public channel but the workspace's general one (where
//! everyone is, about everything) with at least [`LEAST`] messages, the
//! person who wrote strictly most of its messages; asked by the channel's
//! name. A message counts when a person (not a bot) wrote it, it is no
//! event (no `subtype`: joins, topic changes, bots), and it holds two
//! words or more.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use kenning_upload::connect::Identity;
use serde_json::Value;

use super::tally::{as_words, Question, Tally};
use crate::sources::Kind;

/// Messages a channel needs.
const LEAST: u64 = 5;

pub fn questions(export: &Path) -> anyhow::Result<Vec<Question>> {
    let people = people(&json(&export.join("users.json"))?);
    let channels = json(&export.join("channels.json"))?;
    let mut tally = Tally::default();
    for channel in channels.as_array().context("channels.json holds a list")? {
        let name = channel["name"].as_str().unwrap_or_default();
        if name.is_empty() || channel["is_general"].as_bool() == Some(true) {
            continue;
        }
        let Ok(days) = std::fs::read_dir(export.join(name)) else {
            continue;
        };
        for day in days {
            let day = json(&day?.path())?;
            for message in day.as_array().into_iter().flatten() {
                if let Some(person) = counted(message, &people) {
                    tally.add(&as_words(name), person);
                }
            }
        }
    }
    Ok(tally.questions(Kind::Slack, LEAST))
}

/// The address in Kenning of the person who wrote `message`, when it
/// counts.
fn counted<'p>(message: &Value, people: &'p BTreeMap<String, String>) -> Option<&'p String> {
    let words = message["text"].as_str()?.split_whitespace().count();
    if message.get("subtype").is_some() || message.get("bot_id").is_some() || words < 2 {
        return None;
    }
    people.get(message["user"].as_str()?)
}

/// The people of `users.json` who are not bots, by their Slack id, with
/// their address in Kenning.
fn people(users: &Value) -> BTreeMap<String, String> {
    let mut people = BTreeMap::new();
    for user in users.as_array().into_iter().flatten() {
        let Some(id) = user["id"].as_str() else {
            continue;
        };
        if user["is_bot"].as_bool() == Some(true) || id == "USLACKBOT" {
            continue;
        }
        let identity = Identity {
            key: id.to_owned(),
            email: user["profile"]["email"].as_str().map(str::to_owned),
            ..Identity::default()
        };
        if let Some(email) = Kind::Slack.email_of(&identity) {
            people.insert(id.to_owned(), email);
        }
    }
    people
}

fn json(path: &Path) -> anyhow::Result<Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_counts_when_a_person_wrote_two_words_or_more() {
        let people = people(&json!([
            {"id": "U1", "profile": {"email": "Ada@Example.com"}},
            {"id": "B1", "is_bot": true, "profile": {}}
        ]));
        let ada = Some(&"ada@example.com".to_owned());
        assert_eq!(
            counted(&json!({"user": "U1", "text": "d3 rocks"}), &people),
            ada
        );
        assert_eq!(
            counted(&json!({"user": "U1", "text": "thanks"}), &people),
            None
        );
        assert_eq!(
            counted(
                &json!({"user": "U1", "subtype": "channel_join", "text": "a b"}),
                &people
            ),
            None
        );
        assert_eq!(
            counted(&json!({"user": "B1", "text": "a b"}), &people),
            None
        );
    }
}
