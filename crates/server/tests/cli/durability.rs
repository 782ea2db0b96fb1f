//! An acknowledged upload survives the server's sudden death: `kill -9`
//! in the middle of concurrent batches loses none of the items it had
//! answered 201 for.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};

use super::{first_line, kenning, serve, stdout, succeeds, Scratch};

const BATCH: &str = "/connectors/api/v1/entities-with-action/batch";

/// POSTs `body` to `path` with `headers`; the status and the JSON body,
/// or why there is none (the server is gone).
fn post(port: u16, path: &str, headers: &str, body: &Value) -> Result<(u16, Value), String> {
    let body = body.to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut reply = String::new();
    stream
        .read_to_string(&mut reply)
        .map_err(|e| e.to_string())?;
    let status = reply
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an HTTP answer: {reply:?}"))?;
    let (_, json) = reply
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("no body: {reply:?}"))?;
    let json = serde_json::from_str(json).map_err(|e| format!("{e}: {json}"))?;
    Ok((status, json))
}

fn item(alias: &str) -> Value {
    json!({
        "entity_type": "document",
        "action_type": "create",
        "action_date": "2026-03-01T10:00:00.000Z",
        "user_email": "ada@example.com",
        "text": "Analytical engines compute Bernoulli numbers from punched cards.",
        "action_alias": alias,
    })
}

/// The aliases of the items a batch answer accepted.
fn accepted(items: &[Value], answer: &Value) -> Vec<String> {
    let results = answer["results"].as_array().cloned().unwrap_or_default();
    items
        .iter()
        .zip(results)
        .filter(|(_, r)| r["status"] == 201)
        .map(|(i, _)| i["action_alias"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn kill_9_loses_no_acknowledged_upload() {
    let scratch = Scratch::new();
    let db = scratch.db_url();
    let (mut server, port) = serve(&db);
    let admin = first_line(&mut server);
    let create = json!({
        "query": "mutation { createUser(createUserInput: { email: \"ada@example.com\", firstname: \"Ada\", lastname: \"Lovelace\" }) { globalUserId } }"
    });
    let (status, _) = post(
        port,
        "/accounts/api/v1/graphql",
        &format!("Authorization: Bearer {admin}\r\n"),
        &create,
    )
    .unwrap();
    assert_eq!(status, 200);
    let key = stdout(&succeeds(kenning(
        &db,
        &["apikey", "create", "--name", "c"],
    )));
    let headers = format!("APIKEY: {}\r\n", key.trim());

    let acknowledged = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        for c in 0..4 {
            let (acknowledged, stop, headers) = (&acknowledged, &stop, &headers);
            s.spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    let items: Vec<Value> =
                        (0..20).map(|i| item(&format!("c{c}-{n}-{i}"))).collect();
                    n += 1;
                    match post(port, BATCH, headers, &json!({ "items": items })) {
                        Ok((200, answer)) => acknowledged
                            .lock()
                            .unwrap()
                            .extend(accepted(&items, &answer)),
                        Ok((status, answer)) => panic!("{status}: {answer}"),
                        // The server was killed with this batch in flight.
                        Err(_) => break,
                    }
                }
            });
        }
        // Until a good number of items were acknowledged, then mid-stream.
        while acknowledged.lock().unwrap().len() < 400 {
            std::thread::sleep(Duration::from_millis(20));
        }
        server.0.kill().unwrap();
        server.0.wait().unwrap();
        stop.store(true, Ordering::Relaxed);
    });

    let acknowledged = acknowledged.into_inner().unwrap();
    let (_again, port) = serve(&db);
    for aliases in acknowledged.chunks(100) {
        let items: Vec<Value> = aliases.iter().map(|a| item(a)).collect();
        let (status, answer) = post(port, BATCH, &headers, &json!({ "items": items })).unwrap();
        assert_eq!(status, 200, "{answer}");
        for (alias, result) in aliases.iter().zip(answer["results"].as_array().unwrap()) {
            assert_eq!(
                result["error"]["code"], "DuplicateAlias",
                "{alias} was acknowledged before the kill but is not kept: {result}"
            );
        }
    }
}
