//! The first start: the admin token a fresh database gets, shown once.

use std::io::Read;
use std::net::TcpListener;

use super::{
    fails_with, first_line, http, kenning, list_users, listed, serve, stdout, succeeds, Scratch,
};

#[test]
fn serve_prints_a_first_admin_token_once_and_it_works() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let (mut served, port) = serve(&db);
    let token = first_line(&mut served);
    let token = token.as_str();
    assert!(token.starts_with("kn_tok_"), "{token}");

    let ready = http(
        port,
        "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert!(ready.starts_with("HTTP/1.1 200"), "{ready}");
    let reply = list_users(port, token);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.ends_with(r#"{"data":{"users":[]}}"#), "{reply}");
    drop(served);

    // The second start finds the token and prints nothing on stdout.
    let (mut again, _) = serve(&db);
    let _ = again.0.kill();
    let mut out = String::new();
    again
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(out, "");
    let list = stdout(&succeeds(kenning(&db, &["token", "list"])));
    assert_eq!(
        listed(&list, "admin")[2],
        "users:read,users:write,expertise:read,audit:read,webhooks:manage,administrators:write"
    );
}

#[test]
fn a_start_that_cannot_listen_issues_no_token() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let out = kenning(&db, &["serve", "--bind", &address]);
    assert_eq!(stdout(&out), "", "no token was shown");
    fails_with(out, &format!("cannot listen on {address}"));
    let tokens = stdout(&succeeds(kenning(&db, &["token", "list"])));
    assert_eq!(tokens.lines().count(), 1, "no token was stored: {tokens}");

    drop(taken);
    let (mut served, _) = serve(&db);
    let token = first_line(&mut served);
    assert!(token.starts_with("kn_tok_"), "{token}");
}
