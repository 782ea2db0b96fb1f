//! What opening a page of the web app (a `GET`) never does: spend a
//! sign-in link, sign anyone in, or hand out a person's data. Each is a
//! form's button, checked as every form is.

use kenning_domain::GroupInput;
use kenning_tests::app::{url_encoded, Options, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::on_every_backend;
use serde_json::json;

/// How many entries of `kind` the audit trail holds for the user `id`.
fn recorded(app: &TestApp, id: &str, kind: &str) -> usize {
    let reply = app.graphql(
        "query($id: UUID!) { auditTrail(resourceId: $id) { events { kind } } }",
        json!({ "id": id }),
    );
    reply.json()["data"]["auditTrail"]["events"]
        .as_array()
        .unwrap_or_else(|| panic!("auditTrail failed: {}", reply.body))
        .iter()
        .filter(|e| e["kind"] == kind)
        .count()
}

/// `fields` POSTed to `path` with `cookie` as another site's form sends
/// them: from its own origin.
fn from_elsewhere(app: &TestApp, path: &str, cookie: &str, fields: &[(&str, &str)]) -> u16 {
    app.request(
        "POST",
        path,
        &[
            ("Cookie", cookie),
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", "https://evil.example"),
        ],
        url_encoded(fields).as_bytes(),
    )
    .status
}

#[on_every_backend]
fn opening_a_sign_in_link_spends_nothing_and_only_its_own_page_signs_in(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "web_link_page") else {
        return;
    };
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let link = app.services.sessions.issue_link("ada@example.com").unwrap();

    // A link-preview robot opens the link, twice: a page with one button,
    // no session, nothing recorded.
    for _ in 0..2 {
        let (page, cookie, token) = app.open_link(&link.secret);
        assert_eq!(page.status, 200, "{}", page.body);
        assert!(
            page.body
                .contains("<button type=\"submit\">Sign in</button>"),
            "{}",
            page.body
        );
        assert!(page.cookie("kenning_session").is_none());
        assert!(!cookie.is_empty() && !token.is_empty());
        let set = page.header("set-cookie").unwrap();
        for attribute in ["HttpOnly", "SameSite=Lax", "Path=/"] {
            assert!(set.contains(attribute), "{set}");
        }
        assert!(
            !page.body.contains(&link.secret),
            "the page repeats no secret"
        );
    }
    assert_eq!(recorded(&app, &ada, "user.signed_in"), 0);

    // Without the page's token, with another opening's token, without the
    // page's cookie, or from another site: refused, the link unspent.
    let (_, cookie, token) = app.open_link(&link.secret);
    let (_, _, other_token) = app.open_link(&link.secret);
    let path = kenning::signin_link_path(&link.secret);
    for refused in [
        app.press_link(&link.secret, &cookie, ""),
        app.press_link(&link.secret, &cookie, &other_token),
        app.press_link(&link.secret, "", &token),
    ] {
        assert_eq!(refused.status, 403, "{}", refused.body);
        assert!(refused.body.contains("This sign-in was refused"));
        assert!(refused.cookie("kenning_session").is_none());
    }
    assert_eq!(
        from_elsewhere(&app, &path, &cookie, &[("csrf", &token)]),
        403
    );
    assert_eq!(recorded(&app, &ada, "user.signed_in"), 0);

    // The page's own button signs in, once, and forgets the page's cookie.
    let signed = app.press_link(&link.secret, &cookie, &token);
    assert_eq!(signed.status, 303, "{}", signed.body);
    assert!(signed.cookie("kenning_session").is_some());
    assert!(
        signed
            .headers
            .iter()
            .any(|(_, v)| v.starts_with("kenning_link=;") && v.contains("Max-Age=0")),
        "{:?}",
        signed.headers
    );
    assert_eq!(recorded(&app, &ada, "user.signed_in"), 1);
    let again = app.press_link(&link.secret, &cookie, &token);
    assert_eq!(again.status, 410);
}

#[on_every_backend]
fn data_is_handed_out_by_a_button_never_by_opening_its_address(backend: Backend) {
    let options = Options {
        web: kenning::WebSettings {
            admin_group: Some("kenning-admins".parse().unwrap()),
            ..kenning::WebSettings::default()
        },
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "web_data_by_button", options) else {
        return;
    };
    let frances = app.create_user("frances@example.com", "Frances", "Allen");
    let grace = app.create_user("grace@example.com", "Grace", "Hopper");
    app.services
        .groups
        .create(GroupInput {
            display_name: "Kenning admins".to_owned(),
            external_id: Some("kenning-admins".to_owned()),
            members: vec![frances.clone()],
        })
        .unwrap();
    let person = app.sign_in("grace@example.com");
    let admin = app.sign_in("frances@example.com");

    // Her profile offers a button, not a link.
    let me = app.page("/me", &person);
    assert!(
        me.body
            .contains("<form method=\"post\" action=\"/me/data\""),
        "{}",
        me.body
    );
    assert!(!me.body.contains("href=\"/me/data\""), "{}", me.body);
    let token = me.csrf().unwrap();

    // Opening the address (a link from anywhere) shows the button and
    // hands nothing out.
    let opened = app.page("/me/data", &person);
    assert_eq!(opened.status, 200, "{}", opened.body);
    assert!(opened
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(opened
        .body
        .contains("<form method=\"post\" action=\"/me/data\""));
    assert!(!opened.body.contains(&grace), "{}", opened.body);
    // A form without the token, or from another site, is refused.
    assert_eq!(app.submit("/me/data", &person, &[]).status, 403);
    assert_eq!(
        from_elsewhere(&app, "/me/data", &person, &[("csrf", &token)]),
        403
    );
    assert_eq!(recorded(&app, &grace, "user.exported"), 0);

    let download = app.submit("/me/data", &person, &[("csrf", &token)]);
    assert_eq!(download.status, 200, "{}", download.body);
    assert_eq!(
        download.header("content-disposition"),
        Some("attachment; filename=\"kenning-my-data.json\"")
    );
    assert_eq!(download.json()["user"]["globalUserId"], grace.as_str());
    assert_eq!(recorded(&app, &grace, "user.exported"), 1);

    // The same for an administrator handing a person's data out.
    let path = format!("/admin/users/{grace}/data");
    let page = app.page(&format!("/admin/users/{grace}"), &admin);
    assert!(
        page.body
            .contains(&format!("<form method=\"post\" action=\"{path}\"")),
        "{}",
        page.body
    );
    assert!(!page.body.contains(&format!("href=\"{path}\"")));
    let token = page.csrf().unwrap();
    let opened = app.page(&path, &admin);
    assert_eq!(opened.status, 200, "{}", opened.body);
    assert!(opened
        .body
        .contains("Download what Kenning keeps about Grace Hopper"));
    assert_eq!(app.submit(&path, &admin, &[]).status, 403);
    assert_eq!(
        from_elsewhere(&app, &path, &admin, &[("csrf", &token)]),
        403
    );
    // Someone who is no administrator gets nothing, token or not.
    let own = me.csrf().unwrap();
    assert_eq!(app.submit(&path, &person, &[("csrf", &own)]).status, 403);
    assert_eq!(recorded(&app, &grace, "user.exported"), 1);

    let handed = app.submit(&path, &admin, &[("csrf", &token)]);
    assert_eq!(handed.status, 200, "{}", handed.body);
    assert_eq!(
        handed.header("content-disposition"),
        Some(format!("attachment; filename=\"kenning-data-{grace}.json\"").as_str())
    );
    assert_eq!(recorded(&app, &grace, "user.exported"), 2);
}
