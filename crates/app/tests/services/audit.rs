//! Every change a use case makes is recorded in the audit trail with who
//! made it, newest first, by field names only, and pruned by age.

use std::sync::Arc;

use chrono::Duration;
use kenning_app::{AuditService, CredentialService, GroupService, UserService, PRUNE_BATCH};
use kenning_clock::ManualClock;
use kenning_domain::{
    Actor, AuditLimit, ChangeKind, Channel, CredentialKind, GroupInput, LanguageId, NewUserInput,
    Patch, ResourceKind, Scope, UserPatchInput,
};
use kenning_ports::AuditQuery;
use uuid::Uuid;

use super::world;

struct Services {
    clock: Arc<ManualClock>,
    users: UserService,
    groups: GroupService,
    credentials: CredentialService,
    audit: AuditService,
}

fn services(actor: &Actor) -> Services {
    let (store, clock) = world();
    Services {
        users: UserService::new(
            store.clone(),
            clock.clone(),
            LanguageId::parse("en").unwrap(),
        )
        .acting_as(actor.clone()),
        groups: GroupService::new(store.clone(), store.clone(), clock.clone())
            .acting_as(actor.clone()),
        credentials: CredentialService::new(store.clone(), clock.clone()).acting_as(actor.clone()),
        audit: AuditService::new(store, clock.clone()),
        clock,
    }
}

fn admin() -> Actor {
    Actor::credential(Uuid::new_v4(), "provisioner", Channel::Scim)
}

fn all(audit: &AuditService) -> Vec<kenning_domain::AuditEntry> {
    audit
        .entries(AuditQuery::default(), AuditLimit::parse(500).unwrap())
        .unwrap()
        .entries
}

fn kinds(entries: &[kenning_domain::AuditEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.change.kind.as_str()).collect()
}

#[test]
fn every_change_is_recorded_with_its_actor_newest_first() {
    let actor = admin();
    let s = services(&actor);
    let user = s
        .users
        .create(NewUserInput {
            email: "ada@example.org".into(),
            firstname: "Ada".into(),
            lastname: "Lovelace".into(),
            ..NewUserInput::default()
        })
        .unwrap();
    let rename = UserPatchInput {
        lastname: Patch::Set("Byron".into()),
        ..UserPatchInput::default()
    };
    s.users.update(user.id(), rename, None).unwrap();
    s.users
        .update_email(user.id(), "augusta@example.org", None)
        .unwrap();
    s.users.deactivate(user.id()).unwrap();
    s.users.reactivate(user.id()).unwrap();
    let group = s
        .groups
        .create(GroupInput {
            display_name: "Engineers".into(),
            external_id: None,
            members: vec![user.id().to_string()],
        })
        .unwrap();
    s.users.delete(user.id()).unwrap();
    s.users.cancel_delete(user.id()).unwrap();
    s.users.delete(user.id()).unwrap();
    s.clock.advance(Duration::days(31));
    assert_eq!(s.users.purge_due().unwrap(), 1);
    s.groups.delete(group.id(), None).unwrap();
    let issued = s
        .credentials
        .issue(
            CredentialKind::AccessToken,
            "robot",
            &[Scope::UsersRead],
            None,
        )
        .unwrap();
    s.credentials
        .revoke(CredentialKind::AccessToken, issued.credential.id)
        .unwrap();

    let entries = all(&s.audit);
    let mut expected = vec![
        "user.created",
        "user.updated",
        "user.email_changed",
        "user.deactivated",
        "user.reactivated",
        "group.created",
        "user.deleted",
        "user.deletion_cancelled",
        "user.deleted",
        "user.anonymized",
        "group.updated",
        "group.deleted",
        "credential.issued",
        "credential.revoked",
    ];
    expected.reverse();
    assert_eq!(kinds(&entries), expected);
    let positions: Vec<u64> = entries.iter().map(|e| e.position).collect();
    assert!(positions.windows(2).all(|w| w[0] > w[1]), "{positions:?}");
    for entry in &entries {
        let by_purge = matches!(
            entry.change.kind,
            ChangeKind::UserAnonymized | ChangeKind::GroupUpdated
        );
        let expected = if by_purge {
            Actor::purge()
        } else {
            actor.clone()
        };
        assert_eq!(entry.actor, expected, "{entry:?}");
    }
    let updated = entries
        .iter()
        .find(|e| e.change.kind == ChangeKind::UserUpdated)
        .unwrap();
    assert_eq!(updated.change.fields, ["lastname"]);
    assert_eq!(updated.change.resource_id, user.id().as_uuid());
    let left = entries
        .iter()
        .find(|e| e.change.kind == ChangeKind::GroupUpdated)
        .unwrap();
    assert_eq!(left.change.resource_id, group.id().as_uuid());
    assert_eq!(left.change.fields, ["members"]);
    // Names, not values: nothing personal stays in the trail.
    let text = format!("{entries:?}");
    for personal in ["ada@", "augusta@", "Ada", "Lovelace", "Byron"] {
        assert!(!text.contains(personal), "{personal} in {text}");
    }
}

#[test]
fn the_trail_is_read_a_page_at_a_time_and_filtered() {
    let actor = admin();
    let s = services(&actor);
    let mut ids = Vec::new();
    for n in 0..5 {
        let user = s
            .users
            .create(NewUserInput {
                email: format!("p{n}@example.org"),
                firstname: "P".into(),
                lastname: format!("{n}"),
                ..NewUserInput::default()
            })
            .unwrap();
        ids.push(user.id());
        s.clock.advance(Duration::minutes(1));
    }
    let other = s.users.acting_as(Actor::cli());
    other.deactivate(ids[0]).unwrap();

    let two = AuditLimit::parse(2).unwrap();
    let first = s.audit.entries(AuditQuery::default(), two).unwrap();
    assert_eq!(kinds(&first.entries), ["user.deactivated", "user.created"]);
    let second = s
        .audit
        .entries(
            AuditQuery {
                before: first.next,
                ..AuditQuery::default()
            },
            two,
        )
        .unwrap();
    assert_eq!(second.entries.len(), 2);
    assert!(second.entries[0].position < first.entries[1].position);
    let rest = s
        .audit
        .entries(
            AuditQuery {
                before: second.next,
                ..AuditQuery::default()
            },
            two,
        )
        .unwrap();
    assert_eq!(rest.entries.len(), 2);
    assert_eq!(rest.next, None, "the last page says so");

    let of_one = |query: AuditQuery| {
        s.audit
            .entries(query, AuditLimit::default())
            .unwrap()
            .entries
    };
    let about_first = of_one(AuditQuery {
        resource_id: Some(ids[0].as_uuid()),
        ..AuditQuery::default()
    });
    assert_eq!(kinds(&about_first), ["user.deactivated", "user.created"]);
    let by_credential = of_one(AuditQuery {
        credential_id: actor.credential_id,
        ..AuditQuery::default()
    });
    assert_eq!(by_credential.len(), 5);
    let deactivations = of_one(AuditQuery {
        kinds: vec![ChangeKind::UserDeactivated],
        ..AuditQuery::default()
    });
    assert_eq!(deactivations.len(), 1);
    assert_eq!(deactivations[0].actor, Actor::cli());
    let start = super::start();
    let window = of_one(AuditQuery {
        from: Some(start + Duration::minutes(1)),
        until: Some(start + Duration::minutes(3)),
        ..AuditQuery::default()
    });
    assert_eq!(window.len(), 2, "from included, until not");
    let groups = of_one(AuditQuery {
        resource_kind: Some(ResourceKind::Group),
        ..AuditQuery::default()
    });
    assert!(groups.is_empty());
}

#[test]
fn entries_older_than_the_retention_are_pruned_in_batches() {
    let actor = admin();
    let s = services(&actor);
    let old = PRUNE_BATCH as usize + 5;
    for n in 0..old {
        s.credentials
            .issue(CredentialKind::ApiKey, &format!("k{n}"), &[], None)
            .unwrap();
    }
    s.clock.advance(Duration::days(10));
    s.credentials
        .issue(CredentialKind::ApiKey, "recent", &[], None)
        .unwrap();
    assert_eq!(s.audit.prune(30).unwrap(), 0, "nothing is old yet");
    s.clock.advance(Duration::days(25));
    assert_eq!(s.audit.prune(30).unwrap(), old as u64);
    let kept = all(&s.audit);
    assert_eq!(kept.len(), 1);
}
