//! The audit trail kept by every store alike: each write records what the
//! domain says it changed, under its attribution, in the same step; a
//! refused write records nothing; reads follow `AuditQuery::matches`,
//! newest first; pruning takes the oldest first, a bounded number a step.

use std::sync::Arc;

use chrono::Duration;
use kenning_domain::{
    Actor, Attribution, AuditEntry, ChangeKind, Channel, CredentialKind, ResourceKind, UserPatch,
    UserPatchInput,
};
use kenning_ports::{
    AuditQuery, AuditTrail, CredentialStore, StoreError, TopicListChange, UserStore,
};
use kenning_test_macros::contract_check;
use uuid::Uuid;

use super::{adapters, by_at, credential, group_of, new_user, now, Store};

fn everything<S: AuditTrail + ?Sized>(store: &S) -> Vec<AuditEntry> {
    store.audit_entries(&AuditQuery::default(), 10_000).unwrap()
}

fn kinds(entries: &[AuditEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.change.kind.as_str()).collect()
}

#[contract_check]
fn every_write_records_its_changes_in_the_same_step(store: Arc<impl Store>) {
    let scim = Actor::credential(Uuid::new_v4(), "idp", Channel::Scim);
    let at = |minutes: i64| Attribution::new(scim.clone(), now() + Duration::minutes(minutes));
    let ada = new_user("ada@example.com", "Ada", "Lovelace", Some("e-1"));
    UserStore::insert(&*store, &ada, &at(0)).unwrap();
    let taken = new_user("ADA@example.com", "Other", "Ada", None);
    assert_eq!(
        UserStore::insert(&*store, &taken, &at(1)),
        Err(StoreError::Conflict { field: "email" })
    );
    let team = group_of("Team", None, &[&ada]);
    store.insert_group(&team, &at(2)).unwrap();
    let moved = UserPatch::parse(UserPatchInput {
        location: kenning_domain::Patch::Set("London".into()),
        ..UserPatchInput::default()
    })
    .unwrap();
    store
        .modify(ada.id(), &at(3), &mut |u| u.update(moved.clone()))
        .unwrap();
    // A refused change records nothing.
    assert!(store
        .modify(ada.id(), &at(4), &mut |u| u.expect_version(99))
        .is_err());
    store
        .modify(ada.id(), &at(5), &mut |u| u.delete(now()))
        .unwrap();
    let purge = Attribution::new(Actor::purge(), now() + Duration::days(20));
    store
        .modify(ada.id(), &purge, &mut |u| u.anonymize(purge.at))
        .unwrap();
    let key = credential(CredentialKind::ApiKey, "connector", 6);
    CredentialStore::insert(&*store, &key, &at(6)).unwrap();
    assert!(store
        .revoke(CredentialKind::ApiKey, key.id, &at(7))
        .unwrap());
    assert!(!store
        .revoke(CredentialKind::ApiKey, key.id, &at(8))
        .unwrap());
    store.delete_group(team.id(), None, &at(9)).unwrap();

    let entries = everything(&*store);
    assert_eq!(
        kinds(&entries),
        [
            "group.deleted",
            "credential.revoked",
            "credential.issued",
            "group.updated",
            "user.anonymized",
            "user.deleted",
            "user.updated",
            "group.created",
            "user.created",
        ]
    );
    let positions: Vec<u64> = entries.iter().map(|e| e.position).collect();
    assert!(positions.windows(2).all(|w| w[0] > w[1]), "{positions:?}");
    let created = &entries[8];
    assert_eq!(created.actor, scim);
    assert_eq!(created.at, now());
    assert_eq!(created.change.resource_id, ada.id().as_uuid());
    assert_eq!(
        created.change.fields,
        ["email", "firstname", "lastname", "externalId", "languageId"]
    );
    assert_eq!(entries[6].change.fields, ["location"]);
    assert_eq!(entries[6].at, now() + Duration::minutes(3));
    for left in [&entries[3], &entries[4]] {
        assert_eq!(left.actor, Actor::purge());
        assert_eq!(left.at, purge.at);
    }
    assert_eq!(entries[3].change.resource_id, team.id().as_uuid());
    assert_eq!(entries[3].change.fields, ["members"]);
    assert_eq!(entries[2].change.resource_id, key.id);
}

#[contract_check]
fn reads_follow_the_query_rule_newest_first(store: Arc<impl Store>) {
    let one = Actor::credential(Uuid::new_v4(), "one", Channel::GraphQl);
    let two = Actor::credential(Uuid::new_v4(), "two", Channel::Scim);
    let mut users = Vec::new();
    for n in 0..6i64 {
        let actor = if n % 2 == 0 { &one } else { &two };
        let by = Attribution::new(actor.clone(), now() + Duration::minutes(n));
        let user = new_user(&format!("u{n}@example.com"), "U", &format!("{n}"), None);
        UserStore::insert(&*store, &user, &by).unwrap();
        users.push(user);
    }
    store
        .modify(
            users[1].id(),
            &by_at(now() + Duration::minutes(10)),
            &mut |u| u.deactivate(),
        )
        .unwrap();
    let key = credential(CredentialKind::AccessToken, "t", 11);
    CredentialStore::insert(&*store, &key, &by_at(now() + Duration::minutes(11))).unwrap();
    let all = everything(&*store);
    assert_eq!(all.len(), 8);

    let queries = [
        AuditQuery {
            resource_id: Some(users[1].id().as_uuid()),
            ..AuditQuery::default()
        },
        AuditQuery {
            credential_id: two.credential_id,
            ..AuditQuery::default()
        },
        AuditQuery {
            kinds: vec![ChangeKind::UserDeactivated, ChangeKind::CredentialIssued],
            ..AuditQuery::default()
        },
        AuditQuery {
            resource_kind: Some(ResourceKind::User),
            from: Some(now() + Duration::minutes(2)),
            until: Some(now() + Duration::minutes(10)),
            ..AuditQuery::default()
        },
        AuditQuery {
            before: Some(all[3].position),
            ..AuditQuery::default()
        },
        AuditQuery {
            resource_kind: Some(ResourceKind::Group),
            ..AuditQuery::default()
        },
    ];
    for query in queries {
        let expected: Vec<AuditEntry> = all.iter().filter(|e| query.matches(e)).cloned().collect();
        for limit in [1, 2, 100] {
            let read = store.audit_entries(&query, limit).unwrap();
            let wanted: Vec<AuditEntry> = expected.iter().take(limit as usize).cloned().collect();
            assert_eq!(read, wanted, "{query:?}");
        }
    }
}

#[contract_check]
fn pruning_takes_the_oldest_first_a_bounded_step_at_a_time(store: Arc<impl Store>) {
    for n in 0..5i64 {
        let key = credential(CredentialKind::ApiKey, &format!("k{n}"), n);
        CredentialStore::insert(&*store, &key, &by_at(now() + Duration::days(n))).unwrap();
    }
    let cutoff = now() + Duration::days(3);
    assert_eq!(store.prune_audit(cutoff, 2).unwrap(), 2);
    let left = everything(&*store);
    assert_eq!(left.len(), 3);
    assert_eq!(left.last().unwrap().at, now() + Duration::days(2));
    assert_eq!(store.prune_audit(cutoff, 2).unwrap(), 1);
    assert_eq!(store.prune_audit(cutoff, 2).unwrap(), 0);
    let kept: Vec<_> = everything(&*store).iter().map(|e| e.at).collect();
    assert_eq!(kept, [now() + Duration::days(4), now() + Duration::days(3)]);
}

#[contract_check]
fn a_topic_hidden_or_shown_is_recorded_when_it_changes_something(store: Arc<impl Store>) {
    let ada = new_user("ada@example.com", "Ada", "Lovelace", None);
    UserStore::insert(&*store, &ada, &by_at(now())).unwrap();
    let person = Actor::credential(Uuid::new_v4(), "ada's app", Channel::GraphQl);
    let by = Attribution::new(person.clone(), now() + Duration::minutes(1));
    let hide = |hidden| {
        store
            .set_hidden(ada.id(), &["helm"], hidden, 10, &by)
            .unwrap()
    };
    assert_eq!(hide(true), TopicListChange::Changed);
    assert_eq!(hide(true), TopicListChange::Unchanged);
    assert_eq!(hide(false), TopicListChange::Changed);
    let entries = everything(&*store);
    assert_eq!(
        kinds(&entries),
        ["user.updated", "user.updated", "user.created"]
    );
    for entry in &entries[..2] {
        assert_eq!(entry.change.fields, ["hiddenTopics"]);
        assert_eq!(entry.change.resource_id, ada.id().as_uuid());
        assert_eq!(entry.actor, person);
    }
    let text = format!("{entries:?}");
    assert!(!text.contains("helm"), "the topic is the person's: {text}");
}
