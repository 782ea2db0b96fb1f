-- Who issued a credential in the web app's admin console (NULL: the
-- command line or Kenning itself), so that it stops working when they no
-- longer administer Kenning; and when it stops being accepted (NULL: never).
ALTER TABLE credentials ADD COLUMN issued_by TEXT;
ALTER TABLE credentials ADD COLUMN expires TIMESTAMP;
