//! `kenning connect <source>`: ready connectors for where people already
//! work, each a client of the connector API as `kenning upload` is. A
//! source reads items (commits, sent mail, messages, revisions, answers);
//! the framework here finds each item's people in Kenning, sends uploads
//! in batches, keeps a cursor so that a new run reads only what is new,
//! shows progress, and reports the run to the server.

pub mod chat;
mod common;
mod cursor;
mod diff;
mod engine;
pub mod git;
pub mod mail;
pub mod mediawiki;
mod people;
mod plan;
mod report;
mod source;
pub mod stackexchange;
mod wikitext;

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::Utc;
use clap::{Args, Subcommand};

use crate::send::Sender;
pub use crate::send::Sending;
pub use crate::tally::Tally;
use common::Common;
pub use engine::{drive, Mark, Settings, OUTSIDE_WINDOW, UNREADABLE};
pub use people::{Directory, IdentityFile, NoDirectory, ServerDirectory};
pub use plan::{alias, texts_as_sent, upload_body, Planned, MAX_TEXT_CHARS};
pub use report::{RunReport, MAX_ERROR_CHARS};
pub use source::{Descriptor, Found, Identity, Item, Source, Text, Whole, Window};

/// The arguments of `kenning connect`.
#[derive(Debug, Args)]
pub struct ConnectArgs {
    #[command(subcommand)]
    source: SourceArgs,
}

/// The sources.
#[derive(Debug, Subcommand)]
enum SourceArgs {
    /// Commits of local git repositories (clones or bare): a commit that is
    /// not a merge teaches its author and co-authors.
    Git(GitArgs),
    /// A MediaWiki XML dump with its history (.xml or .xml.gz): a
    /// revision teaches its author from the text it added.
    Mediawiki(MediawikiArgs),
    /// A Stack Exchange data dump's folder (Posts.xml, Users.xml), as
    /// Stack Overflow for Teams exports it too: an answer teaches its
    /// author, a question its asker.
    Stackexchange(StackexchangeArgs),
    /// A Slack workspace export (the zip an administrator downloads, or
    /// the folder it unzips to): one person's messages in a thread, or
    /// outside threads in a channel on a day, teach them. Public channels
    /// only, unless --include-private or --include-direct says more.
    Slack(ChatArgs),
    /// A Mattermost bulk export (the .jsonl file of `mmctl export`, or
    /// its zip): one person's messages in a thread teach them. Public
    /// channels only, unless --include-private or --include-direct says
    /// more.
    Mattermost(ChatArgs),
    /// Sent mail, from mbox files, Maildir folders and IMAP mailboxes: a
    /// sent message teaches its sender; received mail teaches nobody.
    Mail(mail::MailArgs),
}

/// `kenning connect slack` and `kenning connect mattermost`.
#[derive(Debug, Args)]
struct ChatArgs {
    /// The export.
    export: PathBuf,
    /// Read private channels too.
    #[arg(long)]
    include_private: bool,
    /// Read direct messages and group messages too.
    #[arg(long)]
    include_direct: bool,
    #[command(flatten)]
    common: Common,
}

impl ChatArgs {
    fn scope(&self) -> chat::Scope {
        chat::Scope {
            private: self.include_private,
            direct: self.include_direct,
        }
    }
}

/// `kenning connect git`.
#[derive(Debug, Args)]
struct GitArgs {
    /// The repositories.
    #[arg(required = true)]
    repositories: Vec<PathBuf>,
    /// The revision whose history is read.
    #[arg(long, default_value = "HEAD")]
    revision: String,
    #[command(flatten)]
    common: Common,
}

/// `kenning connect mediawiki`.
#[derive(Debug, Args)]
struct MediawikiArgs {
    /// The dump.
    dump: PathBuf,
    /// A namespace read (repeat for several): 0, the articles, by default.
    #[arg(long = "namespace", default_values_t = [0])]
    namespaces: Vec<i64>,
    /// User names that are bots, besides those ending in "bot" (comma
    /// separated, or repeated).
    #[arg(long, value_delimiter = ',')]
    bots: Vec<String>,
    /// The fewest new words a revision adds to teach its author.
    #[arg(long, default_value_t = mediawiki::MIN_WORDS)]
    min_words: usize,
    #[command(flatten)]
    common: Common,
}

/// `kenning connect stackexchange`.
#[derive(Debug, Args)]
struct StackexchangeArgs {
    /// The folder holding Posts.xml (and Users.xml).
    folder: PathBuf,
    /// The site's user ids are the organisation's externalIds (a site
    /// that signs its people in through the identity provider): a user
    /// without an ExternalId attribute in Users.xml is found by the user
    /// whose externalId is their id. Without it, ids are matched only
    /// through --identities.
    #[arg(long)]
    ids_are_external_ids: bool,
    #[command(flatten)]
    common: Common,
}

/// Runs `kenning connect`.
pub fn run(args: ConnectArgs) -> anyhow::Result<()> {
    match args.source {
        SourceArgs::Git(git) => {
            let settings = git.common.settings()?;
            let open = || {
                git.repositories
                    .iter()
                    .map(|path| {
                        git::Repository::open(path, &git.revision)
                            .map(|r| Box::new(r) as Box<dyn Source>)
                    })
                    .collect::<anyhow::Result<Vec<_>>>()
            };
            keep_syncing(&git.common, &settings, open)
        }
        SourceArgs::Mediawiki(wiki) => {
            let settings = wiki.common.settings()?;
            let rules = mediawiki::Rules {
                namespaces: wiki.namespaces.clone(),
                bots: wiki.bots.clone(),
                min_words: wiki.min_words,
            };
            let open = || {
                mediawiki::Dump::open(&wiki.dump, rules.clone())
                    .map(|d| vec![Box::new(d) as Box<dyn Source>])
            };
            keep_syncing(&wiki.common, &settings, open)
        }
        SourceArgs::Stackexchange(site) => {
            let settings = site.common.settings()?;
            let open = || {
                stackexchange::Site::open(&site.folder)
                    .map(|s| s.with_ids_as_external_ids(site.ids_are_external_ids))
                    .map(|s| vec![Box::new(s) as Box<dyn Source>])
            };
            keep_syncing(&site.common, &settings, open)
        }
        SourceArgs::Slack(export) => {
            let settings = export.common.settings()?;
            let open = || {
                let source = chat::slack::Export::open(&export.export, export.scope())?;
                Ok(vec![Box::new(source) as Box<dyn Source>])
            };
            keep_syncing(&export.common, &settings, open)
        }
        SourceArgs::Mattermost(export) => {
            let settings = export.common.settings()?;
            let open = || {
                let source = chat::mattermost::Export::open(&export.export, export.scope())?;
                Ok(vec![Box::new(source) as Box<dyn Source>])
            };
            keep_syncing(&export.common, &settings, open)
        }
        SourceArgs::Mail(mail) => {
            let settings = mail.common.settings()?;
            let server = mail.server()?;
            keep_syncing(&mail.common, &settings, || mail.sources(server.as_ref()))
        }
    }
}

/// Runs every source `open` gives, once, or again and again with
/// `--every`; the error of the last round, if it had any.
fn keep_syncing(
    common: &Common,
    settings: &Settings,
    open: impl Fn() -> anyhow::Result<Vec<Box<dyn Source>>>,
) -> anyhow::Result<()> {
    let client = settings.sending.client();
    let directory = ServerDirectory {
        client: client.clone(),
    };
    let sender = settings.sending.sender(client);
    loop {
        let mut failures = Vec::new();
        for mut source in open()? {
            if let Err(e) = run_once(
                source.as_mut(),
                settings,
                &directory,
                &sender,
                common.report,
            ) {
                failures.push(e);
            }
        }
        let Some(every) = common.every else {
            return match failures.len() {
                0 => Ok(()),
                1 => Err(failures.remove(0)),
                n => Err(anyhow::anyhow!(
                    "{n} sources did not finish cleanly (see above)"
                )),
            };
        };
        for e in &failures {
            eprintln!("error: {e:#}");
        }
        std::thread::sleep(every);
    }
}

/// One run of one source: sent, summed up, reported to the server; an
/// error when it stopped early or anything was refused or failed.
fn run_once(
    source: &mut dyn Source,
    settings: &Settings,
    directory: &dyn Directory,
    sender: &Sender,
    list_not_found: bool,
) -> anyhow::Result<()> {
    let (kind, name) = (source.kind(), source.name());
    let started = Utc::now();
    let (tally, stopped) = engine::run(source, settings, directory, sender);
    let report = RunReport::of(
        kind,
        &name,
        started,
        &tally,
        settings.dry_run,
        stopped.as_ref(),
    );
    if let Err(e) = report.send(&sender.client) {
        eprintln!("warning: the run was not reported to the server: {e:#}");
    }
    let names = if list_not_found {
        let keys: Vec<&str> = tally.people_not_found.keys().map(String::as_str).collect();
        let mut names = tally.names_not_found.clone();
        names.extend(source.display_names(&keys));
        names
    } else {
        BTreeMap::new()
    };
    summary(
        kind,
        &name,
        &tally,
        settings.dry_run,
        list_not_found,
        &names,
    );
    let warnings = source.warnings(&tally.skipped);
    for warning in tally.taught_nobody().into_iter().chain(warnings) {
        eprintln!("  warning: {warning}");
    }
    if let Some(e) = stopped {
        return Err(e.context(format!(
            "{kind} {name}: stopped; a new run reads from where this one got to"
        )));
    }
    if tally.has_problems() {
        let refused = tally.refused_total();
        anyhow::bail!(
            "{kind} {name}: {refused} refused and {} failed (listed above); \
             a new run sends again what failed",
            tally.failed
        );
    }
    Ok(())
}

/// The people not found, the most uploads waiting on them first (then by
/// key): whom to add to Kenning, or to an identities file, first.
fn most_waiting_first(not_found: &BTreeMap<String, u64>) -> Vec<(&String, &u64)> {
    let mut waiting: Vec<(&String, &u64)> = not_found.iter().collect();
    waiting.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    waiting
}

/// What a run did, on standard error; `names` are the names the people
/// not found go by, where the source's keys are not names.
fn summary(
    kind: &str,
    name: &str,
    tally: &Tally,
    dry_run: bool,
    list_not_found: bool,
    names: &BTreeMap<String, String>,
) {
    eprintln!("{kind} {name}: {}", tally.line_with_people(dry_run));
    for (reason, n) in &tally.skipped {
        eprintln!("  skipped ({reason}): {n}");
    }
    for (code, n) in &tally.refused {
        eprintln!("  refused {code}: {n}");
    }
    for problem in &tally.problems {
        eprintln!("  {problem}");
    }
    if list_not_found {
        for (who, n) in most_waiting_first(&tally.people_not_found) {
            match names.get(who) {
                Some(name) => eprintln!("  not found: {who} \"{name}\" ({n} uploads not sent)"),
                None => eprintln!("  not found: {who} ({n} uploads not sent)"),
            }
        }
    } else if !tally.people_not_found.is_empty() {
        eprintln!("  --report lists the people not found");
    }
    if let (Some(since), false) = (tally.held_back_since, dry_run) {
        eprintln!(
            "  once they are in Kenning (or named in an identities file), the same run with \
             --since {} sends what waited for them (what was sent already is answered \
             already known)",
            since.format("%Y-%m-%d")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_people_most_waited_on_are_listed_first() {
        let not_found = BTreeMap::from([
            ("ada@example.com".to_owned(), 2),
            ("zed@example.com".to_owned(), 40),
            ("bob@example.com".to_owned(), 2),
        ]);
        let listed: Vec<&str> = most_waiting_first(&not_found)
            .into_iter()
            .map(|(who, _)| who.as_str())
            .collect();
        assert_eq!(
            listed,
            ["zed@example.com", "ada@example.com", "bob@example.com"]
        );
    }
}
