# Reading the 100 most relevant actions on a topic, from the index
# ordered by (topic_key, relevance, action_id) as today, against a
# contentless FTS5 table whose tokens are a topic and a relevance band
# (`t<key>b<band>`, bands 2% wide on a log scale, the best first): the best bands are read
# first until 100 actions are found, their exact relevance then looked up
# by primary key and the last band's cut made exactly. 22,000 uploads of
# 80 topics each (Zipf-like over 20,000 topics); the commonest topics,
# the median ms a read over 200 reads each.
import math, random, statistics, time

from common import distinct_topics, fresh_db

random.seed(13)
TOPICS = 20000
PER_UPLOAD = 80
UPLOADS = 22000
BANDS = 1000
PATH = "/tmp/kenning-inverted-reads.db"

def band(relevance):
    # relevance in (0, 1]; band 0 the best, each 2% lower on a log scale
    return min(BANDS - 1, int(-math.log(relevance) / math.log(1.02)))

c = fresh_db(PATH)
c.execute("CREATE TABLE rel (action_id INTEGER NOT NULL, topic_key TEXT NOT NULL, relevance REAL NOT NULL, PRIMARY KEY (action_id, topic_key)) WITHOUT ROWID")
c.execute("CREATE INDEX rel_topic ON rel (topic_key, relevance, action_id)")
c.execute("CREATE VIRTUAL TABLE inv USING fts5(tokens, content='', detail=none)")
c.execute("BEGIN")
for a in range(UPLOADS):
    topics = distinct_topics(PER_UPLOAD, TOPICS)
    rows = [(a, "t%05d" % t, random.random() ** 3 + 1e-9) for t in topics]
    c.executemany("INSERT INTO rel VALUES (?, ?, ?)", rows)
    c.execute("INSERT INTO inv (rowid, tokens) VALUES (?, ?)",
              (a, " ".join("%sb%d" % (k, band(r)) for (_, k, r) in rows)))
c.execute("COMMIT")
c.execute("INSERT INTO inv (inv) VALUES ('optimize')")
c.execute("ANALYZE")

def by_index(key):
    return c.execute("SELECT action_id FROM rel WHERE topic_key = ? ORDER BY relevance DESC, action_id DESC LIMIT 100", (key,)).fetchall()

def by_bands(key):
    found = []
    for b in range(BANDS):
        ids = [r[0] for r in c.execute("SELECT rowid FROM inv WHERE inv MATCH ?", ('"%sb%d"' % (key, b),))]
        if not ids:
            continue
        marks = ",".join("?" * len(ids))
        got = c.execute("SELECT action_id, relevance FROM rel WHERE topic_key = ? AND action_id IN (%s)" % marks, [key] + ids).fetchall()
        got.sort(key=lambda r: (-r[1], -r[0]))
        found.extend(got)
        if len(found) >= 100:
            break
    return [(a,) for (a, _) in found[:100]]

def median_ms(read, key):
    times = []
    for _ in range(200):
        t = time.perf_counter(); read(key); times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)

for key in ("t00000", "t00001", "t00010", "t00100"):
    n = c.execute("SELECT COUNT(*) FROM rel WHERE topic_key = ?", (key,)).fetchone()[0]
    assert by_index(key) == by_bands(key), key
    print(f"| {key} | {n} | {median_ms(by_index, key):.3f} | {median_ms(by_bands, key):.3f} |", flush=True)
