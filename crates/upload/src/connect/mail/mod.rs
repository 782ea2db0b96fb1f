//! `kenning connect mail`: sent mail, from mbox files, Maildir folders and
//! IMAP mailboxes. A sent message teaches its sender (its `From`
//! address) and nobody else; received mail teaches nobody. A message is
//! sent when it was read from a sent folder (an IMAP mailbox read, files
//! given with `--sent`), or when its `From` is one of the `--sender`
//! addresses (which narrows the sent folders too). What it teaches from:
//! its subject without `Re:`/`Fwd:` (primary) and its own words (default):
//! the text part (else the HTML part turned into text) without quoted
//! replies, forwarded history, signature and attachments, and (`prose`)
//! without trailers, addresses and the names of the people in the
//! conversation; a patch teaches by its description and the paths it
//! changes. Automatic mail (auto-replies, bounces, bulk mail no list
//! distributed, digests) teaches nobody.
//! Messages are parsed with `mail-parser`.

mod args;
pub mod imap;
pub mod maildir;
pub mod mbox;
mod message;
mod prose;
mod strip;

pub use args::MailArgs;
pub use message::{
    judge, judge_in_turn, sender_address, Place, Rules, Senders, ENTITY_TYPE, MAX_MESSAGE_BYTES,
    SENT,
};
