//! The two servers under load: the release `kenning` binary, run as an
//! operator would, and the bare actix-web baseline.

use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use actix_web::{web, App, HttpResponse, HttpServer};
use anyhow::{bail, Context};
use kenning_domain::UserId;
use kenning_ports::UserStore;
use kenning_store_diesel::Database;
use kenning_tools_common::serve::{command, Server};
use serde_json::json;
use uuid::Uuid;

pub use kenning_tools_common::serve::release_binary;

/// A running `kenning serve`.
#[derive(Debug)]
pub struct Kenning {
    server: Server,
    /// An access token with every scope.
    pub token: String,
    /// A connector API key.
    pub api_key: String,
}

impl Kenning {
    /// Applies the migrations to the database at `url`.
    pub fn migrate(binary: &Path, url: &str) -> anyhow::Result<()> {
        command(binary, url, &["migrate"]).map(|_| ())
    }

    /// Starts `binary` on the database at `url` and waits until it is
    /// ready.
    pub fn start(binary: &Path, url: &str) -> anyhow::Result<Self> {
        Self::start_with(binary, url, &[])
    }

    /// [`Kenning::start`] with more settings in the environment.
    pub fn start_with(binary: &Path, url: &str, settings: &[(&str, &str)]) -> anyhow::Result<Self> {
        let token = command(binary, url, &["token", "create", "--name", "bench"])?;
        let api_key = command(binary, url, &["apikey", "create", "--name", "bench"])?;
        // The page at 90% by offset measures what a deep offset costs,
        // far past the maximum offset a server allows by default.
        let max_offset = u32::MAX.to_string();
        let mut environment = vec![("KENNING_MAX_OFFSET", max_offset.as_str())];
        environment.extend_from_slice(settings);
        let server =
            Server::start::<&str>(binary, url, &[], &environment, Duration::from_secs(600))?;
        Ok(Self {
            server,
            token,
            api_key,
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> &str {
        &self.server.base
    }

    /// Signs the person with `email` in to the web app through a sign-in
    /// link, as a browser would (its page, then its button); the
    /// session's cookie (`name=value`).
    pub fn sign_in(&self, binary: &Path, url: &str, email: &str) -> anyhow::Result<String> {
        let link = command(
            binary,
            url,
            &["signin-link", "--email", email, "--public-url", self.base()],
        )?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .build()
            .into();
        // The cookie `name` an answer sets, as `name=value`.
        let cookie = |response: &ureq::http::Response<ureq::Body>, name: &str| {
            response
                .headers()
                .get_all("set-cookie")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .filter_map(|v| v.split(';').next())
                .find(|pair| pair.starts_with(&format!("{name}=")))
                .map(str::to_owned)
        };
        let mut page = agent.get(&link).call()?;
        let link_cookie = cookie(&page, "kenning_link")
            .with_context(|| format!("the page of {link} set no cookie"))?;
        let body = page.body_mut().read_to_string()?;
        let token = body
            .split_once("name=\"csrf\" value=\"")
            .and_then(|(_, rest)| rest.split('"').next())
            .with_context(|| format!("the page of {link} has no button"))?;
        let response = agent
            .post(&link)
            .header("Cookie", &link_cookie)
            .header("Origin", self.base())
            .content_type("application/x-www-form-urlencoded")
            .send(format!("csrf={token}"))?;
        cookie(&response, "kenning_session")
            .with_context(|| format!("signing in with {link} set no session cookie"))
    }

    /// What a browser loads for the search page answering `query` (the
    /// page and its style sheet): bytes as sent, and gzip-compressed.
    pub fn first_load(&self, cookie: &str, query: &str) -> anyhow::Result<(usize, usize)> {
        use std::io::Write as _;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let mut raw = 0;
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let search = format!("{}/?q={}", self.base(), query.replace(' ', "+"));
        for url in [search, format!("{}/static/kenning.css", self.base())] {
            let mut response = agent.get(&url).header("Cookie", cookie).call()?;
            if !response.status().is_success() {
                bail!("{url} answered {}", response.status());
            }
            let body = response.body_mut().read_to_vec()?;
            raw += body.len();
            gzip.write_all(&body)?;
        }
        Ok((raw, gzip.finish()?.len()))
    }

    /// The time the server's upload path has spent in each stage so far,
    /// in seconds, by stage name (`kenning_upload_stage_seconds`).
    pub fn stage_seconds(&self) -> anyhow::Result<Vec<(String, f64)>> {
        const SERIES: &str = "kenning_upload_stage_seconds_total{stage=\"";
        let body = ureq::get(&format!("{}/metrics", self.base()))
            .call()?
            .body_mut()
            .read_to_string()?;
        body.lines()
            .filter_map(|line| line.strip_prefix(SERIES))
            .map(|rest| {
                let (stage, value) = rest
                    .split_once("\"} ")
                    .with_context(|| format!("a stage and its seconds in {rest}"))?;
                Ok((stage.to_owned(), value.trim().parse()?))
            })
            .collect()
    }

    /// The server's resident memory now and at its peak, in MiB.
    pub fn memory(&self) -> anyhow::Result<(f64, f64)> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.server.id()))?;
        let field = |name: &str| -> anyhow::Result<f64> {
            let line = status
                .lines()
                .find(|l| l.starts_with(name))
                .with_context(|| format!("{name} in /proc/PID/status"))?;
            let kib: f64 = line
                .split_whitespace()
                .nth(1)
                .with_context(|| format!("a number in {line}"))?
                .parse()?;
            Ok(kib / 1024.0)
        };
        Ok((field("VmRSS:")?, field("VmHWM:")?))
    }
}

/// `GET /user/{id}`: the user as `user(globalUserId)` answers it, read
/// through the same storage crate, with nothing else around it.
async fn bare_user(db: web::Data<Arc<Database>>, id: web::Path<Uuid>) -> HttpResponse {
    let id = UserId::from_uuid(id.into_inner());
    let db = db.get_ref().clone();
    match web::block(move || db.get(id)).await {
        Ok(Ok(Some(user))) => {
            let profile = user.profile();
            HttpResponse::Ok().json(json!({ "data": { "user": {
                "globalUserId": user.id().as_uuid(),
                "firstname": profile.map(|p| p.firstname.as_str()),
                "lastname": profile.map(|p| p.lastname.as_str()),
                "email": profile.map(|p| p.email.as_str()),
                "status": user.status().name(),
                "created": user.created(),
            }}}))
        }
        Ok(Ok(None)) => HttpResponse::NotFound().finish(),
        _ => HttpResponse::InternalServerError().finish(),
    }
}

/// Starts the baseline on the database at `url` in a thread of its own;
/// answers its base URL. It runs until the process ends.
pub fn start_baseline(url: &str) -> anyhow::Result<String> {
    let db = Arc::new(Database::connect(url)?);
    // Bound now, so requests queue until the workers run.
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let base = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
    thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(web::Data::new(db.clone()))
                    .route("/user/{id}", web::get().to(bare_user))
            })
            .listen(listener)?
            .run();
            server.await
        })
    });
    Ok(base)
}
