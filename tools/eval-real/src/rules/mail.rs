//! mail: a patch's subsystem is the first part of its subject after the
//! list's own name (`[PATCH v2 3/7] MIPS: Octeon: fix ...` is `octeon`,
//! in any case); for each subsystem of at least [`LEAST`] patch messages
//! (subjects beginning `[PATCH`, so replies are not counted) in the
//! archive read, the sender of strictly most of them. Patches whose
//! subject does not begin with the list's name (`net:`, `dt-bindings:`)
//! belong to other lists' subsystems and ask nothing.

use std::path::Path;

use anyhow::Context;

use super::tally::{Question, Tally};
use crate::sources::Kind;

/// Patch messages a subsystem needs.
const LEAST: u64 = 5;
/// The list's own name, which begins its patches' subjects.
const LIST: &str = "MIPS";

pub fn questions(mbox: &Path) -> anyhow::Result<Vec<Question>> {
    let bytes = std::fs::read(mbox).with_context(|| format!("read {}", mbox.display()))?;
    let mut tally = Tally::default();
    for message in messages(&bytes) {
        let head = match message.windows(2).position(|w| w == b"\n\n") {
            Some(end) => &message[..end + 1],
            None => message,
        };
        let Some(parsed) = mail_parser::MessageParser::default().parse(head) else {
            continue;
        };
        let (Some(subject), Some(sender)) = (
            parsed.subject(),
            parsed
                .from()
                .and_then(|f| f.first())
                .and_then(|a| a.address()),
        ) else {
            continue;
        };
        if let Some(area) = subsystem(subject) {
            tally.add(&area, &sender.trim().to_lowercase());
        }
    }
    Ok(tally.questions(Kind::Mail, LEAST))
}

/// The messages of an mbox: what follows each `From ` line at the start
/// of a line, up to the next.
fn messages(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut starts: Vec<usize> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at..].starts_with(b"From ") {
            starts.push(at);
        }
        at += bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len() - at, |n| n + 1);
    }
    let ends: Vec<usize> = starts
        .iter()
        .skip(1)
        .copied()
        .chain([bytes.len()])
        .collect();
    starts.into_iter().zip(ends).map(move |(start, end)| {
        let body = &bytes[start..end];
        let first_line = body
            .iter()
            .position(|&b| b == b'\n')
            .map_or(body.len(), |n| n + 1);
        &body[first_line..]
    })
}

/// The subsystem a patch's `subject` names, lower case.
fn subsystem(subject: &str) -> Option<String> {
    let mut rest = subject.trim();
    if !rest.to_ascii_uppercase().starts_with("[PATCH") {
        return None;
    }
    while let Some(tagged) = rest.strip_prefix('[') {
        rest = tagged.split_once(']')?.1.trim_start();
    }
    let parts: Vec<&str> = rest.split(':').map(str::trim).collect();
    match parts.as_slice() {
        [list, area, _, ..] if list.eq_ignore_ascii_case(LIST) && !area.is_empty() => {
            Some(area.to_lowercase())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_names_the_subsystem_after_the_list() {
        assert_eq!(
            subsystem("[PATCH v2 3/7] MIPS: Octeon: fix the clock").as_deref(),
            Some("octeon")
        );
        assert_eq!(
            subsystem("[PATCH] mips: SGI-IP27: x").as_deref(),
            Some("sgi-ip27")
        );
        assert_eq!(subsystem("Re: [PATCH] MIPS: Octeon: fix"), None);
        assert_eq!(subsystem("[PATCH] net: sgi: ioc3: fix"), None);
        assert_eq!(subsystem("[PATCH] MIPS: fix the build"), None);
    }

    #[test]
    fn an_mbox_is_split_at_its_from_lines() {
        let mbox = b"From a@z x\nSubject: one\n\nbody\n>From quoted\nFrom b@z y\nSubject: two\n\n";
        let found: Vec<&[u8]> = messages(mbox).collect();
        assert_eq!(found.len(), 2);
        assert!(found[0].starts_with(b"Subject: one"));
        assert!(found[1].starts_with(b"Subject: two"));
    }
}
