-- `experts` reads the best standings on a topic, each with its score, its
-- moment and its label, and checks that each person is ACTIVE and not
-- hidden. With every column it reads in the index, a topic's best
-- standings are a few adjacent index pages (an index-only scan) instead
-- of one heap page each, scattered over the whole table; likewise a
-- person's status.
DROP INDEX standings_topic_rank;
CREATE INDEX standings_topic_rank ON standings (topic_key, rank_key, user_id)
    INCLUDE (score, as_of, label);
CREATE INDEX users_visible ON users (id) INCLUDE (status, is_hidden);
