DROP TABLE webhook_outbox;
DROP TABLE webhook_subscriptions;
