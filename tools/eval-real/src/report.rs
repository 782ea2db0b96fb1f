//! The printed tables: what each source's run read, sent and stored, then
//! P@1 and MRR of each system in the whole organisation and among each
//! source's people, then every question with the expected person's rank,
//! and whom each system put first against the area's work.

use crate::connect::Ingest;
use crate::measure::{scores, Answers, Ranks};
use crate::noise::{Probe, Top};
use crate::people::People;
use crate::rules::Question;
use crate::sources::Kind;

/// What each source's run said and left in the database.
pub fn print_ingest(ingests: &[Ingest], people: &People) {
    println!(
        "| source | people | uploads stored | topics per upload | most topics in one upload \
         | bytes per upload | seconds | exit |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for i in ingests {
        let of_source = people
            .values()
            .filter(|p| p.sources.contains(&i.kind))
            .count();
        let per = |x: i64| x as f64 / i.stored.uploads.max(1) as f64;
        println!(
            "| {} | {of_source} | {} | {:.1} | {} | {:.0} | {:.0} | {} |",
            i.kind.label(),
            i.stored.uploads,
            per(i.stored.topics),
            i.stored.most_topics,
            per(i.bytes),
            i.seconds,
            i.exit.map_or("signal".to_owned(), |c| c.to_string())
        );
    }
    for i in ingests {
        println!("\n`kenning connect {}` said:\n```", i.kind.command());
        let lines: Vec<&str> = i.summary.lines().collect();
        for line in lines.iter().take(40) {
            println!("{line}");
        }
        if lines.len() > 40 {
            println!("... ({} more lines)", lines.len() - 40);
        }
        println!("```");
    }
}

/// P@1 and MRR of each system, per source and over all, in both scopes.
pub fn print_scores(questions: &[Question], systems: &[Answers]) {
    print!("| source | ranked among | questions |");
    for s in systems {
        print!(" {} P@1 | {} MRR |", s.system, s.system);
    }
    println!();
    println!("|---|---|---|{}", "---|---|".repeat(systems.len()));
    let mut rows: Vec<(String, Option<Kind>)> = Kind::ALL
        .iter()
        .map(|k| (k.label().to_owned(), Some(*k)))
        .collect();
    rows.push(("all sources".to_owned(), None));
    for (label, kind) in rows {
        let picked: Vec<usize> = (0..questions.len())
            .filter(|&i| kind.is_none_or(|k| questions[i].kind == k))
            .collect();
        if picked.is_empty() {
            continue;
        }
        for (scope, pick) in [
            (
                "organisation",
                (|r: &Ranks| r.organisation) as fn(&Ranks) -> Option<usize>,
            ),
            ("source's people", |r: &Ranks| r.source),
        ] {
            print!("| {label} | {scope} | {} |", picked.len());
            for s in systems {
                let ranks: Vec<Option<usize>> = picked.iter().map(|&i| pick(&s.ranks[i])).collect();
                let (p1, mrr) = scores(&ranks);
                print!(" {p1:.3} | {mrr:.3} |");
            }
            println!();
        }
    }
}

/// A person as the tables name them: their name, else their address's
/// local part.
fn name_of(people: &People, email: &str) -> String {
    people
        .get(email)
        .and_then(|p| p.name.clone())
        .unwrap_or_else(|| email.split('@').next().unwrap_or_default().to_owned())
}

/// Every question, whom it expects, their rank in the organisation under
/// each system (— when not among the first 100), and whom the first
/// system put first when not them, with their share of the area's work.
pub fn print_questions(questions: &[Question], systems: &[Answers], people: &People) {
    print!("| source | question | expected (their share of the area's work) |");
    for s in systems {
        print!(" {} |", s.system);
    }
    let first = systems.first();
    if let Some(s) = first {
        print!(" {} first, when another (their share) |", s.system);
    }
    println!();
    println!(
        "|---|---|---|{}",
        "---|".repeat(systems.len() + usize::from(first.is_some()))
    );
    for (i, q) in questions.iter().enumerate() {
        let name = name_of(people, &q.expected);
        print!(
            "| {} | {} | {name} ({}/{}) |",
            q.kind.command(),
            q.text,
            q.theirs,
            q.of
        );
        for s in systems {
            let rank = s.ranks[i].organisation;
            print!(" {} |", rank.map_or("—".to_owned(), |r| r.to_string()));
        }
        if let Some(s) = first {
            match &s.firsts[i] {
                Some(p) if *p != q.expected => {
                    print!(" {} ({}/{}) |", name_of(people, p), q.work_of(p), q.of);
                }
                Some(_) => print!(" |"),
                None => print!(" nobody |"),
            }
        }
        println!();
    }
}

/// Whom a system put first, against the area's work as the rule counts
/// it; one column of [`print_firsts`] each, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum First {
    /// The person the rule expects.
    Expected,
    /// Another, who did at least half as much of the area's work.
    CloseCall,
    /// Another, who did less of it.
    SmallerShare,
    /// Someone who did none of it.
    NoneOfIt,
    /// Nobody: the system answered no one.
    Nobody,
}

impl First {
    const ALL: [First; 5] = [
        First::Expected,
        First::CloseCall,
        First::SmallerShare,
        First::NoneOfIt,
        First::Nobody,
    ];

    /// Which kind `first` is for `question`.
    fn of(question: &Question, first: Option<&str>) -> Self {
        match first {
            None => Self::Nobody,
            Some(p) if p == question.expected => Self::Expected,
            Some(p) => match question.work_of(p) {
                0 => Self::NoneOfIt,
                n if 2 * n >= question.theirs => Self::CloseCall,
                _ => Self::SmallerShare,
            },
        }
    }

    fn heading(self) -> &'static str {
        match self {
            Self::Expected => "the expected person",
            Self::CloseCall => "another, at least half their work",
            Self::SmallerShare => "another, less of the work",
            Self::NoneOfIt => "someone with none of it",
            Self::Nobody => "nobody",
        }
    }
}

/// Whom each system put first, against the area's work: how often the
/// expected person, a close call, a smaller share, none of it, nobody.
pub fn print_firsts(questions: &[Question], systems: &[Answers]) {
    print!("| system | questions |");
    for kind in First::ALL {
        print!(" {} |", kind.heading());
    }
    println!();
    println!("|---|---|{}", "---|".repeat(First::ALL.len()));
    for s in systems {
        let kinds: Vec<First> = questions
            .iter()
            .zip(&s.firsts)
            .map(|(q, first)| First::of(q, first.as_deref()))
            .collect();
        print!("| {} | {} |", s.system, questions.len());
        for kind in First::ALL {
            let n = kinds.iter().filter(|k| **k == kind).count();
            print!(" {n} |");
        }
        println!();
    }
}

/// Every probe and its best answer with the default models and with
/// `--meaning off`, then how many answered somebody at 50 or more.
pub fn print_probes(probes: &[Probe], probed: &[[Top; 2]], people: &People) {
    println!(
        "| made of | question | default: best score (whom) | meaning off: best score (whom) |"
    );
    println!("|---|---|---|---|");
    let said = |top: &Top| match top {
        Some((email, score)) => format!("{score:.0} ({})", name_of(people, email)),
        None => "nobody".to_owned(),
    };
    let mut reached = [0; 2];
    for (probe, tops) in probes.iter().zip(probed) {
        for (n, top) in tops.iter().enumerate() {
            if top.as_ref().is_some_and(|(_, score)| *score >= 50.0) {
                reached[n] += 1;
            }
        }
        println!(
            "| {} | {} | {} | {} |",
            probe.what,
            probe.text,
            said(&tops[0]),
            said(&tops[1])
        );
    }
    println!(
        "\n{} of {} answer somebody at 50 or more with the default models, {} with --meaning off.",
        reached[0],
        probes.len(),
        reached[1]
    );
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn a_first_person_is_told_by_their_share_of_the_areas_work() {
        let work: BTreeMap<String, u64> = [("a", 6), ("b", 3), ("c", 2)]
            .into_iter()
            .map(|(p, n)| (p.to_owned(), n))
            .collect();
        let question = Question {
            kind: Kind::Git,
            text: "input".to_owned(),
            expected: "a".to_owned(),
            theirs: 6,
            of: 11,
            work,
        };
        let kinds: Vec<First> = [Some("a"), Some("b"), Some("c"), Some("d"), None]
            .into_iter()
            .map(|first| First::of(&question, first))
            .collect();
        assert_eq!(kinds, First::ALL);
    }
}
