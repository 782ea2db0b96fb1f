//! The search page: "who knows about ...", the people ranked with the
//! topics that matched and why, and how the question was read.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use kenning_app::{QueryReading, ServiceError, UseCases};
use kenning_domain::{Answer, Band, ExpertsLimit, GroupId, Rule, MAX_QUERY_CHARS};
use serde::Deserialize;
use uuid::Uuid;

use crate::contact::{Contact, ContactLink};
use crate::render::{internal_error, respond};
use crate::session::signed_in;
use crate::state::Web;
use crate::view::{query_param, ActionLine, Chrome};

/// How many more people "More results" asks for.
const PAGE: u32 = 10;
/// What a group that does not exist is told as.
const UNKNOWN_GROUP: &str = "That group is not one Kenning knows; choose another.";
/// How many groups the filter offers.
const GROUPS_OFFERED: u32 = 500;

/// The page's query string; anything malformed reads as absent.
#[derive(Debug, Default, Deserialize)]
struct Params {
    q: Option<String>,
    group: Option<String>,
    limit: Option<String>,
}

#[derive(Debug)]
struct GroupOption {
    id: Uuid,
    name: String,
    selected: bool,
}

#[derive(Debug)]
struct Card {
    id: Uuid,
    name: String,
    meta: String,
    score: String,
    words: &'static str,
    contact: Contact,
    topics: Vec<CardTopic>,
}

#[derive(Debug)]
struct CardTopic {
    label: String,
    evidence: Vec<ActionLine>,
    /// Whether the person says they know it and no upload taught it.
    said: bool,
}

#[derive(Debug)]
struct ReadTopic {
    label: String,
    people: String,
    similarity: String,
}

#[derive(Debug)]
struct Reading {
    languages: String,
    asking: String,
    subject: String,
    subject_known: bool,
    matched: Vec<ReadTopic>,
    reached: Vec<ReadTopic>,
    unknown: Vec<String>,
    dropped: Vec<String>,
}

#[derive(Template)]
#[template(path = "search.html")]
struct SearchPage {
    chrome: Chrome,
    query: String,
    max_query: usize,
    groups: Vec<GroupOption>,
    problem: Option<String>,
    searched: bool,
    heading: String,
    cards: Vec<Card>,
    nearest: Vec<Card>,
    more: Option<String>,
    reading: Option<Reading>,
}

/// What the page found, read in one blocking call.
#[derive(Default)]
struct Found {
    groups: Vec<GroupOption>,
    cards: Vec<Card>,
    nearest: Vec<Card>,
    reading: Option<Reading>,
    answer: Answer,
    problem: Option<String>,
    full: bool,
}

fn people(n: u64) -> String {
    match n {
        1 => "1 person".to_owned(),
        n => format!("{n} people"),
    }
}

fn reading_of(reading: QueryReading) -> Reading {
    let mut matched = Vec::new();
    let mut reached = Vec::new();
    let mut unknown = Vec::new();
    for t in reading.topics {
        let line = ReadTopic {
            label: t.label.clone(),
            people: people(t.people),
            similarity: t.similarity.map(|s| format!("{s:.2}")).unwrap_or_default(),
        };
        match (t.similarity, t.people) {
            (Some(_), _) => reached.push(line),
            (None, 0) => unknown.push(t.label),
            (None, _) => matched.push(line),
        }
    }
    Reading {
        languages: reading.languages.join(" and "),
        asking: reading.asking.join(" "),
        subject: reading.subject,
        subject_known: reading.subject_known,
        matched,
        reached,
        unknown,
        dropped: reading.dropped,
    }
}

/// The page's card of `card`: the person, the score in words, and the
/// topics with the actions the answer explains them by.
fn card_of(card: &kenning_app::Card, contact_link: Option<&ContactLink>) -> Option<Card> {
    let profile = card.person.profile()?;
    let meta = [
        profile.position.as_ref().map(|v| v.as_str()),
        profile.department.as_ref().map(|v| v.as_str()),
        profile.location.as_ref().map(|v| v.as_str()),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" \u{b7} ");
    let score = card.expert.score;
    Some(Card {
        id: card.expert.user.as_uuid(),
        name: profile.display_name(),
        meta,
        // Whole points, rounded down: 49.6 is not yet "this is the person".
        score: format!("{:.0}", score.floor()),
        contact: Contact::of(profile.email.as_str(), contact_link),
        words: Band::of(score).words(),
        topics: card
            .topics
            .iter()
            .map(|t| CardTopic {
                label: t.topic.label.clone(),
                evidence: ActionLine::of_all(&t.evidence),
                said: t.topic.declared,
            })
            .collect(),
    })
}

/// What the page says of a question the use case refused: an unknown
/// group, or a question too long; any other refusal is the caller's
/// error.
fn problem_of(refusal: ServiceError) -> Result<String, ServiceError> {
    match refusal {
        ServiceError::NotFound(_) => Ok(UNKNOWN_GROUP.to_owned()),
        ServiceError::Validation(e) => Ok(match e.first().rule {
            Rule::TooLong { limit } => {
                format!("The question is longer than {limit} characters; ask it in fewer words.")
            }
            _ => e.to_string(),
        }),
        e => Err(e),
    }
}

/// Everything the page shows for `query` (none: the groups alone).
fn find(
    acting: &UseCases,
    query: &str,
    group: Option<GroupId>,
    limit: ExpertsLimit,
    contact_link: Option<&ContactLink>,
) -> Result<Found, ServiceError> {
    let groups = acting
        .groups
        .names(GROUPS_OFFERED)?
        .into_iter()
        .map(|g| GroupOption {
            id: g.group.as_uuid(),
            name: g.display_name.as_str().to_owned(),
            selected: Some(g.group) == group,
        })
        .collect();
    let mut found = Found {
        groups,
        ..Found::default()
    };
    if query.is_empty() {
        return Ok(found);
    }
    let answer = match acting.expertise.explained(query, limit, group) {
        Ok(answer) => answer,
        Err(e) => {
            found.problem = Some(problem_of(e)?);
            return Ok(found);
        }
    };
    found.full = answer.full;
    found.answer = answer.reading.answer;
    let cards = |cards: &[kenning_app::Card]| -> Vec<Card> {
        cards
            .iter()
            .filter_map(|c| card_of(c, contact_link))
            .collect()
    };
    found.cards = cards(&answer.knowing);
    found.nearest = cards(&answer.nearest);
    found.reading = Some(reading_of(answer.reading));
    Ok(found)
}

/// `GET /`: the search page, with answers when a question is asked.
pub(crate) async fn page(req: HttpRequest, app: web::Data<Web>) -> HttpResponse {
    let person = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    let params = web::Query::<Params>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .unwrap_or_default();
    let query = params.q.unwrap_or_default().trim().to_owned();
    let mut problem = None;
    let group = params
        .group
        .as_deref()
        .filter(|g| !g.is_empty())
        .map(|g| Uuid::try_parse(g).map(GroupId::from_uuid));
    let group = match group {
        Some(Ok(id)) => Some(id),
        Some(Err(_)) => {
            problem = Some(UNKNOWN_GROUP.to_owned());
            None
        }
        None => None,
    };
    let limit = params
        .limit
        .and_then(|l| l.parse::<i64>().ok())
        .and_then(|l| ExpertsLimit::parse(l).ok())
        .unwrap_or_default();
    let acting = person.use_cases(&app);
    let searched = !query.is_empty() && problem.is_none();
    let asked = if searched {
        query.clone()
    } else {
        String::new()
    };
    let contact_link = app.config.contact_link.clone();
    let found = match web::block(move || find(&acting, &asked, group, limit, contact_link.as_ref()))
        .await
    {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => return internal_error(&e.log_message()),
        Err(e) => return internal_error(&e.to_string()),
    };
    let more = (found.full && limit.get() < ExpertsLimit::MAX).then(|| {
        let next = (limit.get() + PAGE).min(ExpertsLimit::MAX);
        let group = group
            .map(|g| format!("&group={}", g.as_uuid()))
            .unwrap_or_default();
        format!("/?q={}{group}&limit={next}", query_param(&query))
    });
    // The headline counts the people who are the answer (50 or more);
    // the others shown are the nearest Kenning has, under their own
    // heading.
    let heading = match found.answer.knowing {
        0 => format!("Nobody seems to know about \u{201c}{query}\u{201d}"),
        1 => format!("1 person knows about \u{201c}{query}\u{201d}"),
        n => format!("{n} people know about \u{201c}{query}\u{201d}"),
    };
    respond(
        StatusCode::OK,
        &SearchPage {
            chrome: Chrome::of(Some(&person)),
            query,
            max_query: MAX_QUERY_CHARS,
            groups: found.groups,
            problem: problem.or(found.problem),
            searched: searched && found.reading.is_some(),
            heading,
            cards: found.cards,
            nearest: found.nearest,
            more,
            reading: found.reading,
        },
    )
}
