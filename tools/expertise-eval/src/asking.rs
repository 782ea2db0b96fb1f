//! Evaluation 5: the same queries asked as people ask them, in a sentence,
//! in English, German or French.
//!
//! Every query of an evaluation is asked a second time wrapped in a
//! question drawn at random from [`TEMPLATES`] (the language first, then
//! the template), under a form of its own ("title, asked"), so that the
//! table shows each form bare and asked side by side. A system that reads
//! questions answers both alike; one that takes the question's words for
//! topics finds the people who wrote "help" and "need".

use crate::rng::SplitMix64;
use crate::world::{Asked, Evaluation, Query};

/// Questions as people put them in a search box, `{}` standing for the
/// subject: in English, German and French.
pub const TEMPLATES: [&[&str]; 3] = [
    &[
        "Who can help with {}?",
        "Does anyone know about {}?",
        "I need someone who knows {}",
        "who is our expert on {}",
        "Can somebody explain {} to me?",
        "looking for help with {}",
        "Is anybody here familiar with {}?",
        "Who should I ask about {}?",
    ],
    &[
        "Wer kennt sich mit {} aus?",
        "Kann mir jemand bei {} helfen?",
        "Ich suche jemanden, der sich mit {} auskennt",
        "Wer ist bei uns Experte für {}?",
        "Hat jemand Erfahrung mit {}?",
        "wen kann ich zu {} fragen",
    ],
    &[
        "Qui s'y connaît en {} ?",
        "Quelqu'un peut m'aider avec {} ?",
        "Je cherche quelqu'un qui connaît {}",
        "Qui est notre expert en {} ?",
        "Quelqu'un a de l'expérience avec {} ?",
        "à qui demander pour {}",
    ],
];

/// `evaluation` with every query also asked as a question: each form `f`
/// gets a form "f, asked" after all the bare ones.
pub fn asked(evaluation: &Evaluation, seed: u64) -> Evaluation {
    let mut rng = SplitMix64::new(seed);
    let bare = evaluation.forms.len();
    let mut forms = evaluation.forms.clone();
    for form in &evaluation.forms {
        // A handful of names for the whole run: leaked once, as `forms`
        // holds static names.
        forms.push(Box::leak(format!("{form}, asked").into_boxed_str()));
    }
    let mut worlds = evaluation.worlds.clone();
    for world in &mut worlds {
        let questions: Vec<Query> = world
            .queries
            .iter()
            .map(|query| {
                let language = TEMPLATES[rng.below(TEMPLATES.len())];
                let template = language[rng.below(language.len())];
                Query {
                    form: bare + query.form,
                    text: template.replace("{}", query.text.trim()),
                    relevant: query.relevant.clone(),
                    asked: Some(Asked {
                        template,
                        bare: query.text.clone(),
                    }),
                }
            })
            .collect();
        world.queries.extend(questions);
    }
    Evaluation {
        name: evaluation.name.clone(),
        forms,
        worlds,
        note: format!(
            "{}; each query also asked in a question (EN, DE, FR)",
            evaluation.note
        ),
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;
    use crate::world::World;

    #[test]
    fn every_query_is_asked_once_more_under_its_own_form() {
        let evaluation = Evaluation {
            name: "e".into(),
            forms: vec!["title"],
            worlds: vec![World {
                people: vec!["a".into()],
                uploads: Vec::new(),
                queries: vec![Query {
                    form: 0,
                    text: "espresso grind".into(),
                    relevant: vec![0],
                    asked: None,
                }],
                now: Utc::now(),
            }],
            note: "n".into(),
        };
        let asked = asked(&evaluation, 7);
        assert_eq!(asked.forms, ["title", "title, asked"]);
        let queries = &asked.worlds[0].queries;
        assert_eq!(queries.len(), 2);
        let question = &queries[1];
        assert_eq!(question.form, 1);
        let wrap = question.asked.as_ref().unwrap();
        assert_eq!(wrap.bare, "espresso grind");
        assert_eq!(question.text, wrap.template.replace("{}", "espresso grind"));
        assert_ne!(question.text, "espresso grind");
    }
}
