//! `kenning connect <source>` against a real server: each source end to
//! end, with the people found and not found, a repeated run that sends
//! nothing, a run cut short that the next one finishes, and bad input
//! named in one line.

mod contract;
mod git;
mod imap;
mod mail;
mod mattermost;
mod mediawiki;
mod slack;
mod stackexchange;

use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

use super::{first_line, kenning, serve_at, stdout, succeeds, Scratch, Served};

/// A server on a scratch database with the people `emails` name, and a
/// connector key.
pub(super) struct Connected {
    pub scratch: Scratch,
    /// Serves until the test ends.
    _server: Served,
    pub port: u16,
    pub key: String,
    pub admin: String,
}

impl Connected {
    /// Serves a fresh database on a free port, with a user for each of
    /// `emails`.
    pub fn with_people(emails: &[&str]) -> Self {
        let scratch = Scratch::new();
        let db = scratch.db_url();
        let (mut server, port) = serve_at(&db, "127.0.0.1:0");
        let admin = first_line(&mut server);
        let key = stdout(&succeeds(kenning(
            &db,
            &["apikey", "create", "--name", "connectors"],
        )))
        .trim()
        .to_owned();
        let connected = Self {
            scratch,
            _server: server,
            port,
            key,
            admin,
        };
        for email in emails {
            let (first, _) = email.split_once('@').unwrap_or((email, ""));
            let reply = connected.graphql(
                "mutation($email: String!, $first: String!) { createUser(createUserInput: { email: $email, firstname: $first, lastname: \"Example\" }) { globalUserId } }",
                json!({ "email": email, "first": first }),
            );
            assert!(
                reply["data"]["createUser"]["globalUserId"].is_string(),
                "{reply}"
            );
        }
        connected
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A GraphQL call with the first admin token.
    pub fn graphql(&self, query: &str, variables: Value) -> Value {
        let body = json!({ "query": query, "variables": variables }).to_string();
        let reply = super::http(
            self.port,
            &format!(
                "POST /accounts/api/v1/graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
                 Authorization: Bearer {}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\n\r\n{body}",
                self.admin,
                body.len()
            ),
        );
        let (_, json) = reply.split_once("\r\n\r\n").unwrap_or_default();
        serde_json::from_str(json).unwrap_or_else(|_| panic!("not JSON: {reply}"))
    }

    /// Who `experts` ranks first for `query`, by e-mail.
    pub fn expert(&self, query: &str) -> Option<String> {
        let reply = self.graphql(
            "query($q: String!) { experts(query: $q, limit: 1) { user { email } } }",
            json!({ "q": query }),
        );
        reply["data"]["experts"][0]["user"]["email"]
            .as_str()
            .map(str::to_owned)
    }

    /// `kenning connect` with this server, key and a cursor folder of its
    /// own, and `args`.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kenning"));
        command
            .arg("connect")
            .args(args)
            .args(["--url", &self.url()])
            .arg("--cursor-dir")
            .arg(self.scratch.0.join("cursors"))
            .env("KENNING_API_KEY", &self.key)
            .env_remove("DATABASE_URL")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    pub fn connect(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }
}

/// The count after `label` in a run's summary line (`sent 4`).
pub(super) fn count(output: &Output, label: &str) -> u64 {
    let text = String::from_utf8_lossy(&output.stderr);
    let line = text
        .lines()
        .find(|l| l.contains(": read "))
        .unwrap_or_else(|| panic!("no summary in {text}"));
    let after = line
        .split_once(&format!("{label} "))
        .unwrap_or_else(|| panic!("no `{label}` in {line}"))
        .1;
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after `{label}` in {line}"))
}

/// A run's error is cut by the connector to what the server keeps, so a
/// failed run is never refused for its length.
#[test]
fn the_connector_cuts_a_runs_error_to_the_servers_limit() {
    assert_eq!(
        kenning_upload::connect::MAX_ERROR_CHARS,
        kenning_domain::RunError::MAX_CHARS
    );
}

/// Every error code a connector acts on is one the server's use cases
/// can answer: the client's list and the server's cannot drift apart.
#[test]
fn the_codes_a_connector_acts_on_are_the_servers() {
    for code in kenning_upload::codes::Code::ALL {
        assert!(
            kenning_app::ServiceError::CODES.contains(&code.as_str()),
            "the server has no code {}",
            code.as_str()
        );
    }
}
