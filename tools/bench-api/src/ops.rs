//! The operations measured, their targets, and the table.

use std::sync::Arc;

use kenning_domain::{TextFormat, UserCursor};
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::TopicExtractor;
use serde_json::{json, Value};

use crate::directory::{self, VOCABULARY};
use crate::load::{Check, Make, Request, Stats};
use crate::server::Kenning;

/// What an operation must reach.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// The bare handler the API is compared with.
    Baseline,
    /// At least this share of the baseline's requests per second.
    OfBaseline(f64),
    /// A p99 latency below this many milliseconds.
    P99Below(f64),
    /// At least this many requests per second.
    PerSecondAtLeast(f64),
    /// No slower than at the smallest size (requests per second).
    AsAtSmallest,
    /// Printed, not targeted.
    Printed,
}

/// How an operation is driven.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Drive {
    /// Closed loop, over as many connections as its target calls for
    /// (one per core for a latency, 16 for a rate).
    Closed,
    /// Closed loop over this many connections.
    Connections(usize),
    /// Open loop: requests due at this many a second, whatever the
    /// answers.
    Rate(f64),
}

/// One operation under load.
pub struct Operation {
    /// Its name in the table.
    pub name: &'static str,
    /// The request each connection sends next.
    pub make: Arc<Make>,
    /// Whether an answer is a success.
    pub check: Arc<Check>,
    /// What it must reach.
    pub target: Target,
    /// How it is driven.
    pub drive: Drive,
}

fn graphql(kenning: &KenningView, query: &str, variables: Value) -> Request {
    Request {
        method: "POST",
        url: format!("{}/accounts/api/v1/graphql", kenning.base),
        headers: vec![
            ("Authorization", format!("Bearer {}", kenning.token)),
            ("Content-Type", "application/json".to_owned()),
        ],
        body: json!({ "query": query, "variables": variables })
            .to_string()
            .into_bytes(),
    }
}

fn graphql_ok(status: u16, body: &str) -> bool {
    status == 200 && body.starts_with("{\"data\"") && !body.contains("\"errors\"")
}

/// A person of the directory, drawn from the connection and request
/// numbers.
fn someone(connection: usize, n: u64, size: u64) -> u64 {
    directory::mix((connection as u64) << 40 | n) % size
}

const USER: &str = "query user($id: UUID!) { user(globalUserId: $id) { globalUserId firstname lastname email status created } }";
const BY_EMAIL: &str = "query byEmail($email: String!) { userByEmail(email: $email) { globalUserId firstname lastname email status } }";
const BY_EXTERNAL_ID: &str = "query byExternalId($id: String!) { userByExternalId(externalId: $id) { globalUserId firstname lastname email status } }";
const USERS: &str = "query users($text: String, $offset: Offset, $limit: Limit) { users(searchText: $text, offset: $offset, limit: $limit) { globalUserId firstname lastname email } }";
const CONNECTION: &str = "query page($after: String) { usersConnection(first: 20, after: $after) { edges { node { globalUserId firstname lastname email } } pageInfo { hasNextPage endCursor } } }";
const CREATE: &str = "mutation create($input: CreateUserInput!) { createUser(createUserInput: $input) { globalUserId } }";
const EXPERTS_QUERY: &str = "query experts($query: String!) { experts(query: $query, limit: 10) { score user { globalUserId } } }";

/// About a kilobyte of English each, as a connector would send from a
/// wiki or a mailbox.
pub(crate) const TEXTS: [&str; 4] = [
    "The release pipeline builds every service in a container, runs the integration suite against a disposable PostgreSQL database, and promotes the image to staging only when the smoke tests pass. Last quarter the pipeline took forty minutes on average; caching the dependency layers and splitting the test suite across four runners brought it down to eleven. The remaining time is mostly spent compiling, so the next step is a shared build cache keyed by the lock file. Rollbacks stay manual on purpose: an operator reads the error budget dashboard before deciding, because an automatic rollback once masked a schema migration that had already run. Deployment windows are announced in the operations channel a day ahead.",
    "Our churn model predicts which customers will cancel within ninety days. It is a gradient boosted tree over usage features: weekly active seats, support tickets opened, invoices paid late and the share of features used. Calibration matters more than accuracy here, since account managers act on the probability, not on the label; we check it with reliability diagrams every month. The strongest signal is a drop in weekly active seats over three consecutive weeks. Seasonality confused the first version, because schools pause in summer, so the features are now compared with the same weeks of the previous year. The model is retrained on the first of each month and its drift report goes to the analytics team.",
    "The new office lease starts in April. Facilities negotiated a five year term with an option to leave after three, a rent-free fit-out period of four months and a cap on service charge increases. The floor plan keeps open desks near the windows and puts meeting rooms along the core, with two quiet rooms per wing. Procurement is tendering the furniture in two lots; the acoustic panels are specified separately because the last supplier's panels failed the fire rating. Moving day is planned for a weekend so that the network cut-over does not interrupt customer support. Staff parking stays at the old site until the bicycle storage and showers are finished.",
    "Payroll runs on the twenty-fifth. This month the pension contribution rates change, so payroll must update the employer and employee percentages before the cut-off and check the salary sacrifice arrangements of everyone who joined the scheme this year. Overtime claims approved after the twentieth roll into next month. The auditors asked for evidence that every change of bank details was confirmed by a phone call to the employee, so the confirmation is now recorded in the ticket with the caller's name and time. Expense reimbursements above the card limit need the budget holder's approval, and mileage is paid at the rate published by the tax office.",
];

/// An upload of `TEXTS[text]` by the `person`-th person of the directory.
pub fn upload_body(person: u64, text: usize) -> Value {
    json!({
        "entity_type": "document",
        "action_type": "create",
        "action_date": "2026-02-20T10:00:00.000Z",
        "user_email": directory::email(person),
        "text": TEXTS[text % TEXTS.len()],
    })
}

/// The stored key of every topic word, as the extractor folds it.
pub fn topic_keys() -> Vec<String> {
    let extractor = KeyphraseExtractor::new();
    (0..VOCABULARY)
        .map(|i| {
            let word = directory::topic_word(i);
            extractor
                .extract(&word, TextFormat::Plain, Some("en"), 1)
                .words
                .first()
                .map_or_else(|| word.clone(), |t| t.key.clone())
        })
        .collect()
}

/// The `n`-th `experts` query of connection `c`: one to three topic words
/// of the expertise's Zipf distribution.
pub(crate) fn experts_words(c: usize, n: u64) -> String {
    let seed = directory::mix((c as u64) << 40 | n);
    let words: Vec<String> = (0..1 + seed % 3)
        .map(|i| directory::topic_word(directory::zipf(seed ^ i, VOCABULARY)))
        .collect();
    words.join(" ")
}

/// How many different words nobody learned
/// [`experts_other_words`] asks about.
const UNLEARNED: usize = 500;

/// The `n`-th `experts` query of connection `c` that needs the model: a
/// topic word of the expertise and one of [`UNLEARNED`] words nobody
/// learned, drawn by Zipf as questions repeat in an organisation (the
/// first asking of each runs the model, later ones find its vector
/// remembered).
pub(crate) fn experts_other_words(c: usize, n: u64) -> String {
    let seed = directory::mix((c as u64) << 40 | n | 1 << 39);
    format!(
        "{} {}",
        directory::topic_word(directory::zipf(seed, VOCABULARY)),
        directory::unlearned_word(directory::zipf(seed ^ 7, UNLEARNED)),
    )
}

/// The web app's pages, seen by a person signed in with `cookie`: the
/// search page answering the `experts` queries, and people's pages.
pub fn page_operations(kenning: &Kenning, cookie: &str, size: u64) -> Vec<Operation> {
    let page = |name: &'static str,
                target: Target,
                path: Box<dyn Fn(usize, u64) -> String + Send + Sync>| {
        let (base, cookie) = (kenning.base().to_owned(), cookie.to_owned());
        Operation {
            name,
            make: Arc::new(move |c, n| Request {
                method: "GET",
                url: format!("{base}{}", path(c, n)),
                headers: vec![
                    ("Cookie", cookie.clone()),
                    ("Accept", "text/html".to_owned()),
                ],
                body: Vec::new(),
            }),
            check: Arc::new(|status, body| status == 200 && body.contains("<h1>")),
            target,
            drive: Drive::Connections(1),
        }
    };
    vec![
        page(
            "web: the search page (10,000 people x 200 topics), one client",
            Target::P99Below(50.0),
            Box::new(|c, n| format!("/?q={}", experts_words(c, n).replace(' ', "+"))),
        ),
        page(
            "web: a person's page, one client",
            Target::P99Below(20.0),
            Box::new(move |c, n| {
                format!("/people/{}", directory::id(someone(c, n, size.min(10_000))))
            }),
        ),
    ]
}

/// Every operation, on a directory of `size` people.
pub fn operations(kenning: &Kenning, baseline: &str, size: u64) -> Vec<Operation> {
    let k = Arc::new(kenning_view(kenning));
    let ok: Arc<Check> = Arc::new(graphql_ok);
    let nonce = std::process::id();
    let mut out = Vec::new();
    let base = baseline.to_owned();
    out.push(Operation {
        name: "bare actix-web: the same user's JSON",
        make: Arc::new(move |c, n| Request {
            method: "GET",
            url: format!("{base}/user/{}", directory::id(someone(c, n, size))),
            headers: Vec::new(),
            body: Vec::new(),
        }),
        check: Arc::new(|status, _| status == 200),
        target: Target::Baseline,
        drive: Drive::Closed,
    });
    // A GraphQL operation whose variables come from the connection and
    // request numbers; the answer must hold data and no error.
    let query = |name: &'static str,
                 document: &'static str,
                 target: Target,
                 variables: Box<dyn Fn(usize, u64) -> Value + Send + Sync>| {
        let kk = k.clone();
        Operation {
            name,
            make: Arc::new(move |c, n| graphql(&kk, document, variables(c, n))),
            check: ok.clone(),
            target,
            drive: Drive::Closed,
        }
    };
    out.push(query(
        "user(globalUserId)",
        USER,
        Target::OfBaseline(0.4),
        Box::new(move |c, n| json!({ "id": directory::id(someone(c, n, size)) })),
    ));
    out.push(query(
        "userByEmail",
        BY_EMAIL,
        Target::P99Below(5.0),
        Box::new(move |c, n| json!({ "email": directory::email(someone(c, n, size)) })),
    ));
    out.push(query(
        "userByExternalId",
        BY_EXTERNAL_ID,
        Target::P99Below(5.0),
        Box::new(move |c, n| json!({ "id": directory::external_id(someone(c, n, size)) })),
    ));
    out.push(query(
        "users: exact e-mail",
        USERS,
        Target::P99Below(5.0),
        Box::new(move |c, n| json!({ "text": directory::email(someone(c, n, size)), "limit": 10 })),
    ));
    out.push(query(
        "users: exact externalId",
        USERS,
        Target::P99Below(5.0),
        Box::new(
            move |c, n| json!({ "text": directory::external_id(someone(c, n, size)), "limit": 10 }),
        ),
    ));
    let search_target = Target::P99Below(if size > 1_000_000 { 100.0 } else { 50.0 });
    out.push(query(
        "users: \"smith\", first page",
        USERS,
        search_target,
        Box::new(|_, _| json!({ "text": "smith", "limit": 20 })),
    ));
    out.push(query(
        "users: text matching nobody",
        USERS,
        search_target,
        Box::new(|c, n| {
            let text = format!("zq{}", directory::mix((c as u64) << 40 | n) % 100_000);
            json!({ "text": text, "limit": 20 })
        }),
    ));
    out.push(query(
        "users: page at 90% by offset",
        USERS,
        Target::P99Below(10.0),
        Box::new(move |_, _| json!({ "offset": size * 9 / 10, "limit": 20 })),
    ));
    // Cursors of people spread over the directory, as a client walking it
    // would hold them.
    let language = kenning_domain::LanguageId::parse("en").ok();
    let cursors: Arc<Vec<String>> = Arc::new(
        (0..1_000u64)
            .filter_map(|i| {
                let at = directory::mix(i ^ 0xc0c0) % size;
                let user =
                    directory::user(at, language.as_ref()?, directory::epoch().ok()?).ok()?;
                Some(UserCursor::of(&user).to_string())
            })
            .collect(),
    );
    out.push(query(
        "usersConnection: any page by cursor",
        CONNECTION,
        Target::P99Below(10.0),
        Box::new(move |c, n| {
            let at = directory::mix((c as u64) << 40 | n) % (cursors.len() as u64).max(1);
            let after = usize::try_from(at).ok().and_then(|i| cursors.get(i));
            json!({ "after": after })
        }),
    ));
    out.push(query(
        "createUser, durable",
        CREATE,
        Target::PerSecondAtLeast(2_000.0),
        Box::new(move |c, n| {
            json!({ "input": {
                "firstname": "Bench",
                "lastname": format!("New {c} {n}"),
                "email": format!("new.{nonce}.{size}.{c}.{n}@example.com"),
            }})
        }),
    ));
    let experts_query = || -> Box<dyn Fn(usize, u64) -> Value + Send + Sync> {
        Box::new(|c, n| json!({ "query": experts_words(c, n) }))
    };
    out.push(Operation {
        drive: Drive::Connections(1),
        ..query(
            "experts (10,000 people x 200 topics), one client",
            EXPERTS_QUERY,
            Target::P99Below(10.0),
            experts_query(),
        )
    });
    out.push(Operation {
        drive: Drive::Rate(200.0),
        ..query(
            "experts, 200/s offered (open loop)",
            EXPERTS_QUERY,
            Target::P99Below(20.0),
            experts_query(),
        )
    });
    out.push(query(
        "experts, closed-loop maximum",
        EXPERTS_QUERY,
        Target::Printed,
        experts_query(),
    ));
    let kk = k.clone();
    out.push(Operation {
        name: "connector upload, 1 KB text",
        make: Arc::new(move |c, n| Request {
            method: "POST",
            url: format!("{}/connectors/api/v1/entities-with-action", kk.base),
            headers: vec![
                ("APIKEY", kk.api_key.clone()),
                ("Content-Type", "application/json".to_owned()),
            ],
            body: upload_body(someone(c, n, size), (n as usize + c) % TEXTS.len())
                .to_string()
                .into_bytes(),
        }),
        check: Arc::new(|status, _| status == 201),
        target: Target::AsAtSmallest,
        drive: Drive::Closed,
    });
    out
}

/// What the request builders need of the server, shareable across
/// threads.
#[derive(Debug)]
struct KenningView {
    base: String,
    token: String,
    api_key: String,
}

fn kenning_view(kenning: &Kenning) -> KenningView {
    KenningView {
        base: kenning.base().to_owned(),
        token: kenning.token.clone(),
        api_key: kenning.api_key.clone(),
    }
}

/// One line of the table.
#[derive(Debug, Clone)]
pub struct Row {
    name: String,
    size: u64,
    backend: String,
    /// How it was driven: concurrent client connections (closed loop),
    /// or the rate offered (open loop).
    load: String,
    /// `None` for the memory line.
    stats: Option<Stats>,
    target: Option<Target>,
    /// The baseline's requests per second in the same round.
    baseline: Option<f64>,
    /// Peak resident memory, MiB, for the memory line.
    memory: Option<f64>,
    /// Bytes as sent and compressed, for the line of a page's weight.
    weight: Option<(usize, usize)>,
}

impl Row {
    /// The line of `operation` measured at `size` on `backend`.
    pub fn new(
        operation: &Operation,
        size: u64,
        backend: &str,
        load: String,
        stats: Stats,
        baseline: Option<f64>,
    ) -> Self {
        Self {
            name: operation.name.to_owned(),
            size,
            backend: backend.to_owned(),
            load,
            stats: Some(stats),
            target: Some(operation.target),
            baseline,
            memory: None,
            weight: None,
        }
    }

    /// What the first load of the search page weighs.
    pub fn weight(size: u64, backend: &str, raw: usize, compressed: usize) -> Self {
        Self {
            name: "web: first load of the search page (page and style sheet)".to_owned(),
            size,
            backend: backend.to_owned(),
            load: String::new(),
            stats: None,
            target: None,
            baseline: None,
            memory: None,
            weight: Some((raw, compressed)),
        }
    }

    /// The server's peak resident memory over the round.
    pub fn memory(size: u64, backend: &str, peak_mib: f64) -> Self {
        Self {
            name: "peak resident memory of kenning".to_owned(),
            size,
            backend: backend.to_owned(),
            load: String::new(),
            stats: None,
            target: None,
            baseline: None,
            memory: Some(peak_mib),
            weight: None,
        }
    }
}

fn target_text(target: Target) -> String {
    match target {
        Target::Baseline => "baseline".to_owned(),
        Target::OfBaseline(share) => format!(">= {share} x baseline"),
        Target::P99Below(ms) => format!("p99 < {ms} ms"),
        Target::PerSecondAtLeast(rate) => format!(">= {rate}/s"),
        Target::AsAtSmallest => "as fast as at the smallest size".to_owned(),
        Target::Printed => "printed, not targeted".to_owned(),
    }
}

/// Whether `row` met its target; `smallest` is the same operation's rate
/// at the smallest size.
fn verdict(row: &Row, stats: &Stats, smallest: Option<f64>) -> &'static str {
    let failed = stats.errors > 0;
    let met = match row.target {
        None | Some(Target::Baseline) | Some(Target::Printed) => return "",
        Some(Target::OfBaseline(share)) => {
            row.baseline.is_some_and(|b| stats.per_second >= share * b)
        }
        Some(Target::P99Below(ms)) => stats.p99 < ms,
        Some(Target::PerSecondAtLeast(rate)) => stats.per_second >= rate,
        // Within the noise of one short run.
        Some(Target::AsAtSmallest) => smallest.is_none_or(|s| stats.per_second >= 0.9 * s),
    };
    match (met, failed) {
        (true, false) => "met",
        (true, true) => "met, with errors",
        (false, _) => "NOT MET",
    }
}

/// Prints the table of every row.
pub fn print_table(rows: &[Row]) {
    println!();
    println!(
        "Kenning's HTTP API under load, release build; load: concurrent client connections \
         (closed loop), or requests offered a second (open loop, latency from when each was due)"
    );
    println!();
    println!("| operation | users | backend | load | req/s | p50 ms | p99 ms | x baseline | errors | target | |");
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|");
    for row in rows {
        if let Some(peak) = row.memory {
            let verdict = if peak <= 100.0 { "met" } else { "NOT MET" };
            println!(
                "| {} | {} | {} | | | | | | | <= 100 MiB | {peak:.0} MiB, {verdict} |",
                row.name, row.size, row.backend
            );
            continue;
        }
        if let Some((raw, compressed)) = row.weight {
            let verdict = if compressed < 150 * 1024 {
                "met"
            } else {
                "NOT MET"
            };
            println!(
                "| {} | {} | {} | | | | | | | < 150 KB compressed | {:.1} KB ({:.1} KB as sent), {verdict} |",
                row.name,
                row.size,
                row.backend,
                compressed as f64 / 1024.0,
                raw as f64 / 1024.0
            );
            continue;
        }
        let Some(stats) = &row.stats else { continue };
        let smallest = rows
            .iter()
            .filter(|r| r.name == row.name && r.backend == row.backend)
            .find_map(|r| r.stats.as_ref().map(|s| s.per_second));
        let ratio = row
            .baseline
            .filter(|_| row.target != Some(Target::Baseline))
            .map_or(String::new(), |b| format!("{:.2}", stats.per_second / b));
        println!(
            "| {} | {} | {} | {} | {:.0} | {:.2} | {:.2} | {} | {} | {} | {} |",
            row.name,
            row.size,
            row.backend,
            row.load,
            stats.per_second,
            stats.p50,
            stats.p99,
            ratio,
            stats.errors,
            row.target.map(target_text).unwrap_or_default(),
            verdict(row, stats, smallest),
        );
    }
}
