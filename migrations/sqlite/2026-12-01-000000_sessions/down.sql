DROP TABLE sessions;
DROP TABLE signin_links;
