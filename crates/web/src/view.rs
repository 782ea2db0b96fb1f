//! What the templates show, prepared from the use cases' answers: plain
//! strings and numbers, so that the templates hold no logic beyond
//! loops and conditions (and escape every value they print).

use chrono::{DateTime, Utc};
use kenning_app::ProfileTopic;
use kenning_domain::User;
use kenning_ports::ActionRecord;

use crate::visitor::Visitor;

/// What every page's frame shows: who is signed in, whether they are an
/// administrator (then it links to the admin console), and the token of
/// the sign-out form.
#[derive(Debug, Clone, Default)]
pub(crate) struct Chrome {
    /// The signed-in person's name; `None` on the sign-in pages.
    pub(crate) name: Option<String>,
    /// Whether the person is an administrator on this request.
    pub(crate) admin: bool,
    /// The session's token against cross-site request forgery.
    pub(crate) csrf: String,
}

impl Chrome {
    /// The frame of a page seen by `visitor` (or by nobody signed in).
    pub(crate) fn of(visitor: Option<&Visitor>) -> Self {
        match visitor {
            Some(v) => Self {
                name: v.user().profile().map(|profile| profile.display_name()),
                admin: v.is_administrator(),
                csrf: v.csrf_token().to_owned(),
            },
            None => Self::default(),
        }
    }
}

/// A moment as a person reads it: the day.
pub(crate) fn day(at: DateTime<Utc>) -> String {
    at.format("%-d %b %Y").to_string()
}

/// Actions behind a topic: what was done, to what kind of thing, when
/// (never the text, which Kenning does not keep), and how many times
/// alike that day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActionLine {
    pub(crate) action: String,
    pub(crate) entity: String,
    pub(crate) day: String,
    pub(crate) times: usize,
}

impl ActionLine {
    /// `actions` as lines, those alike on the same day told once with
    /// their number, in their order.
    pub(crate) fn of_all(actions: &[ActionRecord]) -> Vec<Self> {
        let mut lines: Vec<Self> = Vec::new();
        for action in actions {
            let line = Self {
                action: action.action_type.replace('_', " "),
                entity: action.entity_type.replace('_', " "),
                day: day(action.action_date),
                times: 1,
            };
            match lines
                .iter_mut()
                .find(|l| (&l.action, &l.entity, &l.day) == (&line.action, &line.entity, &line.day))
            {
                Some(alike) => alike.times += 1,
                None => lines.push(line),
            }
        }
        lines
    }
}

/// A topic with what it stands on and why.
#[derive(Debug, Clone)]
pub(crate) struct TopicWhy {
    pub(crate) key: String,
    pub(crate) label: String,
    /// What the person's standing on it stands for: how many actions
    /// taught it and how recent the latest is ("from 3 actions, the latest
    /// 2 Mar 2026"); empty when none is listed.
    pub(crate) taught: String,
    pub(crate) evidence: Vec<ActionLine>,
}

impl TopicWhy {
    /// A topic of a profile, with its actions.
    pub(crate) fn of_profile(topic: &ProfileTopic) -> Self {
        Self {
            key: topic.topic.key.clone(),
            label: topic.topic.label.clone(),
            taught: taught(&topic.actions, ProfileTopic::ACTIONS_LISTED, topic.read_at),
            evidence: ActionLine::of_all(&topic.actions),
        }
    }
}

/// What `actions` (newest first, at most `listed` of them) say of a
/// standing at `now`: how many taught it, "or more" when the list is
/// full, the day of the latest, and how many years ago that was when it
/// is a year or more: the age of the evidence, at a glance.
pub(crate) fn taught(actions: &[ActionRecord], listed: usize, now: DateTime<Utc>) -> String {
    let Some(latest) = actions.first() else {
        return String::new();
    };
    let count = match actions.len() {
        1 => "1 action".to_owned(),
        n if n >= listed => format!("{n} or more actions"),
        n => format!("{n} actions"),
    };
    let years = (now - latest.action_date).num_days() / 365;
    let age = match years {
        ..=0 => String::new(),
        1 => ", a year ago".to_owned(),
        n => format!(", {n} years ago"),
    };
    format!("from {count}, the latest {}{age}", day(latest.action_date))
}

/// A field of a profile that is set: its name and value.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    pub(crate) name: &'static str,
    pub(crate) value: String,
}

/// The fields of `user`'s profile that are set, in the profile's order
/// (the name is the page's heading, so not among them).
pub(crate) fn profile_fields(user: &User) -> Vec<Field> {
    let Some(p) = user.profile() else {
        return Vec::new();
    };
    let mut fields = Vec::new();
    let mut add = |name: &'static str, value: Option<String>| {
        if let Some(value) = value.filter(|v| !v.trim().is_empty()) {
            fields.push(Field { name, value });
        }
    };
    add(
        "Position",
        p.position.as_ref().map(|v| v.as_str().to_owned()),
    );
    add(
        "Department",
        p.department.as_ref().map(|v| v.as_str().to_owned()),
    );
    add("Company", p.company.as_ref().map(|v| v.as_str().to_owned()));
    add(
        "Location",
        p.location.as_ref().map(|v| v.as_str().to_owned()),
    );
    add(
        "Country",
        p.country_id.as_ref().map(|c| {
            isocountry::CountryCode::for_alpha2_caseless(c.as_str())
                .map(|code| code.name().to_owned())
                .unwrap_or_else(|_| c.as_str().to_uppercase())
        }),
    );
    add("About", p.about.as_ref().map(|v| v.as_str().to_owned()));
    add("E-mail", Some(p.email.as_str().to_owned()));
    add(
        "With the organisation since",
        p.employment_start
            .map(|d| d.date().format("%-d %B %Y").to_string()),
    );
    fields
}

/// `text` encoded for a URL's query.
pub(crate) fn query_param(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(kind: &str, day: u32) -> ActionRecord {
        ActionRecord {
            id: uuid::Uuid::new_v4(),
            entity_type: "chat_message".to_owned(),
            action_type: kind.to_owned(),
            action_date: chrono::TimeZone::with_ymd_and_hms(&Utc, 2026, 3, day, 8, 0, 0).unwrap(),
            alias: None,
            relevance: 1.0,
        }
    }

    #[test]
    fn a_standing_reads_as_the_actions_it_stands_on() {
        let now = chrono::TimeZone::with_ymd_and_hms(&Utc, 2026, 12, 6, 8, 0, 0).unwrap();
        assert_eq!(taught(&[], 10, now), "");
        assert_eq!(
            taught(&[action("send", 3)], 10, now),
            "from 1 action, the latest 3 Mar 2026"
        );
        assert_eq!(
            taught(&[action("send", 3), action("read", 2)], 10, now),
            "from 2 actions, the latest 3 Mar 2026"
        );
        assert_eq!(
            taught(&[action("send", 3), action("read", 2)], 2, now),
            "from 2 or more actions, the latest 3 Mar 2026"
        );
        let later = now + chrono::Duration::days(3 * 365);
        assert_eq!(
            taught(&[action("send", 3)], 10, later),
            "from 1 action, the latest 3 Mar 2026, 3 years ago"
        );
    }

    #[test]
    fn actions_alike_on_one_day_are_told_once_with_their_number() {
        let lines = ActionLine::of_all(&[
            action("send", 2),
            action("send", 2),
            action("read", 2),
            action("send", 3),
        ]);
        let told: Vec<(&str, &str, &str, usize)> = lines
            .iter()
            .map(|l| {
                (
                    l.action.as_str(),
                    l.entity.as_str(),
                    l.day.as_str(),
                    l.times,
                )
            })
            .collect();
        assert_eq!(
            told,
            [
                ("send", "chat message", "2 Mar 2026", 2),
                ("read", "chat message", "2 Mar 2026", 1),
                ("send", "chat message", "3 Mar 2026", 1),
            ]
        );
    }
}
