# The standings' ranked index as SQLite keeps it today, a B-tree ordered by
# (topic_key, rank_key, user_id), against a contentless FTS5 table whose
# token is a topic and a band of rank (`t<topic>b<band>`, a row a standing,
# the standing's rowid its rowid), written as FTS5 writes well: each
# commit's band changes gathered, then every delete of an old band in
# rowid order and every insert of a new band in rowid order (one flush a
# commit, not one a row). 1,000,000 standings (5,000 people x 200 of
# 20,000 topics, Zipf-like), then 2,000 uploads of 80 topics, each moving
# its standings up by one to fifty bands (a new action dated now), a
# commit per 200 uploads; uploads/s and log KiB an upload. Then the 100
# best standings on the commonest topics, read from the B-tree and from
# the bands (best band first, the rows looked up by rowid, the last
# band's cut made exactly; checked equal), median ms of 200 reads, with
# the commits' segments as they were left (no optimize).
import math, os, random, statistics, sys, time

from common import distinct_topics, fresh_db

random.seed(11)
PATH = os.environ.get("KENNING_EXPERIMENT_DB", "/tmp/kenning-banded-standings.db")
TOPICS = 20000
USERS = 5000
PER_USER = 200
PER_UPLOAD = 80
N = 2000
GROUP = 200
WIDTH = float(sys.argv[1]) if len(sys.argv) > 1 else 0.05  # a band's width in rank (log of score)

def band(rank):
    return int(math.floor(rank / WIDTH))

def token(topic, b):
    return "t%05db%d" % (topic, b)

def fresh(ranked):
    random.seed(5)  # the same standings either way
    c = fresh_db(PATH)
    c.execute("CREATE TABLE standings (user_id TEXT NOT NULL, topic INTEGER NOT NULL, label TEXT NOT NULL, score REAL NOT NULL, as_of TEXT NOT NULL, rank_key REAL NOT NULL, shown INTEGER NOT NULL, label_votes REAL NOT NULL, PRIMARY KEY (user_id, topic))")
    if not ranked:
        c.execute("CREATE VIRTUAL TABLE bands USING fts5(tok, content='', detail=none)")
    rng = random.Random(5)
    c.execute("BEGIN")
    users = []
    for u in range(USERS):
        uid = "%08x-user-%04d" % (rng.getrandbits(32), u)
        users.append(uid)
        rows = [(uid, t, "Topic %d" % t, 1.0, "2026-01-01", rng.random() * 10, 1, 1.0)
                for t in distinct_topics(PER_USER, TOPICS)]
        for r in rows:
            cur = c.execute("INSERT INTO standings VALUES (?,?,?,?,?,?,?,?)", r)
            if not ranked:
                c.execute("INSERT INTO bands (rowid, tok) VALUES (?, ?)", (cur.lastrowid, token(r[1], band(r[5]))))
    c.execute("COMMIT")
    if ranked:
        c.execute("CREATE INDEX standings_topic_rank ON standings (topic, rank_key, user_id, score, as_of, label, shown, label_votes)")
    else:
        c.execute("INSERT INTO bands (bands) VALUES ('optimize')")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return c, sorted(users)

def uploads(users):
    random.seed(9)  # the same uploads either way
    rng = random.Random(9)
    return [(rng.choice(users), sorted(distinct_topics(PER_UPLOAD, TOPICS)), [rng.uniform(WIDTH, 50 * WIDTH) for _ in range(PER_UPLOAD)]) for _ in range(N)]

UPSERT = ("INSERT INTO standings VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (user_id, topic) DO UPDATE SET "
          "score = excluded.score, as_of = excluded.as_of, rank_key = excluded.rank_key, label_votes = excluded.label_votes "
          "RETURNING rowid")

def write(c, batch, ranked):
    for g in range(0, N, GROUP):
        c.execute("BEGIN IMMEDIATE")
        moved = {}  # rowid: (its band's token as the commit found it, its last)
        for (u, topics, steps) in batch[g:g + GROUP]:
            marks = ",".join("?" * len(topics))
            before = dict(c.execute("SELECT topic, rank_key FROM standings WHERE user_id = ? AND topic IN (%s)" % marks, [u] + topics).fetchall())
            for t, step in zip(topics, steps):
                old = before.get(t)
                rank = (old if old is not None else 0.0) + step
                rowid = c.execute(UPSERT, (u, t, "Topic", 1.0, "2026-02-01", rank, 1, 1.0)).fetchone()[0]
                if ranked:
                    continue
                found = moved.get(rowid, (None if old is None else token(t, band(old)),))[0]
                moved[rowid] = (found, token(t, band(rank)))
        deletes = sorted((r, a) for r, (a, b) in moved.items() if a is not None and a != b)
        inserts = sorted((r, b) for r, (a, b) in moved.items() if a != b)
        if not ranked:
            c.executemany("INSERT INTO bands (bands, rowid, tok) VALUES ('delete', ?, ?)", deletes)
            c.executemany("INSERT INTO bands (rowid, tok) VALUES (?, ?)", inserts)
        c.execute("COMMIT")

def measure(ranked):
    c, users = fresh(ranked)
    batch = uploads(users)
    c.execute("PRAGMA wal_autocheckpoint=0")
    start = time.perf_counter()
    write(c, batch, ranked)
    took = time.perf_counter() - start
    wal = os.path.getsize(PATH + "-wal")
    c.execute("PRAGMA wal_autocheckpoint=1000")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.execute("ANALYZE")
    return c, N / took, wal / N / 1024

def best_by_index(c, topic):
    return [r[0] for r in c.execute("SELECT user_id FROM standings WHERE topic = ? ORDER BY rank_key DESC, user_id DESC LIMIT 100", (topic,))]

def best_by_bands(c, topic, top):
    found = []
    b = top
    lowest = band(-1.0)  # below any rank in this store
    while b >= lowest:
        ids = [r[0] for r in c.execute("SELECT rowid FROM bands WHERE bands MATCH ?", ('"%s"' % token(topic, b),))]
        b -= 1
        if not ids:
            continue
        got = c.execute("SELECT user_id, rank_key FROM standings WHERE rowid IN (%s)" % ",".join("?" * len(ids)), ids).fetchall()
        found.extend(got)
        if len(found) >= 100:
            break
    found.sort(key=lambda r: (r[1], r[0]), reverse=True)
    return [u for (u, _) in found[:100]]

def median_ms(read):
    times = []
    for _ in range(200):
        t = time.perf_counter(); read(); times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)

ci, rate_i, wal_i = measure(True)
print(f"| B-tree (topic, rank_key, user_id), as today | {rate_i:.0f} | {wal_i:.0f} |", flush=True)
reads_i = {t: median_ms(lambda: best_by_index(ci, t)) for t in (0, 1, 10, 100)}
expected = {t: best_by_index(ci, t) for t in (0, 1, 10, 100)}
tops = {t: ci.execute("SELECT MAX(rank_key) FROM standings WHERE topic = ?", (t,)).fetchone()[0] for t in (0, 1, 10, 100)}
ci.close()
cb, rate_b, wal_b = measure(False)
print(f"| FTS5 bands {WIDTH} wide, deletes then inserts in rowid order a commit | {rate_b:.0f} | {wal_b:.0f} |", flush=True)
segments = cb.execute("SELECT COUNT(*) FROM bands_data").fetchone()[0]
print(f"(bands_data rows after the writes: {segments})")
for t in (0, 1, 10, 100):
    n = cb.execute("SELECT COUNT(*) FROM standings WHERE topic = ?", (t,)).fetchone()[0]
    top = band(tops[t])
    assert best_by_bands(cb, t, top) == expected[t], t
    print(f"| t{t:05d} | {n} | {reads_i[t]:.3f} | {median_ms(lambda: best_by_bands(cb, t, top)):.3f} |", flush=True)
