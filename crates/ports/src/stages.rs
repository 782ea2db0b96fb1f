//! Where an upload's time goes: the time each stage of the upload path
//! took, summed over every upload of the process, measured by the layer
//! that spends it and read by the metrics (`kenning_upload_stage_seconds`).
//!
//! The totals are process-wide, as a metrics registry is: the layers that
//! spend the time (the HTTP handlers, the use case that extracts, the
//! store that writes) need not share a handle. A stage's time is the time
//! of the thread doing it, so stages that run at once on several threads
//! add up: each one's share of the sum is where the machine's time goes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One stage of the upload path, in the order an upload passes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadStage {
    /// Reading the request, its key and its JSON, and writing the answer.
    HttpJson,
    /// Reading the texts: the language and the topics.
    Extraction,
    /// Finding (and locking) each upload's person and the rules on
    /// learning.
    PersonCheck,
    /// Writing the action's row, its alias checked by the unique index,
    /// and counting the person's actions.
    ActionRow,
    /// Writing what the action taught: its topics and the standings, and
    /// the counts of people per topic.
    TopicStructures,
    /// Beginning and committing the transaction, made durable.
    Commit,
}

impl UploadStage {
    /// Every stage, in the order an upload passes them.
    pub const ALL: [UploadStage; 6] = [
        UploadStage::HttpJson,
        UploadStage::Extraction,
        UploadStage::PersonCheck,
        UploadStage::ActionRow,
        UploadStage::TopicStructures,
        UploadStage::Commit,
    ];

    /// The stage's name in the metrics' label.
    pub fn name(self) -> &'static str {
        match self {
            UploadStage::HttpJson => "http_json",
            UploadStage::Extraction => "extraction",
            UploadStage::PersonCheck => "person_check",
            UploadStage::ActionRow => "action_row",
            UploadStage::TopicStructures => "topic_structures",
            UploadStage::Commit => "commit",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The nanoseconds each stage took, summed.
#[derive(Debug)]
pub struct UploadStages {
    nanos: [AtomicU64; 6],
}

/// The process's totals.
pub static UPLOAD_STAGES: UploadStages = UploadStages {
    nanos: [
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
    ],
};

impl UploadStages {
    /// Adds `spent` to `stage`'s total.
    pub fn add(&self, stage: UploadStage, spent: Duration) {
        let nanos = u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX);
        self.nanos[stage.index()].fetch_add(nanos, Ordering::Relaxed);
    }

    /// Runs `work`, adding the time it took to `stage`.
    pub fn time<T>(&self, stage: UploadStage, work: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let done = work();
        self.add(stage, started.elapsed());
        done
    }

    /// Each stage with its total so far, in seconds.
    pub fn seconds(&self) -> [(UploadStage, f64); 6] {
        UploadStage::ALL.map(|stage| {
            let nanos = self.nanos[stage.index()].load(Ordering::Relaxed);
            (stage, nanos as f64 / 1e9)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stage_keeps_its_own_total() {
        let stages = UploadStages {
            nanos: Default::default(),
        };
        stages.add(UploadStage::Extraction, Duration::from_millis(1500));
        stages.add(UploadStage::Commit, Duration::from_millis(250));
        stages.add(UploadStage::Extraction, Duration::from_millis(500));
        let seconds = stages.seconds();
        assert_eq!(seconds[1], (UploadStage::Extraction, 2.0));
        assert_eq!(seconds[5], (UploadStage::Commit, 0.25));
        assert_eq!(seconds[0], (UploadStage::HttpJson, 0.0));
        let named: Vec<&str> = seconds.iter().map(|(s, _)| s.name()).collect();
        assert_eq!(
            named,
            [
                "http_json",
                "extraction",
                "person_check",
                "action_row",
                "topic_structures",
                "commit"
            ]
        );
    }
}
