-- Nothing to undo: whose the sign-ins were is not kept.
SELECT 1;
