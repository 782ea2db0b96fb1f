-- How many people learned each topic, kept up to date by the writes that
-- add or remove standings (an upload, an erasure, a rebuild): a query
-- topic's specificity is then one indexed read, however many people know
-- the topic. A topic nobody knows any more has no row.
CREATE TABLE topic_learners (
    topic_key TEXT PRIMARY KEY NOT NULL,
    people BIGINT NOT NULL
);
INSERT INTO topic_learners (topic_key, people)
    SELECT topic_key, COUNT(*) FROM standings GROUP BY topic_key;

-- How many people learned anything, and their actions: the sums of
-- `learners`, kept up to date with it. Spread over rows by the first
-- character of the user's id (sixteen at most), so that uploads of
-- different people rarely wait for one another's row; the population is
-- the sum of these few rows.
CREATE TABLE learner_totals (
    shard TEXT PRIMARY KEY NOT NULL,
    people BIGINT NOT NULL,
    actions BIGINT NOT NULL
);
INSERT INTO learner_totals (shard, people, actions)
    SELECT substr(user_id, 1, 1), COUNT(*), SUM(actions)
    FROM learners GROUP BY substr(user_id, 1, 1);
