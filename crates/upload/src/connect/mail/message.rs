//! What a message teaches: whether it is sent mail of a person or
//! automatic, its subject and its own words.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use mail_parser::{Message, MessageParser, MimeHeaders as _, PartType};
use sha2::{Digest as _, Sha256};

use super::{prose, strip};
use crate::connect::source::{paths_as_words, Descriptor, Found, Identity, Item, Text, MAX_PATHS};

/// The entity type of a message.
pub const ENTITY_TYPE: &str = "email";
/// The action type of a message's sender.
pub const SENT: &str = "sent";
/// The most of one message read, in bytes: the text comes first, and what
/// follows (attachments) is never sent; memory stays bounded.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Local parts of addresses that only machines send from.
const MACHINE_SENDERS: &[&str] = &[
    "mailer-daemon",
    "postmaster",
    "noreply",
    "no-reply",
    "donotreply",
    "do-not-reply",
    "bounce",
    "bounces",
];

/// Which of the messages read are sent mail.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    /// Every message read is sent mail (a sent folder), unless `senders`
    /// narrows it.
    pub all_sent: bool,
    /// When not empty, only messages from these addresses (lower case)
    /// are sent mail.
    pub senders: Vec<String>,
    /// When not empty, the addresses of the account read (lower case): a
    /// message from any other is not the account's own, whatever folder
    /// holds it, since anyone with the account's password (or a rule of
    /// the server) can put any message in any of its folders.
    pub own: Vec<String>,
}

impl Rules {
    /// The choices of these rules that shape what a run teaches, for its
    /// cursor ([`Source::choices`](crate::connect::source::Source::choices)):
    /// the `--sender` addresses, none when every message read is sent.
    pub fn choices(&self) -> String {
        if self.senders.is_empty() {
            return String::new();
        }
        let mut senders = self.senders.clone();
        senders.sort();
        senders.dedup();
        format!("from {}", senders.join(", "))
    }

    /// Whether a message from `from` (lower case) is sent mail.
    fn is_sent(&self, from: &str) -> bool {
        if self.senders.is_empty() {
            self.all_sent
        } else {
            self.senders.iter().any(|sender| sender == from)
        }
    }
}

/// Where a message was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file and position, or the mailbox and UID, for a one-line
    /// error.
    pub origin: String,
    /// Where a run resumes past it.
    pub position: String,
    /// When it arrived (the mbox `From ` line, the file's time, the
    /// server's INTERNALDATE), for a message without a `Date:`.
    pub arrived: Option<DateTime<Utc>>,
}

/// The words of the names the senders of the messages a run has read so
/// far go by: the source's people, whose names say who wrote, not what
/// about, wherever a message writes them ("as Paul Cercueil's review
/// asked").
#[derive(Debug, Default)]
pub struct Senders(HashSet<String>);

impl Senders {
    /// The most words kept: a run's memory and each message's reading
    /// stay bounded.
    const MOST: usize = 20_000;

    /// Learns the names of the people `found` teaches, if it is an item:
    /// their words written with a capital, as names are.
    pub fn learn(&mut self, found: &Found) {
        let Found::Item(item) = found else {
            return;
        };
        let names = item
            .actions
            .iter()
            .filter_map(|(who, _)| who.name.as_deref());
        for word in names.flat_map(prose::name_words) {
            if self.0.len() < Self::MOST && !self.0.contains(word) {
                self.0.insert(word.to_owned());
            }
        }
    }
}

/// [`judge`], then what it found learned by `senders`: how a source reads
/// its messages one after another.
pub fn judge_in_turn(raw: &[u8], rules: &Rules, place: Place, senders: &mut Senders) -> Found {
    let found = judge(raw, rules, place, senders);
    senders.learn(&found);
    found
}

/// What the message `raw`, read at `place`, is by `rules`; the names of
/// `senders` are left out of its words as its own headers' are.
pub fn judge(raw: &[u8], rules: &Rules, place: Place, senders: &Senders) -> Found {
    let skipped = |reason| Found::Skipped {
        reason,
        position: Some(place.position.clone()),
    };
    let bad = |problem: String| Found::Bad {
        origin: place.origin.clone(),
        problem,
        position: Some(place.position.clone()),
    };
    let Some(message) = MessageParser::default().parse(raw) else {
        return bad("not a mail message: no header Kenning can read".to_owned());
    };
    if message.headers().is_empty() {
        return bad("not a mail message: no header Kenning can read".to_owned());
    }
    let Some(from) = message
        .from()
        .and_then(|from| from.first())
        .and_then(|addr| addr.address())
        .map(|address| address.trim().to_lowercase())
        .filter(|address| address.contains('@'))
    else {
        return bad("no From address".to_owned());
    };
    if let Some(reason) = automatic(&message, &from) {
        return skipped(reason);
    }
    if !rules.own.is_empty() && !rules.own.contains(&from) {
        return skipped("not from the account's own address");
    }
    if !rules.is_sent(&from) {
        return skipped("received");
    }
    let date = message
        .date()
        .filter(|date| date.is_valid())
        .and_then(|date| DateTime::from_timestamp(date.to_timestamp(), 0))
        .or(place.arrived);
    let Some(date) = date else {
        return bad("no Date Kenning can read".to_owned());
    };
    let (subject, forwarded) = strip::bare_subject(message.subject().unwrap_or_default());
    let prose::Read {
        subject,
        body,
        paths,
    } = prose::read(
        &subject,
        &own_words(&message),
        &people_of(&message),
        &senders.0,
    );
    if body.is_empty() && paths.is_empty() && (forwarded || subject.is_empty()) {
        return skipped("no words of its own");
    }
    let id = match message.message_id().map(str::trim) {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => digest_id(&message),
    };
    Found::Item(Item {
        origin: format!("{} <{id}>", place.origin),
        id,
        entity_type: ENTITY_TYPE,
        actions: vec![(Identity::by_email(&from).named(sender_name(&message)), SENT)],
        date,
        texts: texts(subject, body, &paths),
        position: place.position,
    })
}

/// A message's texts: its subject, its own words and, for a patch, the
/// paths it changes (as a commit's, left out past [`MAX_PATHS`]).
fn texts(subject: String, body: String, paths: &[String]) -> Vec<Text> {
    let mut texts = vec![
        Text::plain(Descriptor::Primary, subject),
        Text::plain(Descriptor::Default, body),
    ];
    if !paths.is_empty() && paths.len() <= MAX_PATHS {
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        texts.push(Text::plain(Descriptor::Secondary, paths_as_words(&paths)));
    }
    texts
}

/// The name `message`'s `From` gives its sender, if any.
fn sender_name<'m>(message: &'m Message<'_>) -> Option<&'m str> {
    message.from()?.first()?.name()
}

/// The display names of the people in `message`'s conversation: its
/// `From`, `To` and `Cc`.
fn people_of(message: &Message<'_>) -> Vec<String> {
    [message.from(), message.to(), message.cc()]
        .into_iter()
        .flatten()
        .flat_map(|list| list.iter())
        .filter_map(|addr| addr.name())
        .map(str::to_owned)
        .collect()
}

/// Why `message` (from `from`) is automatic mail, if it is: an
/// auto-reply or a notification (`Auto-Submitted`, `X-Autoreply`), bulk
/// or junk mail that no list distributed (`Precedence`), a bounce (a
/// delivery report, an empty `Return-Path`, a mailer daemon), or a list's
/// digest. A list's copy of a member's message (`List-Id`, `List-Post`,
/// `Mailing-List`, or `Precedence: list`) is what the member sent, as a
/// list archive holds it: lists mark every copy `Precedence: list` or
/// `bulk`, which says how it was delivered, not who wrote it.
fn automatic(message: &Message<'_>, from: &str) -> Option<&'static str> {
    let header = |name: &str| {
        message
            .header_raw(name)
            .map(|value| value.trim().to_ascii_lowercase())
    };
    if let Some(value) = header("Auto-Submitted") {
        let kind = value.split(';').next().unwrap_or_default().trim();
        if kind != "no" {
            return Some("automatic (Auto-Submitted)");
        }
    }
    if header("X-Autoreply").is_some() || header("X-Autorespond").is_some() {
        return Some("automatic (auto-reply)");
    }
    let from_a_list = ["List-Id", "List-Post", "Mailing-List"]
        .iter()
        .any(|name| header(name).is_some());
    let precedence = header("Precedence");
    if !from_a_list && precedence.is_some_and(|p| ["bulk", "junk"].contains(&p.as_str())) {
        return Some("automatic (Precedence)");
    }
    if message.is_content_type("multipart", "report")
        || header("Return-Path").is_some_and(|path| path == "<>")
    {
        return Some("bounce");
    }
    let local = from.split('@').next().unwrap_or_default();
    if MACHINE_SENDERS.contains(&local) {
        return Some("automatic sender");
    }
    let subject = message.subject().unwrap_or_default().to_lowercase();
    if message.is_content_type("multipart", "digest")
        || subject.contains(" digest, vol ")
        || subject.contains(" digest vol ")
    {
        return Some("list digest");
    }
    None
}

/// The sender's own words in `message`: its text parts (else its HTML
/// parts turned into text) without what they quote; attachments are never
/// read.
fn own_words(message: &Message<'_>) -> String {
    let part = |id: &u32| message.parts.get(*id as usize).map(|part| &part.body);
    let plain: Vec<&str> = message
        .text_body
        .iter()
        .filter_map(part)
        .filter_map(|body| match body {
            PartType::Text(text) => Some(text.as_ref()),
            _ => None,
        })
        .collect();
    if !plain.is_empty() {
        return strip::own_words(&plain.join("\n"));
    }
    message
        .html_body
        .iter()
        .filter_map(part)
        .filter_map(|body| match body {
            PartType::Html(html) => Some(strip::own_html_words(html)),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The id of a message without a `Message-ID`: a digest of its `Date`,
/// `From` and `Subject` as written, the same wherever a copy of it is
/// read.
fn digest_id(message: &Message<'_>) -> String {
    let mut hasher = Sha256::new();
    for name in ["Date", "From", "Subject"] {
        hasher.update(
            message
                .header_raw(name)
                .unwrap_or_default()
                .trim()
                .as_bytes(),
        );
        hasher.update(b"\n");
    }
    let hex: String = hasher
        .finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// An address given on the command line as a rule compares it: trimmed,
/// in lower case.
pub fn sender_address(raw: &str) -> Result<String, String> {
    let address = raw.trim().to_lowercase();
    if address.contains('@') && !address.contains(char::is_whitespace) {
        Ok(address)
    } else {
        Err(format!("`{raw}` is no e-mail address"))
    }
}

#[cfg(test)]
mod tests;
