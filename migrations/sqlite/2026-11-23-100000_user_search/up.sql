-- Substring search over users reads a trigram index instead of every row.
--
-- users_search holds the trigrams of each user's search_text (FTS5's
-- trigram tokenizer; the text is already folded, so case_sensitive 1
-- keeps it as it is). It is contentless: it stores no copy of the text,
-- only the index, and contentless_delete lets a row be removed by its
-- rowid; secure-delete removes a deleted row's entries from the index at
-- once, so an anonymized user's address leaves no trace in it.
--
-- Its rowid is users.search_row, a number the triggers give each user.
-- users' own rowid cannot serve: VACUUM may renumber the rowids of a table
-- without an INTEGER PRIMARY KEY, which would silently point the index at
-- other users.
ALTER TABLE users ADD COLUMN search_row INTEGER;
UPDATE users SET search_row = rowid;
-- Also the listing order's columns, so that sorting the users a search
-- found reads this index alone, not their rows.
CREATE INDEX users_search_row ON users (search_row, lastname, firstname, id);

CREATE VIRTUAL TABLE users_search USING fts5(
    search_text,
    content = '',
    contentless_delete = 1,
    tokenize = 'trigram case_sensitive 1'
);
INSERT INTO users_search (users_search, rank) VALUES ('secure-delete', 1);
INSERT INTO users_search (rowid, search_text)
    SELECT search_row, search_text FROM users WHERE search_text IS NOT NULL;

-- The triggers run in the writing statement's transaction, so the index
-- never disagrees with users.
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

CREATE TRIGGER users_search_delete AFTER DELETE ON users
BEGIN
    DELETE FROM users_search WHERE rowid = old.search_row;
END;
