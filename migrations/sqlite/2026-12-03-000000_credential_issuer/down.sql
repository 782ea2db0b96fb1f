ALTER TABLE credentials DROP COLUMN expires;
ALTER TABLE credentials DROP COLUMN issued_by;
