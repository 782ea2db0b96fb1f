//! stackexchange: for each tag of at least [`LEAST`] questions with an
//! accepted answer, the author of strictly most of those accepted
//! answers; asked by the tag (`-` as a space). Answers of deleted
//! accounts and of the site's Community user are nobody's.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use anyhow::Context;
use kenning_upload::connect::Identity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::tally::{as_words, Question, Tally};
use crate::sources::Kind;

/// Accepted answers a tag needs.
const LEAST: u64 = 3;

pub fn questions(site: &Path) -> anyhow::Result<Vec<Question>> {
    let path = site.join("Posts.xml");
    let file = File::open(&path).with_context(|| format!("open {}", path.display()))?;
    let mut xml = Reader::from_reader(BufReader::new(file));
    let mut buf = Vec::new();
    // Accepted answer id → the question's tags; answer id → its owner.
    let mut accepted: HashMap<String, Vec<String>> = HashMap::new();
    let mut owners: HashMap<String, String> = HashMap::new();
    loop {
        match xml.read_event_into(&mut buf)? {
            Event::Empty(e) | Event::Start(e) if e.local_name().as_ref() == "row" => {
                let row = attributes(&e)?;
                let field = |name: &str| row.get(name).cloned().unwrap_or_default();
                match field("PostTypeId").as_str() {
                    "1" if row.contains_key("AcceptedAnswerId") => {
                        accepted.insert(field("AcceptedAnswerId"), tags(&field("Tags")));
                    }
                    "2" => {
                        owners.insert(field("Id"), field("OwnerUserId"));
                    }
                    _ => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    let mut tally = Tally::default();
    for (answer, tags) in &accepted {
        let Some(owner) = owners.get(answer).filter(|o| !o.is_empty() && *o != "-1") else {
            continue;
        };
        let identity = Identity {
            key: owner.clone(),
            ..Identity::default()
        };
        let Some(person) = Kind::StackExchange.email_of(&identity) else {
            continue;
        };
        for tag in tags {
            tally.add(&as_words(tag), &person);
        }
    }
    Ok(tally.questions(Kind::StackExchange, LEAST))
}

/// A question's tags: `<hops><ipa>` or `|hops|ipa|`.
fn tags(field: &str) -> Vec<String> {
    field
        .split(['<', '>', '|'])
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

fn attributes(e: &BytesStart<'_>) -> anyhow::Result<HashMap<String, String>> {
    let mut row = HashMap::new();
    for attribute in e.attributes() {
        let attribute = attribute?;
        let name = attribute.key.as_ref().to_owned();
        let value = attribute.normalized_value(XmlVersion::Implicit1_0)?;
        row.insert(name, value.into_owned());
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_read_in_both_forms() {
        assert_eq!(
            tags("<hops><india-pale-ale>"),
            vec!["hops", "india-pale-ale"]
        );
        assert_eq!(tags("|hops|ipa|"), vec!["hops", "ipa"]);
    }
}
