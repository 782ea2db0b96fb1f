use chrono::TimeZone;
use uuid::Uuid;

use super::*;
use crate::group::{Group, GroupAttributes, GroupId, GroupInput};
use crate::profile::{Email, LanguageId};
use crate::user::{NewUser, NewUserInput, Patch, User, UserId, UserPatch, UserPatchInput};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 5, 1, 9, 0, 0).unwrap()
}

fn ada() -> User {
    let input = NewUserInput {
        email: "ada@example.org".into(),
        firstname: "Ada".into(),
        lastname: "Lovelace".into(),
        company: Some("Analytical".into()),
        ..NewUserInput::default()
    };
    let new = NewUser::parse(input, &LanguageId::parse("en").unwrap()).unwrap();
    User::register(UserId::from_uuid(Uuid::new_v4()), new, now())
}

fn kinds(changes: &[Change]) -> Vec<&str> {
    changes.iter().map(|c| c.kind.as_str()).collect()
}

#[test]
fn a_new_user_names_the_fields_it_was_given() {
    let user = ada();
    let change = user_created(&user);
    assert_eq!(change.kind, ChangeKind::UserCreated);
    assert_eq!(change.resource_id, user.id().as_uuid());
    assert_eq!(
        change.fields,
        ["email", "firstname", "lastname", "languageId", "company"]
    );
}

#[test]
fn a_change_is_told_by_field_names_and_status_not_values() {
    let before = ada();
    let mut after = before.clone();
    after
        .update(
            UserPatch::parse(UserPatchInput {
                lastname: Patch::Set("Byron".into()),
                company: Patch::Clear,
                ..UserPatchInput::default()
            })
            .unwrap(),
        )
        .unwrap();
    after
        .change_email(Email::parse("augusta@example.org").unwrap())
        .unwrap();
    after.deactivate().unwrap();
    let changes = user_changes(&before, &after);
    assert_eq!(
        kinds(&changes),
        ["user.email_changed", "user.updated", "user.deactivated"]
    );
    assert_eq!(changes[1].fields, ["lastname", "company"]);
    let text = format!("{changes:?}");
    assert!(
        !text.contains("Byron") && !text.contains("augusta"),
        "{text}"
    );
    assert!(user_changes(&after, &after).is_empty());
}

#[test]
fn the_lifecycle_has_a_kind_for_each_step() {
    let active = ada();
    let mut pending = active.clone();
    pending.delete(now()).unwrap();
    assert_eq!(kinds(&user_changes(&active, &pending)), ["user.deleted"]);
    let mut back = pending.clone();
    back.cancel_delete(now()).unwrap();
    assert_eq!(
        kinds(&user_changes(&pending, &back)),
        ["user.deletion_cancelled"]
    );
    let mut gone = pending.clone();
    gone.anonymize(now() + chrono::TimeDelta::days(60)).unwrap();
    let changes = user_changes(&pending, &gone);
    assert_eq!(kinds(&changes), ["user.anonymized"]);
    assert!(changes[0].fields.is_empty());
    let mut inactive = active.clone();
    inactive.deactivate().unwrap();
    let mut again = inactive.clone();
    again.reactivate().unwrap();
    assert_eq!(
        kinds(&user_changes(&inactive, &again)),
        ["user.reactivated"]
    );
}

#[test]
fn a_group_change_names_what_changed() {
    let member = UserId::from_uuid(Uuid::new_v4());
    let attributes = |name: &str, members: Vec<String>| {
        GroupAttributes::parse(GroupInput {
            display_name: name.into(),
            external_id: None,
            members,
        })
        .unwrap()
    };
    let group = Group::create(
        GroupId::from_uuid(Uuid::new_v4()),
        attributes("Engineers", Vec::new()),
        now(),
    );
    assert_eq!(group_created(&group).fields, ["displayName"]);
    let mut after = group.clone();
    after.replace(attributes("Engineers", vec![member.to_string()]), now());
    let change = group_changed(&group, &after).unwrap();
    assert_eq!(change.kind, ChangeKind::GroupUpdated);
    assert_eq!(change.fields, ["members"]);
    assert_eq!(group_changed(&after, &after), None);
}

#[test]
fn every_kind_reads_back_from_its_name() {
    let names: Vec<&str> = ChangeKind::NAMES.split(", ").collect();
    for (kind, name) in ChangeKind::ALL.into_iter().zip(&names) {
        assert_eq!(kind.as_str(), *name);
        assert_eq!(ChangeKind::parse(name), Ok(kind));
        assert!(kind.as_str().starts_with(kind.resource().as_str()));
    }
    assert_eq!(names.len(), ChangeKind::ALL.len());
    let refused = ChangeKind::parse("user.renamed").unwrap_err();
    assert_eq!(refused.field, "kinds");
    for kind in ResourceKind::ALL {
        assert_eq!(ResourceKind::parse(kind.as_str()), Ok(kind));
    }
    assert_eq!(
        ResourceKind::parse("robot").unwrap_err().field,
        "resourceType"
    );
    assert_eq!(parse_audit_cursor("42"), Ok(42));
    for bad in ["0", "-1", "x", ""] {
        assert_eq!(parse_audit_cursor(bad).unwrap_err().field, "before");
    }
}

#[test]
fn a_persons_sign_ins_and_outs_go_with_them_and_name_nobody() {
    let user = ada().id().as_uuid();
    let entry = |change: Change| AuditEntry {
        position: 7,
        at: now(),
        actor: Actor::person(user),
        change,
    };
    let signed_in = entry(user_signed_in(user, crate::SignInMethod::Link));
    let signed_out = entry(user_signed_out(user));
    for visit in [&signed_in, &signed_out] {
        assert!(visit.records_use_by(user));
        assert!(!visit.records_use_by(Uuid::new_v4()));
    }
    // What was done to them, or handed out, keeps naming them.
    for kept in [
        user_exported(user),
        hidden_topics_changed(user),
        user_forgotten(user),
    ] {
        assert!(!entry(kept).records_use_by(user));
    }

    let anonymized = signed_in.clone().anonymized();
    assert_eq!(anonymized.change.resource_id, NOBODY);
    assert_eq!(anonymized.actor, Actor::anonymous());
    assert!(!anonymized.actor.name.contains(&user.to_string()));
    assert_eq!(
        (anonymized.position, anonymized.at, anonymized.change.kind),
        (signed_in.position, signed_in.at, signed_in.change.kind)
    );
    assert_eq!(anonymized.change.fields, ["link"]);
}
