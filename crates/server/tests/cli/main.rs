//! The `kenning` command line, run as a real process on a fresh SQLite file.

// Test helpers stop the test with a message when a step fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

mod access_log;
mod connect;
mod database;
mod demo;
mod durability;
mod first_start;
mod postgres;
mod readme;
mod revocation;
mod upload;
mod webhooks;

/// A temporary folder removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("kenning-cli-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// A scratch folder with a migrated database at `db_url`.
    fn migrated() -> Self {
        let scratch = Self::new();
        succeeds(kenning(&scratch.db_url(), &["migrate"]));
        scratch
    }

    fn db_url(&self) -> String {
        format!("sqlite://{}", self.0.join("nested/kenning.db").display())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn kenning(db: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kenning"))
        .arg("--database-url")
        .arg(db)
        .args(args)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn succeeds(output: Output) -> Output {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status,
        stdout(&output),
        stderr(&output)
    );
    output
}

/// The command failed with one clear line on stderr, after the line
/// naming the database when it got that far.
fn fails_with(output: Output, message: &str) {
    assert!(
        !output.status.success(),
        "expected a failure: {}",
        stdout(&output)
    );
    let err = stderr(&output);
    let lines: Vec<&str> = err
        .lines()
        .filter(|line| !line.starts_with("database: "))
        .collect();
    assert_eq!(lines.len(), 1, "one error line on stderr: {err}");
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains(message),
        "{err}"
    );
}

/// The id column of a `list` line naming `name`.
fn listed<'a>(list: &'a str, name: &str) -> Vec<&'a str> {
    list.lines()
        .find(|line| line.split('\t').nth(1) == Some(name))
        .unwrap_or_else(|| panic!("{name} not in {list}"))
        .split('\t')
        .collect()
}

#[test]
fn every_command_has_help() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["migrate", "--help"],
        vec!["token", "--help"],
        vec!["token", "create", "--help"],
        vec!["token", "list", "--help"],
        vec!["token", "revoke", "--help"],
        vec!["apikey", "--help"],
        vec!["apikey", "create", "--help"],
        vec!["purge", "--help"],
        vec!["audit", "--help"],
        vec!["webhook", "--help"],
        vec!["webhook", "create", "--help"],
        vec!["topics", "--help"],
        vec!["topics", "extract", "--help"],
        vec!["upload", "--help"],
        vec!["signin-link", "--help"],
    ] {
        let out = succeeds(kenning("unused.db", &args));
        assert!(stdout(&out).contains("Usage: kenning"), "{args:?}");
    }
}

#[test]
fn only_the_commands_that_open_a_database_list_database_url() {
    for args in [
        vec!["serve", "--help"],
        vec!["token", "list", "--help"],
        vec!["signin-link", "--help"],
    ] {
        let out = succeeds(kenning("unused.db", &args));
        assert!(stdout(&out).contains("--database-url"), "{args:?}");
    }
    for args in [
        vec!["connect", "--help"],
        vec!["connect", "git", "--help"],
        vec!["connect", "mail", "--help"],
        vec!["upload", "--help"],
        vec!["demo", "--help"],
        vec!["topics", "extract", "--help"],
    ] {
        let out = succeeds(kenning("unused.db", &args));
        assert!(!stdout(&out).contains("--database-url"), "{args:?}");
    }
}

#[test]
fn signin_link_prints_a_link_for_an_active_person_alone() {
    let scratch = Scratch::migrated();
    let db = scratch.db_url();
    fails_with(
        kenning(&db, &["signin-link", "--email", "ada@example.com"]),
        "no person in Kenning has this e-mail address",
    );
    let (mut served, port) = serve(&db);
    let token = first_line(&mut served);
    let body = r#"{"query":"mutation { createUser(createUserInput: {firstname: \"Ada\", lastname: \"L\", email: \"ada@example.com\"}) { globalUserId } }"}"#;
    assert!(graphql_post(port, &token, body).contains("globalUserId"));
    let out = succeeds(kenning(
        &db,
        &[
            "signin-link",
            "--email",
            "Ada@Example.com",
            "--public-url",
            "https://kenning.example.com",
        ],
    ));
    let link = stdout(&out);
    assert_eq!(link.lines().count(), 1, "{link}");
    assert!(
        link.starts_with("https://kenning.example.com/auth/link/"),
        "{link}"
    );
    let out = kenning(
        &db,
        &[
            "signin-link",
            "--email",
            "ada@example.com",
            "--public-url",
            "ftp://x",
        ],
    );
    assert!(!out.status.success());
    // Without --public-url, it says which address it assumed.
    let out = succeeds(kenning(&db, &["signin-link", "--email", "ada@example.com"]));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("the link assumes the server answers at"),
        "{said}"
    );
    assert!(said.contains("--public-url"), "{said}");
}

#[test]
fn migrate_creates_the_database_and_its_folder() {
    let scratch = Scratch::new();
    succeeds(kenning(&scratch.db_url(), &["migrate"]));
    assert!(scratch.0.join("nested/kenning.db").exists());
    // Running it again is harmless.
    succeeds(kenning(&scratch.db_url(), &["migrate"]));
}

#[test]
fn tokens_are_created_listed_and_revoked() {
    let scratch = Scratch::migrated();
    let db = scratch.db_url();
    let out = succeeds(kenning(
        &db,
        &[
            "token",
            "create",
            "--name",
            "reporting",
            "--scope",
            "users:read",
        ],
    ));
    let secret = stdout(&out);
    assert_eq!(secret.lines().count(), 1, "the secret alone: {secret}");
    assert!(secret.starts_with("kn_tok_"), "{secret}");
    succeeds(kenning(&db, &["token", "create", "--name", "all"]));

    let list = stdout(&succeeds(kenning(&db, &["token", "list"])));
    assert!(!list.contains(secret.trim()), "secrets are never listed");
    let reporting = listed(&list, "reporting");
    assert_eq!(reporting[2], "users:read");
    assert_eq!(reporting[4], "-");
    assert_eq!(
        listed(&list, "all")[2],
        "users:read,users:write,expertise:read,audit:read,webhooks:manage,administrators:write"
    );

    let id = reporting[0].to_owned();
    succeeds(kenning(&db, &["token", "revoke", &id]));
    let list = stdout(&succeeds(kenning(&db, &["token", "list"])));
    assert_ne!(listed(&list, "reporting")[4], "-");
    fails_with(kenning(&db, &["token", "revoke", &id]), "no live token");
    // A token id is not an API key id.
    let all = listed(&list, "all")[0].to_owned();
    fails_with(kenning(&db, &["apikey", "revoke", &all]), "no live apikey");

    // The secret, pasted as printed, names its credential too.
    let key = stdout(&succeeds(kenning(
        &db,
        &["apikey", "create", "--name", "crm"],
    )));
    succeeds(kenning(&db, &["apikey", "revoke", key.trim()]));
    let keys = stdout(&succeeds(kenning(&db, &["apikey", "list"])));
    assert_ne!(listed(&keys, "crm")[4], "-", "revoked: {keys}");
    let out = kenning(&db, &["token", "revoke", key.trim()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("nor the secret of an access token"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_audit_trail_shows_what_the_command_line_changed() {
    let scratch = Scratch::migrated();
    let db = scratch.db_url();
    succeeds(kenning(&db, &["token", "create", "--name", "reporting"]));
    let list = stdout(&succeeds(kenning(&db, &["token", "list"])));
    let id = listed(&list, "reporting")[0].to_owned();
    succeeds(kenning(&db, &["token", "revoke", &id]));
    succeeds(kenning(&db, &["apikey", "create", "--name", "crm"]));

    let trail = stdout(&succeeds(kenning(&db, &["audit"])));
    let rows: Vec<Vec<&str>> = trail
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    let kinds: Vec<&str> = rows.iter().map(|r| r[2]).collect();
    assert_eq!(
        kinds,
        [
            "credential.issued",
            "credential.revoked",
            "credential.issued"
        ],
        "{trail}"
    );
    assert_eq!(rows[1][3], id, "{trail}");
    assert!(
        rows.iter().all(|r| r[4] == "cli" && r[5] == "cli"),
        "{trail}"
    );

    let page = succeeds(kenning(&db, &["audit", "--limit", "1"]));
    assert_eq!(stdout(&page).lines().count(), 2, "{}", stdout(&page));
    let next = stderr(&page);
    let cursor = next
        .split("--before ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no next page in {next}"));
    let older = stdout(&succeeds(kenning(&db, &["audit", "--before", cursor])));
    assert_eq!(older.lines().count(), 3, "{older}");
    let revoked = stdout(&succeeds(kenning(
        &db,
        &["audit", "--kind", "credential.revoked", "--resource", &id],
    )));
    assert_eq!(revoked.lines().count(), 2, "{revoked}");
    for (args, message) in [
        (["--kind", "user.renamed"], "must be one of user.created"),
        (["--limit", "501"], "must be at most 500"),
        (["--before", "0"], "must be a cursor"),
    ] {
        let out = kenning(&db, &[&["audit"][..], &args[..]].concat());
        assert!(!out.status.success());
        assert!(stderr(&out).contains(message), "{}", stderr(&out));
    }
}

#[test]
fn revoking_an_id_never_issued_names_a_credential_not_a_user() {
    let scratch = Scratch::migrated();
    let db = scratch.db_url();
    let id = "6f1c1f3e-0000-4000-8000-000000000000";
    for kind in ["token", "apikey"] {
        let out = kenning(&db, &[kind, "revoke", id]);
        assert!(!stderr(&out).contains("user"), "{}", stderr(&out));
        fails_with(out, &format!("no live {kind} has the id {id}"));
    }
}

#[test]
fn bad_arguments_are_one_clear_error() {
    let scratch = Scratch::migrated();
    let db = scratch.db_url();
    let out = kenning(&db, &["token", "create", "--name", "x", "--scope", "admin"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("unknown scope `admin`"),
        "{}",
        stderr(&out)
    );
    let out = kenning(&db, &["token", "revoke", "not-a-uuid"]);
    assert!(!out.status.success());
    fails_with(kenning(&db, &["token", "create", "--name", "   "]), "name");
    for kind in ["token", "apikey"] {
        fails_with(
            kenning(&db, &[kind, "create", "--name", "report\u{1b}[2Jing"]),
            "name must not contain control characters",
        );
    }
}

#[test]
fn bad_scoring_settings_stop_serve_before_it_starts() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    fails_with(
        kenning(&db, &["serve", "--primary-factor=-1"]),
        "primary must be a finite number >= 0",
    );
    for args in [
        ["serve", "--action-weight", "View=2"],
        ["serve", "--action-weight", "view"],
        ["serve", "--action-weight", "view=much"],
        ["serve", "--half-life-days", "0"],
    ] {
        let out = kenning(&db, &args);
        assert!(!out.status.success(), "{args:?}");
        assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
    }
    assert!(
        !scratch.0.join("nested").exists(),
        "nothing was opened or created"
    );
}

#[test]
fn oidc_settings_name_only_vouched_claims_and_real_domains() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let provider = [
        "serve",
        "--oidc-issuer",
        "https://id.example.com",
        "--oidc-client-id",
        "k",
    ];
    for (extra, said) in [
        (
            ["--oidc-external-id-claim", "preferred_username"],
            "`preferred_username` is not a claim the provider vouches for; the externalId is \
             matched against `sub` or `oid` alone",
        ),
        (
            ["--oidc-external-id-claim", "employee_id"],
            "`employee_id` is not a claim the provider vouches for",
        ),
        (
            ["--oidc-allowed-domain", "example.com,@example.org"],
            "`@example.org` is not a domain name such as example.com",
        ),
    ] {
        let out = kenning(&db, &[&provider[..], &extra[..]].concat());
        assert!(!out.status.success(), "{extra:?}");
        let first = stderr(&out).lines().next().unwrap_or_default().to_owned();
        assert!(
            first.starts_with("error: ") && first.contains(said),
            "{extra:?}: {}",
            stderr(&out)
        );
    }
    let out = kenning(&db, &["serve", "--oidc-allowed-domain", "example.com"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--oidc-issuer"), "{}", stderr(&out));
    assert!(
        !scratch.0.join("nested").exists(),
        "nothing was opened or created"
    );
}

/// Runs `kenning topics extract` with `args`, `input` on stdin.
fn extract(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args(["topics", "extract"])
        .args(args)
        .env_remove("DATABASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Each line of `text` as JSON.
fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn lines(output: &Output) -> Vec<serde_json::Value> {
    json_lines(&stdout(output))
}

#[test]
fn topics_extract_prints_a_json_line_per_input_in_order() {
    let scratch = Scratch::new();
    let en = scratch.0.join("en.txt");
    let de = scratch.0.join("de.html");
    std::fs::write(
        &en,
        "Solar panels convert sunlight into electricity. Rooftop solar panels cut electricity bills.",
    )
    .unwrap();
    std::fs::write(
        &de,
        "<p>Die Solaranlage auf dem Dach erzeugt Strom, und die Solaranlage senkt die Stromkosten.</p><script>geheimnis()</script>",
    )
    .unwrap();
    let (en, de) = (en.to_str().unwrap(), de.to_str().unwrap());

    let out = succeeds(extract(&["--html", "--limit", "25", en, de], ""));
    let found = lines(&out);
    assert_eq!(found.len(), 2);
    assert_eq!(
        (found[0]["file"].as_str(), found[0]["language"].as_str()),
        (Some(en), Some("en"))
    );
    assert_eq!(
        (found[1]["file"].as_str(), found[1]["language"].as_str()),
        (Some(de), Some("de"))
    );
    for f in &found {
        let topics = f["topics"].as_array().unwrap();
        assert!(!topics.is_empty() && topics.len() <= 25, "{f}");
        let scores: Vec<f64> = topics
            .iter()
            .map(|t| t["score"].as_f64().unwrap())
            .collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {f}");
        assert!(topics
            .iter()
            .all(|t| t["topic"].is_string() && t["key"].is_string()));
    }
    assert!(
        found[0]["topics"].to_string().contains("solar panel"),
        "{}",
        found[0]
    );
    assert!(
        found[1]["topics"].to_string().contains("solaranlag"),
        "{}",
        found[1]
    );
    assert!(
        !found[1].to_string().contains("geheimnis"),
        "scripts are not text"
    );

    let out = succeeds(extract(
        &["--lang", "FR"],
        "Rooftop solar panels cut electricity bills.",
    ));
    let found = lines(&out);
    assert_eq!(
        (found[0]["file"].as_str(), found[0]["language"].as_str()),
        (Some("-"), Some("fr"))
    );
}

/// Without `--limit`, every topic an upload of the text would teach, on
/// the upload's scale (a content word used once in a short text weighs
/// more than 1), each marked shown or kept for ranking alone.
#[test]
fn topics_extract_prints_what_an_upload_teaches() {
    let text = "Helm charts package our Kubernetes deployments. Each Helm chart pins the \
                container image, and the Kubernetes deployment keeps three replicas running.";
    let found = lines(&succeeds(extract(&[], text)));
    let topics = found[0]["topics"].as_array().unwrap();
    assert!(topics.len() > 10, "{topics:?}");
    let shown = |label: &str| {
        topics
            .iter()
            .find(|t| t["topic"] == label)
            .unwrap_or_else(|| panic!("{label} in {topics:?}"))["shown"]
            .as_bool()
            .unwrap()
    };
    assert!(shown("Kubernetes") && shown("Helm charts"));
    assert!(!shown("running") && !shown("keeps"));
    assert!(topics[0]["score"].as_f64().unwrap() > 1.0, "{topics:?}");
    let primary = lines(&succeeds(extract(&["--descriptor", "primary"], text)));
    let (default, primary) = (
        topics[0]["score"].as_f64().unwrap(),
        primary[0]["topics"][0]["score"].as_f64().unwrap(),
    );
    assert!(
        (primary - 1.5 * default).abs() < 1e-9,
        "{primary} {default}"
    );
    let refused = extract(&["--descriptor", "main"], text);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("is not a descriptor"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn topics_extract_refuses_what_it_cannot_read() {
    let scratch = Scratch::new();
    let good = scratch.0.join("good.txt");
    std::fs::write(&good, "Solar panels convert sunlight.").unwrap();
    let missing = scratch.0.join("missing.txt");
    let binary = scratch.0.join("binary.bin");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x81]).unwrap();
    for (bad, message) in [(&missing, "cannot read"), (&binary, "is not UTF-8 text")] {
        let out = extract(&[good.to_str().unwrap(), bad.to_str().unwrap()], "");
        assert!(stdout(&out).is_empty(), "nothing printed before the error");
        fails_with(out, message);
    }
    let out = extract(&["--lang", "xx"], "text");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not a supported language"),
        "{}",
        stderr(&out)
    );
    let out = extract(&["--limit", "0"], "text");
    assert!(!out.status.success());
}

#[test]
fn api_keys_are_created_listed_and_revoked() {
    let scratch = Scratch::migrated();
    let db = scratch.db_url();
    let secret = stdout(&succeeds(kenning(
        &db,
        &["apikey", "create", "--name", "crm"],
    )));
    assert!(secret.starts_with("kn_key_") && secret.lines().count() == 1);
    let list = stdout(&succeeds(kenning(&db, &["apikey", "list"])));
    let crm = listed(&list, "crm");
    assert_eq!(crm[2], "-");
    succeeds(kenning(&db, &["apikey", "revoke", crm[0]]));
    // Keys are not tokens.
    let tokens = stdout(&succeeds(kenning(&db, &["token", "list"])));
    assert_eq!(tokens.lines().count(), 1, "only the header: {tokens}");
}

#[test]
fn purge_prints_how_many_users_it_anonymized() {
    let scratch = Scratch::migrated();
    let out = succeeds(kenning(&scratch.db_url(), &["purge"]));
    assert_eq!(
        stdout(&out),
        "anonymized 0 users whose grace period had ended\n"
    );
}

#[test]
fn unusable_database_urls_are_refused_without_leaking_secrets() {
    fails_with(
        kenning("mysql://root:hunter2@db/kenning", &["migrate"]),
        "unsupported database URL scheme `mysql`",
    );
    let out = kenning(
        "postgres://kenning:hunter2@127.0.0.1:1/kenning?password=hunter2",
        &["migrate"],
    );
    let err = stderr(&out);
    assert!(!err.contains("hunter2"), "{err}");
    assert!(
        err.starts_with("database: postgres://kenning@127.0.0.1:1/kenning\n"),
        "{err}"
    );
    fails_with(out, "cannot open the PostgreSQL database");
}

/// A running `kenning serve`, killed when dropped.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `serve` on a free port; returns the process and the port.
fn serve(db: &str) -> (Served, u16) {
    serve_at(db, "127.0.0.1:0")
}

/// Starts `serve` on `bind`; returns the process and the port.
fn serve_at(db: &str, bind: &str) -> (Served, u16) {
    serve_with(db, bind, &[])
}

/// Starts `serve` on `bind` with more settings in the environment.
fn serve_with(db: &str, bind: &str, settings: &[(&str, &str)]) -> (Served, u16) {
    let child = Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args(["--database-url", db, "serve", "--bind", bind])
        .envs(settings.iter().copied())
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut served = Served(child);
    let stderr = served.0.stderr.take().unwrap();
    let mut port = None;
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if let Some(p) = line.split("serving on port ").nth(1) {
            port = Some(p.trim().parse().unwrap());
            break;
        }
    }
    (served, port.expect("the server never said it was serving"))
}

/// The first line `serve` printed on stdout: the first admin token.
fn first_line(served: &mut Served) -> String {
    let mut line = String::new();
    BufReader::new(served.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    line.trim().to_owned()
}

/// The whole answer of the server on `port` to a GraphQL request listing
/// users, sent with `token`.
fn list_users(port: u16, token: &str) -> String {
    graphql_post(port, token, r#"{"query":"{ users { globalUserId } }"}"#)
}

/// The whole answer of the server on `port` to the GraphQL request `body`,
/// sent with `token`.
fn graphql_post(port: u16, token: &str, body: &str) -> String {
    http(
        port,
        &format!(
            "POST /accounts/api/v1/graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
             Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
}

fn http(port: u16, request: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
}

/// A database written before a group could not take another's id as its
/// externalId may hold such a look-alike: the server starts all the same,
/// with the group whose id it is as the administrators', and says so.
#[test]
fn a_look_alike_of_the_administrators_group_never_stops_serve() {
    use diesel::{Connection, RunQueryDsl, SqliteConnection};
    let scratch = Scratch::migrated();
    let db = scratch.db_url();
    let path = db.trim_start_matches("sqlite://");
    let admins = uuid::Uuid::new_v4().to_string();
    let mut conn = SqliteConnection::establish(path).unwrap();
    for (id, name, external) in [
        (admins.as_str(), "Administrators", None),
        (
            &uuid::Uuid::new_v4().to_string(),
            "Look-alike",
            Some(admins.as_str()),
        ),
    ] {
        diesel::sql_query(format!(
            "INSERT INTO user_groups (id, display_name, display_name_key, external_id, created, \
             modified, version) VALUES ('{id}', '{name}', '{}', {}, '2026-01-01 00:00:00', \
             '2026-01-01 00:00:00', 1)",
            name.to_lowercase(),
            external.map_or("NULL".to_owned(), |e| format!("'{e}'"))
        ))
        .execute(&mut conn)
        .unwrap();
    }
    let (served, port) = serve_with(
        &db,
        "127.0.0.1:0",
        &[("KENNING_ADMIN_GROUP", admins.as_str())],
    );
    assert!(port > 0);
    drop(served);
}
