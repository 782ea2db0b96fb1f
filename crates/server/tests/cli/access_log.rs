//! The access log of a real server keeps the route of each request, never
//! the path or the query as sent: no question asked, no id of a person,
//! no SCIM filter, no sign-in secret.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{first_line, graphql_post, http, Scratch, Served};

/// Starts `serve` on a free port with the access log on; the process, its
/// port and every line it writes on stderr, as they come.
fn serve_logged(db: &str) -> (Served, u16, Arc<Mutex<Vec<String>>>) {
    let child = Command::new(env!("CARGO_BIN_EXE_kenning"))
        .args(["--database-url", db, "serve", "--bind", "127.0.0.1:0"])
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut served = Served(child);
    let lines = Arc::new(Mutex::new(Vec::new()));
    let (port_tx, port_rx) = std::sync::mpsc::channel();
    let stderr = served.0.stderr.take().unwrap();
    let written = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(port) = line.split("serving on port ").nth(1) {
                let _ = port_tx.send(port.trim().parse::<u16>().unwrap());
            }
            written.lock().unwrap().push(line);
        }
    });
    let port = port_rx
        .recv_timeout(Duration::from_secs(120))
        .expect("the server never said it was serving");
    (served, port, lines)
}

fn get(port: u16, target: &str, token: &str) -> String {
    http(
        port,
        &format!(
            "GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAccept: text/html\r\n\
             Authorization: Bearer {token}\r\n\r\n"
        ),
    )
}

#[test]
fn the_access_log_keeps_routes_not_questions_ids_or_secrets() {
    let scratch = Scratch::new();
    let (mut served, port, log) = serve_logged(&scratch.db_url());
    let token = first_line(&mut served);
    let created = graphql_post(
        port,
        &token,
        r#"{"query":"mutation { createUser(createUserInput: {email: \"ada@example.com\", firstname: \"Ada\", lastname: \"Lovelace\"}) { globalUserId } }"}"#,
    );
    let id = created
        .split("\"globalUserId\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no user created: {created}"))
        .to_owned();

    let scim = "/accounts/api/v1/scim/v2";
    let asked = [
        (
            "/?q=zeppelin+airship+maintenance".to_owned(),
            "GET / HTTP/1.1",
        ),
        (format!("/people/{id}"), "GET /people/{id} HTTP/1.1"),
        (
            format!("/admin/users/{id}"),
            "GET /admin/users/{id} HTTP/1.1",
        ),
        (
            format!("/admin/users/{id}/data"),
            "GET /admin/users/{id}/data HTTP/1.1",
        ),
        (
            format!("{scim}/Users/{id}"),
            "GET /accounts/api/v1/scim/v2/Users/{id} HTTP/1.1",
        ),
        (
            format!("{scim}/Users?filter=userName%20eq%20%22ada%40example.com%22"),
            "GET /accounts/api/v1/scim/v2/Users HTTP/1.1",
        ),
        (
            "/auth/link/link-secret-in-the-path".to_owned(),
            "GET /auth/link/{secret} HTTP/1.1",
        ),
        (
            "/auth/callback?code=code-from-the-provider&state=s".to_owned(),
            "GET /auth/callback HTTP/1.1",
        ),
        (format!("/nowhere/{id}"), "GET unmatched HTTP/1.1"),
    ];
    for (target, _) in &asked {
        let reply = get(port, target, &token);
        assert!(reply.starts_with("HTTP/1.1 "), "{target}: {reply}");
    }

    // Each request is logged once it is answered.
    let deadline = Instant::now() + Duration::from_secs(10);
    let written = loop {
        let written = log.lock().unwrap().join("\n");
        if asked.iter().all(|(_, route)| written.contains(route)) {
            break written;
        }
        assert!(
            Instant::now() < deadline,
            "routes missing from the log:\n{written}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    for kept in [
        id.as_str(),
        "zeppelin",
        "airship",
        "ada%40example.com",
        "ada@example.com",
        "link-secret-in-the-path",
        "code-from-the-provider",
        "nowhere",
    ] {
        assert!(!written.contains(kept), "the log keeps {kept}:\n{written}");
    }
}
