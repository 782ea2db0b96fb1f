-- Groups of users, as an organisation's directory keeps them: a name, an
-- optional external id (unique), and members. display_name_key is the
-- name folded to lower case, by which groups are listed and filtered.
CREATE TABLE user_groups (
    id               TEXT PRIMARY KEY NOT NULL,
    display_name     TEXT NOT NULL,
    display_name_key TEXT NOT NULL,
    external_id      TEXT,
    created          TIMESTAMP NOT NULL,
    modified         TIMESTAMP NOT NULL,
    version          BIGINT NOT NULL
);
CREATE UNIQUE INDEX user_groups_external_id ON user_groups (external_id);
CREATE INDEX user_groups_listing ON user_groups (display_name_key, id);

-- Who belongs to which group; a user's groups are read through the second
-- index, and an anonymized user leaves every group.
CREATE TABLE user_group_members (
    group_id TEXT NOT NULL REFERENCES user_groups (id) ON DELETE CASCADE,
    user_id  TEXT NOT NULL REFERENCES users (id),
    PRIMARY KEY (group_id, user_id)
);
CREATE INDEX user_group_members_user ON user_group_members (user_id, group_id);
