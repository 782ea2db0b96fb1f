DROP INDEX action_topics_topic;
DROP TABLE learners;
