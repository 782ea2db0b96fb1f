DROP INDEX standings_topic_rank;
CREATE INDEX standings_topic_rank ON standings (topic_key, rank_key, user_id, score, as_of, label);
ALTER TABLE standings DROP COLUMN shown;
ALTER TABLE action_topics DROP COLUMN shown;
