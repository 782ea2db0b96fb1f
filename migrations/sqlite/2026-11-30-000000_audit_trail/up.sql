-- The audit trail: every change of a user, a group or a credential, written
-- in the transaction that made it. Who made it (the credential's id and
-- name, or cli/purge), through which door, and the public names of the
-- fields it touched, never their values: nothing personal outlives an
-- anonymization here. position orders the trail and is never reused
-- (AUTOINCREMENT), so it serves as a cursor.
CREATE TABLE audit_entries (
    position      INTEGER PRIMARY KEY AUTOINCREMENT,
    at            TIMESTAMP NOT NULL,
    kind          TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    credential_id TEXT,
    actor_name    TEXT NOT NULL,
    channel       TEXT NOT NULL,
    fields        TEXT NOT NULL
);
CREATE INDEX audit_entries_at ON audit_entries (at, position);
CREATE INDEX audit_entries_resource ON audit_entries (resource_id, position);
CREATE INDEX audit_entries_credential ON audit_entries (credential_id, position);
