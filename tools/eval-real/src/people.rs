//! The organisation: every person a source names, created once through
//! GraphQL `createUser` (a Q&A site's people with their site id as
//! externalId), and the `--identities` files for the sources whose people
//! have no address of their own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::json;

use crate::server::Kenning;
use crate::sources::{Kind, Read};

/// A person of the organisation.
#[derive(Debug, Clone, Default)]
pub struct Person {
    /// Their id in Kenning, once created.
    pub id: String,
    pub name: Option<String>,
    /// Their externalId, for a Q&A site's people.
    pub external_id: Option<String>,
    /// The sources that name them.
    pub sources: BTreeSet<Kind>,
}

/// The organisation's people by their e-mail address.
pub type People = BTreeMap<String, Person>;

/// Everyone the sources `read` name.
pub fn gather(read: &BTreeMap<Kind, Read>) -> People {
    let mut people = People::new();
    for (kind, read) in read {
        for (email, named) in &read.people {
            let person = people.entry(email.clone()).or_default();
            person.sources.insert(*kind);
            if person.name.is_none() {
                person.name = named.name.clone();
            }
            if *kind == Kind::StackExchange {
                person.external_id = Some(named.key.clone());
            }
        }
    }
    people
}

const CREATE: &str = "mutation create($input: CreateUserInput!) { createUser(createUserInput: $input) { globalUserId } }";

/// Creates every person in `kenning`, noting their ids; a name the
/// directory refuses is replaced by a plain one, and a person whose
/// address it refuses (`root@localhost`) is left out, as the connector
/// leaves out whom it does not find. How many were left out.
pub fn create(kenning: &Kenning, people: &mut People) -> usize {
    let mut left_out = 0;
    for (n, (email, person)) in people.iter_mut().enumerate() {
        let (first, last) = split_name(person.name.as_deref());
        let input = |first: &str, last: &str| {
            json!({ "input": {
                "firstname": first, "lastname": last, "email": email,
                "externalId": person.external_id,
            }})
        };
        let made = kenning
            .graphql(CREATE, input(&first, &last))
            .or_else(|_| kenning.graphql(CREATE, input("Person", &format!("Number {n}"))));
        match made {
            Ok(made) => {
                person.id = made["createUser"]["globalUserId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
            }
            Err(e) => {
                eprintln!("{email} left out: {e:#}");
                left_out += 1;
            }
        }
    }
    left_out
}

/// A first and a last name out of the name a source shows.
fn split_name(name: Option<&str>) -> (String, String) {
    let name = name.map(str::trim).unwrap_or_default();
    match name.rsplit_once(' ') {
        Some((first, last)) if !first.trim().is_empty() => {
            (first.trim().to_owned(), last.trim().to_owned())
        }
        _ if !name.is_empty() => (name.to_owned(), name.to_owned()),
        _ => ("Person".to_owned(), "Unnamed".to_owned()),
    }
}

/// Writes the `--identities` file of the source of `kind` into `folder`:
/// a line for each person it names by a key whose address Kenning made
/// (a Slack id without an address in the export); `None` when it needs
/// none.
pub fn identities_file(
    kind: Kind,
    read: &Read,
    folder: &Path,
) -> anyhow::Result<Option<std::path::PathBuf>> {
    let made: Vec<String> = read
        .people
        .iter()
        .filter(|(email, _)| email.ends_with(".example.org"))
        .map(|(email, named)| format!("{},{email}", named.key))
        .collect();
    if kind != Kind::Slack || made.is_empty() {
        return Ok(None);
    }
    let path = folder.join(format!("{}-identities.csv", kind.command()));
    std::fs::write(&path, format!("identity,email\n{}\n", made.join("\n")))?;
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_split_at_its_last_space() {
        assert_eq!(
            split_name(Some("H. Nikolaus Schaller")),
            ("H. Nikolaus".to_owned(), "Schaller".to_owned())
        );
        assert_eq!(
            split_name(Some("ada")),
            ("ada".to_owned(), "ada".to_owned())
        );
        assert_eq!(
            split_name(None),
            ("Person".to_owned(), "Unnamed".to_owned())
        );
    }
}
