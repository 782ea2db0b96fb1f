//! The scoring settings, as flags and environment variables of `kenning
//! serve` and `kenning topics extract`.

use clap::Args;
use kenning_domain::{ActionType, Scoring};

/// How expertise is scored. Every instance on one database must use the
/// same settings: a change rebuilds the stored standings at start.
#[derive(Debug, Args)]
pub struct ScoringArgs {
    /// The weight of an action type, as TYPE=WEIGHT; repeat (or separate
    /// with commas in the environment) for several.
    #[arg(long = "action-weight", env = "KENNING_ACTION_WEIGHTS", value_delimiter = ',',
          value_parser = parse_action_weight)]
    action_weights: Vec<(ActionType, f64)>,
    /// The weight of every action type not given with --action-weight.
    #[arg(long, env = "KENNING_DEFAULT_ACTION_WEIGHT", default_value_t = Scoring::DEFAULT_ACTION_WEIGHT)]
    default_action_weight: f64,
    /// Factor of texts sent with descriptor "primary".
    #[arg(long, env = "KENNING_PRIMARY_FACTOR", default_value_t = Scoring::DEFAULT_FACTORS[0])]
    primary_factor: f64,
    /// Factor of texts sent with descriptor "default" (or none).
    #[arg(long, env = "KENNING_DEFAULT_FACTOR", default_value_t = Scoring::DEFAULT_FACTORS[1])]
    default_factor: f64,
    /// Factor of texts sent with descriptor "secondary".
    #[arg(long, env = "KENNING_SECONDARY_FACTOR", default_value_t = Scoring::DEFAULT_FACTORS[2])]
    secondary_factor: f64,
    /// Days after which an action counts half as much.
    #[arg(long, env = "KENNING_HALF_LIFE_DAYS", default_value_t = Scoring::DEFAULT_HALF_LIFE_DAYS,
          value_parser = clap::value_parser!(u32).range(1..=36500))]
    half_life_days: u32,
}

impl ScoringArgs {
    pub fn scoring(self) -> anyhow::Result<Scoring> {
        Ok(Scoring::new(
            self.action_weights,
            self.default_action_weight,
            [
                self.primary_factor,
                self.default_factor,
                self.secondary_factor,
            ],
            chrono::Duration::days(i64::from(self.half_life_days)),
        )?)
    }
}

fn parse_action_weight(raw: &str) -> Result<(ActionType, f64), String> {
    let (name, weight) = raw
        .split_once('=')
        .ok_or_else(|| format!("{raw:?} is not TYPE=WEIGHT"))?;
    let action = ActionType::parse(name.trim()).map_err(|e| e.to_string())?;
    let weight: f64 = weight
        .trim()
        .parse()
        .map_err(|_| format!("the weight of {name} is not a number"))?;
    Ok((action, weight))
}
