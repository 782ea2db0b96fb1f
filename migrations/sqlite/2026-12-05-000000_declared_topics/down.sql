DROP TABLE declared_topics;
