//! `kenning data`, `kenning learning`, `kenning forget` and `kenning
//! rules`: a person's data and the organisation's rules on learning at the
//! command line, through the same use cases as GraphQL and the web app.

use std::io::Write as _;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use kenning::Services;
use kenning_app::PrivacyService;
use kenning_domain::{Email, LearningRules, Scoring, UserId, UserKey};

/// Who a command is about.
#[derive(Debug, Args)]
pub struct PersonArg {
    /// The person's e-mail address.
    #[arg(long)]
    email: String,
}

#[derive(Debug, Subcommand)]
pub enum LearningCommand {
    /// Stop learning from the person's activity (their own choice, made
    /// on their behalf).
    Off(PersonArg),
    /// Learn from the person's later uploads again.
    On(PersonArg),
    /// Let the organisation's default decide for the person.
    Default(PersonArg),
    /// Print whether the person is learned about, and their choice.
    Show(PersonArg),
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Print the rules in force, with who set each and when.
    List,
    /// Set a rule: learning_off, new_people_opted_out, group_off GROUP_ID,
    /// excluded_entity_type TYPE, excluded_action_type TYPE or
    /// retention_days DAYS.
    Set { kind: String, value: Option<String> },
    /// Lift a rule (the same kinds and values as `set`).
    Lift { kind: String, value: Option<String> },
}

fn privacy(services: &Services) -> PrivacyService {
    services.privacy(&services.expertise(Scoring::default(), None, None))
}

/// The live user with the e-mail address `email`.
fn person(services: &Services, email: &str) -> anyhow::Result<UserId> {
    let email = Email::parse(email).map_err(|v| anyhow::anyhow!("--email {}", v.rule))?;
    let user = services
        .users
        .get_by_key(&UserKey::Email(email))
        .with_context(|| "no user has this e-mail address")?;
    Ok(user.id())
}

/// `kenning data --email ...`: everything kept about the person, as JSON
/// on stdout; the hand-out is in the audit trail.
pub fn data(services: &Services, who: PersonArg) -> anyhow::Result<()> {
    let id = person(services, &who.email)?;
    let exported = privacy(services).export(id)?;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &exported)?;
    writeln!(out)?;
    Ok(())
}

/// `kenning learning ...`.
pub fn learning(services: &Services, command: LearningCommand) -> anyhow::Result<()> {
    let service = privacy(services);
    let (who, choice) = match command {
        LearningCommand::Off(who) => (who, Some(Some(false))),
        LearningCommand::On(who) => (who, Some(Some(true))),
        LearningCommand::Default(who) => (who, Some(None)),
        LearningCommand::Show(who) => (who, None),
    };
    let id = person(services, &who.email)?;
    let learning = match choice {
        Some(choice) => service.set_learning(id, choice)?,
        None => service.learning_of(id)?,
    };
    let chose = match learning.choice {
        Some(true) => "opted in",
        Some(false) => "opted out",
        None => "never chose (the organisation's default holds)",
    };
    let learns = if learning.learns {
        "learned about"
    } else {
        "not learned about"
    };
    println!("{}: {learns}; {chose}", who.email);
    Ok(())
}

/// `kenning forget --email ... --yes`.
pub fn forget(services: &Services, who: PersonArg, yes: bool) -> anyhow::Result<()> {
    if !yes {
        anyhow::bail!(
            "forgetting erases every action and topic of {} and cannot be undone; \
             add --yes to do it",
            who.email
        );
    }
    let id = person(services, &who.email)?;
    privacy(services).forget(id)?;
    println!("forgot what Kenning learned about {}", who.email);
    Ok(())
}

/// `kenning rules ...`.
pub fn rules(services: &Services, command: RulesCommand) -> anyhow::Result<()> {
    let service = privacy(services);
    let rules = match command {
        RulesCommand::List => service.rules()?,
        RulesCommand::Set { kind, value } => service.set_rule(&kind, value.as_deref(), true)?,
        RulesCommand::Lift { kind, value } => service.set_rule(&kind, value.as_deref(), false)?,
    };
    print_rules(&rules)
}

fn print_rules(rules: &LearningRules) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "KIND\tVALUE\tSET BY\tVIA\tAT")?;
    for r in &rules.rules {
        let (kind, value) = r.rule.parts();
        writeln!(
            out,
            "{kind}\t{}\t{}\t{}\t{}",
            if value.is_empty() {
                "-"
            } else {
                value.as_str()
            },
            r.set_by.name,
            r.set_by.channel.as_str(),
            r.set_at.to_rfc3339()
        )?;
    }
    if rules.rules.is_empty() {
        eprintln!("no rule: everyone is learned about, from every upload, for as long as kept");
    }
    Ok(())
}
