use chrono::{Duration, TimeZone};

use super::*;
use crate::profile::{CountryId, LanguageId, Location};
use crate::validation::{FieldViolation, Rule};

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 10, 9, 0, 0).unwrap()
}

fn en() -> LanguageId {
    LanguageId::parse("en").unwrap()
}

fn new_user() -> NewUser {
    NewUser::parse(
        NewUserInput {
            email: "ada@example.com".into(),
            firstname: "Ada".into(),
            lastname: "Lovelace".into(),
            ..Default::default()
        },
        &en(),
    )
    .unwrap()
}

fn user() -> User {
    User::register(UserId::from_uuid(Uuid::nil()), new_user(), t0())
}

/// The states a user can be in, built by moves through the public API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Active,
    Deactivated,
    Pending,
    Deleted,
    SystemActive,
}

const STATES: [State; 5] = [
    State::Active,
    State::Deactivated,
    State::Pending,
    State::Deleted,
    State::SystemActive,
];

fn in_state(state: State) -> User {
    let mut u = user();
    match state {
        State::Active => {}
        State::Deactivated => u.deactivate().unwrap(),
        State::Pending => u.delete(t0()).unwrap(),
        State::Deleted => {
            u.delete(t0()).unwrap();
            u.anonymize(GracePeriod::ends(t0())).unwrap();
        }
        State::SystemActive => u = u.into_system(),
    }
    u
}

#[derive(Debug, Clone, Copy)]
enum Trigger {
    Deactivate,
    Reactivate,
    Delete,
    CancelDelete,
    Anonymize,
    Update,
    ChangeEmail,
}

const TRIGGERS: [Trigger; 7] = [
    Trigger::Deactivate,
    Trigger::Reactivate,
    Trigger::Delete,
    Trigger::CancelDelete,
    Trigger::Anonymize,
    Trigger::Update,
    Trigger::ChangeEmail,
];

/// What a trigger leads to: the status name after it, or the error.
fn fire(user: &mut User, trigger: Trigger, now: DateTime<Utc>) -> Result<&'static str, UserError> {
    match trigger {
        Trigger::Deactivate => user.deactivate(),
        Trigger::Reactivate => user.reactivate(),
        Trigger::Delete => user.delete(now),
        Trigger::CancelDelete => user.cancel_delete(now),
        Trigger::Anonymize => user.anonymize(now),
        Trigger::Update => user.update(
            UserPatch::parse(UserPatchInput {
                firstname: Patch::Set("Augusta".into()),
                ..Default::default()
            })
            .unwrap(),
        ),
        Trigger::ChangeEmail => user.change_email(Email::parse("augusta@example.com").unwrap()),
    }
    .map(|()| user.status().name())
}

fn invalid(action: &'static str, status: &'static str) -> Result<&'static str, UserError> {
    Err(UserError::InvalidTransition { action, status })
}

#[test]
fn every_state_and_trigger_within_the_grace_period() {
    use State::*;
    use Trigger::*;
    let now = t0() + Duration::days(1);
    for state in STATES {
        for trigger in TRIGGERS {
            let mut u = in_state(state);
            let expected: Result<&'static str, UserError> = match (state, trigger) {
                (Active, Deactivate) => Ok("DEACTIVATED"),
                (Active, Reactivate) => Ok("ACTIVE"),
                (Active, Delete) => Ok("PENDING_DELETION"),
                (Active, CancelDelete) => invalid("cancel the deletion of", "ACTIVE"),
                (Active, Anonymize) => invalid("anonymize", "ACTIVE"),
                (Active, Update | ChangeEmail) => Ok("ACTIVE"),

                (Deactivated, Deactivate) => Ok("DEACTIVATED"),
                (Deactivated, Reactivate) => Ok("ACTIVE"),
                (Deactivated, Delete) => Ok("PENDING_DELETION"),
                (Deactivated, CancelDelete) => invalid("cancel the deletion of", "DEACTIVATED"),
                (Deactivated, Anonymize) => invalid("anonymize", "DEACTIVATED"),
                (Deactivated, Update | ChangeEmail) => Ok("DEACTIVATED"),

                (Pending, Deactivate) => Ok("PENDING_DELETION"),
                (Pending, Reactivate) => invalid("reactivate", "PENDING_DELETION"),
                (Pending, Delete) => Ok("PENDING_DELETION"),
                (Pending, CancelDelete) => Ok("DEACTIVATED"),
                (Pending, Anonymize) => invalid("anonymize", "PENDING_DELETION"),
                (Pending, Update | ChangeEmail) => invalid("update", "PENDING_DELETION"),

                (Deleted, Deactivate) => invalid("deactivate", "DELETED"),
                (Deleted, Reactivate) => invalid("reactivate", "DELETED"),
                (Deleted, Delete) => invalid("delete", "DELETED"),
                (Deleted, CancelDelete) => invalid("cancel the deletion of", "DELETED"),
                (Deleted, Anonymize) => invalid("anonymize", "DELETED"),
                (Deleted, Update | ChangeEmail) => invalid("update", "DELETED"),

                (SystemActive, Deactivate) => {
                    Err(UserError::Forbidden("system users cannot be deactivated"))
                }
                (SystemActive, Delete) => {
                    Err(UserError::Forbidden("system users cannot be deleted"))
                }
                (SystemActive, Reactivate | Update | ChangeEmail) => Ok("ACTIVE"),
                (SystemActive, CancelDelete) => invalid("cancel the deletion of", "ACTIVE"),
                (SystemActive, Anonymize) => invalid("anonymize", "ACTIVE"),
            };
            let before = u.clone();
            let got = fire(&mut u, trigger, now);
            assert_eq!(got, expected, "{state:?} x {trigger:?}");
            if got.is_err() {
                assert_eq!(
                    u, before,
                    "a refused {trigger:?} on {state:?} changed the user"
                );
            }
        }
    }
}

#[test]
fn every_state_and_trigger_after_the_grace_period() {
    let now = GracePeriod::ends(t0());
    for state in STATES {
        for trigger in [Trigger::CancelDelete, Trigger::Anonymize] {
            let mut u = in_state(state);
            let got = fire(&mut u, trigger, now);
            match (state, trigger) {
                (State::Pending, Trigger::CancelDelete) => assert_eq!(
                    got,
                    Err(UserError::GracePeriodExpired {
                        scheduled_for: GracePeriod::ends(t0())
                    })
                ),
                (State::Pending, Trigger::Anonymize) => assert_eq!(got, Ok("DELETED")),
                _ => assert!(
                    matches!(got, Err(UserError::InvalidTransition { .. })),
                    "{state:?} x {trigger:?}: {got:?}"
                ),
            }
        }
    }
}

#[test]
fn delete_schedules_exactly_fourteen_days_later_and_keeps_the_first_schedule() {
    let mut u = user();
    u.delete(t0()).unwrap();
    assert_eq!(u.deletion_scheduled_for(), Some(t0() + Duration::days(14)));
    u.delete(t0() + Duration::days(3)).unwrap();
    assert_eq!(u.deletion_scheduled_for(), Some(t0() + Duration::days(14)));
}

#[test]
fn cancel_delete_one_microsecond_before_the_moment_still_works() {
    let moment = GracePeriod::ends(t0());
    let mut u = in_state(State::Pending);
    u.cancel_delete(moment - Duration::microseconds(1)).unwrap();
    assert_eq!(u.status(), Status::Deactivated);
    assert_eq!(u.deletion_scheduled_for(), None);
}

#[test]
fn anonymization_erases_the_profile_and_records_the_moment() {
    let moment = GracePeriod::ends(t0());
    let mut u = in_state(State::Pending);
    assert!(!u.is_due_for_purge(moment - Duration::seconds(1)));
    assert!(u.is_due_for_purge(moment));
    u.anonymize(moment).unwrap();
    assert_eq!(u.profile(), None);
    assert_eq!(u.date_deleted(), Some(moment));
    assert_eq!(u.status().name(), "DELETED");
}

#[test]
fn update_changes_only_what_the_patch_lists() {
    let mut u = user();
    u.update(
        UserPatch::parse(UserPatchInput {
            location: Patch::Set("Zurich".into()),
            country_id: Patch::Set("CH".into()),
            ..Default::default()
        })
        .unwrap(),
    )
    .unwrap();
    let p = u.profile().unwrap();
    assert_eq!(p.location.as_ref().map(Location::as_str), Some("Zurich"));
    assert_eq!(p.country_id.as_ref().map(CountryId::as_str), Some("ch"));
    assert_eq!(p.firstname.as_str(), "Ada");

    u.update(
        UserPatch::parse(UserPatchInput {
            location: Patch::Clear,
            ..Default::default()
        })
        .unwrap(),
    )
    .unwrap();
    let p = u.profile().unwrap();
    assert_eq!(p.location, None);
    assert_eq!(p.country_id.as_ref().map(CountryId::as_str), Some("ch"));
}

#[test]
fn patch_refuses_null_for_required_fields_and_reports_every_bad_field() {
    let errors = UserPatch::parse(UserPatchInput {
        firstname: Patch::Clear,
        lastname: Patch::Set("x".repeat(51)),
        language_id: Patch::Clear,
        country_id: Patch::Set("zz".into()),
        about: Patch::Set("y".repeat(101)),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(
        errors.violations(),
        &[
            FieldViolation::new("firstname", Rule::NotNullable),
            FieldViolation::new("lastname", Rule::TooLong { limit: 50 }),
            FieldViolation::new("languageId", Rule::NotNullable),
            FieldViolation::new("about", Rule::TooLong { limit: 100 }),
            FieldViolation::new("countryId", Rule::UnknownCountry),
        ]
    );
}

#[test]
fn new_user_reports_every_bad_field_and_defaults_the_language() {
    let errors = NewUser::parse(
        NewUserInput {
            email: "not-an-address".into(),
            firstname: " ".into(),
            lastname: "L".repeat(51),
            external_id: Some("e".repeat(251)),
            ..Default::default()
        },
        &en(),
    )
    .unwrap_err();
    assert_eq!(
        errors.violations(),
        &[
            FieldViolation::new("email", Rule::InvalidEmail),
            FieldViolation::new("firstname", Rule::Required),
            FieldViolation::new("lastname", Rule::TooLong { limit: 50 }),
            FieldViolation::new("externalId", Rule::TooLong { limit: 250 }),
        ]
    );
    assert_eq!(new_user().profile().language_id.as_str(), "en");
}

#[test]
fn a_stored_user_must_have_a_profile_exactly_while_not_deleted() {
    let u = in_state(State::Deleted);
    let parts = |status, profile| UserParts {
        id: u.id(),
        created: u.created(),
        modified: u.modified(),
        version: u.version(),
        is_system: false,
        is_hidden: false,
        is_federated: false,
        status,
        profile,
    };
    assert!(User::from_parts(parts(Status::Active, None)).is_err());
    assert!(User::from_parts(parts(u.status(), Some(new_user().0))).is_err());
    assert_eq!(User::from_parts(parts(u.status(), None)).unwrap(), u);
}

#[test]
fn a_user_changes_version_only_as_stored_and_refuses_a_stale_one() {
    let mut u = in_state(State::Active);
    assert_eq!(u.version(), 1);
    assert_eq!(u.modified(), u.created());
    assert!(u.expect_version(1).is_ok());
    let later = u.created() + chrono::Duration::seconds(5);
    u.touch(later);
    assert_eq!(u.modified(), later);
    let u = u.stored_at(2);
    assert_eq!(
        u.expect_version(1),
        Err(UserError::StaleVersion {
            expected: 1,
            current: 2
        })
    );
    assert!(u.expect_version(2).is_ok());
}

#[test]
fn only_active_and_deactivated_users_are_provisioned() {
    for (state, provisioned) in [
        (State::Active, true),
        (State::Deactivated, true),
        (State::Pending, false),
        (State::Deleted, false),
    ] {
        assert_eq!(in_state(state).is_provisioned(), provisioned);
    }
}

#[test]
fn the_learning_statuses_are_named_as_they_learn() {
    let at = t0();
    let all = [
        Status::Active,
        Status::Deactivated,
        Status::PendingDeletion { scheduled_for: at },
        Status::Deleted { at },
    ];
    for status in all {
        assert_eq!(
            status.learns(),
            Status::LEARNING.contains(&status.name()),
            "{}",
            status.name()
        );
    }
    assert!(Status::Active.learns() && Status::Deactivated.learns());
}

/// The parts an [`Erasure`] was asked to erase, in order.
#[derive(Default)]
struct Erased(Vec<String>);

impl Erasure for Erased {
    type Error = ();
    fn erase_expertise(&mut self) -> Result<(), ()> {
        self.0.push("expertise".to_owned());
        Ok(())
    }
    fn leave_groups(&mut self, at: DateTime<Utc>) -> Result<(), ()> {
        self.0.push(format!("groups at {at}"));
        Ok(())
    }
    fn anonymize_use(&mut self) -> Result<(), ()> {
        self.0.push("use".to_owned());
        Ok(())
    }
}

#[test]
fn only_the_change_that_anonymizes_erases() {
    let active = in_state(State::Active);
    let pending = in_state(State::Pending);
    let deleted = in_state(State::Deleted);
    let mut erased = Erased::default();
    pending.erase_if_anonymized(&active, &mut erased).unwrap();
    deleted.erase_if_anonymized(&deleted, &mut erased).unwrap();
    active.erase_if_anonymized(&active, &mut erased).unwrap();
    assert!(erased.0.is_empty(), "{:?}", erased.0);

    deleted.erase_if_anonymized(&pending, &mut erased).unwrap();
    assert_eq!(
        erased.0,
        [
            "expertise".to_owned(),
            format!("groups at {}", deleted.modified()),
            "use".to_owned(),
        ]
    );
}

#[test]
fn the_status_changes_offered_are_those_that_change_the_status() {
    use StatusChange::*;
    let offered = |state, now| in_state(state).status_changes(now);
    assert_eq!(offered(State::Active, t0()), [Deactivate, Delete]);
    assert_eq!(offered(State::Deactivated, t0()), [Reactivate, Delete]);
    assert_eq!(offered(State::Pending, t0()), [CancelDeletion]);
    // Past the grace period, a deletion cannot be taken back.
    let late = GracePeriod::ends(t0()) + Duration::seconds(1);
    assert!(offered(State::Pending, late).is_empty());
    assert!(offered(State::Deleted, t0()).is_empty());
    // Kenning's own user is never deactivated or deleted.
    assert!(offered(State::SystemActive, t0()).is_empty());
}
