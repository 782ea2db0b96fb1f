-- When a user last changed (SCIM's meta.lastModified). Users written
-- before this column existed have none: their last change is read as
-- their creation, so the migration rewrites no row.
ALTER TABLE users ADD COLUMN modified TIMESTAMP;

-- The name an identity provider knows a user by (SCIM's userName), unique
-- among users that are not deleted, compared folded to lower case as
-- e-mail addresses are. Users without one (those created through GraphQL
-- or before SCIM) are not in the index, so their writes do not pay for it.
ALTER TABLE users ADD COLUMN user_name TEXT;
ALTER TABLE users ADD COLUMN user_name_key TEXT;
CREATE UNIQUE INDEX users_user_name_key_live ON users (user_name_key)
    WHERE status <> 'DELETED' AND user_name_key IS NOT NULL;
