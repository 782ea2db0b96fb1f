//! `kenning demo`: loads a sample organisation into a running server
//! through its public API, so that a new user can see `experts` answer
//! before they have documents of their own. People are created with
//! GraphQL `createUser` (a token with `users:write`), their documents,
//! chats and e-mails are uploaded through the connector's batch endpoint
//! (an API key). Running it again changes nothing: people who exist are
//! kept, and every upload has an alias, so a repeat is a duplicate.

mod sample;

use std::time::Duration;

use clap::Args;
use serde_json::{json, Value};

use crate::client::{route, Client};
use crate::codes::Code;
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

fn create_person(client: &Client, person: &Person) -> anyhow::Result<Created> {
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
    let answer = client.post(route::GRAPHQL, &body)?;
    let (status, answer) = (answer.status, answer.body);
    let error = &answer["errors"][0];
    match (status, error["extensions"]["code"].as_str()) {
        (200, None) => Ok(Created::New),
        (200, Some(code)) if Code::Conflict.is(code) => Ok(Created::Existed),
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
    let people = Client::with_token(&args.url, &args.token);
    let mut new = 0;
    for person in &PEOPLE {
        if let Created::New = create_person(&people, person)? {
            new += 1;
        }
    }
    let uploads = uploads();
    let sender = Sender {
        client: Client::new(&args.url, &args.api_key),
        tries: 4,
        backoff: Duration::from_millis(500),
    };
    let (mut sent, mut known) = (0, 0);
    for (at, batch) in uploads.chunks(100).enumerate() {
        let bodies: Vec<&Value> = batch.iter().collect();
        let outcomes = sender
            .send(&bodies)
            .map_err(|fatal| anyhow::anyhow!(fatal.0))?;
        for (n, outcome) in outcomes.into_iter().enumerate() {
            let origin = format!("sample upload {}", at * 100 + n);
            match outcome {
                Outcome::Sent => sent += 1,
                Outcome::Known => known += 1,
                Outcome::NotFound { problem } => {
                    anyhow::bail!(
                        "{origin} was refused ({}): {problem}",
                        Code::UnknownUser.as_str()
                    )
                }
                Outcome::Refused { code, problem } => {
                    anyhow::bail!("{origin} was refused ({code}): {problem}")
                }
                Outcome::Failed { problem } => anyhow::bail!("{origin} failed: {problem}"),
            }
        }
    }
    eprintln!(
        "sample organisation: {} people ({new} new), {} uploads (sent {sent}, already known {known})",
        PEOPLE.len(),
        uploads.len()
    );
    eprintln!("ask experts, for example:");
    for subject in &SUBJECTS {
        eprintln!("  {:<38} ({})", subject.question, subject.name);
    }
    Ok(())
}
