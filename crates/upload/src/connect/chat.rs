//! The chat sources: Slack's workspace export and Mattermost's bulk
//! export. A message teaches its author alone; one person's messages in
//! one thread (in Slack, outside threads, in one channel on one day) are
//! one upload; bots, joins and leaves, topic changes and one-word
//! messages teach nobody; private channels and direct messages are read
//! only when a flag names them.

mod archive;
mod markup;
pub mod mattermost;
pub mod slack;
mod thread;

pub use thread::{Scope, ENTITY_TYPE, POSTED};
