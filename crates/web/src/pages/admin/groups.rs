//! Groups (`/admin/groups`, `/admin/groups/{id}`): listed and created,
//! renamed and deleted, members added and removed, each through the
//! group use cases the API and SCIM use.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use kenning_app::{GroupService, Missing, ServiceError};
use kenning_domain::{Group, GroupFilter, GroupId, GroupInput, UserId};
use uuid::Uuid;

use super::profile::{email_field, Field};
use super::users::Row;
use super::{blocking, failure, query, see_other, Admin, Form, Posted, Problems};
use crate::render::respond;
use crate::state::Web;
use crate::view::Chrome;
use crate::visitor::Visitor;

/// How many groups a page lists.
const PAGE: u32 = 50;

/// The fields of a group's name, as written or stored.
fn name_fields(name: String, external_id: String, problems: &Problems) -> Vec<Field> {
    vec![
        Field::text("displayName", "Name", name, problems),
        Field {
            hint: "The group's id in the identity provider.",
            ..Field::text("externalId", "External id", external_id, problems)
        },
    ]
}

#[derive(Template)]
#[template(path = "admin/groups.html")]
struct GroupsPage {
    chrome: Chrome,
    section: &'static str,
    groups: Vec<(String, String, String)>,
    previous: Option<String>,
    next: Option<String>,
    fields: Vec<Field>,
    problems: Problems,
}

/// The list of groups from `skip` on, with the new group's form as
/// `form` wrote it.
async fn list(
    app: &Web,
    visitor: &Visitor,
    skip: u64,
    form: &Form,
    problems: Problems,
) -> HttpResponse {
    let acting = visitor.use_cases(app);
    let found = blocking(move || acting.groups.list(&GroupFilter::default(), skip, PAGE)).await;
    let found = match found {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => return failure(visitor, &e),
        Err(response) => return response,
    };
    let page = u64::from(PAGE);
    let status = problems.status();
    respond(
        status,
        &GroupsPage {
            chrome: Chrome::of(Some(visitor)),
            section: "groups",
            groups: found
                .groups
                .iter()
                .map(|g| {
                    let members = match g.attributes().members.len() {
                        1 => "1 member".to_owned(),
                        n => format!("{n} members"),
                    };
                    (
                        g.id().as_uuid().to_string(),
                        g.attributes().display_name.as_str().to_owned(),
                        members,
                    )
                })
                .collect(),
            previous: (skip > 0)
                .then(|| format!("/admin/groups?skip={}", skip.saturating_sub(page))),
            next: (skip.saturating_add(page) < found.total)
                .then(|| format!("/admin/groups?skip={}", skip + page)),
            fields: name_fields(
                form.value("displayName"),
                form.value("externalId"),
                &problems,
            ),
            problems,
        },
    )
}

/// `GET /admin/groups?skip=`.
pub(crate) async fn groups(
    req: HttpRequest,
    app: web::Data<Web>,
    Admin(visitor): Admin,
) -> HttpResponse {
    let skip = query(&req).value("skip").parse().unwrap_or(0);
    list(&app, &visitor, skip, &Form::default(), Problems::default()).await
}

/// `POST /admin/groups`: a new group without members, then on to its page.
pub(crate) async fn create(app: web::Data<Web>, Posted(visitor, form): Posted) -> HttpResponse {
    let input = GroupInput {
        display_name: form.value("displayName"),
        external_id: form.given("externalId"),
        members: Vec::new(),
    };
    let acting = visitor.use_cases(&app);
    match blocking(move || acting.groups.create(input)).await {
        Ok(Ok(group)) => see_other(&format!("/admin/groups/{}", group.id().as_uuid())),
        Ok(Err(e)) => match Problems::of_refusal(&e) {
            Some(problems) => list(&app, &visitor, 0, &form, problems).await,
            None => failure(&visitor, &e),
        },
        Err(response) => response,
    }
}

#[derive(Template)]
#[template(path = "admin/group.html")]
struct GroupPage {
    chrome: Chrome,
    section: &'static str,
    id: String,
    name: String,
    version: u64,
    members: Vec<Row>,
    member: Field,
    fields: Vec<Field>,
    problems: Problems,
}

/// What the page shows besides the stored group: a refused form as
/// written.
#[derive(Default)]
struct Shown {
    rename: Option<Form>,
    member: Option<Form>,
    problems: Problems,
}

/// The page of the group `id`, showing `shown`.
async fn page_of(app: &Web, visitor: &Visitor, id: GroupId, shown: Shown) -> HttpResponse {
    let acting = visitor.use_cases(app);
    let read = blocking(move || {
        let group = acting.groups.get(id)?;
        let ids: Vec<_> = group.attributes().members.iter().copied().collect();
        let members = acting.users.get_many(&ids)?;
        Ok((group, members))
    })
    .await;
    let (group, members) = match read {
        Ok(Ok(read)) => read,
        Ok(Err(e)) => return failure(visitor, &e),
        Err(response) => return response,
    };
    let refused =
        shown.rename.is_some() || shown.member.is_some() || shown.problems.general.is_some();
    let attributes = group.attributes();
    let fields = match &shown.rename {
        Some(form) => name_fields(
            form.value("displayName"),
            form.value("externalId"),
            &shown.problems,
        ),
        None => name_fields(
            attributes.display_name.as_str().to_owned(),
            attributes
                .external_id
                .as_ref()
                .map(|e| e.as_str().to_owned())
                .unwrap_or_default(),
            &Problems::default(),
        ),
    };
    let member = match &shown.member {
        Some(form) => email_field(form.value("email"), &shown.problems),
        None => email_field(String::new(), &Problems::default()),
    };
    respond(
        if refused {
            StatusCode::UNPROCESSABLE_ENTITY
        } else {
            StatusCode::OK
        },
        &GroupPage {
            chrome: Chrome::of(Some(visitor)),
            section: "groups",
            id: group.id().as_uuid().to_string(),
            name: attributes.display_name.as_str().to_owned(),
            version: group.version(),
            members: members.iter().map(Row::of).collect(),
            member: Field {
                label: "E-mail address of the person to add",
                ..member
            },
            fields,
            problems: shown.problems,
        },
    )
}

fn group_id(id: &str) -> Option<GroupId> {
    Uuid::try_parse(id).ok().map(GroupId::from_uuid)
}

/// `GET /admin/groups/{id}`.
pub(crate) async fn group(
    app: web::Data<Web>,
    Admin(visitor): Admin,
    id: web::Path<String>,
) -> HttpResponse {
    match group_id(&id) {
        Some(id) => page_of(&app, &visitor, id, Shown::default()).await,
        None => failure(&visitor, &ServiceError::NotFound(Missing::Group)),
    }
}

/// The group as `group` is, but for what `change` makes of it.
fn input_of(group: &Group, change: impl FnOnce(&mut GroupInput)) -> GroupInput {
    let mut input = GroupInput::from(group);
    change(&mut input);
    input
}

/// A change the group's page posts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GroupChange {
    /// A new name and external id.
    Rename,
    /// A member more, by e-mail address.
    AddMember,
    /// A member less, by id.
    RemoveMember,
    /// The group gone (its members stay users).
    Delete,
}

impl GroupChange {
    /// The change a path after the group's id names (`members/add`,
    /// `members/remove`, `delete`).
    fn of_path(path: &str) -> Option<Self> {
        match path {
            "members/add" => Some(Self::AddMember),
            "members/remove" => Some(Self::RemoveMember),
            "delete" => Some(Self::Delete),
            _ => None,
        }
    }

    /// Makes the change of group `id` as the form `written` asks
    /// (`version` for a rename or a deletion).
    fn apply(
        self,
        groups: &GroupService,
        id: GroupId,
        version: Option<u64>,
        written: &Form,
    ) -> Result<(), ServiceError> {
        match self {
            Self::Rename => groups
                .patch(id, version, |g: &Group| {
                    Ok::<_, ServiceError>(input_of(g, |input| {
                        input.display_name = written.value("displayName");
                        input.external_id = written.given("externalId");
                    }))
                })
                .map(|_| ()),
            Self::AddMember => groups
                .add_member_by_email(id, &written.value("email"))
                .map(|_| ()),
            Self::RemoveMember => match Uuid::try_parse(&written.value("member")) {
                Ok(member) => groups
                    .remove_member(id, UserId::from_uuid(member))
                    .map(|_| ()),
                // No user's id is no member: nothing to take out.
                Err(_) => Ok(()),
            },
            Self::Delete => groups.delete(id, version),
        }
    }

    /// The page again, showing `form` as written beside `problems`.
    fn refused(self, form: Form, problems: Problems) -> Shown {
        match self {
            Self::Rename => Shown {
                rename: Some(form),
                problems,
                ..Shown::default()
            },
            Self::AddMember => Shown {
                member: Some(form),
                problems,
                ..Shown::default()
            },
            Self::RemoveMember | Self::Delete => Shown {
                problems,
                ..Shown::default()
            },
        }
    }
}

/// `POST /admin/groups/{id}`: renames the group.
pub(crate) async fn rename(
    app: web::Data<Web>,
    posted: Posted,
    id: web::Path<String>,
) -> HttpResponse {
    change(app, posted, id.into_inner(), Some(GroupChange::Rename)).await
}

/// `POST /admin/groups/{id}/{members/add|members/remove|delete}`.
pub(crate) async fn change_of(
    app: web::Data<Web>,
    posted: Posted,
    path: web::Path<(String, String)>,
) -> HttpResponse {
    let (id, what) = path.into_inner();
    change(app, posted, id, GroupChange::of_path(&what)).await
}

/// Carries out `what` on the group `id` as the form `body` asks; then back
/// to the page, or to the groups after a deletion. A change of no name is
/// a group not found.
async fn change(
    app: web::Data<Web>,
    Posted(visitor, form): Posted,
    id: String,
    what: Option<GroupChange>,
) -> HttpResponse {
    let (Some(id), Some(what)) = (group_id(&id), what) else {
        return failure(&visitor, &ServiceError::NotFound(Missing::Group));
    };
    let version = form.value("version").parse::<u64>().ok();
    let acting = visitor.use_cases(&app);
    let written = form.clone();
    let done = blocking(move || what.apply(&acting.groups, id, version, &written)).await;
    match done {
        Ok(Ok(())) if what == GroupChange::Delete => see_other("/admin/groups"),
        Ok(Ok(())) => see_other(&format!("/admin/groups/{}", id.as_uuid())),
        Ok(Err(ServiceError::NotFound(Missing::User))) if what == GroupChange::AddMember => {
            let problems = Problems::of_field(
                "email",
                "is the address of no user (deleted users are in no group)".to_owned(),
            );
            page_of(&app, &visitor, id, what.refused(form, problems)).await
        }
        Ok(Err(e)) => match Problems::of_refusal(&e) {
            Some(problems) => page_of(&app, &visitor, id, what.refused(form, problems)).await,
            None => failure(&visitor, &e),
        },
        Err(response) => response,
    }
}
