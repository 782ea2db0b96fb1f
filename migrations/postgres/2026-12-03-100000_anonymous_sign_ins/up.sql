-- A person's sign-ins and sign-outs go with them: once they are anonymized
-- or what was learned about them is forgotten, these entries stay in the
-- trail but name nobody (the nil UUID, the actor `anonymous`; see
-- AuditEntry::anonymized). The people anonymized or forgotten before the
-- stores did so themselves get the same here; the outbox first, while the
-- entries still say whose they are.
UPDATE webhook_outbox
SET resource_id = '00000000-0000-0000-0000-000000000000'
WHERE position IN (
    SELECT a.position FROM audit_entries a
    WHERE a.kind IN ('user.signed_in', 'user.signed_out')
      AND (a.resource_id COLLATE "C" IN (SELECT id FROM users WHERE status = 'DELETED')
           OR EXISTS (SELECT 1 FROM audit_entries f
                      WHERE f.kind = 'user.forgotten'
                        AND f.resource_id = a.resource_id
                        AND f.position > a.position))
);
UPDATE audit_entries
SET resource_id = '00000000-0000-0000-0000-000000000000',
    credential_id = NULL,
    actor_name = 'anonymous',
    channel = 'web'
WHERE kind IN ('user.signed_in', 'user.signed_out')
  AND (resource_id COLLATE "C" IN (SELECT id FROM users WHERE status = 'DELETED')
       OR EXISTS (SELECT 1 FROM audit_entries f
                  WHERE f.kind = 'user.forgotten'
                    AND f.resource_id = audit_entries.resource_id
                    AND f.position > audit_entries.position));
