-- The topics a person hid from their profile and from ranking them. Kept
-- apart from what uploads teach, so that new uploads never bring a hidden
-- topic back; erasing the user deletes their rows.
CREATE TABLE hidden_topics (
    user_id   TEXT NOT NULL REFERENCES users (id),
    topic_key TEXT NOT NULL,
    PRIMARY KEY (user_id, topic_key)
);
-- `experts` asks who hid each query topic.
CREATE INDEX hidden_topics_topic ON hidden_topics (topic_key);
