//! Uploads from connectors and what is learned from them.
//!
//! One [`ExpertiseService`] (`service`), its use cases a module a subject:
//! an upload's path from its texts to the store (`upload`), ranking the
//! people who know about a query and reading the query (`experts`), the
//! answer explained as every door shows it (`explained`), a
//! person's own topics (`profile`), the topics that go with one
//! (`related`), what a person says they know (`declared`), and finding
//! topics by their meaning (`by_meaning`).

mod by_meaning;
mod declared;
mod experts;
mod explained;
mod profile;
mod related;
mod service;
mod upload;

pub use experts::QueryReading;
pub use explained::{Card, CardTopic, Explained, ACTIONS_PER_TOPIC, TOPICS_PER_CARD};
pub use profile::{ProfileTopic, TopicsHidden};
pub use service::ExpertiseService;
pub use upload::{preview_topics, Accepted};
