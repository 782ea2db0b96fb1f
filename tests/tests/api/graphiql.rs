//! GraphiQL works offline: its page and every file it loads come from the
//! server itself.

use kenning_tests::app::TestApp;
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;

const PAGE: &str = "/accounts/api/v1/graphql";

/// Every `src="..."` and `href="..."` of `html`.
fn references(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for attribute in ["src=\"", "href=\""] {
        for piece in html.split(attribute).skip(1) {
            if let Some((reference, _)) = piece.split_once('"') {
                found.push(reference.to_owned());
            }
        }
    }
    found
}

#[on_every_backend]
fn graphiql_is_served_from_the_binary(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "graphiql_is_served_from_the_binary") else {
        return;
    };
    let page = app.request("GET", PAGE, &[], b"");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(!page.body.contains("://"), "{}", page.body);
    let policy = page.header("content-security-policy").unwrap();
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(policy.contains("script-src 'self';"), "{policy}");
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");

    let references = references(&page.body);
    assert_eq!(references.len(), 6, "{references:?}");
    for reference in references {
        assert!(
            reference.starts_with("/accounts/api/v1/graphiql/"),
            "{reference}"
        );
        let asset = app.request("GET", &reference, &[], b"");
        assert_eq!(asset.status, 200, "{reference}");
        let content_type = asset.header("content-type").unwrap();
        let expected = if reference.ends_with(".js") {
            "text/javascript"
        } else {
            "text/css"
        };
        assert!(
            content_type.starts_with(expected),
            "{reference}: {content_type}"
        );
        assert!(!asset.body.is_empty());
    }
    let script = app.request(
        "GET",
        "/accounts/api/v1/graphiql/kenning-graphiql.js",
        &[],
        b"",
    );
    assert!(script.body.contains(PAGE), "{}", script.body);
    let missing = app.request("GET", "/accounts/api/v1/graphiql/nothing.js", &[], b"");
    assert_eq!(missing.status, 404);
}

/// The text of the element `<script ... id="{id}">` of `html`.
fn script_text<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no {id} in {html}"));
    let after = &html[start..];
    let body = &after[after.find('>').unwrap() + 1..];
    &body[..body.find("</script>").unwrap()]
}

#[on_every_backend]
fn graphiql_opens_on_a_kenning_query_once_given_a_token(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "graphiql_opens_on_a_kenning_query") else {
        return;
    };
    let page = app.request("GET", PAGE, &[], b"").body;
    // It asks for the token first and says where it is kept; no request
    // goes out with a placeholder.
    assert!(page.contains("id=\"kenning-token-input\""), "{page}");
    assert!(page.contains("session storage"), "{page}");
    let script = app
        .request(
            "GET",
            "/accounts/api/v1/graphiql/kenning-graphiql.js",
            &[],
            b"",
        )
        .body;
    assert!(!script.contains("<token>"), "{script}");
    for id in [
        "kenning-example-query",
        "kenning-example-variables",
        "kenning-token",
    ] {
        assert!(script.contains(id), "{id}: {script}");
    }
    // The example it opens on runs as it stands.
    let query = script_text(&page, "kenning-example-query");
    let variables: serde_json::Value =
        serde_json::from_str(script_text(&page, "kenning-example-variables")).unwrap();
    assert!(query.contains("experts("), "{query}");
    let reply = app.graphql(query, variables);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.json().get("errors").is_none(), "{}", reply.body);
    assert!(reply.json()["data"]["experts"].is_array(), "{}", reply.body);
}
