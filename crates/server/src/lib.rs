//! Wiring: opens storage, builds the services and the HTTP server. The
//! command line lives in `main.rs`; neither holds business rules.

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::{Server, ServerHandle};
use anyhow::Context as _;
use kenning_app::{
    Administrators, AdministratorsGroup, AuditService, ConnectorService, CredentialService,
    DeliverySettings, ExpertiseService, GroupService, PrivacyService, SessionService, UserService,
    WebhookService,
};

use kenning_domain::{Actor, LanguageId, Scoring, SessionPolicy};
use kenning_graphql::Limits;
use kenning_http::{AppState, Gate, HttpConfig, MetricsEndpoint, UseCases};
use kenning_keyphrase::{Compounds, KeyphraseExtractor};
use kenning_meaning::{load_model, load_or_distil};
use kenning_ports::{Clock, Embedder};
use kenning_store_diesel::Database;
pub use kenning_store_diesel::Pooling;
mod background;
pub mod models;
use background::Housekeeping;
pub use kenning_web::{AllowedDomain, ContactLink, ExternalIdClaim, OidcConfig, WebConfig};
use kenning_webhook::{EventSource, NetworkPolicy, Webhooks};

/// The use cases over one database, their changes recorded as made at
/// the command line (the server's requests name their own callers).
#[derive(Clone)]
pub struct Services {
    pub users: UserService,
    pub credentials: CredentialService,
    pub groups: GroupService,
    pub audit: AuditService,
    pub sessions: SessionService,
    pub connectors: ConnectorService,
    db: Arc<Database>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("users", &self.users)
            .field("credentials", &self.credentials)
            .finish_non_exhaustive()
    }
}

impl Services {
    /// Connects to `database_url` with a pool for a long-running process,
    /// applies pending migrations and builds the use cases.
    pub fn open(
        database_url: &str,
        clock: Arc<dyn Clock>,
        default_language: LanguageId,
    ) -> anyhow::Result<Self> {
        Self::open_with(database_url, Pooling::Background, clock, default_language)
    }

    /// [`Services::open`] with a chosen [`Pooling`]: a command that exits
    /// when done takes [`Pooling::OnDemand`] and drops the services before
    /// it exits, so no connection is opened or closed as the process ends.
    pub fn open_with(
        database_url: &str,
        pooling: Pooling,
        clock: Arc<dyn Clock>,
        default_language: LanguageId,
    ) -> anyhow::Result<Self> {
        let db = Database::connect_with(database_url, pooling)?;
        db.migrate().context("applying migrations")?;
        let db = Arc::new(db);
        Ok(Self {
            users: UserService::new(db.clone(), clock.clone(), default_language)
                .with_writers(db.group_writers())
                .acting_as(Actor::cli()),
            credentials: CredentialService::new(db.clone(), clock.clone()).acting_as(Actor::cli()),
            groups: GroupService::new(db.clone(), db.clone(), clock.clone())
                .acting_as(Actor::cli()),
            audit: AuditService::new(db.clone(), clock.clone()),
            sessions: SessionService::new(
                db.clone(),
                db.clone(),
                clock.clone(),
                SessionPolicy::default(),
            ),
            connectors: ConnectorService::new(db.clone(), db.clone(), clock.clone()),
            db,
            clock,
        })
    }

    /// Who administers Kenning: the ACTIVE members of the group `group`
    /// names, nobody when `None`. A group that does not exist yet is
    /// logged, and nobody administers until it does; so is another group
    /// whose externalId is the id that names the group (the group with
    /// the id stays the administrators').
    pub fn administrators(
        &self,
        group: Option<AdministratorsGroup>,
    ) -> anyhow::Result<Administrators> {
        let Some(group) = group else {
            return Ok(Administrators::nobody());
        };
        let administrators = Administrators::of_group(group, self.db.clone(), self.db.clone());
        if let Some(impostor) = administrators.impostor()? {
            log::warn!(
                "web: the group \u{201c}{}\u{201d} ({}) holds the id of the administrators' group \
                 as its externalId; the group with that id stays the administrators' \
                 (give the other group another externalId)",
                impostor.attributes().display_name.as_str(),
                impostor.id()
            );
        }
        match administrators.current_group()? {
            Some(found) => log::info!(
                "web: the administrators are the active members of the group \u{201c}{}\u{201d} ({})",
                found.attributes().display_name.as_str(),
                found.id()
            ),
            None => log::warn!(
                "web: no group is {}, so nobody administers Kenning until one is \
                 (--admin-group names a group by its id or externalId)",
                administrators
                    .group()
                    .map_or_else(String::new, ToString::to_string)
            ),
        }
        Ok(administrators)
    }

    /// The same use cases, guarding what `administrators` sign in with and
    /// their group, and accepting a credential an administrator issued
    /// only while they administer.
    #[must_use]
    pub fn with_administrators(mut self, administrators: &Administrators) -> Self {
        self.users = self.users.with_administrators(administrators.clone());
        self.groups = self.groups.with_administrators(administrators.clone());
        self.credentials = self.credentials.with_administrators(administrators.clone());
        self
    }

    /// The privacy use cases, reading people's expertise through
    /// `expertise` (built by [`Services::expertise`]).
    pub fn privacy(&self, expertise: &ExpertiseService) -> PrivacyService {
        PrivacyService::new(
            self.db.clone(),
            self.db.clone(),
            self.db.clone(),
            self.db.clone(),
            expertise.clone(),
            self.clock.clone(),
        )
        .acting_as(Actor::cli())
    }

    /// The webhook use cases: subscriptions checked, and events delivered,
    /// under `settings`.
    pub fn webhooks(&self, settings: &WebhookSettings) -> WebhookService {
        let sender = Webhooks::new(
            NetworkPolicy::allowing(settings.allow_networks.iter().copied()),
            settings.timeout,
            EventSource::default(),
        );
        WebhookService::new(
            self.db.clone(),
            Arc::new(sender),
            self.clock.clone(),
            settings.delivery,
        )
    }

    /// The expertise use cases under `scoring`, reading topics with the
    /// key-phrase extractor and finding them by meaning with `embedder`
    /// when given, and with `others` for the questions asked in other
    /// languages than English ([`ExpertiseService::with_other_languages_embedder`]).
    /// Only the server, which owns the settings, builds this, and rebuilds
    /// standings built under other settings
    /// ([`Application::run_until_stopped`]).
    pub fn expertise(
        &self,
        scoring: Scoring,
        embedder: Option<Arc<dyn Embedder>>,
        others: Option<Arc<dyn Embedder>>,
    ) -> ExpertiseService {
        self.expertise_reading(KeyphraseExtractor::new(), scoring, embedder, others)
    }

    /// [`expertise`](Self::expertise) reading topics with `extractor`.
    pub fn expertise_reading(
        &self,
        extractor: KeyphraseExtractor,
        scoring: Scoring,
        embedder: Option<Arc<dyn Embedder>>,
        others: Option<Arc<dyn Embedder>>,
    ) -> ExpertiseService {
        let service = ExpertiseService::new(
            self.db.clone(),
            self.db.clone(),
            self.db.clone(),
            Arc::new(extractor),
            self.clock.clone(),
            scoring,
        )
        .with_writers(self.db.group_writers())
        .with_privacy(self.db.clone());
        let service = match embedder {
            Some(embedder) => service.with_embedder(embedder),
            None => service,
        };
        match others {
            Some(others) => service.with_other_languages_embedder(others),
            None => service,
        }
    }
}

/// How webhooks are checked and delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookSettings {
    /// Networks webhooks may reach although loopback, private or
    /// link-local, and over plain http.
    pub allow_networks: Vec<ipnet::IpNet>,
    /// How long one delivery may take.
    pub timeout: Duration,
    /// Who runs the rounds of delivery.
    pub rounds: Rounds,
    /// Retries, leases, batches, what the outbox keeps.
    pub delivery: DeliverySettings,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        Self {
            allow_networks: Vec::new(),
            timeout: Duration::from_secs(10),
            rounds: Rounds::Every(Duration::from_millis(500)),
            delivery: DeliverySettings::default(),
        }
    }
}

/// Who runs the rounds of webhook delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounds {
    /// A thread of the server's: a round after another while there is
    /// work, a pause of this long when a round found none.
    Every(Duration),
    /// Whoever calls `deliver_due` on [`Application::webhooks`], when it
    /// chooses: a test that decides when a round runs.
    OnDemand,
}

/// How `serve` runs.
#[derive(Debug, Clone)]
pub struct Settings {
    pub database_url: String,
    /// `HOST:PORT`; port 0 picks a free port.
    pub bind: String,
    pub http: HttpConfig,
    /// The web app for people: its public address and sign-in.
    pub web: WebSettings,
    pub limits: Limits,
    /// How often the server anonymizes users whose grace period has passed,
    /// prunes the audit trail and forgets ended sessions.
    pub purge_interval: Duration,
    /// How many days the audit trail keeps an entry.
    pub audit_retention_days: u32,
    /// How webhooks are checked and delivered.
    pub webhooks: WebhookSettings,
    pub default_language: LanguageId,
    /// HTTP worker threads; `None` takes actix's default (one per core).
    pub workers: Option<usize>,
    /// Action weights, descriptor factors and half-life of expertise.
    pub scoring: Scoring,
    /// How topics are found by their meaning.
    pub meaning: Meaning,
    /// The model that reads the meaning of questions asked in other
    /// languages than English, and of queries too short to tell, beside
    /// `meaning`'s (a [`Meaning::Model`] or [`Meaning::NoModel`]); `Off`
    /// reads every query with `meaning`'s.
    pub other_languages: Meaning,
    /// How often the topics learned meanwhile are embedded.
    pub meaning_refresh: Duration,
    /// The directory of the data German compound words are split with;
    /// `None`: they are read whole.
    pub compounds_dir: Option<PathBuf>,
}

/// The key-phrase extractor, splitting German compounds with the data in
/// `dir` when it can be read; otherwise reading them whole, and saying so
/// once.
pub fn keyphrase_extractor(dir: Option<&std::path::Path>) -> KeyphraseExtractor {
    let Some(dir) = dir else {
        log::info!(
            "German compounds: read whole, no compound data \
             (`make compounds` fetches it; see --compounds-dir)"
        );
        return KeyphraseExtractor::new();
    };
    let started = std::time::Instant::now();
    match Compounds::load(dir) {
        Ok(compounds) => {
            log::info!(
                "German compounds: split with {} (loaded in {:.2} s)",
                dir.display(),
                started.elapsed().as_secs_f64()
            );
            KeyphraseExtractor::with_compounds(Arc::new(compounds))
        }
        Err(e) => {
            log::warn!("German compounds: read whole; {e}");
            KeyphraseExtractor::new()
        }
    }
}

pub use kenning_web::link_path as signin_link_path;

/// The address people reach the web app at: the one `configured`, else
/// `http://127.0.0.1:` and the `port` served on.
pub fn public_url(configured: Option<&url::Url>, port: u16) -> anyhow::Result<url::Url> {
    match configured {
        Some(url) => Ok(url.clone()),
        None => Ok(url::Url::parse(&format!("http://127.0.0.1:{port}"))?),
    }
}

/// How the web app for people is reached and signed in to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebSettings {
    /// The address people reach Kenning at; `None`: `http://127.0.0.1:`
    /// and the port served on.
    pub public_url: Option<url::Url>,
    /// Whether sign-in links are accepted.
    pub signin_links: bool,
    /// The organisation's OpenID Connect provider, if any.
    pub oidc: Option<kenning_web::OidcConfig>,
    /// The group whose ACTIVE members administer Kenning in the web app;
    /// `None`: nobody does.
    pub admin_group: Option<AdministratorsGroup>,
    /// The chat link cards and person pages offer; `None`: e-mail alone.
    pub contact_link: Option<ContactLink>,
}

impl Default for WebSettings {
    fn default() -> Self {
        Self {
            public_url: None,
            signin_links: true,
            oidc: None,
            admin_group: None,
            contact_link: None,
        }
    }
}

impl WebSettings {
    /// The web app's configuration for a server on `port`.
    pub fn config(&self, port: u16) -> anyhow::Result<WebConfig> {
        let mut config = WebConfig::new(public_url(self.public_url.as_ref(), port)?);
        config.links = self.signin_links;
        config.contact_link.clone_from(&self.contact_link);
        if let Some(oidc) = &self.oidc {
            config = config
                .with_oidc(oidc.clone())
                .map_err(|e| anyhow::anyhow!("the OpenID Connect settings: {e}"))?;
            log::info!(
                "web: people sign in with {} ({}); its redirect URI is {}",
                oidc.name,
                oidc.issuer,
                config.redirect_uri()
            );
        }
        Ok(config)
    }
}

/// How `experts` finds the topics a query means besides those it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Meaning {
    /// By the words alone.
    Off,
    /// With the static vectors distilled from the model in the directory
    /// (its `static.safetensors` and `tokenizer.json`).
    Static(PathBuf),
    /// By running the model in the directory (the English
    /// sentence-transformers model or the 4-bit multilingual one) on every
    /// learned topic and on the topics of a query nobody learned.
    Model(PathBuf),
    /// By words alone, since no model was found: `looked` names the
    /// places looked in, said when the server starts.
    NoModel {
        /// Where a model was looked for.
        looked: String,
    },
}

/// Which queries a model reads the meaning of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Every query, or those in English beside a model for the others.
    First,
    /// Questions in other languages than English, and queries too short to
    /// tell.
    OtherLanguages,
}

impl Role {
    /// What the server does without the model.
    fn without(self) -> &'static str {
        match self {
            Role::First => "experts finds topics by their words alone",
            Role::OtherLanguages => "queries in every language are read with one model",
        }
    }

    /// The log's name for the model's role.
    fn of(self) -> &'static str {
        match self {
            Role::First => "",
            Role::OtherLanguages => " for other languages",
        }
    }
}

impl Meaning {
    /// The embedder, or `None` (logged, as the meaning of `role`'s
    /// queries) when off or when the model's files cannot be read: the
    /// server then ranks those by the words alone.
    pub fn load(&self, role: Role) -> Option<Arc<dyn Embedder>> {
        let started = std::time::Instant::now();
        let loaded: Result<Arc<dyn Embedder>, _> = match self {
            Meaning::Off => {
                log::info!("meaning{}: off; {}", role.of(), role.without());
                return None;
            }
            Meaning::NoModel { looked } => {
                log::warn!(
                    "meaning{}: {looked}; {} \
                     (`make model` fetches the model, `make install` puts it in the data folder)",
                    role.of(),
                    role.without()
                );
                return None;
            }
            Meaning::Static(dir) => load_or_distil(dir).map(|v| Arc::new(v) as _),
            Meaning::Model(dir) => load_model(dir),
        };
        match loaded {
            Ok(embedder) => {
                log::info!(
                    "meaning{}: {} ({}) loaded in {:.2} s",
                    role.of(),
                    embedder.model(),
                    if matches!(self, Meaning::Static(_)) {
                        "static vectors"
                    } else {
                        "the model"
                    },
                    started.elapsed().as_secs_f64(),
                );
                Some(embedder)
            }
            Err(e) => {
                log::warn!(
                    "meaning{}: {e}; {} (`make model` fetches the model)",
                    role.of(),
                    role.without()
                );
                None
            }
        }
    }
}

/// A bound, not yet running server.
pub struct Application {
    port: u16,
    metrics_port: Option<u16>,
    server: Server,
    services: Services,
    expertise: ExpertiseService,
    privacy: PrivacyService,
    purge_interval: Duration,
    audit_retention_days: u32,
    webhooks: WebhookService,
    webhook_rounds: Rounds,
    meaning_refresh: Duration,
    first_admin_token: Option<String>,
}

impl std::fmt::Debug for Application {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never prints the first admin token.
        f.debug_struct("Application")
            .field("port", &self.port)
            .field("purge_interval", &self.purge_interval)
            .finish_non_exhaustive()
    }
}

impl Application {
    /// Opens storage, binds the listener and then, on a database without
    /// any access token, issues the first admin token. Must be called
    /// inside an actix system.
    ///
    /// The token is issued only once the server listens: it can be shown
    /// only when issued, so a start that fails before must not issue it.
    pub fn build(settings: Settings, clock: Arc<dyn Clock>) -> anyhow::Result<Self> {
        settings
            .webhooks
            .delivery
            .outlasting(settings.webhooks.timeout)?;
        let services = Services::open(&settings.database_url, clock, settings.default_language)?;
        let administrators = services.administrators(settings.web.admin_group.clone())?;
        let services = services.with_administrators(&administrators);
        let listener = TcpListener::bind(&settings.bind)
            .with_context(|| format!("cannot listen on {}", settings.bind))?;
        // Loaded once the address is known to be free: a start that cannot
        // listen fails at once.
        let expertise = services.expertise_reading(
            keyphrase_extractor(settings.compounds_dir.as_deref()),
            settings.scoring,
            settings.meaning.load(Role::First),
            settings.other_languages.load(Role::OtherLanguages),
        );
        let webhooks = services.webhooks(&settings.webhooks);
        let privacy = services.privacy(&expertise);

        let port = listener.local_addr()?.port();
        let metrics_listener = match &settings.http.metrics {
            MetricsEndpoint::Separate(bind) => Some(
                TcpListener::bind(bind)
                    .with_context(|| format!("cannot listen for metrics on {bind}"))?,
            ),
            MetricsEndpoint::Main | MetricsEndpoint::Off => None,
        };
        let metrics_port = metrics_listener
            .as_ref()
            .map(|l| l.local_addr().map(|a| a.port()))
            .transpose()?;
        let use_cases = UseCases {
            users: services.users.clone(),
            credentials: services.credentials.clone(),
            groups: services.groups.clone(),
            expertise: expertise.clone(),
            audit: services.audit.clone(),
            webhooks: webhooks.clone(),
            sessions: services.sessions.clone(),
            privacy: privacy.clone(),
            connectors: services.connectors.clone(),
        };
        let state = AppState::new(
            Gate::new(use_cases, administrators),
            kenning_graphql::schema(settings.limits),
            settings.http,
            settings.web.config(port)?,
        );
        let server = kenning_http::server(state, listener, metrics_listener, settings.workers)?;
        let first_admin_token = services
            .credentials
            .issue_first_admin_token()
            .context("issuing the first admin token")?
            .map(|issued| issued.secret);
        Ok(Self {
            port,
            metrics_port,
            server,
            services,
            expertise,
            privacy,
            purge_interval: settings.purge_interval,
            audit_retention_days: settings.audit_retention_days,
            webhooks,
            webhook_rounds: settings.webhooks.rounds,
            meaning_refresh: settings.meaning_refresh,
            first_admin_token,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The port of the separate metrics listener, when there is one.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics_port
    }

    /// The admin token issued because the database had none; shown once.
    pub fn first_admin_token(&self) -> Option<&str> {
        self.first_admin_token.as_deref()
    }

    /// Stops the server when asked.
    pub fn handle(&self) -> ServerHandle {
        self.server.handle()
    }

    /// The webhook service the server delivers with, for rounds run on
    /// demand ([`Rounds::OnDemand`]).
    pub fn webhooks(&self) -> WebhookService {
        self.webhooks.clone()
    }

    /// Serves until the server is stopped, purging due users on the
    /// interval. Standings built under other scoring settings are rebuilt
    /// meanwhile, on a thread of their own: the server serves from the
    /// start, on the old standings until each learner's are rebuilt.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        background::rebuild(self.expertise.clone())?;
        let delivering = match self.webhook_rounds {
            Rounds::Every(interval) => Some(background::deliver(self.webhooks.clone(), interval)?),
            Rounds::OnDemand => None,
        };
        if self.expertise.meaning_model().is_some() {
            background::refresh_meanings(self.expertise.clone(), self.meaning_refresh)?;
        }
        let purger = background::housekeeping(
            Housekeeping {
                users: self.services.users.clone(),
                audit: self.services.audit.clone(),
                sessions: self.services.sessions.clone(),
                privacy: self.privacy.clone(),
                audit_retention_days: self.audit_retention_days,
            },
            self.purge_interval,
        );
        let result = self.server.await;
        self.expertise.flush_asked();
        purger.abort();
        if let Some(delivering) = delivering {
            delivering.stop();
        }
        result
    }
}
