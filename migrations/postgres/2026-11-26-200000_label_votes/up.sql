-- A standing's label is the one its uploads voted for (a weighted
-- majority vote: `label_votes` is the current label's lead), so that the
-- form a person writes most often is shown and does not flip with each
-- upload. Rows stored before start with their label and no lead.
ALTER TABLE standings ADD COLUMN label_votes DOUBLE PRECISION NOT NULL DEFAULT 0;
DROP INDEX standings_topic_rank;
CREATE INDEX standings_topic_rank ON standings (topic_key, rank_key, user_id)
    INCLUDE (score, as_of, label, shown, label_votes);
