//! Every public method of every service, with the rule that keeps a door
//! from doing through it what its caller may not: a new method cannot be
//! added without its row, and a row is checked against the method's body
//! (the operation it asks, the method it goes through, or that it reads
//! no stored data).

use std::collections::BTreeMap;
use std::path::Path;

/// How a public method of a service keeps to the access rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// It asks `Caller::require` for this `Operation` first.
    Asks(&'static str),
    /// It goes through this other public method of the service, which
    /// asks.
    Through(&'static str),
    /// It makes the service, for the operator.
    Constructs,
    /// It configures the service, and on one narrowed to a door gives it
    /// back unchanged (it asks whether the caller is the operator).
    Builds,
    /// It reads the service's own settings: no stored data, nothing that
    /// can fail.
    OwnSettings,
    /// Anyone may: what answers a request before its caller is known, for
    /// the reason given.
    Anyone(&'static str),
}

/// (service, method, rule), for every public method of every service.
const ROWS: &[(&str, &str, Rule)] = &[
    ("AuditService", "new", Rule::Constructs),
    ("AuditService", "entries", Rule::Asks("ReadAudit")),
    ("AuditService", "prune", Rule::Asks("RunRound")),
    ("ConnectorService", "new", Rule::Constructs),
    ("ConnectorService", "record_run", Rule::Asks("ReportRun")),
    (
        "ConnectorService",
        "sources",
        Rule::Asks("ReadConnectorRuns"),
    ),
    (
        "ConnectorService",
        "runs_of",
        Rule::Asks("ReadConnectorRuns"),
    ),
    ("CredentialService", "new", Rule::Constructs),
    ("CredentialService", "with_administrators", Rule::Builds),
    ("CredentialService", "acting_as", Rule::Builds),
    ("CredentialService", "with_cache_capacity", Rule::Builds),
    (
        "CredentialService",
        "issue",
        Rule::Asks("ManageCredentials"),
    ),
    ("CredentialService", "issuable_scopes", Rule::OwnSettings),
    (
        "CredentialService",
        "issue_first_admin_token",
        Rule::Asks("ManageCredentials"),
    ),
    ("CredentialService", "list", Rule::Asks("ManageCredentials")),
    (
        "CredentialService",
        "revoke",
        Rule::Asks("ManageCredentials"),
    ),
    (
        "CredentialService",
        "authenticate",
        Rule::Anyone("checks a presented credential, for anyone"),
    ),
    ("GroupService", "new", Rule::Constructs),
    ("GroupService", "with_administrators", Rule::Builds),
    ("GroupService", "acting_as", Rule::Builds),
    ("GroupService", "create", Rule::Asks("WriteUsers")),
    ("GroupService", "get", Rule::Asks("ReadGroups")),
    ("GroupService", "list", Rule::Asks("ReadGroups")),
    ("GroupService", "replace", Rule::Asks("WriteUsers")),
    ("GroupService", "patch", Rule::Asks("WriteUsers")),
    (
        "GroupService",
        "add_member_by_email",
        Rule::Asks("WriteUsers"),
    ),
    ("GroupService", "remove_member", Rule::Through("patch")),
    ("GroupService", "names", Rule::Asks("ReadGroups")),
    ("GroupService", "groups_of", Rule::Asks("ReadGroups")),
    ("GroupService", "groups_of_all", Rule::Asks("ReadGroups")),
    ("GroupService", "delete", Rule::Asks("WriteUsers")),
    ("PrivacyService", "new", Rule::Constructs),
    ("PrivacyService", "acting_as", Rule::Builds),
    ("PrivacyService", "rules", Rule::Asks("ReadLearningRules")),
    ("PrivacyService", "set_rule", Rule::Asks("SetLearningRules")),
    ("PrivacyService", "learning_of", Rule::Asks("ReadDataOf")),
    (
        "PrivacyService",
        "set_learning",
        Rule::Asks("ChangeLearningOf"),
    ),
    ("PrivacyService", "forget", Rule::Asks("ChangeLearningOf")),
    ("PrivacyService", "forget_expired", Rule::Asks("RunRound")),
    ("PrivacyService", "asked", Rule::Asks("ReadAskedSubjects")),
    ("PrivacyService", "prune_asked", Rule::Asks("RunRound")),
    ("PrivacyService", "export", Rule::Asks("ReadDataOf")),
    ("SessionService", "new", Rule::Constructs),
    ("SessionService", "policy", Rule::OwnSettings),
    (
        "SessionService",
        "sign_in_as",
        Rule::Anyone("signs in a person an identity provider vouched for"),
    ),
    (
        "SessionService",
        "issue_link",
        Rule::Anyone("sends a sign-in link, for anyone"),
    ),
    (
        "SessionService",
        "sign_in_with_link",
        Rule::Anyone("signs in with a link, for anyone"),
    ),
    (
        "SessionService",
        "session",
        Rule::Anyone("finds the session a cookie names"),
    ),
    (
        "SessionService",
        "sign_out",
        Rule::Anyone("ends the session presented"),
    ),
    ("SessionService", "prune", Rule::Asks("RunRound")),
    ("UserService", "new", Rule::Constructs),
    ("UserService", "with_administrators", Rule::Builds),
    ("UserService", "with_writers", Rule::Builds),
    ("UserService", "acting_as", Rule::Builds),
    ("UserService", "create", Rule::Through("create_as")),
    ("UserService", "create_as", Rule::Asks("WriteUsers")),
    ("UserService", "may_read", Rule::Asks("ReadUsers")),
    ("UserService", "filter", Rule::Asks("ReadUsers")),
    ("UserService", "get", Rule::Asks("ReadUsers")),
    ("UserService", "get_for_change", Rule::Asks("WriteUsers")),
    ("UserService", "get_by_key", Rule::Asks("ReadUsers")),
    ("UserService", "get_many", Rule::Asks("ReadUsers")),
    ("UserService", "search", Rule::Asks("ReadUsers")),
    ("UserService", "search_after", Rule::Asks("ReadUsers")),
    ("UserService", "update", Rule::Asks("WriteUsers")),
    ("UserService", "update_email", Rule::Asks("WriteUsers")),
    ("UserService", "replace", Rule::Asks("WriteUsers")),
    ("UserService", "patch", Rule::Asks("WriteUsers")),
    ("UserService", "deactivate", Rule::Asks("WriteUsers")),
    ("UserService", "reactivate", Rule::Asks("WriteUsers")),
    ("UserService", "delete", Rule::Through("delete_expecting")),
    ("UserService", "delete_expecting", Rule::Asks("WriteUsers")),
    ("UserService", "status_changes", Rule::OwnSettings),
    ("UserService", "cancel_delete", Rule::Asks("WriteUsers")),
    ("UserService", "purge_due", Rule::Asks("RunRound")),
    ("WebhookService", "new", Rule::Constructs),
    ("WebhookService", "subscribe", Rule::Asks("ManageWebhooks")),
    (
        "WebhookService",
        "subscriptions",
        Rule::Asks("ManageWebhooks"),
    ),
    (
        "WebhookService",
        "unsubscribe",
        Rule::Asks("ManageWebhooks"),
    ),
    ("WebhookService", "resume", Rule::Asks("ManageWebhooks")),
    ("WebhookService", "counts", Rule::Asks("ManageWebhooks")),
    ("WebhookService", "deliver_due", Rule::Asks("RunRound")),
    ("UserService", "identify", Rule::Asks("IdentifyPeople")),
    ("ExpertiseService", "with_embedder", Rule::Builds),
    (
        "ExpertiseService",
        "with_other_languages_embedder",
        Rule::Builds,
    ),
    ("ExpertiseService", "meaning_model", Rule::OwnSettings),
    ("ExpertiseService", "meaning_topics", Rule::OwnSettings),
    (
        "ExpertiseService",
        "refresh_meanings",
        Rule::Asks("RunRound"),
    ),
    (
        "ExpertiseService",
        "declare_topic",
        Rule::Asks("DeclareTopicsOf"),
    ),
    (
        "ExpertiseService",
        "withdraw_topic",
        Rule::Asks("DeclareTopicsOf"),
    ),
    (
        "ExpertiseService",
        "declared_topics",
        Rule::Asks("ReadExpertise"),
    ),
    ("ExpertiseService", "experts", Rule::Through("experts_in")),
    (
        "ExpertiseService",
        "experts_in",
        Rule::Asks("ReadExpertise"),
    ),
    (
        "ExpertiseService",
        "experts_read",
        Rule::Asks("ReadExpertise"),
    ),
    (
        "ExpertiseService",
        "explained",
        Rule::Through("experts_read"),
    ),
    (
        "ExpertiseService",
        "read_query",
        Rule::Asks("ReadExpertise"),
    ),
    (
        "ExpertiseService",
        "scored_standings",
        Rule::Asks("ReadDataOf"),
    ),
    (
        "ExpertiseService",
        "user_topics",
        Rule::Asks("ReadExpertise"),
    ),
    (
        "ExpertiseService",
        "set_topic_hidden",
        Rule::Asks("ChangeTopicsOf"),
    ),
    (
        "ExpertiseService",
        "hidden_topics",
        Rule::Asks("ReadHiddenTopicsOf"),
    ),
    (
        "ExpertiseService",
        "hidden_topics_labelled",
        Rule::Through("hidden_topics"),
    ),
    (
        "ExpertiseService",
        "evidence_of",
        Rule::Asks("ReadExpertise"),
    ),
    (
        "ExpertiseService",
        "related_topics",
        Rule::Asks("ReadExpertise"),
    ),
    (
        "ExpertiseService",
        "related_topics_of",
        Rule::Asks("ReadExpertise"),
    ),
    ("ExpertiseService", "new", Rule::Constructs),
    ("ExpertiseService", "with_writers", Rule::Builds),
    ("ExpertiseService", "with_privacy", Rule::Builds),
    (
        "ExpertiseService",
        "flush_asked",
        Rule::Anyone("writes the counts of what callers already asked"),
    ),
    (
        "ExpertiseService",
        "rebuild_standings",
        Rule::Asks("RunRound"),
    ),
    ("ExpertiseService", "acting_as", Rule::Builds),
    ("ExpertiseService", "person", Rule::Asks("ReadExpertise")),
    ("ExpertiseService", "people", Rule::Asks("ReadExpertise")),
    (
        "ExpertiseService",
        "learns_about",
        Rule::Asks("ReadExpertise"),
    ),
    ("ExpertiseService", "scoring", Rule::OwnSettings),
    ("ExpertiseService", "upload", Rule::Through("upload_all")),
    ("ExpertiseService", "upload_all", Rule::Asks("Upload")),
];

/// Every `pub fn` inside an `impl …Service {` block of the crate's
/// sources, with its body, as rustfmt lays them out.
fn public_methods() -> BTreeMap<(String, String), String> {
    let mut found = BTreeMap::new();
    let mut files = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(
                std::fs::read_dir(&path)
                    .unwrap()
                    .map(|entry| entry.unwrap().path()),
            );
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut service: Option<&str> = None;
        for (at, line) in lines.iter().enumerate() {
            if line.starts_with("impl") && line.contains("Service") {
                let name = line
                    .strip_prefix("impl ")
                    .and_then(|rest| rest.strip_suffix(" {"))
                    .filter(|name| name.chars().all(char::is_alphanumeric));
                // Only a plain `impl XService {` is read: a generic impl of
                // a service would hide its methods.
                assert!(
                    name.is_some() || line.contains(" for "),
                    "{}: an impl of a service this check cannot read: {line}",
                    path.display()
                );
                service = name.filter(|name| name.ends_with("Service"));
                continue;
            }
            if *line == "}" {
                service = None;
                continue;
            }
            let Some(service) = service else {
                continue;
            };
            if let Some(rest) = line.strip_prefix("    pub ") {
                assert!(
                    ["fn ", "(crate) ", "(super) "]
                        .iter()
                        .any(|read| rest.starts_with(read)),
                    "{}: a public item of a service this check cannot read: {line}",
                    path.display()
                );
            }
            if let Some(rest) = line.strip_prefix("    pub fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let end = lines[at..]
                    .iter()
                    .position(|l| *l == "    }")
                    .unwrap_or_else(|| panic!("{service}::{name} has no end"));
                let body = lines[at..=at + end].join("\n");
                found.insert((service.to_owned(), name), body);
            }
        }
    }
    found
}

#[test]
fn every_public_method_of_every_service_has_its_row_and_keeps_to_it() {
    let methods = public_methods();
    assert!(methods.len() > 100, "found only {} methods", methods.len());
    let rows: BTreeMap<(String, String), Rule> = ROWS
        .iter()
        .map(|(service, method, rule)| (((*service).to_owned(), (*method).to_owned()), *rule))
        .collect();
    assert_eq!(rows.len(), ROWS.len(), "a row is written twice");
    let missing: Vec<_> = methods.keys().filter(|m| !rows.contains_key(*m)).collect();
    assert!(
        missing.is_empty(),
        "public methods without a row: {missing:?}"
    );
    let gone: Vec<_> = rows.keys().filter(|m| !methods.contains_key(*m)).collect();
    assert!(gone.is_empty(), "rows of no public method: {gone:?}");
    for ((service, method), rule) in &rows {
        let body = &methods[&(service.clone(), method.clone())];
        match rule {
            Rule::Asks(operation) => assert!(
                ["(", ")"].iter().any(|next| body
                    .contains(&format!("self.caller.require(Operation::{operation}{next}"))),
                "{service}::{method} does not ask for {operation}"
            ),
            Rule::Constructs => assert!(
                body.contains("caller: Caller::operator()"),
                "{service}::{method} makes a service for someone else than the operator"
            ),
            Rule::Builds => assert!(
                body.contains("if !self.caller.is_operator() {"),
                "{service}::{method} builds on a service narrowed to a door"
            ),
            Rule::Through(other) => {
                assert!(
                    body.contains(&format!(".{other}(")),
                    "{service}::{method} does not go through {other}"
                );
                assert!(
                    matches!(
                        rows.get(&(service.clone(), (*other).to_owned())),
                        Some(Rule::Asks(_))
                    ),
                    "{service}::{method} goes through {other}, which does not ask"
                );
            }
            Rule::OwnSettings => assert!(
                !body.contains('?') && !body.contains("Result<"),
                "{service}::{method} can fail, so it reads more than its settings: it must ask"
            ),
            Rule::Anyone(_) => assert!(
                *service == "SessionService"
                    || *method == "authenticate"
                    || *method == "flush_asked",
                "{service}::{method} answers anyone, which only signing in, checking a \
                 credential and writing what was asked do"
            ),
        }
    }
}
