DROP TRIGGER learners_ranked_user;
DROP TRIGGER learners_ranked_insert;
DROP INDEX learners_ranked;
ALTER TABLE learners DROP COLUMN ranked;
