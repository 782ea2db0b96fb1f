//! Webhooks survive the server: a server killed with SIGKILL in the middle
//! of a delivery delivers every committed event after it is started
//! again, each with the id it had (duplicates allowed).

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{first_line, graphql_post, kenning, serve_with, stdout, succeeds, Scratch};

/// A receiver on 127.0.0.1 that records the `Webhook-Id` of each request
/// and, until told to answer, holds every request unanswered.
struct Receiver {
    port: u16,
    ids: Arc<Mutex<Vec<String>>>,
    answering: Arc<AtomicBool>,
}

impl Receiver {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let ids = Arc::new(Mutex::new(Vec::new()));
        let answering = Arc::new(AtomicBool::new(false));
        let (kept, answer) = (ids.clone(), answering.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (kept, answer) = (kept.clone(), answer.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let (mut id, mut length) = (String::new(), 0usize);
                    let mut line = String::new();
                    while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                        let lower = line.to_ascii_lowercase();
                        if let Some(v) = lower.strip_prefix("webhook-id:") {
                            id = v.trim().to_owned();
                        }
                        if let Some(v) = lower.strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                        line.clear();
                    }
                    let mut body = vec![0; length];
                    let _ = reader.read_exact(&mut body);
                    kept.lock().unwrap().push(id);
                    while !answer.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    let mut stream = stream;
                    let _ = stream.write_all(
                        b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    );
                });
            }
        });
        Self {
            port,
            ids,
            answering,
        }
    }

    fn ids(&self) -> Vec<String> {
        self.ids.lock().unwrap().clone()
    }

    fn wait(&self, until: impl Fn(&[String]) -> bool) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ids = self.ids();
            if until(&ids) || Instant::now() > deadline {
                return ids;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn a_server_killed_mid_delivery_delivers_every_committed_event_after_restart() {
    let scratch = Scratch::migrated();
    let db = scratch.db_url();
    let receiver = Receiver::start();
    let url = format!("http://127.0.0.1:{}/hook", receiver.port);
    let created = succeeds(kenning(
        &db,
        &[
            "webhook",
            "create",
            "--url",
            &url,
            "--kind",
            "user.created",
            "--webhook-allow-network",
            "127.0.0.0/8",
        ],
    ));
    assert!(
        stdout(&created).starts_with("whsec_"),
        "{}",
        stdout(&created)
    );
    let listed = stdout(&succeeds(kenning(&db, &["webhook", "list"])));
    assert!(listed.contains(&url), "{listed}");

    let settings = [
        ("KENNING_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8"),
        ("KENNING_WEBHOOK_TIMEOUT_SECS", "5"),
        ("KENNING_WEBHOOK_LEASE_SECS", "6"),
        ("KENNING_WEBHOOK_INTERVAL_MS", "50"),
        ("KENNING_MEANING", "off"),
    ];
    let (mut served, port) = serve_with(&db, "127.0.0.1:0", &settings);
    let token = first_line(&mut served);
    for n in 0..3 {
        let answer = graphql_post(
            port,
            &token,
            &format!(
                r#"{{"query":"mutation {{ createUser(createUserInput: {{email: \"p{n}@example.com\", firstname: \"P\", lastname: \"N{n}\"}}) {{ globalUserId }} }}"}}"#
            ),
        );
        assert!(answer.contains("globalUserId"), "{answer}");
    }
    // The first delivery is under way, unanswered: the server dies.
    let before = receiver.wait(|ids| !ids.is_empty());
    assert_eq!(
        before.len(),
        1,
        "the first waits for its answer: {before:?}"
    );
    served.0.kill().unwrap();
    served.0.wait().unwrap();

    receiver.answering.store(true, Ordering::SeqCst);
    let restart = [
        ("KENNING_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8"),
        ("KENNING_WEBHOOK_TIMEOUT_SECS", "2"),
        ("KENNING_WEBHOOK_LEASE_SECS", "3"),
        ("KENNING_WEBHOOK_INTERVAL_MS", "50"),
        ("KENNING_MEANING", "off"),
    ];
    let (_served, _) = serve_with(&db, "127.0.0.1:0", &restart);
    let after = receiver.wait(|ids| ids.iter().collect::<HashSet<_>>().len() >= 3);
    let distinct: HashSet<&String> = after.iter().collect();
    assert_eq!(distinct.len(), 3, "every committed event: {after:?}");
    assert!(
        distinct.contains(&before[0]),
        "the interrupted one again, with its id: {after:?}"
    );
}
