//! mail: a patch's subsystem is the first part of its subject after the
//! list's own name (`[PATCH v2 3/7] MIPS: Octeon: fix ...` is `octeon`,
//! in any case); for each subsystem of at least [`LEAST`] patch messages
//! (subjects beginning `[PATCH`, so replies are not counted) in the
//! archive read, the sender of strictly most of them. Patches whose
//! subject does not begin with the list's name (`net:`, `dt-bindings:`)
//! belong to other lists' subsystems and ask nothing.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::Context;

use super::tally::{Question, Tally};
use crate::sources::Kind;

/// Patch messages a subsystem needs.
const LEAST: u64 = 5;
/// The list's own name, which begins its patches' subjects.
const LIST: &str = "MIPS";

pub fn questions(mbox: &Path) -> anyhow::Result<Vec<Question>> {
    let file = File::open(mbox).with_context(|| format!("read {}", mbox.display()))?;
    let mut tally = Tally::default();
    heads(BufReader::new(file), |head| {
        let Some(parsed) = mail_parser::MessageParser::default().parse(head) else {
            return;
        };
        let (Some(subject), Some(sender)) = (
            parsed.subject(),
            parsed
                .from()
                .and_then(|f| f.first())
                .and_then(|a| a.address()),
        ) else {
            return;
        };
        if let Some(area) = subsystem(subject) {
            tally.add(&area, &sender.trim().to_lowercase());
        }
    })
    .with_context(|| format!("read {}", mbox.display()))?;
    Ok(tally.questions(Kind::Mail, LEAST))
}

/// Hands `each` the head of every message of the mbox `reader` streams,
/// one at a time: the lines after each `From ` line at the start of a
/// line, up to the first empty line (or the next `From ` line).
fn heads(mut reader: impl BufRead, mut each: impl FnMut(&[u8])) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut line = Vec::new();
    let mut in_head = false;
    while {
        line.clear();
        reader.read_until(b'\n', &mut line)? > 0
    } {
        if line.starts_with(b"From ") {
            if in_head {
                each(&head);
            }
            head.clear();
            in_head = true;
        } else if in_head && line == b"\n" {
            each(&head);
            in_head = false;
        } else if in_head {
            head.extend_from_slice(&line);
        }
    }
    if in_head {
        each(&head);
    }
    Ok(())
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
        let mbox: &[u8] = b"From a@z x\nSubject: one\nFrom: a@z\n\nbody\n>From quoted\n\
            From b@z y\nSubject: two\n\nFrom c@z y\nSubject: three";
        let mut found: Vec<Vec<u8>> = Vec::new();
        heads(mbox, |head| found.push(head.to_vec())).unwrap();
        assert_eq!(
            found,
            [
                &b"Subject: one\nFrom: a@z\n"[..],
                b"Subject: two\n",
                b"Subject: three"
            ]
        );
    }
}
