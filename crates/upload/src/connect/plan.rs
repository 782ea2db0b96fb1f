//! What an item read becomes: an upload for each of its people found in
//! Kenning, typed with its person and its place in the reading order.

use chrono::SecondsFormat;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::people::People;
use super::source::{Item, Text, Whole};
use crate::send::Batch;

/// The longest text sent, in characters; what follows is left out (the
/// topics of a text are in its beginning, and a batch stays under the
/// server's body limit).
pub const MAX_TEXT_CHARS: usize = 16_000;

/// One upload planned.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The place of its item in the reading order.
    pub seq: u64,
    /// Its person: their e-mail address in Kenning.
    pub email: String,
    /// Where its item was found, for a one-line problem.
    pub origin: String,
    /// The upload as the connector API takes it.
    pub body: Value,
    /// Its key in `kenning upload`'s checkpoint, for an upload written
    /// whole.
    pub key: Option<String>,
}

impl Batch for Vec<Planned> {
    fn bodies(&self) -> Vec<&Value> {
        self.iter().map(|upload| &upload.body).collect()
    }
}

/// The `action_alias` of the `n`th upload of the item `id` of a source of
/// `kind`: a digest of the item's stable id, so that the same item read
/// again (by this run or another, from any copy of the source) is one
/// upload.
pub fn alias(kind: &str, id: &str, n: usize) -> String {
    let digest = Sha256::digest(format!("{kind}\n{id}").as_bytes());
    let hex: String = digest.iter().take(20).map(|b| format!("{b:02x}")).collect();
    format!("{kind}_{hex}_{n}")
}

/// The texts of `item` as they are sent: the blank ones left out, each
/// cut at [`MAX_TEXT_CHARS`].
pub fn texts_as_sent(item: &Item) -> Vec<Text> {
    item.texts
        .iter()
        .filter(|t| !t.text.trim().is_empty())
        .map(|t| Text {
            text: t.text.chars().take(MAX_TEXT_CHARS).collect(),
            ..t.clone()
        })
        .collect()
}

/// The upload of `item` for its `n`th person, whose e-mail address in
/// Kenning is `email`, as the connector API takes it.
pub fn upload_body(kind: &str, item: &Item, n: usize, email: &str) -> Value {
    body(kind, item, &texts_as_sent(item), n, email)
}

/// [`upload_body`], the item's texts as sent given.
fn body(kind: &str, item: &Item, texts: &[Text], n: usize, email: &str) -> Value {
    let texts: Vec<Value> = texts
        .iter()
        .map(|t| {
            json!({
                "text_format": if t.html { "html" } else { "plain" },
                "descriptor": t.descriptor.as_str(),
                "text": t.text,
            })
        })
        .collect();
    let action_type = item.actions.get(n).map_or("", |(_, action)| *action);
    json!({
        "entity_type": item.entity_type,
        "action_type": action_type,
        "action_date": item.date.to_rfc3339_opts(SecondsFormat::Millis, true),
        "user_email": email,
        "texts": texts,
        "action_alias": alias(kind, &item.id, n),
    })
}

/// The uploads `item`, the `seq`th read, makes: one per person found
/// (each person once), and how many of its actions' people were not
/// found (`people` counts them by person); none when it has no text.
pub fn uploads(kind: &str, item: &Item, seq: u64, people: &mut People<'_>) -> (Vec<Planned>, u64) {
    let mut uploads: Vec<Planned> = Vec::new();
    let texts = texts_as_sent(item);
    if texts.is_empty() {
        return (uploads, 0);
    }
    let mut not_found = 0;
    for (n, (identity, _)) in item.actions.iter().enumerate() {
        let Some(email) = people.email_of(identity) else {
            not_found += 1;
            continue;
        };
        if uploads.iter().any(|u| u.email.eq_ignore_ascii_case(&email)) {
            continue;
        }
        uploads.push(Planned {
            seq,
            body: body(kind, item, &texts, n, &email),
            email,
            origin: item.origin.clone(),
            key: None,
        });
    }
    (uploads, not_found)
}

/// The upload `whole`, the `seq`th read, is: its person the address it
/// names, which the server looks up.
pub fn whole(whole: Whole, seq: u64) -> Planned {
    let email = whole.body["user_email"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    Planned {
        seq,
        email,
        origin: whole.origin,
        body: whole.body,
        key: Some(whole.key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alias_is_the_items_and_the_persons_whatever_copy_it_is_read_from() {
        let a = alias("git", "3f2c", 0);
        assert_eq!(a, alias("git", "3f2c", 0));
        assert_ne!(a, alias("git", "3f2c", 1));
        assert_ne!(a, alias("mail", "3f2c", 0));
        assert!(
            a.starts_with("git_") && a.ends_with("_0") && a.len() <= 255,
            "{a}"
        );
        assert!(a
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
    }
}
