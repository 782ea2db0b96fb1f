DROP INDEX standings_topic_rank;
CREATE INDEX standings_topic ON standings (topic_key);
ALTER TABLE standings DROP COLUMN rank_key;
DROP INDEX action_topics_topic;
DROP TABLE learners;
