-- `action_topics_topic_relevance` (topic_key, relevance, action_id) serves
-- every read by topic that `action_topics_topic` (topic_key) served
-- (relatedTopics' actions that taught a topic read its prefix), and an
-- upload writes one entry at a scattered place of each index ordered by
-- topic for every topic it teaches: one such index fewer.
DROP INDEX action_topics_topic;
