-- Who Kenning may learn about, and from what. learning_choice is a
-- person's own choice (NULL: never chose; the organisation's default
-- holds); learns is what every rule makes of it, written by the store
-- whenever a rule, the choice or the person's groups change, so that an
-- upload and a ranking read one column. A person who is not learned about
-- is not ranked: the learner's mark follows learns as it follows status.
ALTER TABLE users ADD COLUMN learning_choice BOOLEAN;
ALTER TABLE users ADD COLUMN learns BOOLEAN NOT NULL DEFAULT TRUE;

-- The organisation's rules, one row each, with who set it and when.
CREATE TABLE learning_rules (
    kind          TEXT NOT NULL,
    value         TEXT NOT NULL,
    set_at        TIMESTAMP NOT NULL,
    credential_id TEXT,
    actor_name    TEXT NOT NULL,
    channel       TEXT NOT NULL,
    PRIMARY KEY (kind, value)
);

-- How often a subject nobody (holders 0) or one person (holders 1) knows
-- was asked, per day: topics and counts only, never the query or who asked.
CREATE TABLE asked_subjects (
    day         DATE NOT NULL,
    subject_key TEXT NOT NULL,
    label       TEXT NOT NULL,
    holders     INTEGER NOT NULL,
    asks        BIGINT NOT NULL,
    PRIMARY KEY (day, subject_key, holders)
);

-- The retention forgets the oldest actions first.
CREATE INDEX actions_action_date ON actions (action_date);

DROP TRIGGER learners_ranked_user;
DROP TRIGGER learners_ranked_insert;

CREATE TRIGGER learners_ranked_insert AFTER INSERT ON learners
BEGIN
    UPDATE learners SET ranked = COALESCE(
        (SELECT u.status = 'ACTIVE' AND NOT u.is_hidden AND u.learns
         FROM users u WHERE u.id = NEW.user_id),
        FALSE)
    WHERE user_id = NEW.user_id;
END;

CREATE TRIGGER learners_ranked_user AFTER UPDATE OF status, is_hidden, learns ON users
WHEN OLD.status IS NOT NEW.status OR OLD.is_hidden IS NOT NEW.is_hidden
    OR OLD.learns IS NOT NEW.learns
BEGIN
    UPDATE learners SET ranked = (NEW.status = 'ACTIVE' AND NOT NEW.is_hidden AND NEW.learns)
    WHERE user_id = NEW.id;
END;

-- An action accepted while its person was not learned about, or of a type
-- the organisation excluded, is kept (its alias spent) but teaches
-- nothing and is not counted.
ALTER TABLE actions ADD COLUMN taught BOOLEAN NOT NULL DEFAULT TRUE;
