-- Each action topic's relevance under the scoring settings the store was
-- built with, so that experts can read the actions in which a topic is
-- most relevant from an index, whatever the number of actions that taught
-- it. Rows stored before have none: the scoring fingerprint changed with
-- it, so they are filled in by the rebuild at the next start.
ALTER TABLE action_topics ADD COLUMN relevance DOUBLE PRECISION NOT NULL DEFAULT 0;
CREATE INDEX action_topics_topic_relevance ON action_topics (topic_key, relevance, action_id);
