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
