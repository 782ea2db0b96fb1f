ALTER TABLE actions DROP COLUMN taught;
DROP TRIGGER learners_ranked_user ON users;
CREATE OR REPLACE FUNCTION learners_ranked_of_user() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE learners SET ranked = COALESCE(
        (SELECT u.status = 'ACTIVE' AND NOT u.is_hidden FROM users u WHERE u.id = NEW.user_id),
        FALSE)
    WHERE user_id = NEW.user_id;
    RETURN NULL;
END
$$;
CREATE OR REPLACE FUNCTION learners_ranked_follow_user() RETURNS trigger
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
DROP INDEX actions_action_date;
DROP TABLE asked_subjects;
DROP TABLE learning_rules;
ALTER TABLE users DROP COLUMN learns;
ALTER TABLE users DROP COLUMN learning_choice;
