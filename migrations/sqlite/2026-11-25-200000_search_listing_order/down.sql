DROP TRIGGER users_search_update;
DROP TRIGGER users_search_insert;
DROP VIEW users_free_search_row;
DROP VIEW users_listing_group;

-- The row numbers stay as they are: the earlier triggers need only that
-- they differ.
CREATE TRIGGER users_search_insert AFTER INSERT ON users
BEGIN
    UPDATE users SET search_row = (SELECT coalesce(max(search_row), 0) + 1 FROM users)
        WHERE rowid = new.rowid;
    INSERT INTO users_search (rowid, search_text)
        SELECT search_row, search_text FROM users
        WHERE rowid = new.rowid AND search_text IS NOT NULL;
END;

CREATE TRIGGER users_search_update AFTER UPDATE OF search_text ON users
    WHEN old.search_text IS NOT new.search_text
BEGIN
    DELETE FROM users_search WHERE rowid = old.search_row;
    INSERT INTO users_search (rowid, search_text)
        SELECT new.search_row, new.search_text WHERE new.search_text IS NOT NULL;
END;
