//! `kenning webhook`: subscriptions at the command line.

use std::io::Write as _;

use clap::Subcommand;
use kenning::{Services, WebhookSettings};
use kenning_app::ServiceError;
use kenning_domain::SubscriptionInput;
use uuid::Uuid;

use crate::webhook_args::AllowedNetworks;

#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Subscribe a URL to changes; prints the signing secret alone on
    /// stdout, once.
    Create {
        /// Where events are posted (https; plain http only to an allowed
        /// network).
        #[arg(long)]
        url: String,
        /// A kind of change wanted (user.created, group.updated, ...);
        /// repeat for several (none: every kind).
        #[arg(long = "kind")]
        kinds: Vec<String>,
        #[command(flatten)]
        allowed: AllowedNetworks,
    },
    /// List subscriptions (never their secrets) and what waits for each.
    List,
    /// End a subscription; what waits for it is dropped.
    Delete { id: Uuid },
    /// Deliver to a failing subscription again, what waits for it first.
    Resume { id: Uuid },
}

pub fn run(services: &Services, command: WebhookCommand) -> anyhow::Result<()> {
    let settings = |allowed: Option<&AllowedNetworks>| WebhookSettings {
        allow_networks: allowed.map(|a| a.networks.clone()).unwrap_or_default(),
        ..WebhookSettings::default()
    };
    match command {
        WebhookCommand::Create {
            url,
            kinds,
            allowed,
        } => {
            let webhooks = services.webhooks(&settings(Some(&allowed)));
            let created = webhooks.subscribe(&SubscriptionInput { url, kinds })?;
            eprintln!(
                "subscribed {} to {}; the secret is shown only now:",
                created.url, created.id
            );
            println!("{}", created.secret);
        }
        WebhookCommand::List => {
            let webhooks = services.webhooks(&settings(None));
            let counts = webhooks.counts()?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "ID\tURL\tKINDS\tSTATE\tPENDING\tDELIVERED")?;
            for s in webhooks.subscriptions()? {
                let count = counts.iter().find(|c| c.subscription == s.id);
                let kinds: Vec<&str> = s.kinds.iter().map(|k| k.as_str()).collect();
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}\t{}",
                    s.id,
                    s.url,
                    if kinds.is_empty() {
                        "*".to_owned()
                    } else {
                        kinds.join(",")
                    },
                    s.state.as_str(),
                    count.map_or(0, |c| c.pending),
                    count.map_or(0, |c| c.delivered),
                )?;
            }
        }
        WebhookCommand::Delete { id } => {
            match services.webhooks(&settings(None)).unsubscribe(id) {
                Err(ServiceError::NotFound(_)) => anyhow::bail!("no webhook has the id {id}"),
                other => other?,
            }
            eprintln!("deleted webhook {id}");
        }
        WebhookCommand::Resume { id } => {
            match services.webhooks(&settings(None)).resume(id) {
                Err(ServiceError::NotFound(_)) => anyhow::bail!("no webhook has the id {id}"),
                other => other?,
            }
            eprintln!("resumed webhook {id}");
        }
    }
    Ok(())
}
