# The inverted index of actions by topic written two ways for 2,000
# uploads of 80 topics over a store already holding 20,000 uploads:
# rows of an index ordered by (topic_key, relevance, action_id), as
# action_topics_topic_relevance is, against a contentless FTS5 table whose
# row is the action and whose tokens are its topic keys. Commits of 200.
import os, random, time

from common import distinct_topics, fresh_db

random.seed(11)
TOPICS = 20000
PER_UPLOAD = 80

def upload():
    return ["t%05d" % k for k in distinct_topics(PER_UPLOAD, TOPICS)]

def fresh(path, fts):
    c = fresh_db(path)
    if fts:
        c.execute("CREATE VIRTUAL TABLE inv USING fts5(topics, content='', detail=none)")
    else:
        c.execute("CREATE TABLE inv (action_id INTEGER NOT NULL, topic_key TEXT NOT NULL, relevance REAL NOT NULL)")
        c.execute("CREATE INDEX inv_topic ON inv (topic_key, relevance, action_id)")
    return c

def load(c, fts, first, n, group):
    ups = [upload() for _ in range(n)]
    start = time.perf_counter()
    for g in range(0, n, group):
        c.execute("BEGIN IMMEDIATE")
        for i, topics in enumerate(ups[g:g + group]):
            aid = first + g + i
            if fts:
                c.execute("INSERT INTO inv (rowid, topics) VALUES (?, ?)", (aid, " ".join(topics)))
            else:
                c.executemany("INSERT INTO inv VALUES (?, ?, ?)", [(aid, t, random.random()) for t in topics])
        c.execute("COMMIT")
    return time.perf_counter() - start

for fts in (False, True):
    path = "/tmp/kenning-inverted-%s.db" % ("fts" if fts else "index")
    c = fresh(path, fts)
    load(c, fts, 0, 20000, 1000)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.execute("PRAGMA wal_autocheckpoint=0")
    took = load(c, fts, 20000, 2000, 200)
    wal = os.path.getsize(path + "-wal")
    name = "contentless FTS5, a row an action" if fts else "index (topic_key, relevance, action_id), a row a topic"
    print(f"| {name} | {2000 / took:.0f} | {wal / 2000 / 1024:.0f} |", flush=True)
