//! `kenning demo`: loads a sample organisation into a running server
//! through its public API, so that a new user can see `experts` answer
//! before they have documents of their own. People are created with
//! GraphQL `createUser` (a token with `users:write`), their documents,
//! chats and e-mails are uploaded through the connector's batch endpoint
//! (an API key). Running it again changes nothing: people who exist are
//! kept, and every upload has an alias, so a repeat is a duplicate.

mod sample;

use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use serde_json::{json, Value};

use crate::input::Item;
use crate::send::{Outcome, Sender};
use sample::{Person, PEOPLE, SUBJECTS};

/// Uploads per person on their own subject.
const MAIN_ACTIONS: usize = 20;
/// Uploads per person on the subject they help with.
const SIDE_ACTIONS: usize = 6;
/// Sentences per upload.
const SENTENCES: usize = 3;

/// The kinds of action the sample's uploads are.
const KINDS: [(&str, &str); 5] = [
    ("document", "create"),
    ("document", "edit"),
    ("chat", "send"),
    ("email", "send"),
    ("document", "comment"),
];

/// The arguments of `kenning demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The server's address.
    #[arg(long, env = "KENNING_URL", default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// An access token with `users:write` (`kenning token create`), to
    /// create the people.
    #[arg(long, env = "KENNING_TOKEN", hide_env_values = true)]
    token: String,
    /// A connector API key (`kenning apikey create`), to upload their
    /// documents, chats and e-mails.
    #[arg(long, env = "KENNING_API_KEY", hide_env_values = true)]
    api_key: String,
}

/// A small deterministic generator (SplitMix64), so that the sample is
/// the same on every run and every machine.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or_default()
    }
}

/// Every upload of the sample, in the order they are sent.
pub fn uploads() -> Vec<Value> {
    let mut mix = Mix(0x006b_656e_6e69_6e67);
    let mut all = Vec::new();
    for person in &PEOPLE {
        let email = person.email();
        let plan = std::iter::repeat_n(person.main, MAIN_ACTIONS)
            .chain(std::iter::repeat_n(person.side, SIDE_ACTIONS));
        for (n, subject) in plan.enumerate() {
            let sentences = SUBJECTS[subject].sentences;
            let mut chosen: Vec<usize> = Vec::with_capacity(SENTENCES);
            while chosen.len() < SENTENCES.min(sentences.len()) {
                let at = mix.below(sentences.len());
                if !chosen.contains(&at) {
                    chosen.push(at);
                }
            }
            let text: Vec<&str> = chosen.iter().map(|&at| sentences[at]).collect();
            let (entity_type, action_type) = KINDS[mix.below(KINDS.len())];
            let day = 1 + mix.below(280);
            let date = chrono::NaiveDate::from_yo_opt(2026, u32::try_from(day).unwrap_or(1))
                .unwrap_or_default();
            all.push(json!({
                "entity_type": entity_type,
                "action_type": action_type,
                "action_date": format!("{date}T{:02}:{:02}:00Z", 8 + mix.below(10), mix.below(60)),
                "user_email": email,
                "text": text.join(" "),
                "action_alias": format!("demo-{}-{n}", person.lastname.to_lowercase()),
            }));
        }
    }
    all
}

/// The sample person a trial signs in as, by name and e-mail address.
pub fn guide() -> (String, String) {
    let person = &PEOPLE[0];
    (
        format!("{} {}", person.firstname, person.lastname),
        person.email(),
    )
}

/// Each subject's question, with the addresses of the people whose own
/// subject it is: whom `experts` should put first.
pub fn questions() -> Vec<(&'static str, Vec<String>)> {
    SUBJECTS
        .iter()
        .enumerate()
        .map(|(at, subject)| {
            let owners = PEOPLE
                .iter()
                .filter(|p| p.main == at)
                .map(Person::email)
                .collect();
            (subject.question, owners)
        })
        .collect()
}

/// What a person's creation came to.
enum Created {
    New,
    Existed,
}

fn create_person(agent: &ureq::Agent, args: &DemoArgs, person: &Person) -> anyhow::Result<Created> {
    let document = "mutation create($input: CreateUserInput!) \
                    { createUser(createUserInput: $input) { globalUserId } }";
    let body = json!({ "query": document, "variables": { "input": {
        "firstname": person.firstname,
        "lastname": person.lastname,
        "email": person.email(),
        "department": person.department,
        "position": person.position,
        "company": "Harbour & Finch",
    }}});
    let url = format!("{}/accounts/api/v1/graphql", args.url.trim_end_matches('/'));
    let mut response = agent
        .post(&url)
        .header("Authorization", &format!("Bearer {}", args.token))
        .header("Content-Type", "application/json")
        .send(body.to_string())
        .with_context(|| format!("cannot reach {url}"))?;
    let status = response.status().as_u16();
    let answer: Value = response
        .body_mut()
        .read_to_string()
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    let error = &answer["errors"][0];
    match (status, error["extensions"]["code"].as_str()) {
        (200, None) => Ok(Created::New),
        (200, Some("Conflict")) => Ok(Created::Existed),
        (_, code) => anyhow::bail!(
            "creating {} failed (HTTP {status}, {}): {}",
            person.email(),
            code.unwrap_or("no code"),
            error["message"].as_str().unwrap_or("no message")
        ),
    }
}

/// Runs `kenning demo`. What it did, and what to ask, go to stderr, so
/// that stdout stays free for the answers of the commands around it.
pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    crate::send::warn_if_in_the_clear(args.url.trim_end_matches('/'));
    let agent: ureq::Agent = crate::send::agent(Duration::from_secs(60));
    let mut new = 0;
    for person in &PEOPLE {
        if let Created::New = create_person(&agent, &args, person)? {
            new += 1;
        }
    }
    let items: Vec<Item> = uploads()
        .into_iter()
        .enumerate()
        .map(|(n, body)| Item {
            id: n.to_string(),
            origin: format!("sample upload {n}"),
            body,
        })
        .collect();
    let sender = Sender {
        url: format!(
            "{}/connectors/api/v1/entities-with-action/batch",
            args.url.trim_end_matches('/')
        ),
        api_key: args.api_key.clone(),
        tries: 4,
        backoff: Duration::from_millis(500),
    };
    let (mut learned, mut duplicates) = (0, 0);
    for batch in items.chunks(100) {
        let outcomes = sender
            .send(batch)
            .map_err(|fatal| anyhow::anyhow!(fatal.0))?;
        for (item, outcome) in batch.iter().zip(outcomes) {
            match outcome {
                Outcome::Learned => learned += 1,
                Outcome::Duplicate => duplicates += 1,
                Outcome::Rejected { code, problem } => {
                    anyhow::bail!("{} was refused ({code}): {problem}", item.origin)
                }
                Outcome::Failed { problem } => {
                    anyhow::bail!("{} failed: {problem}", item.origin)
                }
            }
        }
    }
    eprintln!(
        "sample organisation: {} people ({new} new), {} uploads (learned {learned}, already there {duplicates})",
        PEOPLE.len(),
        items.len()
    );
    eprintln!("ask experts, for example:");
    for subject in &SUBJECTS {
        eprintln!("  {:<38} ({})", subject.question, subject.name);
    }
    Ok(())
}
