-- Substring search over users reads a trigram index instead of every row.
-- pg_trgm ships with PostgreSQL (the contrib package of most
-- distributions) and is a trusted extension: the database's owner may
-- create it without being a superuser.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX users_search_trigrams ON users USING gin (search_text gin_trgm_ops);
