//! git: for each area (a directory of the first two levels, or a C
//! source file by its name without `.c`) that the non-merge commits of
//! the last two years before the pinned commit changed at least
//! [`LEAST`] times, the author (through the repository's `.mailmap`, as
//! the connector reads them) of strictly most of those commits; asked by
//! the area's name as words. Left out: `include/` and what it holds (it
//! mirrors the source folders), the directory named as the project
//! (`sway/`: the whole program; its subdirectories are kept), `main.c`
//! (a program's entry, about all of it), and authors whose name or
//! address holds `[bot]`. Areas of one name (`tree/output.c`,
//! `desktop/output.c`) are one.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use anyhow::Context;

use super::tally::{as_words, Question, Tally};
use crate::sources::{Kind, SWAY_COMMIT};

/// Commits an area needs.
const LEAST: u64 = 10;
/// The span read before the pinned commit, seconds.
const SPAN: i64 = 730 * 86_400;
/// The directory named as the project.
const PROJECT: &str = "sway";

pub fn questions(repository: &Path) -> anyhow::Result<Vec<Question>> {
    let pinned = git(repository, &["log", "-1", "--format=%ct", SWAY_COMMIT])?;
    let pinned: i64 = pinned.trim().parse().context("the pinned commit's time")?;
    let since = format!("--since=@{}", pinned - SPAN);
    let log = git(
        repository,
        &[
            "log",
            "--no-merges",
            &since,
            "--format=%x01%aE%x02%aN",
            "--name-only",
            SWAY_COMMIT,
        ],
    )?;
    let mut tally = Tally::default();
    for commit in log.split('\x01').skip(1) {
        let mut lines = commit.lines();
        let Some((email, name)) = lines.next().and_then(|l| l.split_once('\x02')) else {
            continue;
        };
        if email.contains("[bot]") || name.contains("[bot]") {
            continue;
        }
        let areas: BTreeSet<String> = lines.flat_map(areas).collect();
        for area in areas {
            tally.add(&area, &email.trim().to_lowercase());
        }
    }
    Ok(tally.questions(Kind::Git, LEAST))
}

/// The areas of a changed `path`: its first and second directories and
/// its name when it is a C source file, as words.
fn areas(path: &str) -> Vec<String> {
    let parts: Vec<&str> = path.trim().split('/').collect();
    if parts.first() == Some(&"include") {
        return Vec::new();
    }
    let folders = parts.len().saturating_sub(1).min(2);
    let mut areas: Vec<String> = parts[..folders]
        .iter()
        .enumerate()
        .filter(|(depth, name)| !(*depth == 0 && **name == PROJECT))
        .map(|(_, name)| as_words(name))
        .collect();
    let file = parts.last().and_then(|f| f.strip_suffix(".c"));
    if let Some(file) = file.filter(|f| *f != "main") {
        areas.push(as_words(file));
    }
    areas
}

fn git(repository: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repository)
        .args(args)
        .output()
        .context("run git")?;
    anyhow::ensure!(out.status.success(), "git {} failed", args.join(" "));
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_names_its_first_two_directories_and_its_c_file() {
        assert_eq!(areas("sway/commands/bar.c"), vec!["commands", "bar"]);
        assert_eq!(areas("swaynag/main.c"), vec!["swaynag"]);
        assert_eq!(
            areas("common/sub_dir/x/text_input.c"),
            vec!["common", "sub dir", "text input"]
        );
        assert!(areas("include/sway/commands.h").is_empty());
        assert!(areas("meson.build").is_empty());
    }
}
