//! Questions nobody should be the answer to: what a source's messages
//! carry around what their people wrote. Derived by a rule from the
//! sources, never picked by hand: the five e-mail domains most of the
//! organisation's people write from, the trailers a patch carries, and
//! the names of each source's five people with the most uploads (whole,
//! and their last word). Asked of `experts`, none should answer anybody
//! at 50 or more.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::sources::{Kind, Read};

/// The trailers of a commit or a patch mail that name people.
const TRAILERS: [&str; 6] = [
    "Signed-off-by",
    "Acked-by",
    "Reviewed-by",
    "Tested-by",
    "Reported-by",
    "Co-developed-by",
];

/// How many domains, and people of each source, are asked about.
const MOST: usize = 5;

/// A question made of what surrounds the text, not of the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// What it is made of: an address, a trailer or a name.
    pub what: &'static str,
    pub text: String,
}

/// The probes of the sources `read`.
pub fn probes(read: &BTreeMap<Kind, Read>) -> Vec<Probe> {
    let mut domains: HashMap<&str, usize> = HashMap::new();
    for source in read.values() {
        for email in source.people.keys() {
            if let Some((_, domain)) = email.rsplit_once('@') {
                if !domain.ends_with(".example.org") {
                    *domains.entry(domain).or_default() += 1;
                }
            }
        }
    }
    let mut domains: Vec<(&str, usize)> = domains.into_iter().collect();
    domains.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut probes: Vec<Probe> = domains
        .into_iter()
        .take(MOST)
        .map(|(d, _)| Probe {
            what: "address",
            text: d.to_owned(),
        })
        .collect();
    probes.extend(TRAILERS.iter().map(|t| Probe {
        what: "trailer",
        text: (*t).to_owned(),
    }));
    let mut names = BTreeSet::new();
    for source in read.values() {
        let mut busiest: Vec<(&str, usize)> = source
            .people
            .values()
            .filter_map(|p| Some((p.name.as_deref()?.trim(), p.texts.len())))
            .filter(|(name, _)| name.contains(' '))
            .collect();
        busiest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        for (name, _) in busiest.into_iter().take(MOST) {
            for text in [Some(name), name.rsplit(' ').next()].into_iter().flatten() {
                if text.chars().count() >= 3 && names.insert(text.to_owned()) {
                    probes.push(Probe {
                        what: "name",
                        text: text.to_owned(),
                    });
                }
            }
        }
    }
    probes
}

/// The best-scored answer to a probe: whom, and their score.
pub type Top = Option<(String, f64)>;

/// The best of `scored` (best first, as `experts` answers).
pub fn top(scored: Vec<(String, f64)>) -> Top {
    scored.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::Named;

    fn person(name: &str, uploads: usize) -> Named {
        Named {
            key: name.to_owned(),
            name: Some(name.to_owned()),
            texts: vec![String::new(); uploads],
        }
    }

    #[test]
    fn probes_are_the_commonest_domains_the_trailers_and_the_busiest_names() {
        let mut mail = Read::default();
        mail.people
            .insert("ann@kernel.org".into(), person("Ann Moore", 9));
        mail.people
            .insert("bob@gmail.com".into(), person("Bob Stone", 3));
        mail.people.insert("cy@gmail.com".into(), person("cy", 20));
        let mut qa = Read::default();
        qa.people.insert(
            "stackexchange-7@beer.example.org".into(),
            person("Dee Ray", 1),
        );
        let read = BTreeMap::from([(Kind::Mail, mail), (Kind::StackExchange, qa)]);
        let texts: Vec<(&str, String)> = probes(&read)
            .into_iter()
            .map(|p| (p.what, p.text))
            .collect();
        assert_eq!(texts[0], ("address", "gmail.com".to_owned()));
        assert_eq!(texts[1], ("address", "kernel.org".to_owned()));
        assert_eq!(texts[2], ("trailer", "Signed-off-by".to_owned()));
        let names: Vec<&str> = texts
            .iter()
            .filter(|(what, _)| *what == "name")
            .map(|(_, t)| t.as_str())
            .collect();
        // A one-word name ("cy") is no probe.
        assert_eq!(
            names,
            ["Ann Moore", "Moore", "Bob Stone", "Stone", "Dee Ray", "Ray"]
        );
    }
}
