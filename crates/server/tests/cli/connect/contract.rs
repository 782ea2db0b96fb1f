//! The contract every source of `kenning connect` keeps, written once and
//! run against each (`keeps_the_source_contract` in each source's tests),
//! each run cut where the test says (`--most`): no process is killed at
//! a moment chosen by a sleep.
//!
//! - A backfill (`--since/--until`) sends exactly what lies inside its
//!   window, and leaves the cursor alone.
//! - A run cut short (after `--most` items) resumes where it ended: the next run
//!   reads only the rest and sends each of it once.
//! - A run after everything is done reads nothing and sends nothing.
//! - A bad item is a named refusal (`Unreadable`) and fails the run's
//!   exit status (each source's own tests show that the run goes on past
//!   it); a source whose reader refuses no item a fixture can hold says
//!   NOT RUN.

use super::{count, Connected};

/// A source as the contract runs it.
pub(super) struct Fixture<'a> {
    /// `kenning connect`'s arguments naming the source and its options.
    pub args: Vec<String>,
    /// How many items it holds, each teaching one person.
    pub items: u64,
    /// A window (`--since`, `--until`) and how many items lie inside it.
    pub window: (&'a str, &'a str, u64),
    /// The arguments of a source holding one item that cannot be read,
    /// and words of that item's origin.
    pub bad: Option<(Vec<String>, &'a str)>,
}

/// The items a cut run reads.
const CUT_AFTER: u64 = 40;

/// Holds `fixture`'s source to the contract, on `connected`'s server.
pub(super) fn holds(connected: &Connected, fixture: &Fixture<'_>) {
    let run = |more: &[&str]| {
        let mut args: Vec<&str> = fixture.args.iter().map(String::as_str).collect();
        args.extend(more);
        let output = connected.connect(&args);
        let said = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{args:?}: {said}");
        (output, said)
    };
    // Every item's person is in Kenning: taught is sent or already known,
    // and nobody is not found.
    let taught = |output: &std::process::Output| {
        assert_eq!(
            count(output, "not found"),
            0,
            "the fixture's people are known"
        );
        count(output, "sent") + count(output, "already known")
    };

    let (since, until, inside) = fixture.window;
    let (backfill, said) = run(&["--since", since, "--until", until]);
    assert_eq!(taught(&backfill), inside, "the window: {said}");

    let (cut, said) = run(&["--most", &CUT_AFTER.to_string()]);
    assert_eq!(count(&cut, "read"), CUT_AFTER, "a cut run: {said}");
    assert_eq!(taught(&cut), CUT_AFTER, "a cut run: {said}");

    let rest_items = fixture.items - CUT_AFTER;
    let (rest, said) = run(&[]);
    assert_eq!(count(&rest, "read"), rest_items, "the rest: {said}");
    assert_eq!(taught(&rest), rest_items, "the rest: {said}");
    assert_eq!(count(&rest, "failed"), 0, "{said}");
    assert_eq!(count(&rest, "refused"), 0, "{said}");

    let (again, said) = run(&[]);
    assert_eq!(count(&again, "read"), 0, "a run after: {said}");
    assert_eq!(count(&again, "sent"), 0, "a run after: {said}");

    let Some((args, origin)) = &fixture.bad else {
        println!(
            "NOT RUN: a bad item of {}: its reader refuses no item a fixture can hold",
            fixture.args[0]
        );
        return;
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = connected.connect(&args);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a refusal fails the run: {said}");
    assert!(said.contains("refused Unreadable: 1"), "{said}");
    assert!(said.contains(origin), "the bad item is named: {said}");
}
