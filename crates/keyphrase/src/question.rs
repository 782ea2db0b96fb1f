//! A query read as a question: the words that ask for a person apart from
//! the subject asked about.
//!
//! People type "who can help with GDPR", "I need someone who knows
//! payroll", "wer kennt sich mit Datenschutz aus". The words around the
//! subject ask for a person; none of them is a topic. A question is read
//! from two kinds of words of the query's language (and English, as every
//! query is also read in English):
//!
//! - **function words**: the extractor's stop words (pronouns,
//!   prepositions, auxiliaries, articles);
//! - **asking words**: the words a question for a person is made of in
//!   that language, with their inflections: the interrogatives ("who",
//!   "wer", "qui"), the verbs of knowing, helping, needing, looking for and
//!   asking, the words for someone, an expert or a colleague, and the
//!   courtesies around them ([`ASKING_WORDS`](crate::asking::ASKING_WORDS)).
//!
//! The question is the run of such words that opens the query, when it
//! holds an asking word and either a function word or a second asking
//! word (or the query ends with a question mark): "help desk" is a
//! subject, "who knows" and "I need help with" are questions. A run that
//! ends in asking words after a preposition ("who can help with help
//! desks") gives those back to the subject, and the function and asking
//! words that close a question ("... aus", "... anyone?") are read as the
//! question too. What lies between is the subject.

use crate::language::Rules;

/// How a word of a query can take part in a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// An asking word (it may be a function word too: "who").
    Asking,
    /// A function word that asks nothing ("with", "about", "the").
    Function,
    /// A word of the subject.
    Subject,
}

/// A word of a query and where it stands in it (byte offsets).
#[derive(Debug, Clone, Copy)]
struct Span<'a> {
    surface: &'a str,
    start: usize,
    part: Part,
}

/// Whether a character joins the letters on either side into one word
/// ("quelqu'un", "kto-nibud'", "who's").
fn joins(c: char) -> bool {
    matches!(c, '\'' | '’' | '-')
}

/// The words of `query`: runs of letters and digits, joined by an
/// apostrophe or a hyphen between two of them.
fn words(query: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut start: Option<usize> = None;
    let mut chars = query.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next_is_word = chars.peek().is_some_and(|(_, n)| n.is_alphanumeric());
        if c.is_alphanumeric() || (start.is_some() && joins(c) && next_is_word) {
            start.get_or_insert(at);
        } else if let Some(from) = start.take() {
            found.push((from, &query[from..at]));
        }
    }
    if let Some(from) = start {
        found.push((from, &query[from..]));
    }
    found
}

/// The part a word plays, by the rules of each of `languages`.
fn part(surface: &str, languages: &[&Rules]) -> Part {
    let lower = surface.to_lowercase().replace('’', "'");
    let asking = |word: &str| languages.iter().any(|rules| rules.is_asking_word(word));
    let function = |word: &str| languages.iter().any(|rules| rules.is_stop_word(word));
    if asking(&lower) {
        return Part::Asking;
    }
    if function(&lower) {
        return Part::Function;
    }
    // An elided word ("s'y", "qu'il", "l'aide") is of the question when
    // every part is.
    let parts: Vec<&str> = lower.split('\'').filter(|p| !p.is_empty()).collect();
    if parts.len() > 1 && parts.iter().all(|p| asking(p) || function(p)) {
        if parts.iter().any(|p| asking(p)) {
            Part::Asking
        } else {
            Part::Function
        }
    } else {
        Part::Subject
    }
}

/// How many words of `spans` open a question: the run of asking and
/// function words at the start, when it holds an asking word and a
/// function word or a second asking word (or `asked`: the query ends with
/// a question mark), less the asking words it ends with after a function
/// word that asks nothing (they name the subject: "with help desks").
fn opening(spans: &[Span<'_>], asked: bool) -> usize {
    let run = spans.iter().take_while(|s| s.part != Part::Subject).count();
    let asking = spans[..run]
        .iter()
        .filter(|s| s.part == Part::Asking)
        .count();
    let function = run - asking;
    if asking == 0 || (function == 0 && asking < 2 && !asked) {
        return 0;
    }
    if run == spans.len() {
        return run;
    }
    // Asking words after the last function word that follows an asking
    // word belong to the subject.
    let first_asking = spans[..run]
        .iter()
        .position(|s| s.part == Part::Asking)
        .unwrap_or(run);
    match spans[first_asking..run]
        .iter()
        .rposition(|s| s.part == Part::Function)
    {
        Some(last) => first_asking + last + 1,
        None => run,
    }
}

/// `subject` with each word of two lower-case letters written in capitals
/// when it is the subject's only word or neither a function nor an asking
/// word of `languages`: people type a question in lower case (`ml`, `cm`,
/// `ci`), and a word that short is a topic only as the acronym it spells
/// (texts' short words in lower case are stop words). A word asked about
/// alone is the subject whatever else it can be ("ci" is a function word
/// in Italian, "it" in English). A word with a capital is left as written:
/// "Fe" and "Go" are names texts write so, never acronyms.
fn acronyms_spelled(subject: &str, languages: &[&Rules]) -> String {
    let words = words(subject);
    let alone = words.len() == 1;
    let mut spelled = String::with_capacity(subject.len());
    let mut copied = 0;
    for (start, surface) in words {
        let lower_pair = surface.chars().count() == 2 && surface.chars().all(char::is_lowercase);
        if lower_pair && (alone || part(surface, languages) == Part::Subject) {
            spelled.push_str(&subject[copied..start]);
            spelled.push_str(&surface.to_uppercase());
            copied = start + surface.len();
        }
    }
    spelled.push_str(&subject[copied..]);
    spelled
}

/// The words of `query` and the part each plays in `languages`.
fn spans<'a>(query: &'a str, languages: &[&Rules]) -> Vec<Span<'a>> {
    words(query)
        .into_iter()
        .map(|(start, surface)| Span {
            surface,
            start,
            part: part(surface, languages),
        })
        .collect()
}

/// How many of the words that open `query` as a question, read in `own`
/// and English, are asking or function words of `own` (an elided
/// "m'aider" counted as [`read`] reads it). The opening must be a question
/// by its words alone: a question mark at the end does not make a single
/// asking word one ("Rat poison for the garden, who knows?" does not open
/// with the German "Rat").
pub fn opening_own_words(query: &str, own: &Rules, english: &Rules) -> usize {
    let spans = spans(query, &[own, english]);
    let opens = opening(&spans, false);
    spans[..opens]
        .iter()
        .filter(|s| part(s.surface, &[own]) != Part::Subject)
        .count()
}

/// `query` read as a question in `languages` (the query's own first).
pub fn read(query: &str, languages: &[&Rules]) -> (Vec<String>, String) {
    let spans = spans(query, languages);
    let asked = query.trim_end().ends_with('?');
    let opens = opening(&spans, asked);
    if opens == 0 && !asked {
        return (Vec::new(), acronyms_spelled(query.trim(), languages));
    }
    // The words that close a question: function and asking words after
    // the last word of the subject.
    let closes = spans[opens..]
        .iter()
        .rev()
        .take_while(|s| s.part != Part::Subject)
        .count();
    let subject_words = spans.len() - opens - closes;
    let from = spans.get(opens).map_or(query.len(), |s| s.start);
    let to = spans
        .get(opens + subject_words)
        .filter(|_| closes > 0)
        .map_or(query.len(), |s| s.start);
    let subject = query[from..to.max(from)]
        .trim_end_matches(|c: char| {
            c.is_whitespace() || matches!(c, '?' | '!' | '.' | ',' | ';' | ':')
        })
        .trim();
    let subject = acronyms_spelled(subject, languages);
    let asking = spans[..opens]
        .iter()
        .chain(&spans[opens + subject_words..])
        .map(|s| s.surface.to_owned())
        .collect();
    (asking, subject)
}

#[cfg(test)]
mod tests {
    use kenning_domain::TextFormat;
    use kenning_ports::TopicExtractor;

    use crate::KeyphraseExtractor;

    fn read_as(query: &str) -> (Vec<String>, String) {
        let question = KeyphraseExtractor::new().question(query);
        (question.asking, question.subject)
    }

    fn subject(query: &str) -> String {
        read_as(query).1
    }

    #[test]
    fn the_words_that_ask_for_a_person_are_the_question() {
        assert_eq!(
            read_as("who can help with GDPR"),
            (
                vec!["who".into(), "can".into(), "help".into(), "with".into()],
                "GDPR".into()
            )
        );
        assert_eq!(subject("I need help with payroll"), "payroll");
        assert_eq!(
            subject("Does anyone know about Kubernetes ingress?"),
            "Kubernetes ingress"
        );
        assert_eq!(
            subject("I need someone who knows tax returns"),
            "tax returns"
        );
        assert_eq!(
            subject("who is an expert in machine learning"),
            "machine learning"
        );
        assert_eq!(subject("Who's good at C++?"), "C++");
    }

    #[test]
    fn a_short_word_of_a_question_is_read_as_the_acronym_it_spells() {
        assert_eq!(subject("who knows about ml"), "ML");
        assert_eq!(subject("cm"), "CM");
        assert_eq!(
            subject("ci"),
            "CI",
            "a function word in Italian, asked alone"
        );
        assert_eq!(subject("Who can help with ci pipelines?"), "CI pipelines");
        assert_eq!(subject("data in motion"), "data in motion");
        assert_eq!(subject("Wer kennt sich mit öl aus?"), "ÖL");
        assert_eq!(subject("d3"), "d3", "a name of a letter and a digit");
        assert_eq!(subject("Fe alloys"), "Fe alloys", "a name, written so");
        let extracted =
            KeyphraseExtractor::new().extract(&subject("ml"), TextFormat::Plain, None, 5);
        let keys: Vec<&str> = extracted.topics.iter().map(|t| t.key.as_str()).collect();
        assert_eq!(keys, ["ml"]);
    }

    #[test]
    fn questions_in_other_languages_are_read_too() {
        let (asking, german) = read_as("Wer kennt sich mit Datenschutz aus?");
        assert_eq!(german, "Datenschutz");
        assert_eq!(asking, ["Wer", "kennt", "sich", "mit", "aus"]);
        assert_eq!(
            subject("Quelqu'un sait configurer nginx ?"),
            "configurer nginx"
        );
        assert_eq!(
            subject("Qui connaît la comptabilité analytique"),
            "comptabilité analytique"
        );
        assert_eq!(subject("¿Quién sabe de contabilidad?"), "contabilidad");
        assert_eq!(subject("Qui s'y connaît en fiscalité ?"), "fiscalité");
    }

    #[test]
    fn a_question_says_the_language_of_its_own_words() {
        let language = |query: &str| KeyphraseExtractor::new().question(query).language;
        assert_eq!(
            language("Wer kennt sich mit Datenschutz aus?").as_deref(),
            Some("de")
        );
        assert_eq!(
            language("Qui est notre expert en data mining ?").as_deref(),
            Some("fr")
        );
        assert_eq!(language("who can help with GDPR").as_deref(), Some("en"));
        assert_eq!(language("Datenschutz"), None, "no question, no language");
    }

    #[test]
    fn a_frame_in_one_language_around_a_subject_in_another_is_read_in_its_own() {
        assert_eq!(
            subject("Qui est notre expert en the analysis of the data of the web ?"),
            "analysis of the data of the web"
        );
        assert_eq!(
            subject("Wer kennt sich mit the design of the control of the grid aus?"),
            "design of the control of the grid"
        );
        // A word of another language in an English question stays English.
        assert_eq!(subject("who is an expert in die casting"), "die casting");
    }

    #[test]
    fn a_frame_around_a_question_of_another_language_is_read_in_its_own() {
        // The English subjects hold more English asking and function
        // words ("what", "need", "do", "to") than the frames around them
        // hold French or German ones.
        let read = |query: &str| {
            let question = KeyphraseExtractor::new().question(query);
            (question.language, question.subject)
        };
        let (language, subject) =
            read("Quelqu'un peut m'aider avec Why do some people sneer at Starbucks coffee? ?");
        assert_eq!(language.as_deref(), Some("fr"));
        assert!(subject.ends_with("sneer at Starbucks coffee"), "{subject}");
        assert!(!subject.contains("aider"), "{subject}");
        let (language, subject) =
            read("Wer kennt sich mit What do I need to know about a steam wand aus?");
        assert_eq!(language.as_deref(), Some("de"));
        assert_eq!(subject, "steam wand");
        // Only an opening that is a question by its own words counts:
        // "Rat" is a German asking word ("advice").
        let (language, subject) = read("Rat poison for the garden, who knows?");
        assert_eq!(language.as_deref(), Some("en"));
        assert_eq!(subject, "Rat poison for the garden");
        // A word closing the query may be another language's function
        // word ("pot" is a Romanian one): it does not make a question.
        let (language, subject) = read("Generating crema with a moka pot?");
        assert_eq!(language, None);
        assert_eq!(subject, "Generating crema with a moka pot");
    }

    #[test]
    fn a_subject_alone_is_read_whole() {
        for query in ["help desk software", "GDPR", "people analytics"] {
            let (asking, whole) = read_as(query);
            assert!(asking.is_empty(), "{query}: {asking:?}");
            assert_eq!(whole, query);
        }
    }

    #[test]
    fn asking_words_after_a_preposition_name_the_subject() {
        assert_eq!(
            subject("who can help with help desk tickets"),
            "help desk tickets"
        );
        assert_eq!(
            subject("who knows about people analytics"),
            "people analytics"
        );
    }

    #[test]
    fn a_question_without_a_subject_asks_for_nothing() {
        let (asking, nothing) = read_as("who can help?");
        assert_eq!(asking, ["who", "can", "help"]);
        assert_eq!(nothing, "");
        assert_eq!(read_as(""), (Vec::new(), String::new()));
    }
}
