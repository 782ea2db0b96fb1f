ALTER TABLE users DROP COLUMN modified;
