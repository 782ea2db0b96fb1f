//! Evaluation 2: synthetic people built from the keyphrase datasets.
//!
//! **Category routing (held-out).** The scientific journal a SemEval 2017
//! paragraph comes from is its category (the file name is `S` and the
//! journal's ISSN). Each journal with at least [`MIN_CATEGORY_DOCUMENTS`]
//! documents gets [`PEOPLE_PER_CATEGORY`] people; about [`UPLOADED_SHARE`]
//! of its documents are uploaded, each by one of them at random, and the
//! rest are asked about. [`NOISE_SHARE`] of the uploads are then handed to a
//! random person of another journal, as people also touch documents outside
//! their field. A query is a held-out document (its first sentence, or its
//! first three gold key phrases); every person of its journal is a right
//! answer. Repeated over several seeded splits, queries pooled.
//!
//! **Known item.** Inspec abstracts dealt out, [`KNOWN_ITEM_SHARE`] to each
//! person; a query is the title or three gold key phrases of an uploaded
//! abstract, and its uploader is the one right answer. A check that what was
//! uploaded can be found again, not a measure of generalisation.
//!
//! Uploads are dated at random in the [`UPLOAD_SPAN_DAYS`] days before the
//! questions are asked, so that time decay plays the small part it plays in
//! a live organisation.

use std::collections::BTreeMap;

use anyhow::Context;
use chrono::{DateTime, Duration, Utc};
use kenning_domain::Descriptor;
use kenning_keyphrase_eval::{Dataset, Document};

use crate::rng::SplitMix64;
use crate::text::{first_sentence, one_line};
use crate::world::{Evaluation, Query, Text, Upload, World};

/// The fewest documents that make a journal a category.
pub const MIN_CATEGORY_DOCUMENTS: usize = 12;
pub const PEOPLE_PER_CATEGORY: usize = 3;
/// The field of a person of [`category_routing`]'s worlds: the people are
/// listed category by category, [`PEOPLE_PER_CATEGORY`] each.
pub fn field_of(person: usize) -> usize {
    person / PEOPLE_PER_CATEGORY
}

/// The share of each category's documents that is uploaded.
pub const UPLOADED_SHARE: f64 = 0.6;
/// The share of uploads made by a person of another category.
pub const NOISE_SHARE: f64 = 0.1;
/// How many abstracts each person of the known-item check uploads.
pub const KNOWN_ITEM_SHARE: usize = 20;
/// The most people of the known-item check.
pub const KNOWN_ITEM_PEOPLE: usize = 100;
/// How many gold key phrases make a query.
const KEY_PHRASES: usize = 3;
/// How far back uploads are dated.
const UPLOAD_SPAN_DAYS: i64 = 90;

/// When the questions are asked: 2025-01-01T00:00:00Z.
fn asked() -> anyhow::Result<DateTime<Utc>> {
    DateTime::from_timestamp(1_735_689_600, 0).context("the moment of the questions")
}

/// A moment in the [`UPLOAD_SPAN_DAYS`] days before `now`.
fn upload_date(rng: &mut SplitMix64, now: DateTime<Utc>) -> DateTime<Utc> {
    let span = usize::try_from(Duration::days(UPLOAD_SPAN_DAYS).num_seconds()).unwrap_or(1);
    now - Duration::seconds(i64::try_from(rng.below(span)).unwrap_or(0) + 1)
}

/// The first gold key phrases, each on one line (some Inspec phrases are
/// wrapped), joined by ", "; `None` without any.
fn key_phrases(document: &Document) -> Option<String> {
    let phrases: Vec<String> = document
        .gold
        .iter()
        .take(KEY_PHRASES)
        .map(|p| one_line(p))
        .collect();
    (!phrases.is_empty()).then(|| phrases.join(", "))
}

/// The queries of `document` in the two forms (`first`, then the key
/// phrases), `relevant` being its right answers.
fn queries(first: String, document: &Document, relevant: &[usize]) -> Vec<Query> {
    [Some(first), key_phrases(document)]
        .into_iter()
        .enumerate()
        .filter_map(|(form, text)| {
            text.map(|text| Query {
                form,
                text,
                relevant: relevant.to_vec(),
                asked: None,
            })
        })
        .collect()
}

/// The journal of a SemEval 2017 document: the ISSN after the `S`.
fn journal(document: &Document) -> Option<&str> {
    document.id.strip_prefix('S')?.get(..8)
}

/// The category-routing evaluation over `splits` seeded splits.
pub fn category_routing(dataset: &Dataset, splits: usize, seed: u64) -> anyhow::Result<Evaluation> {
    let mut categories: BTreeMap<&str, Vec<&Document>> = BTreeMap::new();
    for document in &dataset.documents {
        if let Some(issn) = journal(document) {
            categories.entry(issn).or_default().push(document);
        }
    }
    categories.retain(|_, docs| docs.len() >= MIN_CATEGORY_DOCUMENTS);
    let count = categories.len();
    anyhow::ensure!(count >= 2, "{} has fewer than two categories", dataset.name);
    let now = asked()?;
    let mut worlds = Vec::with_capacity(splits);
    for split in 0..splits {
        let mut rng = SplitMix64::new(seed.wrapping_add(split as u64));
        let mut people = Vec::new();
        let mut uploaded: Vec<(usize, &Document)> = Vec::new();
        let mut asked_about = Vec::new();
        for (c, (issn, docs)) in categories.iter().enumerate() {
            people.extend((1..=PEOPLE_PER_CATEGORY).map(|k| format!("{issn} #{k}")));
            let team: Vec<usize> =
                (c * PEOPLE_PER_CATEGORY..(c + 1) * PEOPLE_PER_CATEGORY).collect();
            let order = rng.permutation(docs.len());
            let kept = (docs.len() as f64 * UPLOADED_SHARE).round() as usize;
            for &i in &order[..kept] {
                uploaded.push((team[rng.below(PEOPLE_PER_CATEGORY)], docs[i]));
            }
            for &i in &order[kept..] {
                asked_about.extend(queries(first_sentence(&docs[i].text), docs[i], &team));
            }
        }
        let noisy = (uploaded.len() as f64 * NOISE_SHARE).round() as usize;
        for &i in &rng.permutation(uploaded.len())[..noisy] {
            let own = uploaded[i].0 / PEOPLE_PER_CATEGORY;
            let other = (own + 1 + rng.below(count - 1)) % count;
            uploaded[i].0 = other * PEOPLE_PER_CATEGORY + rng.below(PEOPLE_PER_CATEGORY);
        }
        let uploads = uploaded
            .into_iter()
            .map(|(person, document)| Upload {
                person,
                date: upload_date(&mut rng, now),
                entity_type: "document",
                action_type: "edit",
                texts: vec![Text::plain(Descriptor::Default, document.text.as_str())],
            })
            .collect();
        worlds.push(World {
            people,
            uploads,
            queries: asked_about,
            now,
        });
    }
    Ok(Evaluation {
        name: format!("{} journals (held-out)", dataset.name),
        forms: vec!["first sentence", "3 key phrases"],
        worlds,
        note: format!(
            "{count} journals of at least {MIN_CATEGORY_DOCUMENTS} documents, \
             {PEOPLE_PER_CATEGORY} people each, {splits} splits pooled"
        ),
    })
}

/// An Inspec abstract's title and the rest. Its files end the title's
/// paragraph with CR LF and wrap a long line with LF and a tab, so a title
/// wrapped over two lines or more runs to the first CR LF; a text without
/// one ends its title at its first line.
fn title_and_abstract(text: &str) -> (&str, &str) {
    text.split_once("\r\n")
        .or_else(|| text.split_once('\n'))
        .unwrap_or((text, ""))
}

/// The known-item check: up to [`KNOWN_ITEM_PEOPLE`] people, each
/// uploading [`KNOWN_ITEM_SHARE`] abstracts (title `primary`, the rest
/// `default`); `sampled` uploaded abstracts asked about.
pub fn known_item(dataset: &Dataset, sampled: usize, seed: u64) -> anyhow::Result<Evaluation> {
    let mut rng = SplitMix64::new(seed);
    let now = asked()?;
    let order = rng.permutation(dataset.documents.len());
    let people = KNOWN_ITEM_PEOPLE.min(order.len() / KNOWN_ITEM_SHARE);
    anyhow::ensure!(people >= 2, "{} has too few documents", dataset.name);
    let dealt: Vec<(usize, &Document)> = order
        .chunks_exact(KNOWN_ITEM_SHARE)
        .take(people)
        .enumerate()
        .flat_map(|(person, hand)| hand.iter().map(move |&i| (person, i)))
        .map(|(person, i)| (person, &dataset.documents[i]))
        .collect();
    let title_and_rest = |document: &Document| {
        let (title, rest) = title_and_abstract(&document.text);
        (one_line(title), one_line(rest))
    };
    let uploads = dealt
        .iter()
        .map(|&(person, document)| {
            let (title, rest) = title_and_rest(document);
            let mut texts = vec![Text::plain(Descriptor::Primary, title)];
            if !rest.is_empty() {
                texts.push(Text::plain(Descriptor::Default, rest));
            }
            Upload {
                person,
                date: upload_date(&mut rng, now),
                entity_type: "document",
                action_type: "edit",
                texts,
            }
        })
        .collect();
    let asked_about = rng
        .permutation(dealt.len())
        .into_iter()
        .take(sampled)
        .flat_map(|i| {
            let (person, document) = dealt[i];
            queries(title_and_rest(document).0, document, &[person])
        })
        .collect();
    Ok(Evaluation {
        name: format!("{} uploader (known item)", dataset.name),
        forms: vec!["title", "3 key phrases"],
        worlds: vec![World {
            people: (1..=people).map(|p| format!("reader {p}")).collect(),
            uploads,
            queries: asked_about,
            now,
        }],
        note: format!("{KNOWN_ITEM_SHARE} abstracts per person"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(id: &str, text: &str, gold: &[&str]) -> Document {
        Document {
            id: id.into(),
            text: text.into(),
            gold: gold.iter().map(|g| (*g).to_owned()).collect(),
        }
    }

    fn dataset(journals: &[(&str, usize)]) -> Dataset {
        let mut documents = Vec::new();
        for (issn, n) in journals {
            for i in 0..*n {
                documents.push(document(
                    &format!("S{issn}{i:05}"),
                    &format!("Paper {i} of journal {issn} on its topic. Second sentence."),
                    &["alpha", "beta", "gamma", "delta"],
                ));
            }
        }
        Dataset {
            name: "Test".into(),
            language: "en".into(),
            documents,
        }
    }

    #[test]
    fn journals_become_categories_with_three_people_and_held_out_queries() {
        let data = dataset(&[("11111111", 20), ("22222222", 12), ("33333333", 11)]);
        let eval = category_routing(&data, 2, 7).unwrap();
        assert_eq!(eval.worlds.len(), 2);
        let world = &eval.worlds[0];
        // The small journal is left out: two categories, six people.
        assert_eq!(world.people.len(), 6);
        assert_eq!(world.uploads.len(), 12 + 7);
        // Eight and five held out, two forms each.
        assert_eq!(world.queries.len(), 2 * (8 + 5));
        let q = &world.queries[0];
        assert_eq!(q.relevant, [0, 1, 2]);
        assert!(world.queries.iter().all(|q| q
            .relevant
            .iter()
            .all(|&p| field_of(p) == field_of(q.relevant[0]))));
        assert_eq!(field_of(3), 1);
        assert!(q.text.ends_with("on its topic."));
        assert_eq!(world.queries[1].text, "alpha, beta, gamma");
        assert!(world.uploads.iter().all(|u| u.date < world.now));
        assert_eq!(
            category_routing(&data, 2, 7).unwrap().worlds[1]
                .uploads
                .len(),
            19
        );
    }

    #[test]
    fn a_wrapped_title_is_read_whole() {
        let text = "Pattern recognition strategies for molecular surfaces. II. Surface\n\t\
                    complementarity\r\nFor pt.I see ibid. Fuzzy logic based algorithms for\n\t\
                    the quantitative treatment";
        let (title, rest) = title_and_abstract(text);
        assert_eq!(
            one_line(title),
            "Pattern recognition strategies for molecular surfaces. II. Surface complementarity"
        );
        assert_eq!(
            one_line(rest),
            "For pt.I see ibid. Fuzzy logic based algorithms for the quantitative treatment"
        );
        assert_eq!(
            title_and_abstract("A title\nits text"),
            ("A title", "its text")
        );
        assert_eq!(title_and_abstract("A title alone"), ("A title alone", ""));
    }

    #[test]
    fn the_known_item_check_deals_every_person_a_hand() {
        let docs = (0..45)
            .map(|i| {
                document(
                    &i.to_string(),
                    &format!("Title {i}\n\twrapped\r\nabstract {i}\n\twrapped"),
                    &["k"],
                )
            })
            .collect();
        let data = Dataset {
            name: "Test".into(),
            language: "en".into(),
            documents: docs,
        };
        let eval = known_item(&data, 5, 3).unwrap();
        let world = &eval.worlds[0];
        assert_eq!(world.people.len(), 2);
        assert_eq!(world.uploads.len(), 40);
        assert_eq!(world.queries.len(), 10);
        let title = &world.queries[0];
        let upload = world
            .uploads
            .iter()
            .find(|u| u.texts[0].body == title.text)
            .unwrap();
        assert_eq!(title.relevant, [upload.person]);
        assert!(title.text.ends_with(" wrapped"), "{}", title.text);
        assert_eq!(
            upload.texts[1].body,
            title.text.replace("Title", "abstract")
        );
        assert_eq!(world.queries[1].text, "k");
    }
}
