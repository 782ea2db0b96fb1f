//! Evaluation: routing a repository's later commits to their authors
//! (held out in time), fed through `kenning connect git`'s own reading of
//! the repository: its items, people (by `.mailmap`), texts and skips.
//!
//! Cut-off: the moment by which [`CUT_OFF_SHARE`] of the commits (not
//! merges, not bots) were written. People: every author with at least
//! [`MIN_COMMITS`] commits before it. Each of their commits before it is
//! uploaded as the connector sends it (subject primary, body default,
//! changed paths secondary), and each co-author's too. Queries: the
//! commits after the cut-off by one of the people, every k-th so that at
//! most [`MAX_QUERIES`] are asked, as the subject alone and as the
//! changed paths (read as the connector reads them); the right answer is
//! the commit's author.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use kenning_domain::Descriptor;
use kenning_upload::connect::{self, Found, Item, Source, Window};

use crate::world::{Evaluation, Query, Text, Upload, World};

/// The share of commits written before the cut-off.
const CUT_OFF_SHARE: f64 = 0.8;
/// The fewest commits before the cut-off that make an author one of the
/// people.
const MIN_COMMITS: usize = 5;
/// The most queries asked per form.
const MAX_QUERIES: usize = 1_000;

const FORMS: [&str; 2] = ["subject", "paths"];

/// The repository to evaluate on: `KENNING_EVAL_GIT`, if set.
pub fn repository() -> Option<PathBuf> {
    std::env::var_os("KENNING_EVAL_GIT")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// The domain's descriptor of a connector's text.
pub fn descriptor(of: connect::Descriptor) -> Descriptor {
    match of {
        connect::Descriptor::Primary => Descriptor::Primary,
        connect::Descriptor::Default => Descriptor::Default,
        connect::Descriptor::Secondary => Descriptor::Secondary,
    }
}

fn text_of(item: &Item, of: connect::Descriptor) -> Option<String> {
    connect::texts_as_sent(item)
        .into_iter()
        .find(|t| t.descriptor == of)
        .map(|t| t.text)
}

/// The evaluation of the repository at `path`, its history read as
/// `kenning connect git` reads it.
pub fn evaluation(path: &Path) -> anyhow::Result<Evaluation> {
    let mut repository = connect::git::Repository::open(path, "HEAD")?;
    let mut items = Vec::new();
    repository.read(None, &Window::default(), &mut |found| {
        if let Found::Item(item) = found {
            items.push(item);
        }
        true
    })?;
    items.sort_by(|a, b| (a.date, &a.id).cmp(&(b.date, &b.id)));
    let cut_index = (items.len() as f64 * CUT_OFF_SHARE) as usize;
    let Some(cut_off) = items.get(cut_index).map(|i| i.date) else {
        anyhow::bail!("{}: no commits to evaluate on", path.display());
    };
    let author = |item: &Item| item.actions.first().map(|(who, _)| who.key.clone());
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for item in items.iter().filter(|i| i.date < cut_off) {
        if let Some(author) = author(item) {
            *counts.entry(author).or_default() += 1;
        }
    }
    let people: Vec<String> = counts
        .into_iter()
        .filter(|&(_, n)| n >= MIN_COMMITS)
        .map(|(who, _)| who)
        .collect();
    let person_of: HashMap<&str, usize> = people
        .iter()
        .enumerate()
        .map(|(i, who)| (who.as_str(), i))
        .collect();

    let mut uploads = Vec::new();
    for item in items.iter().filter(|i| i.date < cut_off) {
        let texts: Vec<Text> = connect::texts_as_sent(item)
            .into_iter()
            .map(|t| Text::plain(descriptor(t.descriptor), t.text))
            .collect();
        for (who, action) in &item.actions {
            if let Some(&person) = person_of.get(who.key.as_str()) {
                uploads.push(Upload {
                    person,
                    date: item.date,
                    entity_type: item.entity_type,
                    action_type: action,
                    texts: texts.clone(),
                });
            }
        }
    }
    let later: Vec<(&Item, usize)> = items
        .iter()
        .filter(|i| i.date >= cut_off)
        .filter_map(|i| Some((i, *person_of.get(author(i)?.as_str())?)))
        .collect();
    let step = later.len().div_ceil(MAX_QUERIES).max(1);
    let mut queries = Vec::new();
    for (item, person) in later.iter().step_by(step) {
        let forms = [
            text_of(item, connect::Descriptor::Primary),
            text_of(item, connect::Descriptor::Secondary),
        ];
        for (form, text) in forms.into_iter().enumerate() {
            if let Some(text) = text {
                queries.push(Query {
                    form,
                    text,
                    relevant: vec![*person],
                    asked: None,
                });
            }
        }
    }
    let now = items.last().map_or(cut_off, |i| i.date);
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(Evaluation {
        name: format!("git {}", name.trim_end_matches(".git")),
        forms: FORMS.to_vec(),
        note: format!(
            "{} commits read, {} before the cut-off uploaded by {} authors, every {step}th of {} later commits asked",
            items.len(),
            uploads.len(),
            people.len(),
            later.len()
        ),
        worlds: vec![World {
            people,
            uploads,
            queries,
            now,
        }],
    })
}
