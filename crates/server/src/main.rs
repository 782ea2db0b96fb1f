//! The `kenning` command.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use kenning::{models, Application, Meaning, Pooling, Services, Settings};
use kenning_clock::SystemClock;
use kenning_domain::{CredentialKind, LanguageId};
use kenning_store_diesel::Location;

use credentials::{create, list, revoke, ApikeyCommand, TokenCommand};

mod audit;
mod compounds_args;
mod credentials;
mod http_args;
mod privacy;
mod scoring_args;
mod topics;
mod webhook_args;
mod webhooks;

use http_args::HttpArgs;
use scoring_args::ScoringArgs;

/// Kenning: manages an organisation's users and learns who knows what.
#[derive(Debug, Parser)]
#[command(name = "kenning", version)]
struct Cli {
    /// Database: a SQLite file (`sqlite://PATH` or a plain path) or
    /// `postgres://...`. The default is the same file whatever folder a
    /// command runs in: `kenning/kenning.db` in `$XDG_DATA_HOME`, else in
    /// `~/.local/share`. `upload`, `connect`, `demo` and `topics` open no
    /// database (they send to a server's URL, or read text alone) and do
    /// not list it.
    #[arg(
        long,
        global = true,
        env = "DATABASE_URL",
        default_value_t = default_database()
    )]
    database_url: String,

    #[command(subcommand)]
    command: Command,
}

/// The database when none is named: `kenning/kenning.db` in the user's
/// data folder (`$XDG_DATA_HOME`, else `~/.local/share`), so that `serve`
/// and the commands run from any other folder meet on one file. Without
/// a home folder, `data/kenning.db` under the working directory.
fn default_database() -> String {
    match models::data_home() {
        Some(folder) => folder
            .join("kenning")
            .join("kenning.db")
            .display()
            .to_string(),
        None => "data/kenning.db".to_owned(),
    }
}

// Parsed once at start: the size of `serve`'s settings costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the GraphQL API (and apply pending migrations first).
    Serve(ServeArgs),
    /// Apply pending migrations and exit.
    Migrate,
    /// Manage GraphQL access tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Manage connector API keys.
    #[command(subcommand)]
    Apikey(ApikeyCommand),
    /// Anonymize every user whose grace period has passed; print how many.
    Purge,
    /// Print the audit trail, newest first: who changed which user, group
    /// or credential, when, and which fields (never their values).
    Audit(audit::AuditArgs),
    /// Subscribe other systems to changes (signed webhooks).
    #[command(subcommand)]
    Webhook(webhooks::WebhookCommand),
    /// Preview topic extraction.
    #[command(subcommand)]
    Topics(TopicsCommand),
    /// Send a JSON Lines file of uploads, or a directory of texts, to a
    /// server's connector API in batches; a repeated run sends only what
    /// was not acknowledged.
    Upload(kenning_upload::UploadArgs),
    /// Learn from where people already work: send what a source (git
    /// repositories, ...) teaches to a server's connector API, only what
    /// is new on each run.
    Connect(kenning_upload::connect::ConnectArgs),
    /// Print a sign-in link for the person with this e-mail address: good
    /// once, for 15 minutes, alone on stdout.
    SigninLink(SigninLinkArgs),
    /// Print everything Kenning keeps about a person as JSON: profile,
    /// groups, topics and why, every action, and the audit entries about
    /// them (the hand-out is recorded in the audit trail).
    Data(privacy::PersonArg),
    /// Whether Kenning learns from a person's activity: their own switch,
    /// set on their behalf.
    #[command(subcommand)]
    Learning(privacy::LearningCommand),
    /// Erase every action and topic Kenning learned about a person (the
    /// account stays); needs --yes.
    Forget {
        #[command(flatten)]
        who: privacy::PersonArg,
        /// Yes, erase it: it cannot be undone.
        #[arg(long)]
        yes: bool,
    },
    /// The organisation's rules on learning: list, set or lift them.
    #[command(subcommand)]
    Rules(privacy::RulesCommand),
    /// Load a sample organisation (a dozen people and their documents,
    /// chats and e-mails) into a running server through its API, to try
    /// `experts` on; running it again changes nothing.
    Demo(kenning_upload::demo::DemoArgs),
}

#[derive(Debug, Args)]
struct SigninLinkArgs {
    /// The e-mail address of the person to sign in (an ACTIVE user).
    #[arg(long)]
    email: String,
    #[command(flatten)]
    public: PublicUrlArg,
}

/// The organisation's OpenID Connect provider (see docs/web.md).
#[derive(Debug, Args)]
struct OidcArgs {
    /// The provider's issuer URL (its discovery document is read below
    /// it), e.g. https://login.microsoftonline.com/<tenant>/v2.0.
    #[arg(long, env = "KENNING_OIDC_ISSUER", requires = "oidc_client_id")]
    oidc_issuer: Option<String>,
    /// The client id Kenning is registered under at the provider.
    #[arg(long, env = "KENNING_OIDC_CLIENT_ID", requires = "oidc_issuer")]
    oidc_client_id: Option<String>,
    /// The client's secret (omit for a public client).
    #[arg(long, env = "KENNING_OIDC_CLIENT_SECRET", hide_env_values = true)]
    oidc_client_secret: Option<String>,
    /// Match this claim of the ID token against a user's externalId,
    /// instead of the verified `email` claim against the e-mail address:
    /// `sub` or `oid` (Entra ID's object id), claims the provider assigns
    /// and the person cannot choose; any other is refused.
    #[arg(long, env = "KENNING_OIDC_EXTERNAL_ID_CLAIM", requires = "oidc_issuer",
          value_parser = kenning_web::ExternalIdClaim::parse)]
    oidc_external_id_claim: Option<kenning_web::ExternalIdClaim>,
    /// Accept only accounts of this domain (repeat it, or separate
    /// domains by commas): the provider's hosted domain `hd` (Google
    /// Workspace), or without one the verified e-mail address's domain,
    /// without regard to case. Unset: every account the provider signs in.
    #[arg(long = "oidc-allowed-domain", value_name = "DOMAIN", env = "KENNING_OIDC_ALLOWED_DOMAIN",
          value_delimiter = ',', requires = "oidc_issuer",
          value_parser = kenning_web::AllowedDomain::parse)]
    oidc_allowed_domains: Vec<kenning_web::AllowedDomain>,
    /// The provider's name on the sign-in button.
    #[arg(
        long,
        env = "KENNING_OIDC_NAME",
        default_value = "your organisation's account"
    )]
    oidc_name: String,
    /// Seconds one call to the provider may take.
    #[arg(long, env = "KENNING_OIDC_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=120))]
    oidc_timeout_secs: u64,
}

impl OidcArgs {
    fn config(self) -> Option<kenning_web::OidcConfig> {
        let (issuer, client_id) = (self.oidc_issuer?, self.oidc_client_id?);
        Some(kenning_web::OidcConfig {
            issuer,
            client_id,
            client_secret: self.oidc_client_secret,
            external_id_claim: self.oidc_external_id_claim,
            allowed_domains: self.oidc_allowed_domains,
            name: self.oidc_name,
            timeout: Duration::from_secs(self.oidc_timeout_secs),
        })
    }
}

/// Where people reach Kenning.
#[derive(Debug, Args)]
struct PublicUrlArg {
    /// The address people reach the web app at, as their browser writes
    /// it (behind a proxy, the proxy's): links and the identity provider's
    /// redirect are made from it. Default: `http://127.0.0.1:` and the
    /// port served on.
    #[arg(long, env = "KENNING_PUBLIC_URL", value_parser = parse_public_url)]
    public_url: Option<url::Url>,
}

fn parse_public_url(raw: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(raw.trim()).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err("the public URL must be http:// or https:// with a host".to_owned());
    }
    if url.query().is_some() || url.fragment().is_some() || url.path() != "/" {
        return Err("the public URL is an origin alone, such as https://kenning.example.com (Kenning is served at the root)".to_owned());
    }
    Ok(url)
}

/// A group's displayName, as a group's is checked.
fn parse_admin_group(raw: &str) -> Result<kenning_app::AdministratorsGroup, String> {
    raw.parse()
}

#[derive(Debug, Subcommand)]
enum TopicsCommand {
    /// Print the topics an upload of each file would teach, one JSON object
    /// a line, in input order (standard input without FILE).
    Extract(topics::ExtractArgs),
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "KENNING_BIND", default_value = DEFAULT_BIND)]
    bind: String,
    /// Seconds between two runs of the purge of due users.
    #[arg(long, env = "KENNING_PURGE_INTERVAL_SECS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..))]
    purge_interval_secs: u64,
    /// Days the audit trail keeps an entry; older ones are pruned on the
    /// purge interval, a thousand at a time.
    #[arg(long, env = "KENNING_AUDIT_RETENTION_DAYS", default_value_t = kenning_app::DEFAULT_RETENTION_DAYS,
          value_parser = clap::value_parser!(u32).range(1..=36_500))]
    audit_retention_days: u32,
    /// Language of users created without `languageId` (ISO 639-1).
    #[arg(long, env = "KENNING_DEFAULT_LANGUAGE", default_value = "en", value_parser = parse_language)]
    default_language: LanguageId,
    /// HTTP worker threads (default: one per core).
    #[arg(long, env = "KENNING_WORKERS")]
    workers: Option<usize>,
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    public: PublicUrlArg,
    /// Accept no sign-in links (`kenning signin-link`): people sign in
    /// with the identity provider alone.
    #[arg(long, env = "KENNING_NO_SIGNIN_LINKS")]
    no_signin_links: bool,
    #[command(flatten)]
    oidc: OidcArgs,
    /// The group whose ACTIVE members are administrators in the web app
    /// (its admin console under /admin): its id (a UUID) or its
    /// externalId, never its displayName, which is not unique. None:
    /// nobody is.
    #[arg(long, env = "KENNING_ADMIN_GROUP", value_parser = parse_admin_group)]
    admin_group: Option<kenning_app::AdministratorsGroup>,
    /// A chat link every card and person page offers beside the e-mail:
    /// a URL with {email} where the person's address goes, such as
    /// 'https://teams.microsoft.com/l/chat/0/0?users={email}'. None: the
    /// e-mail alone.
    #[arg(long, env = "KENNING_CONTACT_LINK")]
    contact_link: Option<kenning::ContactLink>,
    #[command(flatten)]
    scoring: ScoringArgs,
    #[command(flatten)]
    webhooks: webhook_args::WebhookArgs,
    /// How experts finds the topics a query means besides the ones it
    /// writes: by running the model on every learned topic and on a
    /// query's unlearned words (`model`), with vectors distilled from it
    /// (`static`), or not (`off`).
    #[arg(long, env = "KENNING_MEANING", value_enum, default_value_t = MeaningMode::Model)]
    meaning: MeaningMode,
    /// The directory of the text-embedding model. Unnamed, the first of
    /// `./models/all-minilm-l6-v2` (where `make model` fetches it),
    /// `models/all-minilm-l6-v2` beside a SQLite database, and
    /// `kenning/models/all-minilm-l6-v2` in the data folder (where `make
    /// install` puts it) that holds one. Without its files the server
    /// finds topics by their words alone, and says so. Named, it reads
    /// every language unless --other-languages-model-dir is named too.
    #[arg(long, env = "KENNING_MODEL_DIR")]
    model_dir: Option<std::path::PathBuf>,
    /// The directory of the multilingual model that reads questions asked
    /// in other languages than English, and queries too short to tell
    /// (beside the model of --model-dir, which reads English better).
    /// Unnamed, `use-multilingual-v3` is looked for in the same places,
    /// unless --model-dir is named; `models/multilingual-e5-small` (`make
    /// model-e5`) reads more languages.
    #[arg(long, env = "KENNING_OTHER_LANGUAGES_MODEL_DIR")]
    other_languages_model_dir: Option<std::path::PathBuf>,
    /// Seconds between the starts of two embeddings of the topics learned
    /// meanwhile (a query reaches a new topic by its meaning after this
    /// plus the time to embed the new topics before it).
    #[arg(long, env = "KENNING_MEANING_REFRESH_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..))]
    meaning_refresh_secs: u64,
    #[command(flatten)]
    compounds: compounds_args::CompoundsArgs,
}

/// The ways of finding topics by meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum MeaningMode {
    Static,
    Model,
    Off,
}

fn parse_language(raw: &str) -> Result<LanguageId, String> {
    LanguageId::parse(raw).map_err(|e| e.to_string())
}

/// The commands that open no database: they send to a server's URL, or
/// read text alone.
const NO_DATABASE: [&str; 4] = ["upload", "connect", "demo", "topics"];

/// The command line, with `--database-url` left off the help of the
/// commands that open no database ([`NO_DATABASE`]): each has a hidden
/// one of its own, which the global one does not replace, and their own
/// subcommands have none.
fn command() -> clap::Command {
    NO_DATABASE
        .into_iter()
        .fold(Cli::command(), |command, name| {
            command.mut_subcommand(name, |sub| {
                sub.arg(
                    clap::Arg::new("database_url")
                        .long("database-url")
                        .hide(true),
                )
            })
        })
}

fn main() -> ExitCode {
    let cli = match Cli::from_arg_matches(&command().get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether a command may create the database it is pointed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IfNoDatabase {
    /// `migrate` (and `serve`) set a database up.
    Create,
    /// Every other command: the default path is relative to the working
    /// directory, so run elsewhere it would silently work on a new, empty
    /// database (and list no tokens, say).
    Refuse,
}

/// Where the database is, on stderr: which file a relative path names
/// depends on the working directory.
fn announce(database_url: &str) -> anyhow::Result<Location> {
    let location = Location::parse(database_url)?;
    eprintln!("database: {location}");
    Ok(location)
}

/// The services for one command. The pool opens connections only on
/// demand: a pool thread still connecting when the command returns from
/// `main` would crash the process in libpq's exit handlers. Each command
/// drops the services before it returns, which closes the connections.
fn open(database_url: &str, missing: IfNoDatabase) -> anyhow::Result<Services> {
    let location = announce(database_url)?;
    if missing == IfNoDatabase::Refuse && !location.exists() {
        anyhow::bail!(
            "no database at {location}; create it with `kenning migrate` (or `kenning serve`), \
             or point --database-url at an existing one"
        );
    }
    let default_language = parse_language("en").map_err(anyhow::Error::msg)?;
    Services::open_with(
        database_url,
        Pooling::OnDemand,
        Arc::new(SystemClock),
        default_language,
    )
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => serve(cli.database_url, args),
        Command::Migrate => {
            open(&cli.database_url, IfNoDatabase::Create)?;
            eprintln!("migrations applied");
            Ok(())
        }
        Command::Token(command) => {
            let services = open(&cli.database_url, IfNoDatabase::Refuse)?;
            match command {
                TokenCommand::Create {
                    name,
                    scopes,
                    expires_in_days,
                } => {
                    let kind = CredentialKind::AccessToken;
                    create(&services, kind, &name, &scopes, expires_in_days)
                }
                TokenCommand::List => list(&services, CredentialKind::AccessToken),
                TokenCommand::Revoke { id } => revoke(&services, CredentialKind::AccessToken, id),
            }
        }
        Command::Apikey(command) => {
            let services = open(&cli.database_url, IfNoDatabase::Refuse)?;
            match command {
                ApikeyCommand::Create {
                    name,
                    expires_in_days,
                } => create(
                    &services,
                    CredentialKind::ApiKey,
                    &name,
                    &[],
                    expires_in_days,
                ),
                ApikeyCommand::List => list(&services, CredentialKind::ApiKey),
                ApikeyCommand::Revoke { id } => revoke(&services, CredentialKind::ApiKey, id),
            }
        }
        Command::Purge => {
            let purged = open(&cli.database_url, IfNoDatabase::Refuse)?
                .users
                .purge_due()?;
            let users = if purged == 1 { "user" } else { "users" };
            println!("anonymized {purged} {users} whose grace period had ended");
            Ok(())
        }
        Command::Audit(args) => audit::print(&open(&cli.database_url, IfNoDatabase::Refuse)?, args),
        Command::Webhook(command) => {
            webhooks::run(&open(&cli.database_url, IfNoDatabase::Refuse)?, command)
        }
        Command::Topics(TopicsCommand::Extract(args)) => topics::extract(args),
        Command::Upload(args) => kenning_upload::run(args),
        Command::Connect(args) => kenning_upload::connect::run(args),
        Command::Demo(args) => {
            let url = url::Url::parse(&args.url).ok();
            kenning_upload::demo::run(args)?;
            demo_signin_link(&cli.database_url, url)
        }
        Command::Data(who) => privacy::data(&open(&cli.database_url, IfNoDatabase::Refuse)?, who),
        Command::Learning(command) => {
            privacy::learning(&open(&cli.database_url, IfNoDatabase::Refuse)?, command)
        }
        Command::Forget { who, yes } => {
            privacy::forget(&open(&cli.database_url, IfNoDatabase::Refuse)?, who, yes)
        }
        Command::Rules(command) => {
            privacy::rules(&open(&cli.database_url, IfNoDatabase::Refuse)?, command)
        }
        Command::SigninLink(args) => {
            let services = open(&cli.database_url, IfNoDatabase::Refuse)?;
            signin_link(&services, &args.email, args.public.public_url)
        }
    }
}

/// Prints a sign-in link for the person with `email`, alone on stdout.
fn signin_link(
    services: &Services,
    email: &str,
    public_url: Option<url::Url>,
) -> anyhow::Result<()> {
    let bind = default_bind();
    let port = bind
        .rsplit_once(':')
        .and_then(|(_, port)| port.parse().ok())
        .with_context(|| format!("KENNING_BIND `{bind}` names no port; give --public-url"))?;
    let base = kenning::public_url(public_url.as_ref(), port)?;
    let issued = services.sessions.issue_link(email)?;
    if public_url.is_none() {
        // This command cannot see where a server listens: it says what it
        // assumed, so a link to the wrong port is not a mystery.
        eprintln!(
            "the link assumes the server answers at {base} (where `kenning serve` listens by \
             default); if it answers elsewhere, give that address with --public-url or \
             KENNING_PUBLIC_URL"
        );
    }
    eprintln!(
        "a sign-in link for {email}, good once until {} (UTC):",
        issued.expires.format("%Y-%m-%d %H:%M")
    );
    println!(
        "{}{}",
        base.as_str().trim_end_matches('/'),
        kenning::signin_link_path(&issued.secret)
    );
    Ok(())
}

/// After `kenning demo`: a sign-in link for a sample person on stdout,
/// when the database the server uses is the one this command sees (the
/// default, or `--database-url`); otherwise says how to make one.
fn demo_signin_link(database_url: &str, public_url: Option<url::Url>) -> anyhow::Result<()> {
    let (name, email) = kenning_upload::demo::guide();
    let services = match open(database_url, IfNoDatabase::Refuse) {
        Ok(services) => services,
        Err(e) => {
            eprintln!(
                "no sign-in link printed ({e}); make one on the server's database with                  `kenning signin-link --email {email}`"
            );
            return Ok(());
        }
    };
    eprintln!("to try the web app, sign in as {name}, a sample person:");
    signin_link(&services, &email, public_url)
}

/// Where `serve` listens when not told: `KENNING_BIND`, else
/// [`DEFAULT_BIND`]; its port makes the default public URL.
fn default_bind() -> String {
    std::env::var("KENNING_BIND").unwrap_or_else(|_| DEFAULT_BIND.to_owned())
}

/// The address `serve` listens on by default.
const DEFAULT_BIND: &str = "127.0.0.1:8080";

fn serve(database_url: String, args: ServeArgs) -> anyhow::Result<()> {
    let (http, limits) = args.http.config();
    let data_home = models::data_home();
    let places = |name| models::model_places(name, &database_url, data_home.as_deref());
    let one_named = args.model_dir.is_some() && args.other_languages_model_dir.is_none();
    let model_dir = models::model_dir(args.model_dir, &places(models::DEFAULT_MODEL));
    let other_languages_dir = models::model_dir(
        args.other_languages_model_dir,
        &places(models::OTHER_LANGUAGES_MODEL),
    );
    let settings = Settings {
        compounds_dir: args.compounds.dir(&places(compounds_args::COMPOUNDS)),
        database_url,
        bind: args.bind,
        http,
        web: kenning::WebSettings {
            public_url: args.public.public_url,
            signin_links: !args.no_signin_links,
            oidc: args.oidc.config(),
            admin_group: args.admin_group,
            contact_link: args.contact_link,
        },
        limits,
        purge_interval: Duration::from_secs(args.purge_interval_secs),
        audit_retention_days: args.audit_retention_days,
        webhooks: args.webhooks.settings()?,
        default_language: args.default_language,
        workers: args.workers,
        scoring: args.scoring.scoring()?,
        meaning: match (args.meaning, model_dir) {
            (MeaningMode::Off, _) => Meaning::Off,
            (_, Err(looked)) => Meaning::NoModel { looked },
            (MeaningMode::Static, Ok(dir)) => Meaning::Static(dir),
            (MeaningMode::Model, Ok(dir)) => Meaning::Model(dir),
        },
        // The static vectors are the light way: they run alone.
        other_languages: match (args.meaning, other_languages_dir) {
            (MeaningMode::Off | MeaningMode::Static, _) => Meaning::Off,
            (MeaningMode::Model, _) if one_named => Meaning::Off,
            (MeaningMode::Model, Err(looked)) => Meaning::NoModel { looked },
            (MeaningMode::Model, Ok(dir)) => Meaning::Model(dir),
        },
        meaning_refresh: Duration::from_secs(args.meaning_refresh_secs),
    };
    announce(&settings.database_url)?;
    actix_web::rt::System::new().block_on(async move {
        let app = Application::build(settings, Arc::new(SystemClock))?;
        if let Some(token) = app.first_admin_token() {
            eprintln!("No access token existed, so an admin token with every scope was issued.");
            eprintln!(
                "It is shown only this once; keep it (use it as Authorization: Bearer <token>):"
            );
            println!("{token}");
        }
        log::info!("serving on port {}", app.port());
        app.run_until_stopped().await?;
        Ok(())
    })
}
