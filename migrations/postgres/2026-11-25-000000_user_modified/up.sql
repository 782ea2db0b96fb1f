-- When a user last changed (SCIM's meta.lastModified). Users written
-- before this column existed have none: their last change is read as
-- their creation, so the migration rewrites no row.
ALTER TABLE users ADD COLUMN modified TIMESTAMP;
