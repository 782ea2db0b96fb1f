ALTER TABLE action_topics ALTER COLUMN topic_key TYPE TEXT COLLATE "default";
ALTER TABLE standings ALTER COLUMN topic_key TYPE TEXT COLLATE "default";
ALTER TABLE hidden_topics ALTER COLUMN topic_key TYPE TEXT COLLATE "default";
ALTER TABLE declared_topics ALTER COLUMN topic_key TYPE TEXT COLLATE "default";
ALTER TABLE topic_learners ALTER COLUMN topic_key TYPE TEXT COLLATE "default";
ALTER TABLE asked_subjects ALTER COLUMN subject_key TYPE TEXT COLLATE "default";
