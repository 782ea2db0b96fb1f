DROP INDEX users_user_name_key_live;
ALTER TABLE users DROP COLUMN user_name_key;
ALTER TABLE users DROP COLUMN user_name;
ALTER TABLE users DROP COLUMN modified;
