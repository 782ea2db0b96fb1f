DROP INDEX action_topics_topic_relevance;
ALTER TABLE action_topics DROP COLUMN relevance;
