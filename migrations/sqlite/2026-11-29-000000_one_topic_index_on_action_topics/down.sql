CREATE INDEX action_topics_topic ON action_topics (topic_key);
