//! The command line of `kenning connect mail`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Args;

use super::{imap, maildir, mbox};
use crate::connect::common::Common;
use crate::connect::mail::message::{sender_address, Rules};
use crate::connect::source::Source;

/// `LOGIN=ADDRESS` of `--imap-alias`.
fn alias(raw: &str) -> Result<(String, String), String> {
    let (login, address) = raw
        .split_once('=')
        .ok_or_else(|| format!("`{raw}` is not LOGIN=ADDRESS"))?;
    let login = login.trim();
    if login.is_empty() {
        return Err(format!("`{raw}` names no login before ="));
    }
    Ok((login.to_owned(), sender_address(address)?))
}

/// `kenning connect mail`.
#[derive(Debug, Args)]
pub struct MailArgs {
    /// mbox files and Maildir folders (with cur/ and new/).
    paths: Vec<PathBuf>,
    /// Every message of the files and folders named is sent mail: they
    /// are sent folders (or an archive of what its senders sent).
    #[arg(long)]
    sent: bool,
    /// Only messages from this address are sent mail (repeatable): for
    /// files of mixed mail, and to narrow sent folders.
    #[arg(long = "sender", value_name = "ADDRESS", value_parser = sender_address)]
    senders: Vec<String>,
    /// An IMAP server, HOST or HOST:PORT (993, TLS; 143 with
    /// --imap-starttls). Never in the clear.
    #[arg(long, value_name = "HOST[:PORT]")]
    imap: Option<String>,
    /// Connect in the clear and upgrade with STARTTLS before anything is
    /// said.
    #[arg(long, requires = "imap")]
    imap_starttls: bool,
    /// An account read (repeatable); its password is in the file
    /// --imap-password-file names, or in the KENNING_IMAP_PASSWORD
    /// variable, never on the command line.
    #[arg(long = "imap-user", value_name = "USER", requires = "imap")]
    imap_users: Vec<String>,
    /// An administrator's access to several people's mail: each
    /// --imap-user is logged in as USER*MASTER with the master user's
    /// password (Dovecot's master users).
    #[arg(long, value_name = "MASTER", requires = "imap")]
    imap_master: Option<String>,
    /// What joins a user and the master user in a login (the server's
    /// auth_master_user_separator).
    #[arg(
        long,
        value_name = "SEPARATOR",
        default_value = "*",
        requires = "imap_master"
    )]
    imap_master_separator: String,
    /// A file whose first line is the IMAP password (else the
    /// KENNING_IMAP_PASSWORD variable).
    #[arg(long, value_name = "FILE", requires = "imap")]
    imap_password_file: Option<PathBuf>,
    /// A mailbox read, a sent folder (repeatable; default: the one the
    /// server marks \Sent, else "Sent").
    #[arg(long = "mailbox", value_name = "NAME", requires = "imap")]
    mailboxes: Vec<String>,
    /// Another address of an account read, as LOGIN=ADDRESS (repeatable):
    /// a message in an account's mailboxes teaches only when its From: is
    /// the account's login (when that is an address) or one of these.
    #[arg(long = "imap-alias", value_name = "LOGIN=ADDRESS", requires = "imap", value_parser = alias)]
    imap_aliases: Vec<(String, String)>,
    /// A PEM file of the CA that signed the server's certificate, trusted
    /// besides the public ones.
    #[arg(long, value_name = "FILE", requires = "imap")]
    imap_ca: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) common: Common,
}

impl MailArgs {
    /// The IMAP server, if one is named, once the arguments are checked: its address, TLS settings and
    /// password, read once for every round.
    pub(crate) fn server(&self) -> anyhow::Result<Option<Arc<imap::Server>>> {
        anyhow::ensure!(
            !self.paths.is_empty() || self.imap.is_some(),
            "name mbox files, Maildir folders or an IMAP server (--imap)"
        );
        anyhow::ensure!(
            self.paths.is_empty() || self.sent || !self.senders.is_empty(),
            "say which of the files' messages were sent: --sent (every message, as in a \
             Sent folder) or --sender ADDRESS (the messages from these addresses)"
        );
        let Some(address) = &self.imap else {
            return Ok(None);
        };
        anyhow::ensure!(
            !self.imap_users.is_empty(),
            "--imap-user names the accounts read on {address}"
        );
        let default_port = if self.imap_starttls { 143 } else { 993 };
        let (host, port) = match address.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') || host.starts_with('[') => (
                host.trim_start_matches('[').trim_end_matches(']'),
                port.parse::<u16>()
                    .map_err(|_| anyhow::anyhow!("--imap {address}: `{port}` is no port"))?,
            ),
            _ => (address.as_str(), default_port),
        };
        let password = match &self.imap_password_file {
            Some(file) => std::fs::read_to_string(file)
                .with_context(|| format!("cannot read the IMAP password file {}", file.display()))?
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned(),
            None => std::env::var("KENNING_IMAP_PASSWORD").unwrap_or_default(),
        };
        anyhow::ensure!(
            !password.is_empty(),
            "no IMAP password: put it in a file named by --imap-password-file, or in KENNING_IMAP_PASSWORD"
        );
        Ok(Some(std::sync::Arc::new(imap::Server {
            host: host.to_owned(),
            port,
            starttls: self.imap_starttls,
            tls: imap::tls_config(self.imap_ca.as_deref())?,
            password,
            master: self.imap_master.clone(),
            master_separator: self.imap_master_separator.clone(),
            mailboxes: self.mailboxes.clone(),
        })))
    }

    /// The addresses whose messages the account `login` teaches: the login
    /// when it is an address, and the aliases named for it; an error when
    /// it has none, since its messages would then teach whoever their
    /// From: names.
    fn own_addresses(&self, login: &str) -> anyhow::Result<Vec<String>> {
        let mut own: Vec<String> = sender_address(login).into_iter().collect();
        for (of, address) in &self.imap_aliases {
            if of.eq_ignore_ascii_case(login) && !own.contains(address) {
                own.push(address.clone());
            }
        }
        anyhow::ensure!(
            !own.is_empty(),
            "--imap-user {login}: the login is no e-mail address, so say which addresses \
             are the account's own with --imap-alias {login}=ADDRESS (a message teaches only \
             when it is from one of them)"
        );
        Ok(own)
    }

    /// The sources named: each file or folder, each IMAP account.
    pub(crate) fn sources(
        &self,
        server: Option<&Arc<imap::Server>>,
    ) -> anyhow::Result<Vec<Box<dyn Source>>> {
        let rules = Rules {
            all_sent: self.sent,
            senders: self.senders.clone(),
            own: Vec::new(),
        };
        let mut sources: Vec<Box<dyn Source>> = Vec::new();
        for path in &self.paths {
            if path.is_dir() {
                sources.push(Box::new(maildir::Maildir::open(path, rules.clone())?));
            } else {
                sources.push(Box::new(mbox::Mbox::open(path, rules.clone())?));
            }
        }
        if let Some(server) = server {
            for user in &self.imap_users {
                sources.push(Box::new(imap::Account::new(
                    server.clone(),
                    user,
                    self.own_addresses(user)?,
                    rules.clone(),
                )));
            }
        }
        Ok(sources)
    }
}
