//! Deliveries over real sockets, to receivers on 127.0.0.1: what arrives,
//! what each answer comes to, and what the policy keeps from being sent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use kenning_domain::{Actor, AuditEntry, Change, ChangeKind, Channel};
use kenning_webhook::{
    check_url, cloud_event, event_id, verify, AddressRange, EventSource, NetworkPolicy, Outcome,
    Refusal, RetryReason, Sender, DEFAULT_TOLERANCE_SECS,
};
use serde_json::Value;
use uuid::Uuid;

const SECRET: &[u8] = b"whsec_4f1c2b";
const TIMEOUT: Duration = Duration::from_secs(5);

fn loopback_allowed() -> NetworkPolicy {
    NetworkPolicy::allowing(["127.0.0.0/8".parse().unwrap()])
}

fn entry() -> AuditEntry {
    AuditEntry {
        position: 42,
        at: Utc.with_ymd_and_hms(2026, 5, 1, 9, 0, 0).unwrap(),
        actor: Actor::credential(Uuid::from_u128(7), "hr-sync", Channel::Scim),
        change: Change {
            kind: ChangeKind::UserDeactivated,
            resource_id: Uuid::from_u128(9),
            fields: Vec::new(),
        },
    }
}

/// A request as a receiver saw it.
#[derive(Debug)]
struct Received {
    request_line: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Received {
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
            .unwrap_or_default()
    }
}

/// A receiver that answers one request with `answer` and hands over what
/// it received.
fn receiver(answer: String) -> (SocketAddr, mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        // A request that is not HTTP (a TLS handshake) is answered all
        // the same.
        let received = read_request(&stream);
        (&stream).write_all(answer.as_bytes()).unwrap();
        if let Ok(received) = received {
            tx.send(received).unwrap();
        }
    });
    (address, rx)
}

fn read_request(stream: &TcpStream) -> io::Result<Received> {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.insert(name.to_ascii_lowercase(), value.trim().to_owned());
    }
    let length: usize = headers
        .get("content-length")
        .map_or(0, |l| l.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Received {
        request_line: request_line.trim_end().to_owned(),
        headers,
        body,
    })
}

/// What came of sending a small event to `url` under `policy`.
fn send(policy: NetworkPolicy, url: &str) -> Outcome {
    Sender::new(policy, TIMEOUT).deliver(url, SECRET, "id-1", b"{}", Utc::now())
}

fn assert_unreachable(outcome: Outcome) {
    assert!(
        matches!(
            outcome,
            Outcome::Retry {
                reason: RetryReason::Unreachable(_)
            }
        ),
        "{outcome:?}"
    );
}

fn answer(status: &str) -> String {
    format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
}

/// A listener nobody accepts from: the kernel still completes a connection
/// to it, so whether anything connected can be read afterwards.
struct Silent(TcpListener);

impl Silent {
    fn new() -> Self {
        Self(TcpListener::bind("127.0.0.1:0").unwrap())
    }

    fn port(&self) -> u16 {
        self.0.local_addr().unwrap().port()
    }

    fn was_called(&self) -> bool {
        self.0.set_nonblocking(true).unwrap();
        match self.0.accept() {
            Ok(_) => true,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => false,
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn an_event_arrives_signed_with_its_id_and_verifies() {
    let (address, received) = receiver(answer("204 No Content"));
    let entry = entry();
    let source = EventSource::default();
    let id = event_id(&entry, &source);
    let body = cloud_event(&entry, &source).unwrap();
    let now = Utc::now();
    let sender = Sender::new(loopback_allowed(), TIMEOUT);

    let outcome = sender.deliver(
        &format!("http://{address}/hooks/kenning"),
        SECRET,
        &id,
        &body,
        now,
    );

    assert_eq!(outcome, Outcome::Delivered { status: 204 });
    let request = received.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(request.request_line, "POST /hooks/kenning HTTP/1.1");
    assert_eq!(
        request.header("content-type"),
        "application/cloudevents+json"
    );
    assert_eq!(request.header("webhook-id"), id);
    assert!(request.header("user-agent").starts_with("Kenning-Webhook/"));
    assert_eq!(request.body, body);

    let event: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(event["specversion"], "1.0");
    assert_eq!(event["id"], id.as_str());
    assert_eq!(event["type"], "io.kenning.user.deactivated");
    assert_eq!(event["source"], "/kenning");
    assert_eq!(event["subject"], Uuid::from_u128(9).to_string());
    assert_eq!(event["time"], "2026-05-01T09:00:00Z");
    assert_eq!(event["data"]["resourceType"], "user");
    assert_eq!(event["data"]["kind"], "user.deactivated");
    assert_eq!(event["data"]["actor"]["name"], "hr-sync");
    assert_eq!(event["data"]["actor"]["channel"], "scim");

    let signature = request.header("kenning-signature");
    let at = now.timestamp();
    assert!(signature.starts_with(&format!("t={at},v1=")));
    let verifies = |secret: &[u8], body: &[u8], now: i64| {
        verify(signature, secret, body, now, DEFAULT_TOLERANCE_SECS)
    };
    assert!(verifies(SECRET, &request.body, at));
    let mut tampered = request.body.clone();
    tampered[10] ^= 1;
    assert!(!verifies(SECRET, &tampered, at));
    assert!(!verifies(b"another secret", &request.body, at));
    assert!(!verifies(
        SECRET,
        &request.body,
        at + DEFAULT_TOLERANCE_SECS + 1
    ));
}

#[test]
fn the_same_entry_is_sent_again_with_the_same_id() {
    let sender = Sender::new(loopback_allowed(), TIMEOUT);
    let source = EventSource::default();
    let mut ids = Vec::new();
    for _ in 0..2 {
        let (address, received) = receiver(answer("200 OK"));
        let outcome = sender.deliver(
            &format!("http://{address}/"),
            SECRET,
            &event_id(&entry(), &source),
            &cloud_event(&entry(), &source).unwrap(),
            Utc::now(),
        );
        assert_eq!(outcome, Outcome::Delivered { status: 200 });
        let request = received.recv_timeout(Duration::from_secs(5)).unwrap();
        ids.push(request.header("webhook-id").to_owned());
    }
    assert_eq!(ids[0], ids[1]);
}

#[test]
fn by_default_loopback_is_blocked_and_never_connected_to() {
    let silent = Silent::new();
    for url in [
        format!("https://127.0.0.1:{}/", silent.port()),
        format!("http://127.0.0.1:{}/", silent.port()),
        format!("https://[::ffff:127.0.0.1]:{}/", silent.port()),
    ] {
        let outcome = send(NetworkPolicy::default(), &url);
        let Outcome::Blocked {
            reason: Refusal::BlockedAddress { range, .. },
        } = outcome
        else {
            panic!("{url}: {outcome:?}");
        };
        assert_eq!(range, AddressRange::Loopback, "{url}");
    }
    assert!(!silent.was_called());
}

#[test]
fn a_name_resolving_to_a_blocked_address_is_blocked_when_resolved() {
    let silent = Silent::new();
    let url = format!("https://localhost:{}/hook", silent.port());
    // A name passes the check of the URL alone: its addresses are known
    // only once it is resolved, at delivery.
    assert!(check_url(&url, &NetworkPolicy::default()).is_ok());

    let outcome = send(NetworkPolicy::default(), &url);

    let Outcome::Blocked {
        reason: Refusal::BlockedAddress { address, range },
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    assert!(address.is_loopback(), "{address}");
    assert_eq!(range, AddressRange::Loopback);
    assert!(!silent.was_called());
}

#[test]
fn plain_http_to_a_public_address_is_refused_by_default() {
    // Refused by the URL's check alone, before anything is sent.
    assert_eq!(
        check_url("http://93.184.215.14/hook", &NetworkPolicy::default()),
        Err(Refusal::PlainHttp)
    );
    assert_eq!(
        check_url("http://93.184.215.14/hook", &loopback_allowed()),
        Err(Refusal::PlainHttp)
    );
}

#[test]
fn a_server_error_is_retried() {
    let (address, received) = receiver(answer("500 Internal Server Error"));
    let outcome = send(loopback_allowed(), &format!("http://{address}/"));
    assert_eq!(
        outcome,
        Outcome::Retry {
            reason: RetryReason::Status(500)
        }
    );
    assert!(received.recv_timeout(Duration::from_secs(5)).is_ok());
}

#[test]
fn a_redirect_is_not_followed_and_is_rejected() {
    let target = Silent::new();
    let redirect = format!(
        "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{}/elsewhere\r\n\
         Content-Length: 0\r\nConnection: close\r\n\r\n",
        target.port()
    );
    let (address, received) = receiver(redirect);

    let outcome = send(loopback_allowed(), &format!("http://{address}/"));

    assert_eq!(outcome, Outcome::Rejected { status: 302 });
    assert!(received.recv_timeout(Duration::from_secs(5)).is_ok());
    assert!(!target.was_called());
}

#[test]
fn a_receiver_that_never_answers_is_retried_within_the_timeout() {
    let silent = Silent::new();
    let sender = Sender::new(loopback_allowed(), Duration::from_millis(300));
    let started = Instant::now();

    let outcome = sender.deliver(
        &format!("http://127.0.0.1:{}/", silent.port()),
        SECRET,
        "id-1",
        b"{}",
        Utc::now(),
    );

    assert_eq!(
        outcome,
        Outcome::Retry {
            reason: RetryReason::Timeout
        }
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(silent.was_called());
}

#[test]
fn a_refused_connection_is_retried() {
    // A port just freed: nothing listens there.
    let port = Silent::new().port();
    assert_unreachable(send(
        loopback_allowed(),
        &format!("http://127.0.0.1:{port}/"),
    ));
}

#[test]
fn https_to_a_receiver_without_tls_is_retried_never_delivered() {
    let (address, _received) = receiver(answer("200 OK"));
    assert_unreachable(send(loopback_allowed(), &format!("https://{address}/")));
}
