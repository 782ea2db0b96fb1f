-- A user's displayName as its own field (SCIM's displayName), when set
-- apart from the names; null shows "first last".
ALTER TABLE users ADD COLUMN display_name TEXT;
