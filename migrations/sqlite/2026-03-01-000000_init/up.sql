-- Users: one row per user, whatever its status. Personal columns are NULL
-- (names empty) once the user is DELETED: anonymization erases them.
CREATE TABLE users (
    id                     TEXT PRIMARY KEY NOT NULL,
    status                 TEXT NOT NULL CHECK (status IN ('ACTIVE', 'DEACTIVATED', 'PENDING_DELETION', 'DELETED')),
    deletion_scheduled_for TIMESTAMP,
    date_deleted           TIMESTAMP,
    created                TIMESTAMP NOT NULL,
    version                BIGINT NOT NULL,
    is_system              BOOLEAN NOT NULL,
    is_hidden              BOOLEAN NOT NULL,
    is_federated           BOOLEAN NOT NULL,
    email                  TEXT,
    email_key              TEXT,
    firstname              TEXT NOT NULL,
    lastname               TEXT NOT NULL,
    external_id            TEXT,
    language_id            TEXT,
    location               TEXT,
    about                  TEXT,
    country_id             TEXT,
    company                TEXT,
    department             TEXT,
    position               TEXT,
    employment_start       DATE,
    gender                 TEXT,
    avatar_url             TEXT,
    search_text            TEXT
);

-- The database, not the application, keeps e-mail and externalId unique
-- among users that are not deleted, so racing writers cannot both win.
CREATE UNIQUE INDEX users_email_key_live ON users (email_key) WHERE status <> 'DELETED';
CREATE UNIQUE INDEX users_external_id_live ON users (external_id) WHERE status <> 'DELETED';
CREATE INDEX users_listing ON users (lastname, firstname, id);
CREATE INDEX users_due ON users (deletion_scheduled_for) WHERE status = 'PENDING_DELETION';

-- Access tokens and connector API keys; only the hash of a secret is kept.
CREATE TABLE credentials (
    id            TEXT PRIMARY KEY NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('token', 'apikey')),
    name          TEXT NOT NULL,
    scopes        TEXT NOT NULL,
    secret_hash   TEXT NOT NULL,
    created       TIMESTAMP NOT NULL,
    revoked       TIMESTAMP,
    first_of_kind BOOLEAN NOT NULL
);

-- At most one credential per kind is ever issued as "the first one", even
-- when several instances start on an empty database at once.
CREATE UNIQUE INDEX credentials_first_of_kind ON credentials (kind) WHERE first_of_kind;
CREATE INDEX credentials_by_kind ON credentials (kind, created);
