-- Each learner's number of actions, kept up to date by every upload: how
-- active a person is (ranking normalises a person's standings by it) and
-- how many people learned anything (the base of a topic's specificity).
CREATE TABLE learners (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id),
    actions INTEGER NOT NULL
);
INSERT INTO learners (user_id, actions)
    SELECT user_id, COUNT(*) FROM actions GROUP BY user_id;

-- relatedTopics reads the actions that taught a topic.
CREATE INDEX action_topics_topic ON action_topics (topic_key);

-- The best standings on a topic are read from this index: the rank key
-- orders standings as their decayed scores do at any moment (see
-- Standing::rank_key). Standings stored before have none: the scoring
-- fingerprint changed with it, so they are rebuilt at the next start.
ALTER TABLE standings ADD COLUMN rank_key DOUBLE PRECISION NOT NULL DEFAULT -1e300;
DROP INDEX standings_topic;
CREATE INDEX standings_topic_rank ON standings (topic_key, rank_key, user_id);
