-- Whether a learner is ranked by `experts`: ACTIVE and not hidden. Kept
-- on the learner, so that a topic's best standings read one row of the
-- person (her number of actions and this mark, from one covering index)
-- instead of her user row and her learner row. The triggers keep it right
-- whoever writes: a new learner takes her user's state, and a change of a
-- user's status or hidden mark reaches her learner row in the same
-- statement.
ALTER TABLE learners ADD COLUMN ranked BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE learners SET ranked = COALESCE(
    (SELECT u.status = 'ACTIVE' AND NOT u.is_hidden FROM users u WHERE u.id = learners.user_id),
    FALSE);
CREATE INDEX learners_ranked ON learners (user_id, ranked, actions);

CREATE TRIGGER learners_ranked_insert AFTER INSERT ON learners
BEGIN
    UPDATE learners SET ranked = COALESCE(
        (SELECT u.status = 'ACTIVE' AND NOT u.is_hidden FROM users u WHERE u.id = NEW.user_id),
        FALSE)
    WHERE user_id = NEW.user_id;
END;

CREATE TRIGGER learners_ranked_user AFTER UPDATE OF status, is_hidden ON users
WHEN OLD.status IS NOT NEW.status OR OLD.is_hidden IS NOT NEW.is_hidden
BEGIN
    UPDATE learners SET ranked = (NEW.status = 'ACTIVE' AND NOT NEW.is_hidden)
    WHERE user_id = NEW.id;
END;
