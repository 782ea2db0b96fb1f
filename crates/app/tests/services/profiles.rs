//! Profiles and scores on real-looking uploads, read by the real
//! extractor: four people of a small company, each writing five to eight
//! documents, chats and e-mails about their own subject in the words
//! people use at work ("the team", "a number of", "return").

use std::sync::Arc;

use kenning_app::ExpertiseService;
use kenning_domain::{ExpertsLimit, NewUserInput, Raw, UploadInput, UserId, UserTopicsLimit};
use kenning_keyphrase::KeyphraseExtractor;

use super::{expertise, users, world};

/// A person, their subject as someone asks for it, and what they wrote.
struct Writer {
    email: &'static str,
    first: &'static str,
    subject: &'static str,
    texts: &'static [&'static str],
}

const WRITERS: [Writer; 4] = [
    Writer {
        email: "mara@example.com",
        first: "Mara",
        subject: "payroll tax",
        texts: &[
            "The team closed the March payroll run on time. Payroll tax withholding for the new starters was recalculated after the number of allowances changed, and the corrections go out with the April payslips.",
            "Reminder for the team: the quarterly payroll tax return is due on the 15th. I will file the return once the number of employees per state is confirmed by HR.",
            "We found a number of payroll tax errors in the bonus run: the supplemental rate was applied to regular wages. The team is correcting the withholding and will amend the return.",
            "Payroll tax for remote employees depends on the state they work in, not the office. The team updated the payroll tax setup for the number of people who moved this year.",
            "Year-end payroll: W-2 forms are reconciled against the payroll tax deposits, and the annual return matches the quarterly filings. Thanks to the team for the quick turnaround.",
            "The payroll tax audit asked for the deposit schedule and a number of payroll registers. I sent them back with the return for the second quarter.",
        ],
    },
    Writer {
        email: "jonas@example.com",
        first: "Jonas",
        subject: "helm chart",
        texts: &[
            "The team moved the checkout service to a new Helm chart. The chart sets resource limits for every container and the number of replicas per environment.",
            "A failed Helm chart upgrade was rolled back today: the readiness probe never passed, and the pods did not return to service until the old release came back.",
            "Our Helm chart now reads secrets from the external secrets operator instead of the values file. The team should not commit a number of secrets again.",
            "Split the monolithic Helm chart into one chart per service with a shared library chart. Each team owns the chart of its service and the number of templates fell by half.",
            "The Helm chart tests run on every pull request: the chart is rendered, linted and installed into a throwaway cluster, and the job will return its logs to the team.",
            "Upgrading the ingress Helm chart changed a number of default annotations, so the team pinned the chart version until the return of the old behaviour is tested.",
            "Helm chart values for staging and production now live beside the chart, and the team reviews a change to them like code.",
        ],
    },
    Writer {
        email: "ines@example.com",
        first: "Ines",
        subject: "data protection",
        texts: &[
            "The data protection impact assessment for the new analytics tool is done. The team must reduce the number of fields we collect before launch.",
            "A customer asked for the return of all their personal data. Under data protection law we answer within a month; the team exported the records today.",
            "Data protection training is mandatory for the whole team this quarter. A number of people have not finished it yet.",
            "The processor agreement with the email vendor lacks the data protection clauses on sub-processors. I sent it back for a return with the standard clauses.",
            "Our data protection officer reviewed the retention schedule: the team deletes support tickets after two years, and a number of old backups will be purged.",
            "Data protection by design: the new sign-up form asks for the fewest fields, and the team documented the lawful basis for each.",
        ],
    },
    Writer {
        email: "odile@example.com",
        first: "Odile",
        subject: "warehouse robots",
        texts: &[
            "The warehouse robots picked a record number of orders during the sale. The team kept two robots in reserve for returns.",
            "Warehouse robots need their charging docks cleaned every week; the team found a number of docks with bent contacts.",
            "We mapped the new aisle for the warehouse robots. The robots return to the dock when the battery falls under twenty percent.",
            "A firmware update for the warehouse robots fixed the collision stops near the packing stations. The team tested it on a number of night shifts.",
            "Returns are now sorted by the warehouse robots too: each return is scanned and carried to its shelf without the team touching it.",
            "The warehouse robots' route planner cut the number of empty trips by a third, and the team moved two pickers to quality checks.",
            "Safety review of the warehouse robots: the light curtains and emergency stops passed, and the team signed off the new speed limit.",
            "The maintenance team replaced the lidar on three warehouse robots after a number of false stops.",
        ],
    },
];

/// Words of work that are no subject of anyone's: a count, a verb,
/// everybody's "team".
const NO_SUBJECT: [&str; 3] = ["team", "number", "return"];

struct Company {
    expertise: ExpertiseService,
    people: Vec<UserId>,
}

fn company() -> Company {
    let world = world();
    let users = users(&world);
    let expertise = expertise(&world, Arc::new(KeyphraseExtractor::new()));
    let mut people = Vec::new();
    for writer in &WRITERS {
        let user = users
            .create(NewUserInput {
                email: writer.email.to_owned(),
                firstname: writer.first.to_owned(),
                lastname: "Example".to_owned(),
                ..NewUserInput::default()
            })
            .unwrap();
        people.push(user.id());
        for (n, text) in writer.texts.iter().enumerate() {
            let (entity, action) = match n % 3 {
                0 => ("document", "create"),
                1 => ("chat", "post"),
                _ => ("email", "send"),
            };
            expertise
                .upload(UploadInput {
                    entity_type: Raw::Value(entity.into()),
                    action_type: Raw::Value(action.into()),
                    action_date: Raw::Value(format!("2026-02-{:02}T10:00:00.000Z", n + 1)),
                    user_email: Raw::Value(writer.email.into()),
                    text: Raw::Value((*text).into()),
                    action_alias: Raw::Value(format!("{}-{n}", writer.first)),
                    ..UploadInput::default()
                })
                .unwrap();
        }
    }
    Company { expertise, people }
}

#[test]
fn words_of_work_stay_out_of_a_profiles_first_fifteen() {
    let company = company();
    for (writer, user) in WRITERS.iter().zip(&company.people) {
        let topics = company
            .expertise
            .user_topics(*user, UserTopicsLimit::default())
            .unwrap();
        let keys: Vec<&str> = topics.iter().map(|t| t.topic.key.as_str()).collect();
        assert_eq!(keys.len(), 15, "{}: {keys:?}", writer.first);
        for word in NO_SUBJECT {
            assert!(
                !keys.contains(&word),
                "{} has {word:?} among their first fifteen: {keys:?}",
                writer.first
            );
        }
        // The subject, or one of its words (under its stem), first.
        assert!(
            keys[0] == writer.subject || writer.subject.split(' ').any(|w| w.starts_with(keys[0])),
            "{}'s subject stands first: {keys:?}",
            writer.first
        );
    }
}

#[test]
fn the_sole_holder_of_a_subject_with_several_uploads_scores_80_or_more() {
    let company = company();
    for (writer, user) in WRITERS.iter().zip(&company.people) {
        let experts = company
            .expertise
            .experts(writer.subject, ExpertsLimit::default())
            .unwrap();
        let first = experts
            .first()
            .unwrap_or_else(|| panic!("nobody for {}", writer.subject));
        assert_eq!(first.user, *user, "{}", writer.subject);
        assert!(
            first.score >= 80.0,
            "{} scores {} for {:?}",
            writer.first,
            first.score,
            writer.subject
        );
    }
}

#[test]
fn a_subject_asked_in_another_languages_question_scores_as_it_does_bare() {
    // The subject is read again in the question's language: "payroll
    // tax" read as German gives the stem "payroll", which nobody
    // learned, another reading of a word held ("payrol"), not a part of
    // the question nobody knows.
    let company = company();
    for (writer, user) in WRITERS.iter().zip(&company.people) {
        let bare = company
            .expertise
            .experts(writer.subject, ExpertsLimit::default())
            .unwrap();
        for question in [
            format!("Wer kennt sich mit {} aus?", writer.subject),
            format!("Qui est notre expert en {} ?", writer.subject),
        ] {
            let asked = company
                .expertise
                .experts(&question, ExpertsLimit::default())
                .unwrap();
            assert_eq!(asked[0].user, *user, "{question}");
            assert!(
                (asked[0].score - bare[0].score).abs() < 1e-9,
                "{question}: {} against {} bare",
                asked[0].score,
                bare[0].score
            );
        }
    }
}
