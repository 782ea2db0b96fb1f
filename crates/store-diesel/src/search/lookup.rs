//! How a text of three characters or more is looked up in the trigram
//! index, from how many users hold each of its trigrams.

use crate::location::Backend;
use crate::trigram_counts::Estimates;
use crate::trigrams::{trigrams_at, TRIGRAM};

/// The most rare trigrams a look-up by rare trigrams asks for.
pub(super) const TRIGRAMS_ASKED: usize = 3;

/// A text whose rarest trigram is held by a smaller share of the users
/// than this is not looked for in the head of the list: the head is
/// [`scan_window`], 20 times the rows a page needs, so it would be
/// expected to hold fewer matches than the page, and the trigram index
/// finds so rare a text cheaply.
///
/// [`scan_window`]: super::pages::scan_window
pub(super) const HEAD_SHARE: f64 = 1.0 / 20.0;

/// A trigram beyond a text's rarest is asked for only when a smaller
/// share of the users than this holds it: reading the list of one that
/// nearly everyone holds (the mail domain's) costs more than testing the
/// few users the rarer ones leave.
const ASKED_SHARE: f64 = 1.0 / 20.0;

/// How the trigram step looks a text up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Lookup {
    /// The whole text: SQLite's phrase of its trigrams, when it has no
    /// more than [`TRIGRAMS_ASKED`]; PostgreSQL's `LIKE`, when no trigram
    /// of it is one the `pg_trgm` index holds as it is, or when each is
    /// one it holds and rarer than [`ASKED_SHARE`] (no list is worth
    /// leaving out, and one `LIKE` tests a match where the rarest
    /// trigrams' took three and `strpos`; measured in docs/performance.md,
    /// "Measured choices in the code").
    Whole,
    /// Its rarest trigrams, at most [`TRIGRAMS_ASKED`], and beyond the
    /// first only those rarer than [`ASKED_SHARE`]; those that overlap
    /// none asked before first (trigrams of one word that share characters
    /// are held by nearly the same users, so asking for both narrows
    /// little: `ler` and `lle` of "miller"), then the rarest of the rest
    /// (in a number, overlapping trigrams still narrow). The users holding
    /// them all, a superset, are tested against the whole text.
    Rare(Vec<String>),
}

/// A text's trigrams by estimated rarity, and how to look it up.
pub(super) struct Plan {
    /// Whether the head of the list is worth testing first.
    pub(super) head: bool,
    pub(super) lookup: Lookup,
}

/// Whether `pg_trgm` indexes `trigram` as it is: it splits texts into
/// words of letters and digits (of the database's locale; ASCII ones are
/// such in every locale) and indexes the trigrams of each word.
fn indexed_by_pg_trgm(trigram: &str) -> bool {
    trigram.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The trigram index of a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TrigramIndex {
    /// SQLite's FTS5 table: any trigram, and a phrase of them.
    Fts5,
    /// PostgreSQL's `pg_trgm`: only trigrams of letters and digits.
    PgTrgm,
}

impl TrigramIndex {
    pub(super) fn of(backend: Backend) -> Self {
        match backend {
            Backend::Sqlite => Self::Fts5,
            Backend::Postgres => Self::PgTrgm,
        }
    }
}

/// How `needle` (three characters or more) is best read through `index`,
/// given how common each of its trigrams is.
pub(super) fn plan(index: TrigramIndex, needle: &str, estimates: &Estimates) -> Plan {
    let mut ranked: Vec<(f64, usize, String)> = trigrams_at(needle)
        .into_iter()
        .map(|(at, t)| (estimates.share(&t), at, t))
        .collect();
    let whole = ranked.len();
    let all_rare_in_pg_trgm = ranked
        .iter()
        .all(|(share, _, t)| indexed_by_pg_trgm(t) && *share < ASKED_SHARE);
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    let head = ranked
        .first()
        .is_none_or(|(share, _, _)| *share >= HEAD_SHARE);
    let rare: Vec<(usize, String)> = ranked
        .into_iter()
        .filter(|(_, _, t)| index == TrigramIndex::Fts5 || indexed_by_pg_trgm(t))
        .enumerate()
        .take_while(|(i, (share, _, _))| *i == 0 || *share < ASKED_SHARE)
        .map(|(_, (_, at, t))| (at, t))
        .collect();
    // First the rarest that overlap none asked before, then the rarest of
    // the rest in the places left.
    let mut asked: Vec<&(usize, String)> = Vec::new();
    for trigram in &rare {
        let apart = asked
            .iter()
            .all(|(other, _)| trigram.0.abs_diff(*other) >= TRIGRAM);
        if apart && asked.len() < TRIGRAMS_ASKED {
            asked.push(trigram);
        }
    }
    for trigram in &rare {
        if !asked.contains(&trigram) && asked.len() < TRIGRAMS_ASKED {
            asked.push(trigram);
        }
    }
    let askable: Vec<String> = asked.into_iter().map(|(_, t)| t.clone()).collect();
    let lookup = match index {
        TrigramIndex::Fts5 if whole <= TRIGRAMS_ASKED => Lookup::Whole,
        TrigramIndex::PgTrgm if all_rare_in_pg_trgm => Lookup::Whole,
        _ if askable.is_empty() => Lookup::Whole,
        _ => Lookup::Rare(askable),
    };
    Plan { head, lookup }
}

#[cfg(test)]
mod tests {
    use super::{plan, Lookup, TrigramIndex};
    use crate::trigram_counts::Estimates;

    /// Users at one mail domain, with numbered addresses.
    fn directory() -> Estimates {
        let texts: Vec<String> = (0..1_000)
            .map(|n| format!("ada.{n}@example.com\ne{n}\nada l{n}"))
            .collect();
        Estimates::of(texts.iter().map(String::as_str))
    }

    #[test]
    fn an_address_is_looked_up_by_its_rarest_trigrams() {
        let estimates = directory();
        for index in [TrigramIndex::Fts5, TrigramIndex::PgTrgm] {
            let plan = plan(index, "ada.417@example.com", &estimates);
            assert!(!plan.head, "too rare to fill a page at the head");
            let Lookup::Rare(asked) = plan.lookup else {
                panic!("looked up whole");
            };
            if index == TrigramIndex::Fts5 {
                // ".41" and "17@" overlap "417" and fill the places
                // left: no rare trigram lies apart from it ("@ex" is
                // everyone's).
                assert_eq!(asked, ["417", "17@", ".41"]);
            } else {
                assert_eq!(asked, ["417"], "pg_trgm holds no trigram with . or @");
            }
        }
    }

    #[test]
    fn trigrams_apart_are_asked_first() {
        // "abc", "bcd" and "cde" are rarest but held by the same users;
        // "xyz", further on, is rarer than 1 in 20 too.
        let texts: Vec<&str> = [("abcde", 10), ("xyz", 20), ("defxy", 100), ("qqqq", 870)]
            .into_iter()
            .flat_map(|(text, users)| std::iter::repeat_n(text, users))
            .collect();
        let estimates = Estimates::of(texts);
        for index in [TrigramIndex::Fts5, TrigramIndex::PgTrgm] {
            let Lookup::Rare(asked) = plan(index, "abcdefxyz", &estimates).lookup else {
                panic!("looked up whole");
            };
            assert_eq!(asked, ["abc", "xyz", "bcd"]);
        }
    }

    #[test]
    fn a_common_text_is_looked_for_at_the_head_first() {
        let estimates = directory();
        assert!(plan(TrigramIndex::Fts5, "example.com", &estimates).head);
        assert!(plan(TrigramIndex::PgTrgm, "ada", &Estimates::default()).head);
    }

    #[test]
    fn a_short_or_unindexed_text_is_looked_up_whole() {
        let estimates = directory();
        let whole = |index, text| plan(index, text, &estimates).lookup == Lookup::Whole;
        assert!(whole(TrigramIndex::Fts5, "l417"));
        assert!(whole(TrigramIndex::PgTrgm, "x_%1"));
        // Every trigram rare and held by pg_trgm: no list to leave out.
        assert!(whole(TrigramIndex::PgTrgm, "l417"));
        // "ada" is everyone's: its lists are left out.
        assert!(!whole(TrigramIndex::PgTrgm, "ada417"));
    }
}
