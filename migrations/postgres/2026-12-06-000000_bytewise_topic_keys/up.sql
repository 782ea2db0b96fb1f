-- Topic keys compare and sort bytewise, as Rust compares them, whatever
-- the database's collation: on a database created with a linguistic
-- collation (en_US.UTF-8, ICU) a key list sorted by SQL would otherwise
-- be in an order a binary search or a merge in Rust does not expect, and
-- a hidden topic with an accent would show. SQLite compares text bytewise
-- already. Each index on a column is rebuilt with it.
ALTER TABLE action_topics ALTER COLUMN topic_key TYPE TEXT COLLATE "C";
ALTER TABLE standings ALTER COLUMN topic_key TYPE TEXT COLLATE "C";
ALTER TABLE hidden_topics ALTER COLUMN topic_key TYPE TEXT COLLATE "C";
ALTER TABLE declared_topics ALTER COLUMN topic_key TYPE TEXT COLLATE "C";
ALTER TABLE topic_learners ALTER COLUMN topic_key TYPE TEXT COLLATE "C";
ALTER TABLE asked_subjects ALTER COLUMN subject_key TYPE TEXT COLLATE "C";
