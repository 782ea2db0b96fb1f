//! Who a source's people are in Kenning: by an `--identities` file (the
//! source's key for a person, or their address there, to their e-mail
//! address in Kenning), then by e-mail address (any case) or externalId,
//! as the server's `POST /connectors/api/v1/people` answers. Nobody is
//! ever created: a person not found is counted, listed in the report,
//! and nothing is sent for them.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Context as _;
use serde_json::{json, Value};

use super::source::{Identity, KeyCase};
use crate::client::{route, Client};
use crate::codes::Code;

/// How many identities one request to the server resolves at most.
const RESOLVED_AT_ONCE: usize = 1_000;

/// An `--identities` file: the source's key for a person (a user name,
/// a user id, an address there), compared as the source compares its
/// keys (`KeyCase`: without regard to case, or a wiki's user names as
/// MediaWiki does), to their e-mail address in Kenning.
#[derive(Debug, Clone, Default)]
pub struct IdentityFile {
    /// Each key folded by [`KeyCase::Any`], to its address.
    any_case: HashMap<String, String>,
    /// Each key folded by [`KeyCase::FirstLetter`], to its address.
    first_letter: HashMap<String, String>,
}

impl IdentityFile {
    /// Reads `path`: a CSV file of `identity,email` rows (a header row
    /// naming those two columns), or a JSON object from identity to
    /// e-mail address.
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the identities file {}", path.display()))?;
        let emails: HashMap<String, String> = if text.trim_start().starts_with('{') {
            let object: serde_json::Map<String, Value> =
                serde_json::from_str(&text).with_context(|| {
                    format!(
                        "{}: not a JSON object of identity to e-mail",
                        path.display()
                    )
                })?;
            object
                .into_iter()
                .map(|(identity, email)| match email {
                    Value::String(email) => Ok((identity.trim().to_owned(), email)),
                    other => anyhow::bail!(
                        "{}: the e-mail of `{identity}` is {other}, not a string",
                        path.display()
                    ),
                })
                .collect::<anyhow::Result<_>>()?
        } else {
            csv_identities(path, &text)?
        };
        let fold = |case: KeyCase| {
            emails
                .iter()
                .map(|(key, email): (&String, &String)| (case.fold(key), email.clone()))
                .collect()
        };
        Ok(Self {
            any_case: fold(KeyCase::Any),
            first_letter: fold(KeyCase::FirstLetter),
        })
    }

    /// The e-mail address the file gives `identity` (by its key, as its
    /// source compares keys, else by its address in the source, else by
    /// the name the source shows for it, both in any case).
    fn email_of(&self, identity: &Identity) -> Option<&String> {
        let by = |case: KeyCase, key: &str| match case {
            KeyCase::Any => self.any_case.get(&case.fold(key)),
            KeyCase::FirstLetter => self.first_letter.get(&case.fold(key)),
        };
        by(identity.case, &identity.key)
            .or_else(|| {
                identity
                    .email
                    .as_deref()
                    .and_then(|email| by(KeyCase::Any, email))
            })
            .or_else(|| {
                identity
                    .name
                    .as_deref()
                    .and_then(|name| by(KeyCase::Any, name))
            })
    }
}

fn csv_identities(path: &Path, text: &str) -> anyhow::Result<HashMap<String, String>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .with_context(|| format!("{}: no header row", path.display()))?
        .clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name))
            .with_context(|| {
                format!(
                    "{}: the header row names no `{name}` column",
                    path.display()
                )
            })
    };
    let (identity, email) = (column("identity")?, column("email")?);
    let mut emails = HashMap::new();
    for (n, row) in reader.records().enumerate() {
        let row = row.with_context(|| format!("{}: row {}", path.display(), n + 2))?;
        let (Some(key), Some(address)) = (row.get(identity), row.get(email)) else {
            anyhow::bail!("{}: row {} lacks a column", path.display(), n + 2);
        };
        emails.insert(key.trim().to_owned(), address.trim().to_owned());
    }
    Ok(emails)
}

/// What finds people in Kenning: the server's answer, asked once per
/// identity.
pub trait Directory: Sync {
    /// The e-mail address in Kenning of each identity (`None`: nobody
    /// Kenning may learn about), in order; [`NoDirectory`] from a server
    /// that cannot say (one older than `POST /connectors/api/v1/people`).
    fn resolve(
        &self,
        identities: &[(Option<String>, Option<String>)],
    ) -> anyhow::Result<Vec<Option<String>>>;
}

/// A server that cannot say who people are: one older than `POST
/// /connectors/api/v1/people`. People are then sent by the address the
/// source gives them, and the server's `UnknownUser` counts them as not
/// found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoDirectory;

impl std::fmt::Display for NoDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the server cannot say who people are")
    }
}

impl std::error::Error for NoDirectory {}

/// The server's `POST /connectors/api/v1/people`.
#[derive(Debug, Clone)]
pub struct ServerDirectory {
    pub client: Client,
}

impl Directory for ServerDirectory {
    fn resolve(
        &self,
        identities: &[(Option<String>, Option<String>)],
    ) -> anyhow::Result<Vec<Option<String>>> {
        let mut found = Vec::with_capacity(identities.len());
        for chunk in identities.chunks(RESOLVED_AT_ONCE) {
            let body = json!({
                "identities": chunk
                    .iter()
                    .map(|(email, external_id)| json!({"email": email, "external_id": external_id}))
                    .collect::<Vec<_>>()
            });
            let answer = self.client.post(route::PEOPLE, &body)?;
            if answer.status == 404 && answer.code().is_some_and(|c| Code::NotFound.is(c)) {
                return Err(NoDirectory.into());
            }
            anyhow::ensure!(
                answer.status == 200,
                "the server would not say who the people are (HTTP {}): {}",
                answer.status,
                answer.message()
            );
            let answer = answer.body;
            let people = answer["people"]
                .as_array()
                .filter(|people| people.len() == chunk.len())
                .context("the server's answer of who the people are lists no `people` of the request's length")?;
            found.extend(
                people
                    .iter()
                    .map(|person| person["user_email"].as_str().map(str::to_owned)),
            );
        }
        Ok(found)
    }
}

/// Who each identity a run met is, asked once, and who was not found.
pub struct People<'d> {
    file: IdentityFile,
    directory: &'d dyn Directory,
    known: HashMap<Identity, Option<String>>,
    /// The identities not found, by key, with how many uploads were not
    /// sent for them.
    not_found: BTreeMap<String, u64>,
    /// The names the source shows for the identities not found, by key.
    names: BTreeMap<String, String>,
    /// The directory cannot say ([`NoDirectory`]): people go by the
    /// address the source gives them.
    by_address: bool,
}

impl std::fmt::Debug for People<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("People")
            .field("known", &self.known.len())
            .field("not_found", &self.not_found.len())
            .finish_non_exhaustive()
    }
}

impl<'d> People<'d> {
    /// People found through `file` first, then `directory`.
    pub fn new(file: IdentityFile, directory: &'d dyn Directory) -> Self {
        Self {
            file,
            directory,
            known: HashMap::new(),
            not_found: BTreeMap::new(),
            names: BTreeMap::new(),
            by_address: false,
        }
    }

    /// Asks the directory, in one go, about each of `identities` not asked
    /// about before.
    pub fn learn<'a>(
        &mut self,
        identities: impl IntoIterator<Item = &'a Identity>,
    ) -> anyhow::Result<()> {
        let mut asked = Vec::new();
        for identity in identities {
            if !self.known.contains_key(identity) && !asked.contains(identity) {
                asked.push(identity.clone());
            }
        }
        if asked.is_empty() {
            return Ok(());
        }
        let questions: Vec<_> = asked
            .iter()
            .map(|identity| match self.file.email_of(identity) {
                Some(email) => (Some(email.clone()), None),
                None => (identity.email.clone(), identity.external_id.clone()),
            })
            .collect();
        // Someone named by nothing Kenning can look up (a wiki user the
        // identities file does not map) is nobody, without asking.
        let (askable, nameless): (Vec<_>, Vec<_>) = asked
            .into_iter()
            .zip(questions)
            .partition(|(_, (email, external_id))| email.is_some() || external_id.is_some());
        for (identity, _) in nameless {
            self.known.insert(identity, None);
        }
        if askable.is_empty() {
            return Ok(());
        }
        let (asked, questions): (Vec<_>, Vec<_>) = askable.into_iter().unzip();
        let answers = if self.by_address {
            by_address(&questions)
        } else {
            match self.directory.resolve(&questions) {
                Ok(answers) => answers,
                Err(e) if e.is::<NoDirectory>() => {
                    self.by_address = true;
                    eprintln!(
                        "warning: {NoDirectory} (an older server): each person is sent by their \
                         address, and one the server does not know counts as not found"
                    );
                    by_address(&questions)
                }
                Err(e) => return Err(e),
            }
        };
        for (identity, email) in asked.into_iter().zip(answers) {
            self.known.insert(identity, email);
        }
        Ok(())
    }

    /// The e-mail address in Kenning of `identity` (asked with
    /// [`learn`](Self::learn) before), or `None`, counted as an upload not
    /// sent for a person not found.
    pub fn email_of(&mut self, identity: &Identity) -> Option<String> {
        let email = self.known.get(identity).cloned().flatten();
        if email.is_none() {
            *self.not_found.entry(identity.key.clone()).or_default() += 1;
            if let Some(name) = &identity.name {
                self.names
                    .entry(identity.key.clone())
                    .or_insert_with(|| name.clone());
            }
        }
        email
    }

    /// The names the source shows for the people not found, by key.
    pub fn names_not_found(&self) -> &BTreeMap<String, String> {
        &self.names
    }

    /// The people not found, by the source's key, with how many uploads
    /// were not sent for each.
    pub fn not_found(&self) -> &BTreeMap<String, u64> {
        &self.not_found
    }
}

/// Each identity's address as it was asked about.
fn by_address(questions: &[(Option<String>, Option<String>)]) -> Vec<Option<String>> {
    questions.iter().map(|(email, _)| email.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory that knows some addresses, in any case.
    struct Known(Vec<&'static str>);

    impl Directory for Known {
        fn resolve(
            &self,
            identities: &[(Option<String>, Option<String>)],
        ) -> anyhow::Result<Vec<Option<String>>> {
            assert!(
                identities.iter().all(|(e, x)| e.is_some() || x.is_some()),
                "asked about someone named by nothing: {identities:?}"
            );
            Ok(identities
                .iter()
                .map(|(email, _)| {
                    let email = email.as_ref()?.to_lowercase();
                    self.0
                        .iter()
                        .find(|k| **k == email)
                        .map(|k| (*k).to_owned())
                })
                .collect())
        }
    }

    #[test]
    fn people_are_found_by_the_identities_file_then_by_address_and_the_rest_are_counted() {
        let dir = std::env::temp_dir().join(format!("kenning-identities-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("identities.csv");
        std::fs::write(&csv, "identity,email\nAda_L,ada@example.com\n").unwrap();
        let known = Known(vec!["ada@example.com", "bob@example.com"]);
        let mut people = People::new(IdentityFile::read(&csv).unwrap(), &known);
        let wiki_ada = Identity {
            key: "ada_l".to_owned(),
            email: None,
            external_id: None,
            ..Identity::default()
        };
        let bob = Identity::by_email("Bob@Example.com");
        let eve = Identity::by_email("eve@example.com");
        let anonymous = Identity {
            key: "192.0.2.7".to_owned(),
            email: None,
            external_id: None,
            ..Identity::default()
        };
        people
            .learn([&wiki_ada, &bob, &eve, &eve, &anonymous])
            .unwrap();
        assert_eq!(people.email_of(&anonymous), None);
        assert_eq!(
            people.email_of(&wiki_ada).as_deref(),
            Some("ada@example.com")
        );
        assert_eq!(people.email_of(&bob).as_deref(), Some("bob@example.com"));
        assert_eq!(people.email_of(&eve), None);
        assert_eq!(people.email_of(&eve), None);
        assert_eq!(people.not_found().get("eve@example.com"), Some(&2));

        let json = dir.join("identities.json");
        std::fs::write(&json, r#"{"U024BE7LH": "ada@example.com"}"#).unwrap();
        let file = IdentityFile::read(&json).unwrap();
        let slack = Identity {
            key: "u024be7lh".to_owned(),
            email: None,
            external_id: None,
            ..Identity::default()
        };
        assert_eq!(
            file.email_of(&slack).map(String::as_str),
            Some("ada@example.com")
        );
        // A wiki's user names compare as MediaWiki compares them.
        std::fs::write(
            &json,
            r#"{"ALICE": "mallory@example.com", "bob_b": "bob@example.com"}"#,
        )
        .unwrap();
        let file = IdentityFile::read(&json).unwrap();
        let wiki = |key: &str| Identity {
            key: key.to_owned(),
            case: KeyCase::FirstLetter,
            ..Identity::default()
        };
        assert_eq!(file.email_of(&wiki("Alice")), None);
        assert_eq!(
            file.email_of(&wiki("ALICE")).map(String::as_str),
            Some("mallory@example.com")
        );
        assert_eq!(
            file.email_of(&wiki("Bob b")).map(String::as_str),
            Some("bob@example.com")
        );
        // A person the source shows by a name alone (a chat's display name).
        std::fs::write(&json, r#"{"Eve Example": "eve@example.com"}"#).unwrap();
        let file = IdentityFile::read(&json).unwrap();
        let eve = Identity {
            key: "U0EVE".to_owned(),
            ..Identity::default()
        }
        .named(Some("eve example"));
        assert_eq!(
            file.email_of(&eve).map(String::as_str),
            Some("eve@example.com")
        );
        std::fs::write(&json, r#"{"x": 3}"#).unwrap();
        assert!(IdentityFile::read(&json).is_err());
        std::fs::write(&csv, "who,address\nx,y\n").unwrap();
        let refused = IdentityFile::read(&csv).unwrap_err().to_string();
        assert!(refused.contains("no `identity` column"), "{refused}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
