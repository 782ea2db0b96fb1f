DROP TABLE expertise_settings;
DROP TABLE standings;
DROP TABLE action_topics;
DROP TABLE actions;
