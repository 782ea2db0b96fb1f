DROP TRIGGER learners_ranked_user ON users;
DROP FUNCTION learners_ranked_follow_user();
DROP TRIGGER learners_ranked_insert ON learners;
DROP FUNCTION learners_ranked_of_user();
DROP INDEX learners_ranked;
ALTER TABLE learners DROP COLUMN ranked;
