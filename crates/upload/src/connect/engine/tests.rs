use chrono::DateTime;

use super::*;
use crate::connect::Item;

#[test]
fn an_item_outside_the_window_is_skipped_where_it_stands() {
    let item = |seconds| {
        Found::Item(Item {
            id: "1".to_owned(),
            origin: "here".to_owned(),
            entity_type: "document",
            actions: Vec::new(),
            date: DateTime::from_timestamp(seconds, 0).unwrap(),
            texts: Vec::new(),
            position: "p1".to_owned(),
        })
    };
    let window = Window {
        since: DateTime::from_timestamp(1_800_000_000, 0),
        until: None,
    };
    let outside = Found::Skipped {
        reason: OUTSIDE_WINDOW,
        position: Some("p1".to_owned()),
    };
    assert_eq!(within(&window, item(1_700_000_000)), outside);
    assert_eq!(within(&window, item(1_800_000_000)), item(1_800_000_000));
    assert_eq!(within(&Window::default(), item(0)), item(0));
}

#[test]
fn the_cursor_moves_past_answered_items_in_order_and_never_past_a_failure() {
    let mut pending = Pending::default();
    for seq in 0..4 {
        pending.planned(seq, Some(format!("p{seq}")), 1);
    }
    pending.answered(1, false);
    assert_eq!(pending.advance(), None);
    pending.answered(0, false);
    assert_eq!(pending.advance().as_deref(), Some("p1"));
    pending.answered(3, false);
    pending.answered(2, true);
    assert_eq!(pending.advance(), None);
    pending.planned(4, Some("p4".to_owned()), 0);
    assert_eq!(pending.advance(), None);
    // Blocked, nothing more is kept per item: memory stays bounded
    // for the rest of the run.
    assert!(pending.items.is_empty());
    for seq in 5..1_000 {
        pending.planned(seq, Some(format!("p{seq}")), 0);
    }
    assert!(pending.items.is_empty());
}

/// A mark that counts the positions it keeps.
#[derive(Default)]
struct Kept(Vec<String>);

impl Mark for Kept {
    fn passed(&mut self, position: &str) -> anyhow::Result<()> {
        self.0.push(position.to_owned());
        Ok(())
    }
}

fn read_nothing_sent(seq: u64) -> Heard {
    Heard::Read {
        seq,
        position: Some(format!("p{seq}")),
        uploads: 0,
        not_found: 0,
        held_back: None,
        read: Read::Skipped("merge commit"),
    }
}

#[test]
fn items_that_send_nothing_keep_the_position_once_in_a_while_and_at_the_end() {
    let mut kept = Kept::default();
    let mut counter = Counter::new(Some(&mut kept), false);
    for seq in 0..1_200 {
        assert!(counter.hear(read_nothing_sent(seq)));
    }
    assert!(counter.hear(Heard::Ended(BTreeMap::new(), BTreeMap::new(), None)));
    drop(counter);
    assert_eq!(kept.0, ["p499", "p999", "p1199"]);
}

#[test]
fn a_backfill_keeps_nothing_per_item() {
    let mut counter = Counter::new(None, false);
    for seq in 0..1_000 {
        assert!(counter.hear(read_nothing_sent(seq)));
    }
    assert!(counter.pending.items.is_empty());
    assert_eq!(counter.tally.read, 1_000);
}
