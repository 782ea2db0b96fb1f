DROP TABLE hidden_topics;
