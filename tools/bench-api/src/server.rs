//! The two servers under load: the release `kenning` binary, run as an
//! operator would, and the bare actix-web baseline.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use actix_web::{web, App, HttpResponse, HttpServer};
use anyhow::{bail, Context};
use kenning_domain::UserId;
use kenning_ports::UserStore;
use kenning_store_diesel::Database;
use serde_json::json;
use uuid::Uuid;

/// A free port on the loopback interface.
fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A running `kenning serve`.
#[derive(Debug)]
pub struct Kenning {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// An access token with every scope.
    pub token: String,
    /// A connector API key.
    pub api_key: String,
}

impl Kenning {
    /// Runs `kenning` once with `args` and returns what it printed on
    /// stdout, trimmed.
    fn command(binary: &Path, url: &str, args: &[&str]) -> anyhow::Result<String> {
        let out = Command::new(binary)
            .args(args)
            .env("DATABASE_URL", url)
            .stderr(Stdio::inherit())
            .output()
            .with_context(|| format!("run {}", binary.display()))?;
        if !out.status.success() {
            bail!("`kenning {}` failed: {}", args.join(" "), out.status);
        }
        Ok(String::from_utf8(out.stdout)?.trim().to_owned())
    }

    /// Applies the migrations to the database at `url`.
    pub fn migrate(binary: &Path, url: &str) -> anyhow::Result<()> {
        Self::command(binary, url, &["migrate"]).map(|_| ())
    }

    /// Starts `binary` on the database at `url` and waits until it is
    /// ready.
    pub fn start(binary: &Path, url: &str) -> anyhow::Result<Self> {
        Self::start_with(binary, url, &[])
    }

    /// [`Kenning::start`] with more settings in the environment.
    pub fn start_with(binary: &Path, url: &str, settings: &[(&str, &str)]) -> anyhow::Result<Self> {
        let token = Self::command(binary, url, &["token", "create", "--name", "bench"])?;
        let api_key = Self::command(binary, url, &["apikey", "create", "--name", "bench"])?;
        let port = free_port()?;
        let child = Command::new(binary)
            .arg("serve")
            .env("DATABASE_URL", url)
            .env("KENNING_BIND", format!("127.0.0.1:{port}"))
            // The benchmark is one client sending as fast as it can.
            .env("KENNING_REQUESTS_PER_MINUTE", "100000000")
            .env("KENNING_PURGE_INTERVAL_SECS", "86400")
            // The page at 90% by offset measures what a deep offset costs,
            // far past the maximum offset a server allows by default.
            .env("KENNING_MAX_OFFSET", u32::MAX.to_string())
            .env("RUST_LOG", "warn")
            .envs(settings.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("start {}", binary.display()))?;
        let server = Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            token,
            api_key,
        };
        wait_ready(&format!("{}/readyz", server.base), Duration::from_secs(600))?;
        Ok(server)
    }

    /// Signs the person with `email` in to the web app through a sign-in
    /// link, as a browser would (its page, then its button); the
    /// session's cookie (`name=value`).
    pub fn sign_in(&self, binary: &Path, url: &str, email: &str) -> anyhow::Result<String> {
        let link = Self::command(
            binary,
            url,
            &["signin-link", "--email", email, "--public-url", &self.base],
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
            .header("Origin", &self.base)
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
        let search = format!("{}/?q={}", self.base, query.replace(' ', "+"));
        for url in [search, format!("{}/static/kenning.css", self.base)] {
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
        let body = ureq::get(&format!("{}/metrics", self.base))
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
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
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

impl Drop for Kenning {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_ready(url: &str, patience: Duration) -> anyhow::Result<()> {
    let started = Instant::now();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .into();
    while started.elapsed() < patience {
        if let Ok(response) = agent.get(url).call() {
            if response.status().is_success() {
                return Ok(());
            }
        }
        thread::sleep(Duration::from_millis(200));
    }
    bail!("{url} was not ready within {} s", patience.as_secs())
}

/// The path of the release binary next to this one.
pub fn release_binary() -> anyhow::Result<PathBuf> {
    let me = std::env::current_exe()?;
    let folder = me.parent().context("the benchmark binary has a folder")?;
    Ok(folder.join("kenning"))
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
