//! The real application on port 0 with a fresh database, driven over HTTP.

use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use actix_web::dev::ServerHandle;
use chrono::{TimeZone, Utc};
use kenning::{Application, Meaning, Services, Settings, WebSettings, WebhookSettings};
use kenning_app::{Round, WebhookService};
use kenning_clock::ManualClock;
use kenning_domain::{CredentialKind, LanguageId, Scope, Scoring};
use kenning_graphql::Limits;
use kenning_http::HttpConfig;
use kenning_ports::Clock;
use serde_json::{json, Value};

use crate::db::{Backend, TestDatabase};

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    /// The body as JSON (panics with the body when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The cookie `name` the answer sets, as a request sends it back
    /// (`name=value`).
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
            .filter_map(|(_, v)| v.split(';').next())
            .find(|pair| pair.split_once('=').is_some_and(|(n, _)| n == name))
            .map(str::to_owned)
    }

    /// The value of the hidden field `csrf` of the page's first form.
    pub fn csrf(&self) -> Option<String> {
        let (_, rest) = self.body.split_once("name=\"csrf\" value=\"")?;
        rest.split('"').next().map(str::to_owned)
    }

    /// `extensions.code` of the first GraphQL error.
    pub fn error_code(&self) -> Option<String> {
        self.json()["errors"][0]["extensions"]["code"]
            .as_str()
            .map(str::to_owned)
    }
}

/// A running server with its own database and a clock the test moves.
pub struct TestApp {
    pub base: String,
    /// The separate metrics listener, when the options ask for one.
    pub metrics_base: Option<String>,
    pub clock: Arc<ManualClock>,
    /// The use cases over the same database, as the CLI would use them.
    pub services: Services,
    /// A token with every scope.
    pub admin_token: String,
    agent: ureq::Agent,
    handle: ServerHandle,
    /// The webhook service the server delivers with.
    webhooks: WebhookService,
    thread: Option<JoinHandle<()>>,
    /// Shared by the instances [`TestApp::spawn_beside`] starts on it.
    db: Arc<TestDatabase>,
}

impl std::fmt::Debug for TestApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestApp").field("base", &self.base).finish()
    }
}

/// The options a test may change.
#[derive(Debug, Clone)]
pub struct Options {
    pub http: HttpConfig,
    pub limits: Limits,
    pub purge_interval: Duration,
    pub scoring: Scoring,
    pub meaning: Meaning,
    pub other_languages: Meaning,
    pub webhooks: WebhookSettings,
    pub web: WebSettings,
    /// The directory of the German compound data; `None`: compounds are
    /// read whole.
    pub compounds_dir: Option<std::path::PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            http: HttpConfig::default(),
            limits: Limits::default(),
            purge_interval: Duration::from_secs(3600),
            scoring: Scoring::default(),
            meaning: Meaning::Off,
            other_languages: Meaning::Off,
            webhooks: WebhookSettings::default(),
            web: WebSettings::default(),
            compounds_dir: None,
        }
    }
}

impl TestApp {
    /// Spawns the app on `backend`; `None` when that backend is not
    /// available (PostgreSQL without its URL), after saying so.
    pub fn spawn(backend: Backend, test: &str) -> Option<Self> {
        Self::spawn_with(backend, test, Options::default())
    }

    pub fn spawn_with(backend: Backend, test: &str, options: Options) -> Option<Self> {
        let db = TestDatabase::fresh(backend, test)?;
        Some(Self::launch(Arc::new(db), options, None))
    }

    /// Another instance of the app on this one's database, as a second
    /// server of a deployment would run: its own process state and its own
    /// clock (standing where this one's stands now), sharing the data.
    /// Its `admin_token` is this one's.
    pub fn spawn_beside(&self) -> Self {
        self.spawn_beside_with(Options::default())
    }

    /// [`TestApp::spawn_beside`] with other options, as a restart with
    /// other settings would run.
    pub fn spawn_beside_with(&self, options: Options) -> Self {
        let beside = Self::launch(self.db.clone(), options, Some(self.admin_token.clone()));
        beside.clock.advance(self.clock.now() - beside.clock.now());
        beside
    }

    /// Serves on `db`; `admin_token` is the first admin token of a database
    /// that already has one.
    fn launch(db: Arc<TestDatabase>, options: Options, admin_token: Option<String>) -> Self {
        let clock = Arc::new(ManualClock::new(
            Utc.with_ymd_and_hms(2026, 3, 2, 8, 0, 0).unwrap(),
        ));
        let settings = Settings {
            database_url: db.url().to_owned(),
            bind: "127.0.0.1:0".to_owned(),
            http: options.http,
            web: options.web,
            limits: options.limits,
            purge_interval: options.purge_interval,
            audit_retention_days: kenning_app::DEFAULT_RETENTION_DAYS,
            webhooks: options.webhooks,
            default_language: LanguageId::parse("en").unwrap(),
            workers: Some(2),
            scoring: options.scoring,
            meaning: options.meaning,
            other_languages: options.other_languages,
            meaning_refresh: Duration::from_millis(200),
            compounds_dir: options.compounds_dir,
        };
        let (tx, rx) = mpsc::channel();
        let server_clock = clock.clone();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let app = Application::build(settings, server_clock).expect("build the app");
                let token = app.first_admin_token().map(str::to_owned);
                tx.send((
                    app.port(),
                    app.metrics_port(),
                    app.handle(),
                    app.webhooks(),
                    token,
                ))
                .unwrap();
                app.run_until_stopped().await.expect("serve");
            });
        });
        let (port, metrics_port, handle, webhooks, first_token) =
            rx.recv().expect("the app did not start");
        let services = Services::open(db.url(), clock.clone(), LanguageId::parse("en").unwrap())
            .expect("open the services");
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // A redirect is an answer to check, as a sign-in's is.
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        Self {
            base: format!("http://127.0.0.1:{port}"),
            metrics_base: metrics_port.map(|p| format!("http://127.0.0.1:{p}")),
            clock,
            services,
            admin_token: first_token
                .or(admin_token)
                .expect("a fresh database gets a first admin token"),
            agent,
            handle,
            webhooks,
            thread: Some(thread),
            db,
        }
    }

    /// The URL of the app's database.
    pub fn database_url(&self) -> &str {
        self.db.url()
    }

    /// A new access token with `scopes`.
    pub fn token(&self, scopes: &[Scope]) -> String {
        self.services
            .credentials
            .issue(CredentialKind::AccessToken, "test", scopes, None)
            .unwrap()
            .secret
    }

    /// A new connector API key.
    pub fn api_key(&self) -> String {
        self.services
            .credentials
            .issue(CredentialKind::ApiKey, "test", &[], None)
            .unwrap()
            .secret
    }

    /// Sends any request; `headers` are (name, value) pairs.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Reply {
        self.request_to(&self.base, method, path, headers, body)
    }

    /// Sends any request to the server at `base` (the API's or the
    /// metrics listener's).
    pub fn request_to(
        &self,
        base: &str,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Reply {
        let mut builder = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{base}{path}"));
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        let request = builder.body(body.to_vec()).unwrap();
        let mut response = self.agent.run(request).expect("the request failed");
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or_default().to_owned()))
            .collect();
        let body = response
            .body_mut()
            .with_config()
            .limit(64 * 1024 * 1024)
            .read_to_string()
            .unwrap_or_default();
        Reply {
            status: response.status().as_u16(),
            headers,
            body,
        }
    }

    /// Writes `bytes` to a new connection as they are, then reads what the
    /// server answers until it closes the connection or `wait` passes
    /// without a byte; for requests no HTTP client would send.
    pub fn raw(&self, bytes: &[u8], wait: Duration) -> String {
        use std::io::{Read, Write};
        let address = self.base.trim_start_matches("http://");
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream.set_read_timeout(Some(wait)).unwrap();
        // The server may answer and close before it has read everything.
        let _ = stream.write_all(bytes);
        let mut answer = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&chunk[..n]),
            }
        }
        String::from_utf8_lossy(&answer).into_owned()
    }

    /// POSTs a GraphQL document with `token`.
    pub fn graphql_as(&self, token: &str, query: &str, variables: Value) -> Reply {
        let body = json!({ "query": query, "variables": variables }).to_string();
        self.request(
            "POST",
            "/accounts/api/v1/graphql",
            &[
                ("Content-Type", "application/json"),
                ("Authorization", &format!("Bearer {token}")),
            ],
            body.as_bytes(),
        )
    }

    /// POSTs a GraphQL document as the admin.
    pub fn graphql(&self, query: &str, variables: Value) -> Reply {
        self.graphql_as(&self.admin_token, query, variables)
    }

    /// Signs the person with `email` in through a sign-in link, as a
    /// browser would (its page, then its button), and returns the
    /// session's cookie (`name=value`).
    pub fn sign_in(&self, email: &str) -> String {
        let link = self.services.sessions.issue_link(email).unwrap();
        let (page, cookie, token) = self.open_link(&link.secret);
        assert_eq!(page.status, 200, "{}", page.body);
        let reply = self.press_link(&link.secret, &cookie, &token);
        assert_eq!(reply.status, 303, "{}", reply.body);
        reply.cookie("kenning_session").expect("a session cookie")
    }

    /// Opens the sign-in link `secret` as a browser does: its page, the
    /// cookie it sets (`name=value`, empty when none) and the token its
    /// button's form carries (empty when none).
    pub fn open_link(&self, secret: &str) -> (Reply, String, String) {
        let page = self.request(
            "GET",
            &kenning::signin_link_path(secret),
            &[("Accept", "text/html")],
            b"",
        );
        let cookie = page.cookie("kenning_link").unwrap_or_default();
        let token = page.csrf().unwrap_or_default();
        (page, cookie, token)
    }

    /// Presses the button of the sign-in link `secret`'s page: its form
    /// with `token`, sent with `cookie` from the app's own origin.
    pub fn press_link(&self, secret: &str, cookie: &str, token: &str) -> Reply {
        self.submit(
            &kenning::signin_link_path(secret),
            cookie,
            &[("csrf", token)],
        )
    }

    /// GETs the web app's page `path` with the session `cookie`.
    pub fn page(&self, path: &str, cookie: &str) -> Reply {
        self.request(
            "GET",
            path,
            &[("Cookie", cookie), ("Accept", "text/html")],
            b"",
        )
    }

    /// POSTs the form `fields` to the web app's `path` with the session
    /// `cookie`, from the app's own origin.
    pub fn submit(&self, path: &str, cookie: &str, fields: &[(&str, &str)]) -> Reply {
        let body: String = url_encoded(fields);
        self.request(
            "POST",
            path,
            &[
                ("Cookie", cookie),
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Origin", &self.base),
            ],
            body.as_bytes(),
        )
    }

    /// Creates a user through the API and returns its globalUserId.
    pub fn create_user(&self, email: &str, firstname: &str, lastname: &str) -> String {
        let reply = self.graphql(
            crate::documents::CREATE_USER,
            json!({ "createUserInput": { "email": email, "firstname": firstname, "lastname": lastname } }),
        );
        let id = reply.json()["data"]["createUser"]["globalUserId"]
            .as_str()
            .map(str::to_owned);
        id.unwrap_or_else(|| panic!("createUser failed: {}", reply.body))
    }

    /// Runs one SQL statement on the app's database, for states no API
    /// reaches (a hidden user, a broken table).
    pub fn execute_sql(&self, sql: &str) {
        use diesel::{Connection, RunQueryDsl};
        let url = self.database_url();
        if url.starts_with("postgres") {
            let mut conn = diesel::PgConnection::establish(url).unwrap();
            diesel::sql_query(sql).execute(&mut conn).unwrap();
        } else {
            diesel::sql_query(sql)
                .execute(&mut self.sqlite_connection())
                .unwrap();
        }
    }

    /// A connection of its own to the app's SQLite database that waits
    /// for the write lock as the app's connections do, since the app may
    /// be writing (at start it records its scoring settings).
    pub fn sqlite_connection(&self) -> diesel::SqliteConnection {
        use diesel::{Connection, RunQueryDsl};
        let path = self.database_url().trim_start_matches("sqlite://");
        let mut conn = diesel::SqliteConnection::establish(path).unwrap();
        diesel::sql_query("PRAGMA busy_timeout = 5000")
            .execute(&mut conn)
            .unwrap();
        conn
    }

    /// POSTs an upload to the connector endpoint with `key`.
    pub fn upload(&self, key: &str, body: &Value) -> Reply {
        self.request(
            "POST",
            "/connectors/api/v1/entities-with-action",
            &[("Content-Type", "application/json"), ("APIKEY", key)],
            body.to_string().as_bytes(),
        )
    }

    /// Moves the server's clock.
    pub fn advance(&self, by: chrono::Duration) {
        self.clock.advance(by);
    }

    /// Runs rounds of webhook delivery on this instance, as its sender
    /// would (with `Rounds::OnDemand` in the options, nothing else
    /// does), until one finds nothing due: what they did, summed.
    pub fn deliver_webhooks(&self) -> Round {
        let mut all = Round::default();
        loop {
            let round = self.webhooks.deliver_due().expect("a round of delivery");
            if round == Round::default() {
                return all;
            }
            all.delivered += round.delivered;
            all.failed += round.failed;
            all.given_up += round.given_up;
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // The stop command is sent at once; the future only reports completion.
        drop(self.handle.stop(false));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `fields` as an `application/x-www-form-urlencoded` body.
pub fn url_encoded(fields: &[(&str, &str)]) -> String {
    let encode = |text: &str| -> String {
        text.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                b' ' => "+".to_owned(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}
