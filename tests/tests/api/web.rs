//! The web app for people, through its front door: sign-in by link,
//! sessions, the search and person pages, a person's say over their own
//! topics, and the guards (escaping, cross-site request forgery, who may
//! sign in).

use chrono::Duration;
use kenning_tests::app::{Reply, TestApp};
use kenning_tests::db::Backend;
use kenning_tests::documents::DEACTIVATE_USER;
use kenning_tests::on_every_backend;
use serde_json::json;

const KUBERNETES: &str = "Kubernetes clusters schedule containers across nodes. Our Kubernetes clusters run the payment services, and Kubernetes operators restart failed containers and scale the clusters when traffic grows.";
const TAX: &str = "Corporate tax returns are due in March. The finance team prepared the corporate tax returns and the VAT reconciliation for the German subsidiary, and the tax auditors reviewed the returns.";

fn teach(app: &TestApp, key: &str, email: &str, text: &str) {
    let reply = app.upload(
        key,
        &json!({
            "entity_type": "document",
            "action_type": "create",
            "action_date": "2026-03-01T08:00:00.000Z",
            "user_email": email,
            "text": text,
        }),
    );
    assert_eq!(reply.status, 201, "{}", reply.body);
}

/// The session's token against request forgery, read off a page.
fn csrf_of(page: &Reply) -> String {
    let (_, rest) = page
        .body
        .split_once("name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("no token on the page: {}", page.body));
    rest.split('"').next().unwrap().to_owned()
}

/// Checks that a search page says what its scores say: the headline
/// counts the people at 50 or more, who come first; everyone under 50 is
/// under "Nearest", and nobody under 10 is shown. Returns the scores of
/// the answer and of the nearest.
fn scores_read_as_the_headline_says(page: &Reply) -> (Vec<u32>, Vec<u32>) {
    let results = page
        .body
        .split_once("<h2 id=\"results\">")
        .map(|(_, rest)| rest.split("</section>").next().unwrap_or(rest))
        .unwrap_or_else(|| panic!("no results: {}", page.body));
    let scores = |part: &str| -> Vec<u32> {
        part.split("<p class=\"score\"><strong>")
            .skip(1)
            .map(|s| s.split('<').next().unwrap().parse().unwrap())
            .collect()
    };
    let (answer, nearest) = results
        .split_once("<h2 id=\"nearest\">")
        .unwrap_or((results, ""));
    let (answer, nearest) = (scores(answer), scores(nearest));
    assert!(answer.iter().all(|s| *s >= 50), "{}", page.body);
    assert!(
        nearest.iter().all(|s| (10..50).contains(s)),
        "{}",
        page.body
    );
    let headline = results.split("</h2>").next().unwrap();
    match answer.len() {
        0 => assert!(headline.starts_with("Nobody seems to know"), "{headline}"),
        1 => assert!(headline.starts_with("1 person knows"), "{headline}"),
        n => assert!(
            headline.starts_with(&format!("{n} people know")),
            "{headline}"
        ),
    }
    (answer, nearest)
}

/// The audit trail's kinds of change for `id`, newest first.
fn audited(app: &TestApp, id: &str) -> Vec<String> {
    let reply = app.graphql(
        "query($id: UUID!) { auditTrail(resourceId: $id) { events { kind } } }",
        json!({ "id": id }),
    );
    reply.json()["data"]["auditTrail"]["events"]
        .as_array()
        .unwrap_or_else(|| panic!("auditTrail failed: {}", reply.body))
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[on_every_backend]
fn a_person_signs_in_with_a_link_once_and_finds_people(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "web_sign_in_and_search") else {
        return;
    };
    let key = app.api_key();
    let alice = app.create_user("alice@example.com", "Alice", "Ops");
    app.create_user("bob@example.com", "Bob", "Finance");
    teach(&app, &key, "alice@example.com", KUBERNETES);
    teach(&app, &key, "bob@example.com", TAX);

    // Nobody signed in gets the sign-in page, whatever they ask for.
    let anonymous = app.page("/?q=kubernetes", "");
    assert_eq!(anonymous.status, 401);
    assert!(
        anonymous.body.contains("Sign in to Kenning"),
        "{}",
        anonymous.body
    );
    assert!(!anonymous.body.contains("Alice"));

    let link = app.services.sessions.issue_link("BOB@example.com").unwrap();
    let (page, link_cookie, token) = app.open_link(&link.secret);
    assert_eq!(page.status, 200, "{}", page.body);
    let signed = app.press_link(&link.secret, &link_cookie, &token);
    assert_eq!(signed.status, 303, "{}", signed.body);
    assert_eq!(signed.header("location"), Some("/"));
    let cookie = signed
        .headers
        .iter()
        .map(|(_, value)| value.as_str())
        .find(|value| value.starts_with("kenning_session="))
        .unwrap_or_else(|| panic!("no session cookie: {:?}", signed.headers));
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(cookie.contains(attribute), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain http: {cookie}");
    let cookie = cookie.split(';').next().unwrap().to_owned();

    // The link is good once.
    let (_, link_cookie, token) = app.open_link(&link.secret);
    let again = app.press_link(&link.secret, &link_cookie, &token);
    assert_eq!(again.status, 410);
    assert!(again.body.contains("used already"), "{}", again.body);

    let found = app.page("/?q=kubernetes+clusters", &cookie);
    assert_eq!(found.status, 200, "{}", found.body);
    let policy = found.header("content-security-policy").unwrap();
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(found.body.contains("<input type=\"search\""));
    assert!(
        found.body.contains(&format!("href=\"/people/{alice}\"")),
        "{}",
        found.body
    );
    assert!(found.body.contains("of 100"), "{}", found.body);
    let (answer, _) = scores_read_as_the_headline_says(&found);
    assert_eq!(answer.len(), 1, "Alice is the person: {}", found.body);
    // A word of hers beside one nobody learned: at most the nearest.
    let half = app.page("/?q=kubernetes+zymurgy+quasar", &cookie);
    let (answer, _) = scores_read_as_the_headline_says(&half);
    assert!(answer.is_empty(), "{}", half.body);
    assert!(
        found.body.contains("create · document · 1 Mar 2026"),
        "{}",
        found.body
    );
    assert!(found.body.contains("How Kenning read the question"));
    assert!(!found.body.contains("/people/") || !found.body.contains(">Bob Finance<"));

    // A word nobody learned explains the empty answer.
    let nobody = app.page("/?q=zymurgy", &cookie);
    scores_read_as_the_headline_says(&nobody);
    assert!(
        nobody.body.contains("Nobody seems to know"),
        "{}",
        nobody.body
    );
    assert!(
        nobody.body.contains("Words nobody has learned"),
        "{}",
        nobody.body
    );

    let person = app.page(&format!("/people/{alice}"), &cookie);
    assert_eq!(person.status, 200);
    assert!(
        person.body.contains("<h1>Alice Ops</h1>"),
        "{}",
        person.body
    );
    assert!(person.body.contains("Kubernetes"), "{}", person.body);
    assert!(
        !person.body.contains("Hide "),
        "only one's own topics have buttons"
    );

    let kinds = audited(&app, &link.user.to_string());
    assert_eq!(kinds.first().map(String::as_str), Some("user.signed_in"));
}

#[on_every_backend]
fn a_link_expires_and_only_active_people_sign_in(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "web_link_expires") else {
        return;
    };
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let link = app.services.sessions.issue_link("ada@example.com").unwrap();
    app.advance(Duration::minutes(15));
    let (_, cookie, token) = app.open_link(&link.secret);
    let late = app.press_link(&link.secret, &cookie, &token);
    assert_eq!(late.status, 410);
    assert!(late.body.contains("expired"), "{}", late.body);

    let (_, cookie, token) = app.open_link("not-a-link");
    let forged = app.press_link("not-a-link", &cookie, &token);
    assert_eq!(forged.status, 404);
    assert!(
        forged.body.contains("not one Kenning issued"),
        "{}",
        forged.body
    );

    // Nobody unknown or deactivated gets a link.
    assert!(app
        .services
        .sessions
        .issue_link("nobody@example.com")
        .is_err());
    let reply = app.graphql(DEACTIVATE_USER, json!({ "globalUserId": ada }));
    assert!(reply.json()["errors"].is_null(), "{}", reply.body);
    assert!(app.services.sessions.issue_link("ada@example.com").is_err());
}

#[on_every_backend]
fn a_person_hides_and_shows_their_own_topics(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "web_hide_and_show") else {
        return;
    };
    let key = app.api_key();
    let alice = app.create_user("alice@example.com", "Alice", "Ops");
    teach(&app, &key, "alice@example.com", KUBERNETES);
    let cookie = app.sign_in("alice@example.com");
    let me = app.page("/me", &cookie);
    assert_eq!(me.status, 200);
    assert!(me.body.contains("Hide clusters"), "{}", me.body);
    let csrf = csrf_of(&me);

    // Without the token, or from another site, nothing changes.
    let forged = app.submit(
        "/me/topics",
        &cookie,
        &[("topic", "cluster"), ("hidden", "true")],
    );
    assert_eq!(forged.status, 403);
    let foreign = app.request(
        "POST",
        "/me/topics",
        &[
            ("Cookie", &cookie),
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", "https://evil.example"),
        ],
        format!("csrf={csrf}&topic=cluster&hidden=true").as_bytes(),
    );
    assert_eq!(foreign.status, 403);
    assert!(app.page("/me", &cookie).body.contains("Hide clusters"));

    let hidden = app.submit(
        "/me/topics",
        &cookie,
        &[("csrf", &csrf), ("topic", "cluster"), ("hidden", "true")],
    );
    assert_eq!(hidden.status, 303, "{}", hidden.body);
    let location = hidden.header("location").unwrap_or_default().to_owned();
    assert!(location.starts_with("/me?hid="), "{location}");
    let me = app.page(&location, &cookie);
    assert!(me.body.contains("Hidden"), "{}", me.body);
    assert!(!me.body.contains("Hide clusters"), "{}", me.body);
    assert!(me.body.contains("Show clusters"), "{}", me.body);
    let found = app.page("/?q=clusters", &cookie);
    assert!(
        !found.body.contains(&format!("/people/{alice}")),
        "{}",
        found.body
    );

    let shown = app.submit(
        "/me/topics",
        &cookie,
        &[("csrf", &csrf), ("topic", "cluster"), ("hidden", "false")],
    );
    assert_eq!(shown.status, 303);
    assert!(app.page("/me", &cookie).body.contains("Hide clusters"));
    let kinds = audited(&app, &alice);
    assert_eq!(&kinds[..2], ["user.updated", "user.updated"], "{kinds:?}");
}

#[on_every_backend]
fn sessions_end_on_sign_out_when_idle_and_when_deactivated(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "web_sessions_end") else {
        return;
    };
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    app.create_user("bob@example.com", "Bob", "Finance");

    // Signing out ends the session everywhere: the cookie is worth nothing.
    let cookie = app.sign_in("ada@example.com");
    let me = app.page("/me", &cookie);
    let out = app.submit("/auth/signout", &cookie, &[("csrf", &csrf_of(&me))]);
    assert_eq!(out.status, 200, "{}", out.body);
    assert!(out.body.contains("signed out"), "{}", out.body);
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
    assert_eq!(app.page("/me", &cookie).status, 401);
    let beside = app.spawn_beside();
    assert_eq!(beside.page("/me", &cookie).status, 401);
    let kinds = audited(&app, &ada);
    assert_eq!(
        &kinds[..2],
        ["user.signed_out", "user.signed_in"],
        "{kinds:?}"
    );

    // A session unused for a working day ends; the page says why.
    let cookie = app.sign_in("ada@example.com");
    app.advance(Duration::hours(8));
    let idle = app.page("/", &cookie);
    assert_eq!(idle.status, 401);
    assert!(idle.body.contains("long pause"), "{}", idle.body);

    // A person deactivated is signed out on their next request.
    let cookie = app.sign_in("bob@example.com");
    assert_eq!(app.page("/", &cookie).status, 200);
    let bob = app
        .services
        .users
        .get_by_key(&kenning_domain::UserKey::Email(
            kenning_domain::Email::parse("bob@example.com").unwrap(),
        ));
    let bob = bob.unwrap().id().to_string();
    let reply = app.graphql(DEACTIVATE_USER, json!({ "globalUserId": bob }));
    assert!(reply.json()["errors"].is_null(), "{}", reply.body);
    let refused = app.page("/", &cookie);
    assert_eq!(refused.status, 401);
    assert!(refused.body.contains("deactivated"), "{}", refused.body);
    assert_eq!(audited(&app, &bob)[0], "user.signed_out");
}

#[on_every_backend]
fn pages_escape_names_and_refuse_what_they_should(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "web_escaping_and_refusals") else {
        return;
    };
    let key = app.api_key();
    let mallory = app.create_user("mallory@example.com", "<img src=x onerror=alert(1)>", "Doe");
    teach(&app, &key, "mallory@example.com", KUBERNETES);
    let ada = app.create_user("ada@example.com", "Ada", "Lovelace");
    let cookie = app.sign_in("ada@example.com");

    for path in [format!("/people/{mallory}"), "/?q=kubernetes".to_owned()] {
        let page = app.page(&path, &cookie);
        assert_eq!(page.status, 200, "{path}");
        assert!(!page.body.contains("<img"), "{path}: {}", page.body);
        assert!(
            page.body.contains("&#60;img src=x onerror=alert(1)&#62;"),
            "{path}: {}",
            page.body
        );
    }
    let query = app.page("/?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E", &cookie);
    assert!(!query.body.contains("<script>"), "{}", query.body);

    // Unknown and malformed people are a clear 404 page.
    for path in [
        "/people/6f1c3c52-8c1f-4a53-9a43-1d2d51f0b7a1",
        "/people/not-an-id",
    ] {
        let page = app.page(path, &cookie);
        assert_eq!(page.status, 404, "{path}");
        assert!(page.body.contains("There is no such person"), "{path}");
    }
    // A deactivated person's page says so and shows nothing else.
    let reply = app.graphql(DEACTIVATE_USER, json!({ "globalUserId": mallory }));
    assert!(reply.json()["errors"].is_null(), "{}", reply.body);
    let page = app.page(&format!("/people/{mallory}"), &cookie);
    assert!(
        page.body.contains("This person is deactivated"),
        "{}",
        page.body
    );
    assert!(!page.body.contains("Kubernetes"), "{}", page.body);

    // A path that is no page is a page for a browser, JSON for a script.
    assert!(app
        .page("/nowhere", &cookie)
        .body
        .contains("There is no such page"));
    let script = app.request("GET", "/nowhere", &[], b"");
    assert_eq!(script.status, 404);
    assert!(script.body.starts_with('{'), "{}", script.body);

    // GraphQL takes no session cookie: a form posted from another site
    // with the cookie changes nothing.
    let forged = app.request(
        "POST",
        "/accounts/api/v1/graphql",
        &[
            ("Cookie", &cookie),
            ("Content-Type", "text/plain"),
            ("Origin", "https://evil.example"),
        ],
        format!(
            r#"{{"query":"mutation {{ deactivateUser(globalUserId: \"{ada}\") {{ globalUserId }} }}"}}"#
        )
        .as_bytes(),
    );
    assert_eq!(forged.status, 401, "{}", forged.body);
    assert_eq!(app.page("/me", &cookie).status, 200);
}

#[on_every_backend]
fn a_search_narrows_to_a_group_and_asks_for_more(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "web_group_and_more") else {
        return;
    };
    let key = app.api_key();
    let alice = app.create_user("alice@example.com", "Alice", "Ops");
    let carol = app.create_user("carol@example.com", "Carol", "Ops");
    teach(&app, &key, "alice@example.com", KUBERNETES);
    teach(&app, &key, "carol@example.com", KUBERNETES);
    let team = app
        .services
        .groups
        .create(kenning_domain::GroupInput {
            display_name: "Platform <team>".to_owned(),
            external_id: None,
            members: vec![carol.clone()],
        })
        .unwrap();
    let cookie = app.sign_in("alice@example.com");

    let everyone = app.page("/?q=kubernetes", &cookie);
    assert!(everyone
        .body
        .contains("<option value=\"\">everyone</option>"));
    assert!(
        everyone.body.contains("Platform &#60;team&#62;"),
        "{}",
        everyone.body
    );
    assert!(everyone.body.contains(&format!("/people/{alice}")));
    let group = team.id().as_uuid();
    let narrowed = app.page(&format!("/?q=kubernetes&group={group}"), &cookie);
    assert!(
        !narrowed.body.contains(&format!("/people/{alice}")),
        "{}",
        narrowed.body
    );
    assert!(narrowed.body.contains(&format!("/people/{carol}")));
    assert!(narrowed
        .body
        .contains(&format!("value=\"{group}\" selected")));
    let unknown = app.page("/?q=kubernetes&group=nonsense", &cookie);
    assert!(
        unknown.body.contains("not one Kenning knows"),
        "{}",
        unknown.body
    );

    // One result a page: the next page is asked for on demand.
    let first = app.page("/?q=kubernetes&limit=1", &cookie);
    assert!(
        first.body.contains("/?q=kubernetes&#38;limit=11"),
        "{}",
        first.body
    );
    let everyone_fits = app.page("/?q=kubernetes", &cookie);
    assert!(!everyone_fits.body.contains("More results"));
}

#[on_every_backend]
fn sign_in_links_can_be_turned_off(backend: Backend) {
    let options = kenning_tests::app::Options {
        web: kenning::WebSettings {
            signin_links: false,
            ..kenning::WebSettings::default()
        },
        ..kenning_tests::app::Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "web_links_off", options) else {
        return;
    };
    app.create_user("ada@example.com", "Ada", "Lovelace");
    let link = app.services.sessions.issue_link("ada@example.com").unwrap();
    let (refused, cookie, token) = app.open_link(&link.secret);
    assert_eq!(refused.status, 403);
    assert!(refused.body.contains("Sign-in links are turned off"));
    assert!(refused.header("set-cookie").is_none());
    assert!(cookie.is_empty() && token.is_empty());
    let pressed = app.press_link(&link.secret, "", "");
    assert_eq!(pressed.status, 403);
    assert!(pressed.body.contains("Sign-in links are turned off"));
    let page = app.request("GET", "/signin", &[], b"");
    assert!(!page.body.contains("kenning signin-link"), "{}", page.body);
}

#[on_every_backend]
fn cards_and_person_pages_say_how_to_reach_the_person(backend: Backend) {
    let options = kenning_tests::app::Options {
        web: kenning::WebSettings {
            contact_link: Some(
                "https://teams.microsoft.com/l/chat/0/0?users={email}"
                    .parse()
                    .unwrap(),
            ),
            ..kenning::WebSettings::default()
        },
        ..kenning_tests::app::Options::default()
    };
    let Some(app) = TestApp::spawn_with(backend, "web_contact", options) else {
        return;
    };
    let key = app.api_key();
    let alice = app.create_user("alice@example.com", "Alice", "Ops");
    app.create_user("bob@example.com", "Bob", "Finance");
    teach(&app, &key, "alice@example.com", KUBERNETES);
    let group = app
        .services
        .groups
        .create(kenning_domain::GroupInput {
            display_name: "Platform".into(),
            external_id: None,
            members: vec![alice.clone()],
        })
        .unwrap()
        .id()
        .to_string();
    let cookie = app.sign_in("bob@example.com");

    let found = app.page("/?q=kubernetes", &cookie);
    let mail = "href=\"mailto:alice@example.com\"";
    let chat = "href=\"https://teams.microsoft.com/l/chat/0/0?users=alice@example.com\"";
    assert!(found.body.contains(mail), "{}", found.body);
    assert!(found.body.contains(chat), "{}", found.body);

    let person = app.page(&format!("/people/{alice}"), &cookie);
    assert!(person.body.contains(mail), "{}", person.body);
    assert!(person.body.contains(chat), "{}", person.body);
    // Her groups lead to a search among their members.
    let narrowed = format!("href=\"/?group={group}\"");
    assert!(person.body.contains(&narrowed), "{}", person.body);
    let search = app.page(&format!("/?group={group}"), &cookie);
    assert!(
        search
            .body
            .contains(&format!("<option value=\"{group}\" selected>Platform")),
        "{}",
        search.body
    );
    // Her topics say what they stand on, not points.
    assert!(
        person.body.contains("from 1 action, the latest 1 Mar 2026"),
        "{}",
        person.body
    );
    assert!(!person.body.contains("points<"), "{}", person.body);

    // Without a template, the e-mail alone.
    let plain = app.spawn_beside();
    let cookie = plain.sign_in("bob@example.com");
    let person = plain.page(&format!("/people/{alice}"), &cookie);
    assert!(person.body.contains(mail), "{}", person.body);
    assert!(
        !person.body.contains("teams.microsoft.com"),
        "{}",
        person.body
    );
}

/// The search page lists the people GraphQL's `experts` lists, in the
/// same order: one answer at every door.
#[on_every_backend]
fn the_search_page_and_graphql_list_the_same_people(backend: Backend) {
    let Some(app) = TestApp::spawn(backend, "the_search_page_and_graphql_list_the_same") else {
        return;
    };
    let key = app.api_key();
    let mut ids = Vec::new();
    for (n, text) in [
        KUBERNETES,
        TAX,
        "Kubernetes upgrades: the clusters were drained node by node.",
        "The VAT reconciliation of the German subsidiary, and corporate tax.",
        "Gardening at the allotment: roses and dahlias, and a cluster of tomatoes.",
    ]
    .into_iter()
    .enumerate()
    {
        let email = format!("person{n}@example.com");
        ids.push(app.create_user(&email, "Person", &format!("Number {n}")));
        teach(&app, &key, &email, text);
    }
    let link = app
        .services
        .sessions
        .issue_link("person0@example.com")
        .unwrap();
    let (_, link_cookie, token) = app.open_link(&link.secret);
    let signed = app.press_link(&link.secret, &link_cookie, &token);
    let cookie = signed
        .headers
        .iter()
        .map(|(_, value)| value.as_str())
        .find(|value| value.starts_with("kenning_session="))
        .unwrap_or_else(|| panic!("no session cookie: {:?}", signed.headers))
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    for question in [
        "kubernetes clusters",
        "corporate tax",
        "who knows about clusters of tomatoes",
        "tax and kubernetes and roses and zymurgy",
    ] {
        let page = app.page(&format!("/?q={}", question.replace(' ', "+")), &cookie);
        assert_eq!(page.status, 200, "{}", page.body);
        let on_page: Vec<String> = page
            .body
            .split("href=\"/people/")
            .skip(1)
            .map(|rest| rest.split('"').next().unwrap().to_owned())
            .filter(|id| ids.contains(id))
            .fold(Vec::new(), |mut seen, id| {
                if !seen.contains(&id) {
                    seen.push(id);
                }
                seen
            });
        let reply = app.graphql(
            "query e($q: String!) { experts(query: $q) { globalUserId } }",
            json!({ "q": question }),
        );
        let by_graphql: Vec<String> = reply.json()["data"]["experts"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", reply.body))
            .iter()
            .map(|e| e["globalUserId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(on_page, by_graphql, "{question}: {}", page.body);
    }
}
