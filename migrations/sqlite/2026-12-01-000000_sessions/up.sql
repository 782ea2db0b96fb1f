-- Sign-in links and the sessions of people signed in to the web app. Only
-- SHA-256 hashes of their secrets are kept. A link is good once (used
-- marks it) until it expires; a session lasts until it is ended (its row
-- deleted), or until it is idle or old past the server's policy.
CREATE TABLE signin_links (
    secret_hash TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    created     TIMESTAMP NOT NULL,
    expires     TIMESTAMP NOT NULL,
    used        TIMESTAMP
);
CREATE INDEX signin_links_expires ON signin_links (expires);

CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL UNIQUE,
    user_id     TEXT NOT NULL,
    method      TEXT NOT NULL,
    csrf        TEXT NOT NULL,
    created     TIMESTAMP NOT NULL,
    last_seen   TIMESTAMP NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
