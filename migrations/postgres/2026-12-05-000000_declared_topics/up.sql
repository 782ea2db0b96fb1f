-- The topics a person says they know: what their uploads did not teach,
-- added by the person themselves (at most MAX_DECLARED_TOPICS each), with
-- the label they wrote and when. Erasing the user deletes their rows.
CREATE TABLE declared_topics (
    user_id     TEXT NOT NULL REFERENCES users (id),
    topic_key   TEXT NOT NULL,
    label       TEXT NOT NULL,
    declared_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, topic_key)
);
-- `experts` asks who says they know each query topic, the newest first.
CREATE INDEX declared_topics_topic ON declared_topics (topic_key, declared_at);
