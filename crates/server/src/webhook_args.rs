//! How webhooks are checked and delivered, as flags and environment
//! variables of `kenning serve` (and, for the networks allowed, of
//! `kenning webhook create`).

use std::time::Duration;

use anyhow::Context;
use chrono::TimeDelta;
use clap::Args;
use ipnet::IpNet;
use kenning::{Rounds, WebhookSettings};
use kenning_app::DeliverySettings;

/// The networks webhooks may reach besides public addresses.
#[derive(Debug, Clone, Args)]
pub struct AllowedNetworks {
    /// A network (CIDR) webhooks may reach although it is loopback,
    /// private or link-local, and over plain http; repeat for several.
    /// None by default: webhooks go only to public addresses, over https.
    #[arg(
        long = "webhook-allow-network",
        env = "KENNING_WEBHOOK_ALLOW_NETWORKS",
        value_delimiter = ','
    )]
    pub networks: Vec<IpNet>,
}

#[derive(Debug, Args)]
pub struct WebhookArgs {
    #[command(flatten)]
    allowed: AllowedNetworks,
    /// Seconds one delivery may take, connection and answer included.
    #[arg(long, env = "KENNING_WEBHOOK_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=300))]
    webhook_timeout_secs: u64,
    /// Seconds a failing delivery is retried (with exponential backoff)
    /// before its subscription is marked failing.
    #[arg(long, env = "KENNING_WEBHOOK_RETRY_SECS", default_value_t = 86_400,
          value_parser = clap::value_parser!(u64).range(1..=2_592_000))]
    webhook_retry_secs: u64,
    /// Seconds an instance holds the deliveries it took before another
    /// may take them; longer than the timeout.
    #[arg(long, env = "KENNING_WEBHOOK_LEASE_SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=3_600))]
    webhook_lease_secs: u64,
    /// Milliseconds between two looks at the outbox when it had nothing
    /// due.
    #[arg(long, env = "KENNING_WEBHOOK_INTERVAL_MS", default_value_t = 500,
          value_parser = clap::value_parser!(u64).range(10..=60_000))]
    webhook_interval_ms: u64,
    /// Delivered events the outbox keeps (the oldest are dropped first).
    #[arg(long, env = "KENNING_WEBHOOK_KEEP_DELIVERED", default_value_t = 10_000)]
    webhook_keep_delivered: u32,
}

fn seconds(n: u64) -> TimeDelta {
    TimeDelta::seconds(i64::try_from(n).unwrap_or(i64::MAX))
}

impl WebhookArgs {
    /// The settings these flags give; `Err` when the lease is not longer
    /// than the timeout ([`DeliverySettings::outlasting`]).
    pub fn settings(&self) -> anyhow::Result<WebhookSettings> {
        let timeout = Duration::from_secs(self.webhook_timeout_secs);
        let delivery = DeliverySettings {
            retry_for: seconds(self.webhook_retry_secs),
            lease: seconds(self.webhook_lease_secs),
            keep_delivered: self.webhook_keep_delivered,
            ..DeliverySettings::default()
        }
        .outlasting(timeout)
        .context("--webhook-lease-secs and --webhook-timeout-secs")?;
        Ok(WebhookSettings {
            allow_networks: self.allowed.networks.clone(),
            timeout,
            rounds: Rounds::Every(Duration::from_millis(self.webhook_interval_ms)),
            delivery,
        })
    }
}
