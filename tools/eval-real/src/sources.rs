//! The sources of the real organisation, where each lies in the folder
//! `fetch.sh` filled, how `kenning connect` is run on it, and what it
//! teaches whom, read in process through the connector's own sources so
//! that the people created and BM25's texts are exactly what a run reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use kenning_tools_common::html_to_text;
use kenning_upload::connect::{self, chat, git, mail, stackexchange, Found, Identity, Window};

/// The commit of swaywm/sway the git source is read at.
pub const SWAY_COMMIT: &str = "6959a78a8f0d52f79ad7465135b3295307a5146a";

/// A kind of source, as `kenning connect` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Git,
    Mail,
    Slack,
    StackExchange,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Git, Kind::Mail, Kind::Slack, Kind::StackExchange];

    /// The subcommand of `kenning connect`.
    pub fn command(self) -> &'static str {
        match self {
            Kind::Git => "git",
            Kind::Mail => "mail",
            Kind::Slack => "slack",
            Kind::StackExchange => "stackexchange",
        }
    }

    /// The row's name in the tables.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Git => "git: swaywm/sway",
            Kind::Mail => "mail: linux-mips list",
            Kind::Slack => "slack: houstondatavis",
            Kind::StackExchange => "stackexchange: beer",
        }
    }

    /// The connector API's `entity_type`s of its uploads.
    pub fn entity_types(self) -> &'static [&'static str] {
        match self {
            Kind::Git => &["commit"],
            Kind::Mail => &["email"],
            Kind::Slack => &["chat_thread"],
            Kind::StackExchange => &["answer", "question"],
        }
    }

    /// Where it lies under the data folder.
    pub fn path(self, data: &Path) -> PathBuf {
        match self {
            Kind::Git => data.join("git/sway.git"),
            Kind::Mail => data.join("mail/linux-mips.mbox"),
            Kind::Slack => data.join("slack/houstondatavis"),
            Kind::StackExchange => data.join("stackexchange/beer"),
        }
    }

    /// The arguments of `kenning connect` after the source's path.
    pub fn connect_args(self) -> Vec<String> {
        self.reading().args.iter().map(|&a| a.to_owned()).collect()
    }

    /// How the source of this kind is read, by `kenning connect` and in
    /// process alike: one arm per kind, so that the two cannot drift.
    fn reading(self) -> Reading {
        match self {
            Kind::Git => Reading {
                args: &["--revision", SWAY_COMMIT],
                open: |path| Ok(Box::new(git::Repository::open(path, SWAY_COMMIT)?)),
            },
            Kind::Mail => Reading {
                args: &["--sent"],
                open: |path| {
                    let rules = mail::Rules {
                        all_sent: true,
                        senders: Vec::new(),
                        own: Vec::new(),
                    };
                    Ok(Box::new(mail::mbox::Mbox::open(path, rules)?))
                },
            },
            Kind::Slack => Reading {
                args: &[],
                open: |path| {
                    Ok(Box::new(chat::slack::Export::open(
                        path,
                        chat::Scope::default(),
                    )?))
                },
            },
            Kind::StackExchange => Reading {
                args: &["--ids-are-external-ids"],
                open: |path| {
                    Ok(Box::new(
                        stackexchange::Site::open(path)?.with_ids_as_external_ids(true),
                    ))
                },
            },
        }
    }

    /// The e-mail address in Kenning of a person the source names by
    /// `identity`: their own address where the source gives one, else an
    /// address made of the source's key for them (a Slack id without an
    /// address in the export, a Q&A site's user id), on a reserved domain.
    pub fn email_of(self, identity: &Identity) -> Option<String> {
        let made = |domain: &str| {
            let key: String = identity
                .key
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect();
            (!key.is_empty()).then(|| format!("{}-{key}@{domain}", self.command()).to_lowercase())
        };
        match self {
            Kind::Git | Kind::Mail => identity.email.as_ref().map(|e| e.trim().to_lowercase()),
            Kind::Slack => identity
                .email
                .as_ref()
                .map(|e| e.trim().to_lowercase())
                .or_else(|| made("houstondatavis.example.org")),
            Kind::StackExchange => made("beer.example.org"),
        }
    }
}

/// A person a source names.
#[derive(Debug, Clone, Default)]
pub struct Named {
    /// The source's key for them (for an `--identities` line).
    pub key: String,
    /// The name the source shows, when it shows one.
    pub name: Option<String>,
    /// The texts of their uploads, as sent.
    pub texts: Vec<String>,
}

/// What a source teaches, by the e-mail address of each person in Kenning.
#[derive(Debug, Default)]
pub struct Read {
    pub people: BTreeMap<String, Named>,
    pub items: u64,
    pub uploads: u64,
}

/// A kind's source as `kenning connect` reads it: the arguments after
/// its path, and the same reader opened in process.
struct Reading {
    args: &'static [&'static str],
    open: fn(&Path) -> anyhow::Result<Box<dyn connect::Source>>,
}

/// Reads the source of `kind` under `data` whole: who it teaches and with
/// which texts (HTML read as text).
pub fn read(kind: Kind, data: &Path) -> anyhow::Result<Read> {
    let path = kind.path(data);
    let mut source =
        (kind.reading().open)(&path).with_context(|| format!("open {}", path.display()))?;
    let mut read = Read::default();
    source.read(None, &Window::default(), &mut |found| {
        if let Found::Item(item) = found {
            read.items += 1;
            let texts: Vec<String> = connect::texts_as_sent(&item)
                .into_iter()
                .map(|t| {
                    if t.html {
                        html_to_text(&t.text)
                    } else {
                        t.text
                    }
                })
                .collect();
            for (identity, _) in &item.actions {
                let Some(email) = kind.email_of(identity) else {
                    continue;
                };
                read.uploads += 1;
                let person = read.people.entry(email).or_insert_with(|| Named {
                    key: identity.key.clone(),
                    name: identity.name.clone(),
                    texts: Vec::new(),
                });
                person.texts.extend(texts.iter().cloned());
            }
        }
        true
    })?;
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_without_an_address_gets_one_of_their_key() {
        let identity = Identity {
            key: "U0CBK5KAT".into(),
            ..Identity::default()
        };
        assert_eq!(
            Kind::Slack.email_of(&identity).as_deref(),
            Some("slack-u0cbk5kat@houstondatavis.example.org")
        );
        assert_eq!(Kind::Git.email_of(&identity), None);
    }
}
