-- Whether a learner is ranked by `experts`: ACTIVE and not hidden. Kept
-- on the learner, so that a topic's best standings read one row of the
-- person (her number of actions and this mark) instead of her user row
-- and her learner row. The triggers keep it right whoever writes: a new
-- learner takes her user's state, and a change of a user's status or
-- hidden mark reaches her learner row in the same statement.
ALTER TABLE learners ADD COLUMN ranked BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE learners l SET ranked = (u.status = 'ACTIVE' AND NOT u.is_hidden)
    FROM users u WHERE u.id = l.user_id;
CREATE INDEX learners_ranked ON learners (user_id) INCLUDE (actions) WHERE ranked;

-- After the insert, not before: an upload counts its action with an
-- upsert, and a BEFORE INSERT trigger would run for every upload, where
-- this one runs for a person's first.
CREATE FUNCTION learners_ranked_of_user() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE learners SET ranked = COALESCE(
        (SELECT u.status = 'ACTIVE' AND NOT u.is_hidden FROM users u WHERE u.id = NEW.user_id),
        FALSE)
    WHERE user_id = NEW.user_id;
    RETURN NULL;
END
$$;
CREATE TRIGGER learners_ranked_insert AFTER INSERT ON learners
    FOR EACH ROW EXECUTE FUNCTION learners_ranked_of_user();

CREATE FUNCTION learners_ranked_follow_user() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE learners SET ranked = (NEW.status = 'ACTIVE' AND NOT NEW.is_hidden)
    WHERE user_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER learners_ranked_user AFTER UPDATE OF status, is_hidden ON users
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.is_hidden IS DISTINCT FROM NEW.is_hidden)
    EXECUTE FUNCTION learners_ranked_follow_user();
