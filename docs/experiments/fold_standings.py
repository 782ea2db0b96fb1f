# How much a group's standing updates cost SQLite written as uploads write
# them today (each upload's topics in turn, a commit per group of 200
# uploads) against the same updates folded in key order in one larger
# transaction: time and log bytes per upload.
import os, random, time

from common import distinct_topics, fresh_db

random.seed(7)
PATH = os.environ.get("KENNING_EXPERIMENT_DB", "/tmp/kenning-fold-standings.db")
TOPICS = 20000
USERS = 5000
PER_USER = 200
PER_UPLOAD = 80

def fresh():
    c = fresh_db(PATH)
    c.execute("CREATE TABLE standings (user_id TEXT NOT NULL, topic_key TEXT NOT NULL, label TEXT NOT NULL, score REAL NOT NULL, as_of TEXT NOT NULL, rank_key REAL NOT NULL, shown INTEGER NOT NULL, label_votes REAL NOT NULL, PRIMARY KEY (user_id, topic_key))")
    c.execute("BEGIN")
    rows = []
    for u in range(USERS):
        uid = "%08x-user-%04d" % (random.getrandbits(32), u)
        for t in distinct_topics(PER_USER, TOPICS):
            rows.append((uid, "topic%05d" % t, "Topic %d" % t, random.random(), "2026-01-01 00:00:00", random.random() * 10, 1, 1.0))
    c.executemany("INSERT INTO standings VALUES (?,?,?,?,?,?,?,?)", rows)
    c.execute("COMMIT")
    c.execute("CREATE INDEX standings_topic_rank ON standings (topic_key, rank_key, user_id, score, as_of, label, shown, label_votes)")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    users = sorted({r[0] for r in rows})
    return c, users

def uploads(users, n):
    out = []
    for _ in range(n):
        u = random.choice(users)
        topics = distinct_topics(PER_UPLOAD, TOPICS)
        out.append([(u, "topic%05d" % t) for t in topics])
    return out

UPSERT = ("INSERT INTO standings VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (user_id, topic_key) DO UPDATE SET "
          "score = excluded.score, as_of = excluded.as_of, rank_key = excluded.rank_key, label_votes = excluded.label_votes")

def row(u, t):
    return (u, t, "Topic", random.random(), "2026-02-01 00:00:00", 20 + random.random(), 1, 1.0)

def wal_bytes_written(c, work):
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.execute("PRAGMA wal_autocheckpoint=0")
    start = time.perf_counter()
    work()
    took = time.perf_counter() - start
    size = os.path.getsize(PATH + "-wal")
    c.execute("PRAGMA wal_autocheckpoint=1000")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return took, size

c, users = fresh()
N = 2000

def today(group):
    batch = [[row(u, t) for (u, t) in up] for up in uploads(users, N)]
    def work():
        for g in range(0, N, group):
            c.execute("BEGIN IMMEDIATE")
            for up in batch[g:g + group]:
                c.executemany(UPSERT, up)
            c.execute("COMMIT")
    return work

def folded(group):
    batch = [[row(u, t) for (u, t) in up] for up in uploads(users, N)]
    def work():
        for g in range(0, N, group):
            c.execute("BEGIN IMMEDIATE")
            entries = sorted((r for up in batch[g:g + group] for r in up), key=lambda r: (r[1], r[0]))
            c.executemany(UPSERT, entries)
            c.execute("COMMIT")
    return work

for name, work in [("today: each upload in turn, a commit per 200", today(200)),
                   ("folded: sorted by topic, a commit per 200", folded(200)),
                   ("folded: sorted by topic, one commit for 2,000", folded(2000)),
                   ("today: each upload in turn, a commit per 200 (again)", today(200)),
                   ("folded: sorted by topic, one commit for 2,000 (again)", folded(2000))]:
    took, wal = wal_bytes_written(c, work)
    print(f"| {name} | {N / took:.0f} | {wal / N / 1024:.0f} |", flush=True)
