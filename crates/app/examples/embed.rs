//! Kenning embedded in another program: the use cases of `kenning-app` on
//! the in-memory store and the real key-phrase extractor, with no server,
//! database or HTTP in between.
//!
//! It creates a user, finds it by a search, records one upload of theirs,
//! asks who knows about its subject, and deletes the user, printing each
//! step. Run it with `cargo run -p kenning-app --example embed`; `make test`
//! runs it too, so it keeps compiling and working as the crates change.

use std::error::Error;
use std::sync::Arc;

use chrono::{Duration, SecondsFormat};
use kenning_app::{ExpertiseService, UserService};
use kenning_clock::SystemClock;
use kenning_domain::{
    ExpertsLimit, LanguageId, Limit, NewUserInput, Offset, Raw, Scoring, SearchText, TextInput,
    UploadInput,
};
use kenning_keyphrase::KeyphraseExtractor;
use kenning_ports::Clock;
use kenning_store_memory::MemoryStore;

const ABSTRACT: &str = "Rust's ownership and borrowing rules let the compiler \
    prove memory safety without a garbage collector. This note explains how \
    lifetimes, the borrow checker and ownership work together, and how \
    borrowing rules shape the design of a Rust library.";

fn main() -> Result<(), Box<dyn Error>> {
    // One store serves every storage port; any adapter of the ports would do.
    let store = Arc::new(MemoryStore::new());
    let clock = Arc::new(SystemClock);
    let users = UserService::new(store.clone(), clock.clone(), LanguageId::parse("en")?);
    let expertise = ExpertiseService::new(
        store.clone(),
        store.clone(),
        store,
        Arc::new(KeyphraseExtractor::new()),
        clock.clone(),
        Scoring::default(),
    );

    let ada = users.create(NewUserInput {
        email: "ada@lovelace.example".into(),
        firstname: "Ada".into(),
        lastname: "Lovelace".into(),
        ..NewUserInput::default()
    })?;
    println!("created user {} ({:?})", ada.id(), ada.status());

    let found = users.search(
        &SearchText::parse(Some("lovelace"))?,
        Offset::default(),
        Limit::default(),
    )?;
    println!("searching \"lovelace\" finds {} user(s)", found.len());

    let yesterday = clock.now() - Duration::days(1);
    let accepted = expertise.upload(UploadInput {
        entity_type: Raw::Value("document".into()),
        action_type: Raw::Value("create".into()),
        action_date: Raw::Value(yesterday.to_rfc3339_opts(SecondsFormat::Millis, true)),
        user_email: Raw::Value("ada@lovelace.example".into()),
        texts: Raw::Value(vec![Raw::Value(TextInput {
            text_format: Raw::Value("plain".into()),
            descriptor: Raw::Value("primary".into()),
            text: Raw::Value(ABSTRACT.into()),
            refused_fields: Vec::new(),
        })]),
        ..UploadInput::default()
    })?;
    let mut topics = accepted.topics;
    topics.sort_by(|a, b| b.score.total_cmp(&a.score));
    let best: Vec<&str> = topics.iter().take(5).map(|t| t.label.as_str()).collect();
    println!(
        "recorded upload {} teaching {} topics, best: {}",
        accepted.action_id,
        topics.len(),
        best.join(", ")
    );

    let experts = expertise.experts("borrow checker", ExpertsLimit::default())?;
    for expert in &experts {
        println!(
            "expert on \"borrow checker\": {} (score {:.1})",
            expert.user, expert.score
        );
    }
    if !experts.iter().any(|e| e.user == ada.id()) {
        return Err("the uploader is not among the experts on her own subject".into());
    }

    let deleted = users.delete(ada.id())?;
    println!("deleted user {} ({:?})", deleted.id(), deleted.status());
    Ok(())
}
