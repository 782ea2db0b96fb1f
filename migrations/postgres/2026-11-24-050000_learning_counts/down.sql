DROP TABLE learner_totals;
DROP TABLE topic_learners;
