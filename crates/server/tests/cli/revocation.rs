//! Servers already running on a database learn of a revocation the command
//! line wrote there, on their own wall clocks, within the delay the
//! documentation promises (one second); the API tests check that bound
//! exactly on a manual clock.

use std::time::{Duration, Instant};

use super::{first_line, kenning, list_users, listed, serve, stdout, succeeds, Scratch};

/// The status the server on `port` answers a request with `token`.
fn status(port: u16, token: &str) -> u16 {
    let reply = list_users(port, token);
    reply
        .get(9..12)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {reply}"))
}

#[test]
fn running_servers_refuse_a_token_revoked_from_the_command_line_within_a_second() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let (mut first, first_port) = serve(&db);
    let _admin = first_line(&mut first);
    let (_second, second_port) = serve(&db);
    let out = succeeds(kenning(&db, &["token", "create", "--name", "reporting"]));
    let token = stdout(&out).trim().to_owned();
    let list = stdout(&succeeds(kenning(&db, &["token", "list"])));
    let id = listed(&list, "reporting")[0].to_owned();
    for port in [first_port, second_port] {
        assert_eq!(status(port, &token), 200, "port {port}");
    }

    succeeds(kenning(&db, &["token", "revoke", &id]));
    let revoked = Instant::now();
    // Room for a busy machine beyond the second the servers may take.
    let deadline = revoked + Duration::from_secs(3);
    for port in [first_port, second_port] {
        while status(port, &token) != 401 {
            assert!(
                Instant::now() < deadline,
                "port {port} still accepts the token {:?} after its revocation",
                revoked.elapsed()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
