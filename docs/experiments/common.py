# What the storage experiments share: the topics drawn, and a fresh SQLite
# file set up as Kenning's upload writer sets its connection (WAL, full
# sync, a 32 MiB page cache).
import os, random, sqlite3

def zipf(topics):
    # a Zipf-like draw over `topics`
    return int(topics ** random.random()) - 1

def distinct_topics(count, topics):
    # `count` distinct draws, as an upload's topics
    drawn = set()
    while len(drawn) < count:
        drawn.add(zipf(topics))
    return drawn

def fresh_db(path):
    for suffix in ("", "-wal", "-shm"):
        try: os.remove(path + suffix)
        except FileNotFoundError: pass
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA synchronous=FULL")
    c.execute("PRAGMA cache_size=-32768")
    return c
