ALTER TABLE actions DROP COLUMN taught;
DROP TRIGGER learners_ranked_user;
DROP TRIGGER learners_ranked_insert;
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
DROP INDEX actions_action_date;
DROP TABLE asked_subjects;
DROP TABLE learning_rules;
ALTER TABLE users DROP COLUMN learns;
ALTER TABLE users DROP COLUMN learning_choice;
