DROP TABLE credentials;
DROP TABLE users;
