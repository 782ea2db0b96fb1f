-- What connectors uploaded: one row per accepted action. Only the topics
-- extracted from the texts are kept, never the texts.
CREATE TABLE actions (
    id          TEXT PRIMARY KEY NOT NULL,
    user_id     TEXT NOT NULL REFERENCES users (id),
    entity_type TEXT NOT NULL,
    action_type TEXT NOT NULL,
    action_date TIMESTAMP NOT NULL,
    alias       TEXT,
    received    TIMESTAMP NOT NULL
);

-- An alias is accepted once, also when uploads race or come through
-- several instances (NULLs do not collide).
CREATE UNIQUE INDEX actions_alias ON actions (alias);
CREATE INDEX actions_user ON actions (user_id);

-- The topics of each action's entity, with their relevance summed per
-- descriptor so that changed descriptor factors can be re-applied.
CREATE TABLE action_topics (
    action_id           TEXT NOT NULL REFERENCES actions (id),
    user_id             TEXT NOT NULL REFERENCES users (id),
    topic_key           TEXT NOT NULL,
    label               TEXT NOT NULL,
    primary_relevance   DOUBLE PRECISION NOT NULL,
    default_relevance   DOUBLE PRECISION NOT NULL,
    secondary_relevance DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (action_id, topic_key)
);
CREATE INDEX action_topics_user_topic ON action_topics (user_id, topic_key);

-- expertise(user, topic), kept up to date at upload time: the score as of
-- the moment `as_of`.
CREATE TABLE standings (
    user_id   TEXT NOT NULL REFERENCES users (id),
    topic_key TEXT NOT NULL,
    label     TEXT NOT NULL,
    score     DOUBLE PRECISION NOT NULL,
    as_of     TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, topic_key)
);
CREATE INDEX standings_topic ON standings (topic_key);

-- The scoring settings the standings were built under.
CREATE TABLE expertise_settings (
    id          INTEGER PRIMARY KEY NOT NULL,
    fingerprint TEXT NOT NULL
);
