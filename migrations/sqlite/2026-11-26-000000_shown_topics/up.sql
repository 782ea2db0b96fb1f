-- Whether people read a topic: a key phrase of the upload, or a name,
-- rather than a content word kept only for ranking. A standing is shown
-- once any of its user's uploads showed it. Rows written before were
-- kept for both, so they stay shown (the display rule of the extractor
-- still applies to their labels).
ALTER TABLE action_topics ADD COLUMN shown BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE standings ADD COLUMN shown BOOLEAN NOT NULL DEFAULT TRUE;
-- `experts` reads whether a standing is shown with the rest: keep the
-- read index-only.
DROP INDEX standings_topic_rank;
CREATE INDEX standings_topic_rank ON standings (topic_key, rank_key, user_id, score, as_of, label, shown);
