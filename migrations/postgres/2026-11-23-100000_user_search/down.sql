DROP INDEX users_search_trigrams;
