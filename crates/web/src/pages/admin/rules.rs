//! The rules on learning (`/admin/rules`): those in force, with who set
//! each and when, and the forms that set and lift them. Every form goes
//! through the use case of the API's `setLearningRule`, which checks the
//! kind and the value; a refused value is shown beside its field.

use std::collections::HashMap;

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use kenning_app::{Missing, ServiceError, UseCases};
use kenning_domain::{
    Actor, Channel, GroupFilter, LearningRule, LearningRules, Rule, RuleInForce, UserId,
};
use uuid::Uuid;

use super::profile::Field;
use super::{blocking, failure, see_other, Admin, Form, Posted, Problems};
use crate::render::respond;
use crate::state::Web;
use crate::view::Chrome;
use crate::visitor::Visitor;

/// The most groups the group form offers: the select is read whole, so
/// an organisation with more names the rest through the API.
const GROUPS_OFFERED: u32 = 1_000;

/// A rule in force as the page tells it, with the form that lifts it.
#[derive(Debug)]
struct Row {
    words: String,
    by: String,
    by_href: Option<String>,
    channel: &'static str,
    at: String,
    kind: &'static str,
    value: String,
    lift: String,
}

#[derive(Template)]
#[template(path = "admin/rules.html")]
struct RulesPage {
    chrome: Chrome,
    section: &'static str,
    rules: Vec<Row>,
    everyone_off: bool,
    new_opted_out: bool,
    /// Every group: id, name, and whether the refused form chose it.
    groups: Vec<(String, String, bool)>,
    group_problem: Option<String>,
    entity: Field,
    action: Field,
    retention: Field,
    problems: Problems,
}

/// What the page reads: the rules, the groups' names by id, and the
/// names of the people who set a rule, by id.
struct Read {
    rules: LearningRules,
    groups: Vec<(String, String)>,
    people: HashMap<Uuid, String>,
}

/// The person an actor of the web app is: a person signed in is named by
/// their id, a credential is not a person.
fn person_of(actor: &Actor) -> Option<Uuid> {
    (actor.channel == Channel::Web && actor.credential_id.is_none())
        .then(|| Uuid::try_parse(&actor.name).ok())
        .flatten()
}

fn read(acting: &UseCases) -> Result<Read, ServiceError> {
    let rules = acting.privacy.rules()?;
    let groups = acting
        .groups
        .list(&GroupFilter::default(), 0, GROUPS_OFFERED)?
        .groups
        .iter()
        .map(|g| {
            (
                g.id().as_uuid().to_string(),
                g.attributes().display_name.as_str().to_owned(),
            )
        })
        .collect();
    let setters: Vec<UserId> = rules
        .rules
        .iter()
        .filter_map(|r| person_of(&r.set_by))
        .map(UserId::from_uuid)
        .collect();
    let people = acting
        .users
        .get_many(&setters)?
        .iter()
        .filter_map(|u| Some((u.id().as_uuid(), u.profile()?.display_name())))
        .collect();
    Ok(Read {
        rules,
        groups,
        people,
    })
}

/// The rule in words, and the words of the button that lifts it.
fn words(rule: &LearningRule, group_name: &dyn Fn(&str) -> String) -> (String, String) {
    match rule {
        LearningRule::LearningOff => (
            "Kenning learns about nobody.".to_owned(),
            "Turn learning on for everyone".to_owned(),
        ),
        LearningRule::NewPeopleOptedOut => (
            "People who never chose start opted out: Kenning learns about them once they \
             opt in."
                .to_owned(),
            "Let new people start opted in".to_owned(),
        ),
        LearningRule::GroupOff(group) => {
            let name = group_name(&group.to_string());
            (
                format!("Kenning does not learn about the members of {name}."),
                format!("Turn learning on for {name}"),
            )
        }
        LearningRule::ExcludedEntityType(t) => (
            format!("Uploads of the entity type {t} teach nothing."),
            format!("Lift the exclusion of the entity type {t}"),
        ),
        LearningRule::ExcludedActionType(t) => (
            format!("Uploads of the action type {t} teach nothing."),
            format!("Lift the exclusion of the action type {t}"),
        ),
        LearningRule::RetentionDays(days) => (
            format!("Actions older than {days} days are forgotten."),
            "Lift the retention".to_owned(),
        ),
    }
}

impl Row {
    fn of(r: &RuleInForce, read: &Read) -> Self {
        let group_name = |id: &str| {
            read.groups
                .iter()
                .find(|(gid, _)| gid == id)
                .map(|(_, name)| name.clone())
                .unwrap_or_else(|| format!("the group {id}"))
        };
        let (words, lift) = words(&r.rule, &group_name);
        let (kind, value) = r.rule.parts();
        let person = person_of(&r.set_by);
        let by = match (
            person.and_then(|p| read.people.get(&p)),
            r.set_by.credential_id,
        ) {
            (Some(name), _) => name.clone(),
            (None, Some(credential)) => format!("{} (credential {credential})", r.set_by.name),
            (None, None) => r.set_by.name.clone(),
        };
        Self {
            words,
            by,
            by_href: person.map(|p| format!("/admin/users/{p}")),
            channel: r.set_by.channel.as_str(),
            at: r.set_at.format("%-d %b %Y %H:%M UTC").to_string(),
            kind,
            value,
            lift,
        }
    }
}

/// A refused form: the kind of rule it set, as written, and why.
#[derive(Default)]
struct Refused {
    form: Form,
    problems: Problems,
}

/// The field of a form that sets a rule of `kind`, with what the refused
/// form wrote and its problem when it was that form.
fn field(
    kind: &str,
    name: &'static str,
    label: &'static str,
    hint: &'static str,
    refused: &Refused,
) -> Field {
    let mine = refused.form.value("kind") == kind;
    Field {
        name,
        label,
        kind: "text",
        hint,
        value: if mine {
            refused.form.value("value")
        } else {
            String::new()
        },
        problem: mine
            .then(|| refused.problems.of(LearningRule::VALUE_FIELD))
            .flatten()
            .map(str::to_owned),
    }
}

/// The page, with the refused form `refused` as written.
async fn page_of(app: &Web, visitor: &Visitor, refused: Refused) -> HttpResponse {
    let acting = visitor.use_cases(app);
    let read = match blocking(move || read(&acting)).await {
        Ok(Ok(read)) => read,
        Ok(Err(e)) => return failure(visitor, &e),
        Err(response) => return response,
    };
    let has = |rule: &LearningRule| read.rules.rules.iter().any(|r| r.rule == *rule);
    let group_form = refused.form.value("kind") == "group_off";
    let chosen = refused.form.value("value");
    let problems = &refused.problems;
    let mut general = problems.general.clone();
    // A kind no form sends: only a page other than this one writes it.
    if let Some(kind) = problems.of(LearningRule::KIND_FIELD) {
        general = Some(format!("Nothing was changed: the kind of rule {kind}."));
    }
    respond(
        if general.is_some() {
            StatusCode::UNPROCESSABLE_ENTITY
        } else {
            StatusCode::OK
        },
        &RulesPage {
            chrome: Chrome::of(Some(visitor)),
            section: "rules",
            rules: read.rules.rules.iter().map(|r| Row::of(r, &read)).collect(),
            everyone_off: has(&LearningRule::LearningOff),
            new_opted_out: has(&LearningRule::NewPeopleOptedOut),
            groups: read
                .groups
                .iter()
                .map(|(id, name)| (id.clone(), name.clone(), group_form && *id == chosen))
                .collect(),
            group_problem: group_form
                .then(|| problems.of(LearningRule::VALUE_FIELD))
                .flatten()
                .map(str::to_owned),
            entity: field(
                "excluded_entity_type",
                "entity-type",
                "Entity type",
                "As uploads write it, such as chat or document.",
                &refused,
            ),
            action: field(
                "excluded_action_type",
                "action-type",
                "Action type",
                "As uploads write it, such as create or comment.",
                &refused,
            ),
            retention: field(
                "retention_days",
                "retention-days",
                "Days",
                "Kenning forgets the actions older than this many days.",
                &refused,
            ),
            problems: Problems {
                general,
                ..Problems::default()
            },
        },
    )
}

/// `GET /admin/rules`.
pub(crate) async fn page(app: web::Data<Web>, Admin(visitor): Admin) -> HttpResponse {
    page_of(&app, &visitor, Refused::default()).await
}

/// `POST /admin/rules`: sets (`set=true`) or lifts (`set=false`) the rule
/// of `kind` with `value`, then back to the page (303); a refused form
/// again with its problem beside its field.
pub(crate) async fn change(app: web::Data<Web>, Posted(visitor, form): Posted) -> HttpResponse {
    let set = match form.value("set").as_str() {
        "true" => true,
        "false" => false,
        _ => {
            let problems = Problems {
                general: Some(
                    "Nothing was changed: the form said neither to set nor to lift the rule."
                        .to_owned(),
                ),
                ..Problems::default()
            };
            return page_of(&app, &visitor, Refused { form, problems }).await;
        }
    };
    let kind = form.value("kind");
    let value = form.given("value");
    let acting = visitor.use_cases(&app);
    let done = blocking(move || acting.privacy.set_rule(&kind, value.as_deref(), set)).await;
    let problems = match done {
        Ok(Ok(_)) => return see_other("/admin/rules"),
        Ok(Err(ServiceError::NotFound(Missing::Group))) => Problems {
            general: Some("Nothing was changed: correct the field marked below.".to_owned()),
            ..Problems::of_field(LearningRule::VALUE_FIELD, Rule::NotAGroup.to_string())
        },
        Ok(Err(e)) => match Problems::of_refusal(&e) {
            Some(problems) => problems,
            None => return failure(&visitor, &e),
        },
        Err(response) => return response,
    };
    page_of(&app, &visitor, Refused { form, problems }).await
}
