//! A person's page: the profile fields that are set, groups, the topics
//! they know best with why, and the topics that go with their best one.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use kenning_app::{ServiceError, UseCases};
use kenning_domain::{RelatedTopicsLimit, Status, User, UserId, UserTopicsLimit};
use uuid::Uuid;

use crate::contact::{Contact, ContactLink};
use crate::render::{internal_error, message_page, respond};
use crate::session::signed_in;
use crate::state::Web;
use crate::view::{profile_fields, query_param, Chrome, Field, TopicWhy};
use crate::visitor::Visitor;

/// How many related topics a page links to.
const RELATED: u32 = 8;

/// A topic linked to a search for it.
#[derive(Debug)]
pub(crate) struct Linked {
    pub(crate) label: String,
    pub(crate) search: String,
}

/// A topic the person says they know: its key (to remove it), and its
/// label linked to a search for it.
#[derive(Debug)]
pub(crate) struct Declared {
    pub(crate) key: String,
    pub(crate) topic: Linked,
}

/// A group of the person, linked to the search narrowed to its members.
#[derive(Debug)]
pub(crate) struct GroupLink {
    pub(crate) name: String,
    pub(crate) id: Uuid,
}

/// A topic of the profile, with the search its label links to.
#[derive(Debug)]
pub(crate) struct ProfileTopic {
    pub(crate) key: String,
    pub(crate) label: String,
    pub(crate) taught: String,
    pub(crate) search: String,
    pub(crate) evidence: Vec<crate::view::ActionLine>,
}

impl From<TopicWhy> for ProfileTopic {
    fn from(t: TopicWhy) -> Self {
        Self {
            search: query_param(&t.label),
            key: t.key,
            label: t.label,
            taught: t.taught,
            evidence: t.evidence,
        }
    }
}

/// A person's page, or one's own (`own`, with the say over its topics).
#[derive(Template)]
#[template(path = "person.html")]
pub(crate) struct ProfilePage {
    pub(crate) chrome: Chrome,
    pub(crate) name: String,
    pub(crate) own: bool,
    /// Why nothing else is shown (a person not listed).
    pub(crate) notice: Option<String>,
    /// What the person's last change did, said above their own profile.
    pub(crate) done: Option<String>,
    pub(crate) fields: Vec<Field>,
    /// How to reach the person (not on one's own page).
    pub(crate) contact: Option<Contact>,
    pub(crate) groups: Vec<GroupLink>,
    pub(crate) topics: Vec<ProfileTopic>,
    pub(crate) hidden: Vec<(String, String)>,
    /// The topics the person says they know.
    pub(crate) declared: Vec<Declared>,
    /// The most topics a person may say they know.
    pub(crate) declared_max: usize,
    pub(crate) related: Vec<Linked>,
    /// Whether Kenning learns about the person now.
    pub(crate) learns: bool,
    /// Whether the person chose not to be learned about (own page).
    pub(crate) opted_out: bool,
}

/// The profile of `user` as its page shows it to `viewer`, read through
/// `acting` (the use cases as the viewer calls them): fields, groups,
/// topics with why, related topics, how to reach them (by e-mail, and the
/// operator's `contact_link` if any); `own` adds the topics the person
/// hides.
pub(crate) fn profile(
    acting: &UseCases,
    viewer: &Visitor,
    user: &User,
    own: bool,
    contact_link: Option<&ContactLink>,
) -> Result<ProfilePage, ServiceError> {
    let id = user.id();
    // Whether the person is learned about; on their own page, whether
    // they chose not to be.
    let (learns, opted_out) = if own {
        let learning = acting.privacy.learning_of(id)?;
        (learning.learns, learning.choice == Some(false))
    } else {
        (acting.expertise.learns_about(id)?, false)
    };
    // A person not learned about has no topics to show (the use case
    // answers none): not asked for.
    let topics: Vec<ProfileTopic> = if learns {
        acting
            .expertise
            .user_topics(id, UserTopicsLimit::DEFAULT)?
            .iter()
            .map(|t| TopicWhy::of_profile(t).into())
            .collect()
    } else {
        Vec::new()
    };
    let related = match topics.first() {
        Some(best) => related_to(acting, id, &best.key)?,
        None => Vec::new(),
    };
    let hidden = if own {
        acting.expertise.hidden_topics_labelled(id)?
    } else {
        Vec::new()
    };
    let declared = declared_by(acting, id)?;
    let groups = acting
        .groups
        .groups_of(id)?
        .into_iter()
        .map(|m| GroupLink {
            name: m.display_name.as_str().to_owned(),
            id: m.group.as_uuid(),
        })
        .collect();
    let contact = match (own, user.profile()) {
        (false, Some(p)) => Some(Contact::of(p.email.as_str(), contact_link)),
        _ => None,
    };
    Ok(ProfilePage {
        chrome: Chrome::of(Some(viewer)),
        name: user.profile().map(|p| p.display_name()).unwrap_or_default(),
        own,
        notice: None,
        done: None,
        fields: profile_fields(user),
        contact,
        groups,
        topics,
        hidden,
        declared,
        declared_max: kenning_domain::MAX_DECLARED_TOPICS,
        related,
        learns,
        opted_out,
    })
}

/// The topics that go with the topic `key` of the person `id`, read
/// through `acting`, at most [`RELATED`].
fn related_to(acting: &UseCases, id: UserId, key: &str) -> Result<Vec<Linked>, ServiceError> {
    Ok(acting
        .expertise
        .related_topics_of(id, key, RelatedTopicsLimit::parse(RELATED.into())?)?
        .into_iter()
        .map(|r| Linked {
            search: query_param(&r.label),
            label: r.label,
        })
        .collect())
}

/// The topics the person `id` says they know, read through `acting`.
fn declared_by(acting: &UseCases, id: UserId) -> Result<Vec<Declared>, ServiceError> {
    Ok(acting
        .expertise
        .declared_topics(id)?
        .into_iter()
        .map(|t| Declared {
            key: t.key,
            topic: Linked {
                search: query_param(&t.label),
                label: t.label,
            },
        })
        .collect())
}

/// Why `user`'s page shows nothing, if it does not: only people `experts`
/// would rank are shown.
fn unlisted(user: &User) -> Option<(&'static str, &'static str)> {
    match user.status() {
        Status::Deleted { .. } => Some((
            "This person was deleted",
            "Their account was deleted, and Kenning keeps nothing about them.",
        )),
        Status::Deactivated | Status::PendingDeletion { .. } => Some((
            "This person is deactivated",
            "Their account is deactivated, so Kenning does not show their profile or \
             list them in answers.",
        )),
        Status::Active if user.is_hidden() => Some((
            "This person is not listed",
            "Their profile is hidden from Kenning's answers, so it is not shown.",
        )),
        Status::Active => None,
    }
}

fn no_such_person(person: &Visitor) -> HttpResponse {
    message_page(
        StatusCode::NOT_FOUND,
        Chrome::of(Some(person)),
        "There is no such person",
        "No person in Kenning has this address. Check the link, or find them with the search.",
    )
}

/// `GET /people/{globalUserId}`.
pub(crate) async fn page(
    req: HttpRequest,
    app: web::Data<Web>,
    id: web::Path<String>,
) -> HttpResponse {
    let viewer = match signed_in(&req, &app).await {
        Ok(person) => person,
        Err(response) => return response,
    };
    let Ok(id) = Uuid::try_parse(&id) else {
        return no_such_person(&viewer);
    };
    let acting = viewer.use_cases(&app);
    let who = viewer.clone();
    let contact_link = app.config.contact_link.clone();
    let shown = web::block(move || {
        let user = match acting.expertise.person(UserId::from_uuid(id)) {
            Ok(user) => user,
            Err(ServiceError::NotFound(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        if let Some((title, text)) = unlisted(&user) {
            return Ok(Some(Err((title, text))));
        }
        profile(&acting, &who, &user, false, contact_link.as_ref()).map(|p| Some(Ok(p)))
    })
    .await;
    match shown {
        Ok(Ok(Some(Ok(profile)))) => respond(StatusCode::OK, &profile),
        Ok(Ok(Some(Err((title, text))))) => {
            message_page(StatusCode::OK, Chrome::of(Some(&viewer)), title, text)
        }
        Ok(Ok(None)) => no_such_person(&viewer),
        Ok(Err(e)) => internal_error(&e.log_message()),
        Err(e) => internal_error(&e.to_string()),
    }
}
