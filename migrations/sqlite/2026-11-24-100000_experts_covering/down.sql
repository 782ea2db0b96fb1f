DROP INDEX users_visible;
DROP INDEX standings_topic_rank;
CREATE INDEX standings_topic_rank ON standings (topic_key, rank_key, user_id);
