//! An audit entry as the document a webhook carries: a CloudEvents 1.0
//! event in JSON (structured mode).

use cloudevents::{EventBuilder, EventBuilderV10};
use kenning_domain::AuditEntry;
use serde_json::json;
use uuid::Uuid;

/// The media type of a structured-mode CloudEvent in JSON.
pub const CONTENT_TYPE: &str = "application/cloudevents+json";

/// What every event's `type` starts with; the kind of change follows
/// (`io.kenning.user.created`).
pub const TYPE_PREFIX: &str = "io.kenning.";

/// The longest event source accepted, in characters.
pub const MAX_SOURCE_CHARS: usize = 512;

/// The namespace of event ids (UUID version 5).
const EVENT_ID_NAMESPACE: Uuid = Uuid::from_u128(0xf8cf261b_6da4_41ef_bd28_7e1b8ea5a831);

/// Who produces the events: the CloudEvents `source`, a URI reference the
/// operator may set (an absolute URI such as
/// `https://kenning.example.org` or `urn:kenning:acme`, or a path such as
/// `/kenning`, the default).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EventSource(String);

impl EventSource {
    /// `raw` as an event source: at most [`MAX_SOURCE_CHARS`] characters
    /// without spaces or control characters; with a scheme, an absolute
    /// URI.
    pub fn parse(raw: &str) -> Result<Self, InvalidSource> {
        if raw.is_empty() {
            return Err(InvalidSource::Empty);
        }
        if raw.chars().count() > MAX_SOURCE_CHARS {
            return Err(InvalidSource::TooLong {
                limit: MAX_SOURCE_CHARS,
            });
        }
        if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(InvalidSource::Unprintable);
        }
        let has_scheme = raw
            .split_once(':')
            .is_some_and(|(scheme, _)| !scheme.contains(['/', '?', '#']));
        if has_scheme && url::Url::parse(raw).is_err() {
            return Err(InvalidSource::NotAUri);
        }
        Ok(Self(raw.to_owned()))
    }

    /// The source as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for EventSource {
    fn default() -> Self {
        Self("/kenning".to_owned())
    }
}

/// Why [`EventSource::parse`] refused a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvalidSource {
    /// Nothing was given.
    #[error("the event source must not be empty")]
    Empty,
    /// More than `limit` characters.
    #[error("the event source must be at most {limit} characters long")]
    TooLong {
        /// The most characters allowed.
        limit: usize,
    },
    /// A space or a control character.
    #[error("the event source must not contain spaces or control characters")]
    Unprintable,
    /// A scheme followed by what is not an absolute URI.
    #[error("the event source must be an absolute URI or a path")]
    NotAUri,
}

/// The event could not be written as JSON.
///
/// The CloudEvents library's builder and serializer are fallible in type;
/// for the events [`cloud_event`] builds, whose attributes are all set and
/// valid, neither fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the event could not be written: {0}")]
pub struct EventError(String);

/// The id of the event `entry` makes when `source` produces it: a UUID
/// (version 5) of the source and the entry's position in the audit
/// trail (`uuid5(f8cf261b-6da4-41ef-bd28-7e1b8ea5a831, "<source>#<position>")`).
/// The same entry always gives the same id, so a delivery made again
/// carries the id of the first, and a receiver drops what it has already
/// seen; entries from two sources never share one.
pub fn event_id(entry: &AuditEntry, source: &EventSource) -> String {
    let name = format!("{}#{}", source.as_str(), entry.position);
    Uuid::new_v5(&EVENT_ID_NAMESPACE, name.as_bytes()).to_string()
}

/// `entry` as a CloudEvents 1.0 document in JSON, produced by `source`:
///
/// ```json
/// {
///   "specversion": "1.0",
///   "id": "<event_id(entry, source)>",
///   "type": "io.kenning.user.updated",
///   "source": "/kenning",
///   "datacontenttype": "application/json",
///   "subject": "<the resource's id>",
///   "time": "2026-05-01T09:00:00Z",
///   "data": {
///     "resourceType": "user",
///     "resourceId": "<the resource's id>",
///     "kind": "user.updated",
///     "fields": ["lastname", "company"],
///     "actor": { "credentialId": "<uuid or null>", "name": "hr-sync", "channel": "scim" }
///   }
/// }
/// ```
///
/// Like the audit trail, it names the fields a change touched, never
/// their values: a receiver that wants them reads the resource.
pub fn cloud_event(entry: &AuditEntry, source: &EventSource) -> Result<Vec<u8>, EventError> {
    let change = &entry.change;
    let resource_id = change.resource_id.to_string();
    let data = json!({
        "resourceType": change.kind.resource().as_str(),
        "resourceId": resource_id,
        "kind": change.kind.as_str(),
        "fields": change.fields,
        "actor": {
            "credentialId": entry.actor.credential_id.map(|id| id.to_string()),
            "name": entry.actor.name,
            "channel": entry.actor.channel.as_str(),
        },
    });
    let event = EventBuilderV10::new()
        .id(event_id(entry, source))
        .source(source.as_str())
        .ty(format!("{TYPE_PREFIX}{}", change.kind.as_str()))
        .subject(resource_id)
        .time(entry.at)
        .data("application/json", data)
        .build()
        .map_err(|e| EventError(e.to_string()))?;
    serde_json::to_vec(&event).map_err(|e| EventError(e.to_string()))
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use cloudevents::{AttributesReader, Data, Event};
    use kenning_domain::{Actor, Change, ChangeKind, Channel};
    use serde_json::Value;

    use super::*;

    fn entry(position: u64) -> AuditEntry {
        AuditEntry {
            position,
            at: Utc.with_ymd_and_hms(2026, 5, 1, 9, 0, 0).unwrap(),
            actor: Actor::credential(Uuid::from_u128(0x1111), "hr-sync", Channel::Scim),
            change: Change {
                kind: ChangeKind::UserUpdated,
                resource_id: Uuid::from_u128(0x2222),
                fields: vec!["lastname".into(), "company".into()],
            },
        }
    }

    fn document(entry: &AuditEntry, source: &EventSource) -> Value {
        serde_json::from_slice(&cloud_event(entry, source).unwrap()).unwrap()
    }

    #[test]
    fn an_entry_is_a_cloud_event_naming_fields_not_values() {
        let entry = entry(42);
        let source = EventSource::default();
        let doc = document(&entry, &source);
        let resource = "00000000-0000-0000-0000-000000002222";
        assert_eq!(
            doc,
            json!({
                "specversion": "1.0",
                "id": event_id(&entry, &source),
                "type": "io.kenning.user.updated",
                "source": "/kenning",
                "datacontenttype": "application/json",
                "subject": resource,
                "time": "2026-05-01T09:00:00Z",
                "data": {
                    "resourceType": "user",
                    "resourceId": resource,
                    "kind": "user.updated",
                    "fields": ["lastname", "company"],
                    "actor": {
                        "credentialId": "00000000-0000-0000-0000-000000001111",
                        "name": "hr-sync",
                        "channel": "scim",
                    },
                },
            })
        );
    }

    #[test]
    fn the_document_reads_back_as_a_cloud_event() {
        let entry = entry(7);
        let source = EventSource::parse("https://kenning.example.org").unwrap();
        let body = cloud_event(&entry, &source).unwrap();
        let event: Event = serde_json::from_slice(&body).unwrap();
        assert_eq!(event.specversion().as_str(), "1.0");
        assert_eq!(event.id(), event_id(&entry, &source));
        assert_eq!(event.source(), "https://kenning.example.org");
        assert_eq!(event.ty(), "io.kenning.user.updated");
        assert_eq!(event.time(), Some(&entry.at));
        assert_eq!(event.datacontenttype(), Some("application/json"));
        assert!(matches!(event.data(), Some(Data::Json(_))));
    }

    #[test]
    fn an_actor_without_credential_has_a_null_id() {
        let mut entry = entry(1);
        entry.actor = Actor::purge();
        entry.change = Change {
            kind: ChangeKind::UserAnonymized,
            resource_id: Uuid::from_u128(3),
            fields: Vec::new(),
        };
        let doc = document(&entry, &EventSource::default());
        assert_eq!(doc["type"], "io.kenning.user.anonymized");
        assert_eq!(doc["data"]["fields"], json!([]));
        assert_eq!(
            doc["data"]["actor"],
            json!({"credentialId": null, "name": "purge", "channel": "purge"})
        );
    }

    #[test]
    fn every_kind_has_its_type_and_resource() {
        for kind in ChangeKind::ALL {
            let mut entry = entry(1);
            entry.change.kind = kind;
            let doc = document(&entry, &EventSource::default());
            assert_eq!(doc["type"], format!("io.kenning.{kind}"));
            assert_eq!(doc["data"]["resourceType"], kind.resource().as_str());
        }
    }

    #[test]
    fn the_id_is_stable_per_entry_and_source() {
        let source = EventSource::default();
        let other = EventSource::parse("urn:kenning:other").unwrap();
        let id = event_id(&entry(42), &source);
        assert_eq!(id, event_id(&entry(42), &source));
        assert_eq!(
            cloud_event(&entry(42), &source),
            cloud_event(&entry(42), &source)
        );
        assert_ne!(id, event_id(&entry(43), &source));
        assert_ne!(id, event_id(&entry(42), &other));
        // Ids already sent must never change meaning: this is
        // uuid5(EVENT_ID_NAMESPACE, "/kenning#42"), computed apart.
        assert_eq!(id, "82f7a5e1-74e5-5e04-95de-26cc626132e2");
    }

    #[test]
    fn a_source_is_a_uri_reference() {
        for good in [
            "/kenning",
            "kenning",
            "https://kenning.example.org/acme",
            "urn:kenning:acme",
        ] {
            assert_eq!(EventSource::parse(good).unwrap().as_str(), good);
        }
        let long = "a".repeat(MAX_SOURCE_CHARS + 1);
        for (bad, refusal) in [
            ("", InvalidSource::Empty),
            (long.as_str(), InvalidSource::TooLong { limit: 512 }),
            ("/ken ning", InvalidSource::Unprintable),
            ("/a\nb", InvalidSource::Unprintable),
            ("http://[::1", InvalidSource::NotAUri),
        ] {
            assert_eq!(EventSource::parse(bad), Err(refusal), "{bad:?}");
        }
        assert_eq!(
            InvalidSource::Empty.to_string(),
            "the event source must not be empty"
        );
    }
}
