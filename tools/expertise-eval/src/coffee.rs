//! Evaluation 1: question routing on a Stack Exchange site (held-out in
//! time: the past of the answerers is uploaded, later questions are asked).
//!
//! Cut-off: the moment by which [`CUT_OFF_SHARE`] of the answers were
//! written. People: everyone with at least [`MIN_ANSWERS`] answers before
//! it. Each of their answers before it is uploaded, dated by the answer,
//! with the question's title (`primary`), the question's body and the answer
//! (HTML, `default`). Queries: the questions asked after the cut-off, as the
//! title alone and as the title with the body. The right answer is the
//! author of the accepted answer (queries whose accepted answer is not by
//! one of the people are left out) or, leniently, every one of the people
//! who answered the question.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context;
use chrono::{DateTime, SecondsFormat, Utc};
use kenning_domain::Descriptor;
use kenning_tools_common::html_to_text;
use kenning_upload::connect::{self, Found, Source, Window};

use crate::commits::descriptor;
use crate::posts::{self, Post, PostKind};
use crate::text::one_line;
use crate::world::{Evaluation, Query, Text, Upload, World};

/// The share of answers written before the cut-off.
const CUT_OFF_SHARE: f64 = 0.7;
/// The fewest answers before the cut-off that make an answerer one of the
/// people.
const MIN_ANSWERS: usize = 5;

const FORMS: [&str; 2] = ["title", "title + body"];

/// Where the expert-finding data is: `KENNING_EXPERTISE_DATA`, else
/// `../shared/data/expertise` from the workspace root.
pub fn data_dir() -> PathBuf {
    std::env::var_os("KENNING_EXPERTISE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/expertise")
        })
}

struct Question<'a> {
    post: &'a Post,
    title: &'a str,
    accepted_answer: Option<u64>,
}

/// Where the people's uploads come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// Made here from the posts.
    Own,
    /// The items `kenning connect stackexchange` reads from the folder,
    /// as it sends them: what the connector teaches must be what the
    /// evaluation's own uploads teach.
    Connector,
}

/// The two evaluations of the site in `dir` (`Posts.xml`): the accepted
/// answerer as the one right answer, and every answerer among the people.
pub fn evaluations(dir: &Path, name: &str, feed: Feed) -> anyhow::Result<Vec<Evaluation>> {
    let path = dir.join("Posts.xml");
    let xml =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let posts = posts::parse(&xml).with_context(|| format!("parsing {}", path.display()))?;

    let questions: HashMap<u64, Question> = posts
        .iter()
        .filter_map(|post| match &post.kind {
            PostKind::Question {
                title,
                accepted_answer,
            } => Some((
                post.id,
                Question {
                    post,
                    title,
                    accepted_answer: *accepted_answer,
                },
            )),
            PostKind::Answer { .. } => None,
        })
        .collect();
    let mut answers: Vec<(&Post, u64)> = posts
        .iter()
        .filter_map(|post| match post.kind {
            PostKind::Answer { question } => Some((post, question)),
            PostKind::Question { .. } => None,
        })
        .collect();
    answers.sort_by_key(|(a, _)| (a.created, a.id));
    let cut_index = (answers.len() as f64 * CUT_OFF_SHARE) as usize;
    let Some(cut_off) = answers.get(cut_index).map(|(a, _)| a.created) else {
        anyhow::bail!("{} holds no answers", path.display());
    };
    let before: Vec<&(&Post, u64)> = answers
        .iter()
        .filter(|(a, _)| a.created < cut_off)
        .collect();

    let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
    for (answer, _) in &before {
        if let Some(owner) = answer.owner {
            *counts.entry(owner).or_default() += 1;
        }
    }
    let owners: Vec<u64> = counts
        .into_iter()
        .filter(|&(_, n)| n >= MIN_ANSWERS)
        .map(|(owner, _)| owner)
        .collect();
    let person_of: HashMap<u64, usize> = owners.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let person = |post: &Post| post.owner.and_then(|o| person_of.get(&o).copied());

    let own = before.iter().filter_map(|(answer, question)| {
        let person = person(answer)?;
        let question = questions.get(question)?;
        Some(Upload {
            person,
            date: answer.created,
            entity_type: "answer",
            action_type: "answer",
            texts: vec![
                Text::plain(Descriptor::Primary, question.title),
                Text::html(Descriptor::Default, question.post.body.as_str()),
                Text::html(Descriptor::Default, answer.body.as_str()),
            ],
        })
    });
    let uploads: Vec<Upload> = match feed {
        Feed::Own => own.collect(),
        Feed::Connector => through_connector(dir, cut_off, &person_of)?,
    };

    let mut answered_by: HashMap<u64, Vec<usize>> = HashMap::new();
    for (answer, question) in &answers {
        if let Some(p) = person(answer) {
            let people = answered_by.entry(*question).or_default();
            if !people.contains(&p) {
                people.push(p);
            }
        }
    }
    let mut later: Vec<&Question> = questions
        .values()
        .filter(|q| q.post.created >= cut_off)
        .collect();
    later.sort_by_key(|q| (q.post.created, q.post.id));
    let forms = |q: &Question| {
        let title = one_line(q.title);
        let body = one_line(&html_to_text(&q.post.body));
        [title.clone(), format!("{title}\n\n{body}")]
    };
    let answer_by_id: HashMap<u64, &Post> = answers.iter().map(|(a, _)| (a.id, *a)).collect();
    let accepted_by = |q: &Question| person(answer_by_id.get(&q.accepted_answer?)?);
    let queries = |right: &dyn Fn(&Question) -> Vec<usize>| {
        let mut queries = Vec::new();
        for q in &later {
            let relevant = right(q);
            if relevant.is_empty() {
                continue;
            }
            for (form, text) in forms(q).into_iter().enumerate() {
                queries.push(Query {
                    form,
                    text,
                    relevant: relevant.clone(),
                    asked: None,
                });
            }
        }
        queries
    };
    let accepted = queries(&|q| accepted_by(q).into_iter().collect());
    let any = queries(&|q| answered_by.get(&q.post.id).cloned().unwrap_or_default());

    let world = |queries: Vec<Query>| World {
        people: owners.iter().map(|o| format!("user {o}")).collect(),
        uploads: uploads.clone(),
        queries,
        now: cut_off,
    };
    let note = format!(
        "cut-off {} ({} of {} answers before it)",
        cut_off.to_rfc3339_opts(SecondsFormat::Secs, true),
        before.len(),
        answers.len()
    );
    Ok(vec![
        Evaluation {
            name: format!("{name}, accepted answerer"),
            forms: FORMS.to_vec(),
            worlds: vec![world(accepted)],
            note: note.clone(),
        },
        Evaluation {
            name: format!("{name}, any answerer"),
            forms: FORMS.to_vec(),
            worlds: vec![world(any)],
            note,
        },
    ])
}

/// The uploads of the answers written before `cut_off` by the people
/// (`person_of` their site user id), as `kenning connect stackexchange`
/// reads and sends them, in the order the evaluation's own are made.
fn through_connector(
    dir: &Path,
    cut_off: DateTime<Utc>,
    person_of: &HashMap<u64, usize>,
) -> anyhow::Result<Vec<Upload>> {
    let mut site = connect::stackexchange::Site::open(dir)?;
    let mut items = Vec::new();
    site.read(None, &Window::default(), &mut |found| {
        if let Found::Item(item) = found {
            if item.entity_type == connect::stackexchange::ANSWER && item.date < cut_off {
                items.push(item);
            }
        }
        true
    })?;
    items.sort_by_key(|item| (item.date, item.id.parse::<u64>().unwrap_or(u64::MAX)));
    let mut uploads = Vec::new();
    for item in &items {
        let texts: Vec<Text> = connect::texts_as_sent(item)
            .into_iter()
            .map(|t| Text {
                descriptor: descriptor(t.descriptor),
                html: t.html,
                body: t.text,
            })
            .collect();
        for (who, action) in &item.actions {
            if let Some(&person) = who.key.parse().ok().and_then(|id| person_of.get(&id)) {
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
    Ok(uploads)
}

/// The Q&A sites under `dir`: every folder holding a `Posts.xml`, in name
/// order.
pub fn sites(dir: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    let mut sites: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.join("Posts.xml").is_file())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            Some((name, path))
        })
        .collect();
    sites.sort();
    Ok(sites)
}

/// The evaluations of every site in `dir`, one pair per site, then, when
/// there are several, the pair with every site's questions pooled (each
/// site its own world: its people answer only its questions), then each
/// site's pair again with the uploads `kenning connect stackexchange`
/// sends.
pub fn all_sites(dir: &Path) -> anyhow::Result<Vec<Evaluation>> {
    let sites = sites(dir)?;
    let mut per_site = Vec::new();
    for (name, path) in &sites {
        per_site.push(evaluations(path, name, Feed::Own)?);
    }
    let mut all: Vec<Evaluation> = per_site.iter().flatten().cloned().collect();
    if per_site.len() > 1 {
        for (kind, reading) in ["accepted answerer", "any answerer"]
            .into_iter()
            .enumerate()
        {
            let worlds = per_site
                .iter()
                .filter_map(|pair| pair.get(kind))
                .flat_map(|e| e.worlds.iter().cloned())
                .collect();
            all.push(Evaluation {
                name: format!("{} Q&A sites pooled, {reading}", per_site.len()),
                forms: FORMS.to_vec(),
                worlds,
                note: sites
                    .iter()
                    .map(|(name, _)| name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    for (name, path) in &sites {
        all.extend(evaluations(
            path,
            &format!("{name} via kenning connect"),
            Feed::Connector,
        )?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_folder_with_posts_is_a_site_in_name_order() {
        let dir = std::env::temp_dir().join(format!("kenning-sites-{}", std::process::id()));
        for (site, posts) in [("writing", true), ("coffee", true), ("notes", false)] {
            std::fs::create_dir_all(dir.join(site)).unwrap();
            if posts {
                std::fs::write(dir.join(site).join("Posts.xml"), "<posts></posts>").unwrap();
            }
        }
        let names: Vec<String> = sites(&dir).unwrap().into_iter().map(|(n, _)| n).collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(names, ["coffee", "writing"]);
    }
}
