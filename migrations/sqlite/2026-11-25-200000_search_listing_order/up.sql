-- A user's row number in the trigram index (users.search_row, the rowid
-- of users_search) now follows the listing order (lastname, firstname,
-- id), so that a search reading the index in row-number order meets its
-- matches in about the order of the page and can stop after the page.
--
-- A row number is a listing group (42 bits) and a place in the group (21
-- bits). The group is read off the first seven characters of lastname, a
-- separator below every character, and firstname, six bits each; a
-- letter, space, apostrophe, hyphen and full stop each have a value of
-- their own, in code point order, and every other character shares one
-- with its neighbours, after which the group reads no further characters.
-- So a user listed before another is never in a later group: where two
-- keys first differ, the earlier one's character has the lower or the
-- same value, and the same value is a shared one, after which both
-- groups end alike. The order inside a group is not kept; a search sorts
-- the matches of the groups it reads (see crates/store-diesel/src/search.rs).
--
-- The separator is char(1), which no name holds (names refuse control
-- characters); `buckets` holds the value of each code point below 128,
-- from -1 (past the end), as the character of code 48 + value. The view
-- is an aggregate (of one row per user) so that SQLite computes each
-- user's group once, not again for each use of it in a statement.
CREATE VIEW users_listing_group (user_row, listing_group) AS
SELECT user_row, max((b1 << 36) + CASE WHEN b1 IN (1, 3, 5, 8, 35, 62, 63) THEN 0
    ELSE (b2 << 30) + CASE WHEN b2 IN (1, 3, 5, 8, 35, 62, 63) THEN 0
    ELSE (b3 << 24) + CASE WHEN b3 IN (1, 3, 5, 8, 35, 62, 63) THEN 0
    ELSE (b4 << 18) + CASE WHEN b4 IN (1, 3, 5, 8, 35, 62, 63) THEN 0
    ELSE (b5 << 12) + CASE WHEN b5 IN (1, 3, 5, 8, 35, 62, 63) THEN 0
    ELSE (b6 << 6) + CASE WHEN b6 IN (1, 3, 5, 8, 35, 62, 63) THEN 0
    ELSE b7 END END END END END END)
FROM (SELECT user_row,
        coalesce(unicode(substr(buckets, coalesce(unicode(substr(listing_key, 1, 1)), -1) + 2, 1)), 111) - 48 AS b1,
        coalesce(unicode(substr(buckets, coalesce(unicode(substr(listing_key, 2, 1)), -1) + 2, 1)), 111) - 48 AS b2,
        coalesce(unicode(substr(buckets, coalesce(unicode(substr(listing_key, 3, 1)), -1) + 2, 1)), 111) - 48 AS b3,
        coalesce(unicode(substr(buckets, coalesce(unicode(substr(listing_key, 4, 1)), -1) + 2, 1)), 111) - 48 AS b4,
        coalesce(unicode(substr(buckets, coalesce(unicode(substr(listing_key, 5, 1)), -1) + 2, 1)), 111) - 48 AS b5,
        coalesce(unicode(substr(buckets, coalesce(unicode(substr(listing_key, 6, 1)), -1) + 2, 1)), 111) - 48 AS b6,
        coalesce(unicode(substr(buckets, coalesce(unicode(substr(listing_key, 7, 1)), -1) + 2, 1)), 111) - 48 AS b7
      FROM (SELECT rowid AS user_row, lastname || char(1) || firstname AS listing_key,
                   '0101111111111111111111111111111112333333455555678888888888888888889:;<=>?@ABCDEFGHIJKLMNOPQRSSSSSSTUVWXYZ[\]^_`abcdefghijklmnnnnn' AS buckets
            FROM users))
GROUP BY user_row;

-- The row number a user would be given now in her group: one after the
-- highest taken, or when that is the last place of the group the lowest
-- free one (two million users of one group would have to come and go
-- first); NULL when every place of the group is taken.
CREATE VIEW users_free_search_row (user_row, search_row) AS
SELECT user_row, CASE
    WHEN top IS NULL THEN first
    WHEN top < first + 2097151 THEN top + 1
    ELSE coalesce(
        (SELECT first WHERE NOT EXISTS (SELECT 1 FROM users WHERE search_row = first)),
        (SELECT min(taken.search_row) + 1 FROM users AS taken
         WHERE taken.search_row BETWEEN first AND first + 2097150
           AND NOT EXISTS (SELECT 1 FROM users AS next WHERE next.search_row = taken.search_row + 1)))
    END
FROM (SELECT user_row, first,
             (SELECT search_row FROM users WHERE search_row BETWEEN first AND first + 2097151
              ORDER BY search_row DESC LIMIT 1) AS top
      FROM (SELECT user_row, listing_group << 21 AS first FROM users_listing_group));

DROP TRIGGER users_search_insert;
DROP TRIGGER users_search_update;

-- Every user is numbered again, in her group, and the index rebuilt in
-- row-number order (its pages filled in order, as FTS5 prefers).
UPDATE users SET search_row = numbered.search_row
FROM (SELECT user_row,
             (listing_group << 21) - 1
                 + row_number() OVER (PARTITION BY listing_group ORDER BY user_row) AS search_row
      FROM users_listing_group) AS numbered
WHERE users.rowid = numbered.user_row;

DROP TABLE users_search;
CREATE VIRTUAL TABLE users_search USING fts5(
    search_text,
    content = '',
    contentless_delete = 1,
    tokenize = 'trigram case_sensitive 1'
);
INSERT INTO users_search (users_search, rank) VALUES ('secure-delete', 1);
INSERT INTO users_search (rowid, search_text)
    SELECT search_row, search_text FROM users
    WHERE search_text IS NOT NULL ORDER BY search_row;

-- The triggers run in the writing statement's transaction, so the index
-- never disagrees with users.
CREATE TRIGGER users_search_insert AFTER INSERT ON users
BEGIN
    UPDATE users SET search_row = coalesce(
            (SELECT search_row FROM users_free_search_row WHERE user_row = new.rowid),
            RAISE(ABORT, 'every row number of this user''s listing group is taken'))
        WHERE rowid = new.rowid;
    INSERT INTO users_search (rowid, search_text)
        SELECT search_row, search_text FROM users
        WHERE rowid = new.rowid AND search_text IS NOT NULL;
END;

-- A user renamed into another group is numbered again in it; her entry
-- moves with her, as it does when her text changes.
CREATE TRIGGER users_search_update AFTER UPDATE OF search_text, lastname, firstname ON users
    WHEN old.search_text IS NOT new.search_text
      OR old.search_row >> 21 IS NOT
         (SELECT listing_group FROM users_listing_group WHERE user_row = new.rowid)
BEGIN
    UPDATE users SET search_row = coalesce(
            (SELECT search_row FROM users_free_search_row WHERE user_row = new.rowid),
            RAISE(ABORT, 'every row number of this user''s listing group is taken'))
        WHERE rowid = new.rowid
          AND old.search_row >> 21 IS NOT
              (SELECT listing_group FROM users_listing_group WHERE user_row = new.rowid);
    DELETE FROM users_search WHERE rowid = old.search_row;
    INSERT INTO users_search (rowid, search_text)
        SELECT search_row, search_text FROM users
        WHERE rowid = new.rowid AND search_text IS NOT NULL;
END;
