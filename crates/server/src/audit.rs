//! `kenning audit`: the audit trail at the command line, newest first, a
//! page at a time, with the filters GraphQL's `auditTrail` takes.

use std::io::Write as _;

use chrono::{DateTime, Utc};
use clap::Args;
use kenning::Services;
use kenning_domain::{
    parse_audit_cursor, AuditEntry, AuditLimit, ChangeKind, FieldViolation, ResourceKind,
};
use kenning_ports::AuditQuery;
use uuid::Uuid;

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// How many entries to print (1 to 500).
    #[arg(long, default_value_t = AuditLimit::DEFAULT.get(), value_parser = limit)]
    limit: u32,
    /// Print the entries older than this cursor (the `next:` line of a
    /// previous page).
    #[arg(long, value_parser = cursor)]
    before: Option<u64>,
    /// Only the changes of this user, group or credential.
    #[arg(long)]
    resource: Option<Uuid>,
    /// Only the changes of users, groups or credentials.
    #[arg(long, value_parser = resource_type)]
    resource_type: Option<ResourceKind>,
    /// Only the changes made with this credential.
    #[arg(long)]
    credential: Option<Uuid>,
    /// Only changes of this kind (user.created, group.updated, ...);
    /// repeat for several.
    #[arg(long = "kind", value_parser = kind)]
    kinds: Vec<ChangeKind>,
    /// Only changes made at or after this moment (RFC 3339).
    #[arg(long)]
    from: Option<DateTime<Utc>>,
    /// Only changes made before this moment (RFC 3339).
    #[arg(long)]
    until: Option<DateTime<Utc>>,
}

fn message(v: FieldViolation) -> String {
    v.rule.to_string()
}

fn limit(raw: &str) -> Result<u32, String> {
    let n: i64 = raw.parse().map_err(|_| format!("not a number: {raw}"))?;
    AuditLimit::parse(n).map(|l| l.get()).map_err(message)
}

fn cursor(raw: &str) -> Result<u64, String> {
    parse_audit_cursor(raw).map_err(message)
}

fn resource_type(raw: &str) -> Result<ResourceKind, String> {
    ResourceKind::parse(raw).map_err(message)
}

fn kind(raw: &str) -> Result<ChangeKind, String> {
    ChangeKind::parse(raw).map_err(message)
}

/// Prints the page `args` asks for, a tab-separated line an entry, and
/// the cursor of the next page on stderr when there is one.
pub fn print(services: &Services, args: AuditArgs) -> anyhow::Result<()> {
    let limit = AuditLimit::parse(i64::from(args.limit)).map_err(|v| anyhow::anyhow!("{v}"))?;
    let query = AuditQuery {
        before: args.before,
        resource_id: args.resource,
        resource_kind: args.resource_type,
        credential_id: args.credential,
        kinds: args.kinds,
        from: args.from,
        until: args.until,
    };
    let page = services.audit.entries(query, limit)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "CURSOR\tAT\tKIND\tRESOURCE\tBY\tVIA\tFIELDS")?;
    for entry in &page.entries {
        writeln!(out, "{}", line(entry))?;
    }
    if let Some(next) = page.next {
        eprintln!("next: kenning audit --before {next} (more entries are older)");
    }
    Ok(())
}

fn line(e: &AuditEntry) -> String {
    let by = match e.actor.credential_id {
        Some(id) => format!("{} ({id})", e.actor.name),
        None => e.actor.name.clone(),
    };
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
        e.position,
        e.at.to_rfc3339(),
        e.change.kind,
        e.change.resource_id,
        by,
        e.actor.channel.as_str(),
        if e.change.fields.is_empty() {
            "-".to_owned()
        } else {
            e.change.fields.join(",")
        }
    )
}
