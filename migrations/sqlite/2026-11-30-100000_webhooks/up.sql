-- Webhook subscriptions: where the changes of the kinds wanted are posted
-- (kinds comma-separated; empty: every kind), the secret they are signed
-- with, and since when delivery is given up on (NULL: active).
CREATE TABLE webhook_subscriptions (
    id            TEXT PRIMARY KEY NOT NULL,
    url           TEXT NOT NULL,
    kinds         TEXT NOT NULL,
    secret        TEXT NOT NULL,
    created       TIMESTAMP NOT NULL,
    failing_since TIMESTAMP
);

-- The outbox: each change of the audit trail queued for each subscription
-- that wants it, in the transaction that made the change. A delivery is
-- leased by one process at a time (lease_until) and delivered once the
-- receiver took it; the oldest waiting one of a subscription and resource
-- goes first.
CREATE TABLE webhook_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    position        BIGINT NOT NULL,
    resource_id     TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    first_attempt   TIMESTAMP,
    next_attempt    TIMESTAMP NOT NULL,
    lease_until     TIMESTAMP,
    delivered       TIMESTAMP
);
CREATE INDEX webhook_outbox_waiting ON webhook_outbox (subscription_id, resource_id, id)
    WHERE delivered IS NULL;
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt) WHERE delivered IS NULL;
CREATE INDEX webhook_outbox_delivered ON webhook_outbox (delivered, id) WHERE delivered IS NOT NULL;
CREATE INDEX webhook_outbox_position ON webhook_outbox (position) WHERE delivered IS NULL;
