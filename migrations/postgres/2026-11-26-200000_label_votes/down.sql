DROP INDEX standings_topic_rank;
CREATE INDEX standings_topic_rank ON standings (topic_key, rank_key, user_id)
    INCLUDE (score, as_of, label, shown);
ALTER TABLE standings DROP COLUMN label_votes;
