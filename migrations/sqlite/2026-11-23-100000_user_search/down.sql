DROP TRIGGER users_search_delete;
DROP TRIGGER users_search_update;
DROP TRIGGER users_search_insert;
DROP TABLE users_search;
DROP INDEX users_search_row;
ALTER TABLE users DROP COLUMN search_row;
