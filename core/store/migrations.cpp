// SPDX-License-Identifier: MIT
// The store's schema as versions: the frozen base schema a new store starts
// from (kSchemaSql) and the numbered migrations after it (Migrations()).
// Migrate, the connections and the functions they register are in
// schema.cpp; the header says how they fit together.
#include <string>

#include "core/store/event_index.hpp"
#include "core/store/schema.hpp"
#include "core/store/sessions.hpp"

namespace origin {
// Version 3 (kBaseSchemaVersion) as new stores were created with it, frozen:
// a new store starts here and runs migrations 4 and after, as an older store
// does.  Never edit: a change is a new migration.  Column comments say what
// each field holds; the spec's Storage section says why each table exists.
const char* const kSchemaSql = R"sql(
CREATE TABLE raw_file (
  id             INTEGER PRIMARY KEY,
  source         TEXT NOT NULL,     -- adapter id: claude-code, codex, ...
  key            TEXT NOT NULL,     -- logical path under the source's root (Codex: without .zst)
  generation     INTEGER NOT NULL,  -- 1, then +1 each time the file is found rewritten
  path           TEXT NOT NULL,     -- absolute path of the file last read
  mirror         TEXT NOT NULL UNIQUE, -- mirror name under raw/, without .zst / .tail
  bytes_ingested INTEGER NOT NULL DEFAULT 0, -- content length: the cursor
  lines_ingested INTEGER NOT NULL DEFAULT 0, -- complete lines in the content
  tail_hash      BLOB,              -- SHA-256 of the last 4 KiB of the content
  tail_offset    INTEGER NOT NULL DEFAULT 0, -- content offset where the open tail starts
  tail_line      INTEGER NOT NULL DEFAULT 0, -- lines before the open tail (in sealed frames)
  zst_bytes      INTEGER NOT NULL DEFAULT 0, -- length of <mirror>.zst that frames take
  file_size      INTEGER,           -- size of the source file at the last look
  file_mtime_ns  INTEGER,           -- its modification time then
  grown_at       INTEGER,           -- when the content last grew (ms)
  created_at     INTEGER NOT NULL,  -- when this generation was opened (ms)
  parse_errors   INTEGER NOT NULL DEFAULT 0, -- lines the adapter could not parse
  parse_state    TEXT,              -- the adapter's carry-over between lines (JSON)
  broken         TEXT,              -- why appends are refused (a mirror shorter than recorded)
  UNIQUE (source, key, generation)
);

CREATE TABLE raw_chunk (
  file_id        INTEGER NOT NULL REFERENCES raw_file(id),
  first_line     INTEGER NOT NULL,  -- 1-based line number of the frame's first line
  line_count     INTEGER NOT NULL,
  content_offset INTEGER NOT NULL,  -- where the frame's lines start in the content
  content_length INTEGER NOT NULL,
  file_offset    INTEGER NOT NULL,  -- where the frame starts in <mirror>.zst
  file_length    INTEGER NOT NULL,
  PRIMARY KEY (file_id, content_offset)
) WITHOUT ROWID;

CREATE TRIGGER raw_chunk_no_update BEFORE UPDATE ON raw_chunk
BEGIN SELECT RAISE(ABORT, 'raw_chunk is append-only (invariant 3)'); END;
CREATE TRIGGER raw_chunk_no_delete BEFORE DELETE ON raw_chunk
BEGIN SELECT RAISE(ABORT, 'raw_chunk is append-only (invariant 3)'); END;

CREATE TABLE event (
  seq        INTEGER PRIMARY KEY,   -- arrival order in this store
  id         TEXT NOT NULL UNIQUE,  -- <source>:<native-id>[#<block-index>]
  source     TEXT NOT NULL,
  session    TEXT,                  -- <source>:<native session id>; NULL for memory events
  ts         INTEGER NOT NULL,      -- ms since the epoch, UTC
  project    TEXT,                  -- last segment of cwd
  cwd        TEXT,
  git_branch TEXT,
  role       TEXT NOT NULL,         -- user | assistant | system | tool
  kind       TEXT NOT NULL,         -- message | tool_call | tool_result | meta | memory
  text       TEXT NOT NULL,
  tool_name  TEXT,                  -- tool calls, and results joined to their call
  call_id    TEXT,                  -- joins a tool call and its result
  is_error   INTEGER NOT NULL DEFAULT 0, -- a failed tool result or an API error
  agent      TEXT,                  -- sub-agent id for sidechain events
  model      TEXT,
  file_id    INTEGER NOT NULL REFERENCES raw_file(id), -- provenance (invariant 1)
  line       INTEGER NOT NULL       -- 1-based line in that mirror's content
);
CREATE INDEX event_session_ts ON event(session, ts) WHERE session IS NOT NULL;
CREATE INDEX event_seq_ts ON event(seq, ts);
CREATE INDEX event_call ON event(call_id) WHERE call_id IS NOT NULL;
CREATE INDEX event_user_message ON event(session, ts) WHERE kind = 'message' AND role = 'user';

CREATE TRIGGER event_no_update BEFORE UPDATE ON event
BEGIN SELECT RAISE(ABORT, 'events are append-only (invariant 3)'); END;
CREATE TRIGGER event_no_delete BEFORE DELETE ON event
BEGIN SELECT RAISE(ABORT, 'events are append-only (invariant 3)'); END;

-- For each block of 4,096 consecutive arrivals: the latest timestamp in it,
-- and the latest in it and every block before it.
CREATE TABLE event_block (
  block      INTEGER PRIMARY KEY,   -- seq >> 12
  max_ts     INTEGER NOT NULL,
  max_ts_upto INTEGER NOT NULL
);


CREATE TABLE session (
  id           TEXT PRIMARY KEY,    -- <source>:<native session id>
  source       TEXT NOT NULL,
  project      TEXT,
  cwd          TEXT,
  git_branch   TEXT,
  first_ts     INTEGER,
  last_ts      INTEGER,
  event_count  INTEGER NOT NULL DEFAULT 0,  -- visible events
  message_count INTEGER NOT NULL DEFAULT 0, -- visible message events
  title        TEXT,
  title_manual INTEGER NOT NULL DEFAULT 0,  -- 1 when the user gave the title
  agent_version TEXT,
  model        TEXT
) WITHOUT ROWID;
CREATE INDEX session_last_ts ON session(last_ts);
CREATE INDEX session_source ON session(source);

CREATE TABLE sync_log (
  id          INTEGER PRIMARY KEY,
  source      TEXT NOT NULL,        -- one row per source a sync run found changed
  started_at  INTEGER NOT NULL,
  finished_at INTEGER NOT NULL,
  reason      TEXT NOT NULL,        -- start | watch | rescan | request | idle
  files       INTEGER NOT NULL,     -- files that had new lines or were sealed
  lines       INTEGER NOT NULL,
  bytes       INTEGER NOT NULL,
  events      INTEGER NOT NULL,     -- events added
  parse_errors INTEGER NOT NULL,
  error       TEXT                  -- the first failure, if any
);
CREATE INDEX sync_log_source ON sync_log(source, started_at);

CREATE TABLE setting (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
)sql";

const char* const kEntryFtsSql =
    "CREATE VIRTUAL TABLE IF NOT EXISTS entry_fts USING fts5(\n"
    "  text, content = 'entry', content_rowid = 'seq', tokenize = 'trigram', detail = 'full');";

namespace {

// Version 5: what every open ran after the migrations until then, as it was
// (a store of version 3 or 4 has all of it already, hence IF NOT EXISTS;
// the text of each statement is what such a store holds in sqlite_master).
// kEntryFtsSql stands between the two halves.
const char* const kVersion5Head = R"sql(
-- event_block as events arrive (version 3 dropped the trigger's older form).
-- The search indexes of events (event_fts, message_fts, event_cjk) live in
-- index.db (core/store/event_index.cpp), built by a thread of their own:
-- nothing here that an event's INSERT updates can stop ingestion.
CREATE TRIGGER IF NOT EXISTS event_index AFTER INSERT ON event
BEGIN
  INSERT INTO event_block(block, max_ts, max_ts_upto)
    VALUES (new.seq >> 12, new.ts,
            max(new.ts, coalesce((SELECT max_ts_upto FROM event_block
                                  WHERE block < new.seq >> 12 ORDER BY block DESC LIMIT 1),
                                 new.ts)))
    ON CONFLICT(block) DO UPDATE SET max_ts = max(max_ts, excluded.max_ts),
                                     max_ts_upto = max(max_ts_upto, excluded.max_ts_upto);
END;
CREATE INDEX IF NOT EXISTS raw_file_source ON raw_file(source);
-- The narrow (seq, ts) index of message events alone: a search for short
-- terms reads the newest messages' timestamps from it (core/query/search).
CREATE INDEX IF NOT EXISTS event_message_seq_ts ON event(seq, ts) WHERE kind = 'message';
-- A session's title events (TitleEventSql), which derive its title
-- (RetitleSessions): found without reading the session's other events.
CREATE INDEX IF NOT EXISTS event_title ON event(session, seq)
  WHERE kind = 'meta' AND tool_name IS 'title';
-- Which blocks of 4,096 arrivals hold events of each project and source
-- ('project:<name>', 'source:<name>'): a filtered search reads only those
-- blocks.  Derived: kept by a trigger, filled from event when empty.
-- (Blocks of 256 arrivals since kScopeBlocksVersion.)
CREATE TABLE IF NOT EXISTS scope_block (
  scope TEXT NOT NULL,
  block INTEGER NOT NULL,           -- seq >> 12
  PRIMARY KEY (scope, block)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS event_scope AFTER INSERT ON event
BEGIN
  INSERT OR IGNORE INTO scope_block(scope, block)
    SELECT 'project:' || new.project, new.seq >> 12 WHERE new.project IS NOT NULL;
  INSERT OR IGNORE INTO scope_block(scope, block) VALUES ('source:' || new.source, new.seq >> 12);
END;

-- Entries (core/entries): versions never change (invariant 3); a correction
-- is a new version that supersedes the one before.
CREATE TABLE IF NOT EXISTS entry (
  seq        INTEGER PRIMARY KEY,   -- arrival order, the key of entry_fts
  id         TEXT NOT NULL UNIQUE,  -- ent_ + 24 hex
  kind       TEXT NOT NULL CHECK (kind IN ('memory', 'knowledge', 'cognition')),
  text       TEXT NOT NULL,
  confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  author     TEXT NOT NULL,         -- <agent>@<device>, user@<device>
  project    TEXT,
  supersedes TEXT,                  -- the version this one corrects
  root       TEXT NOT NULL,         -- the chain's first version
  valid_from INTEGER,               -- ms UTC
  valid_to   INTEGER,
  created_at INTEGER NOT NULL,      -- ms UTC; after the version it supersedes
  origin     TEXT NOT NULL          -- the store that wrote it
);
CREATE INDEX IF NOT EXISTS entry_root ON entry(root, created_at);
CREATE INDEX IF NOT EXISTS entry_supersedes ON entry(supersedes) WHERE supersedes IS NOT NULL;
CREATE INDEX IF NOT EXISTS entry_created ON entry(created_at);
CREATE TABLE IF NOT EXISTS entry_source (
  entry_id TEXT NOT NULL,           -- entry.id
  event_id TEXT NOT NULL,           -- event.id (invariant 1)
  quote    TEXT,                    -- the words cited, when given
  PRIMARY KEY (entry_id, event_id)
);
CREATE INDEX IF NOT EXISTS entry_source_event ON entry_source(event_id);
)sql";
const char* const kVersion5Tail = R"sql(
CREATE TABLE IF NOT EXISTS change_log (
  seq    INTEGER PRIMARY KEY,       -- replication cursors point here
  kind   TEXT NOT NULL,             -- entry | tombstone
  id     TEXT NOT NULL,
  origin TEXT NOT NULL,
  at     INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS entry_insert AFTER INSERT ON entry
BEGIN
  INSERT INTO entry_fts(rowid, text) VALUES (new.seq, new.text);
  INSERT INTO change_log(kind, id, origin, at) VALUES ('entry', new.id, new.origin, new.created_at);
END;
CREATE TRIGGER IF NOT EXISTS entry_no_update BEFORE UPDATE ON entry
BEGIN SELECT RAISE(ABORT, 'entries change by supersession, never in place (invariant 3)'); END;
CREATE TRIGGER IF NOT EXISTS entry_no_delete BEFORE DELETE ON entry
BEGIN SELECT RAISE(ABORT, 'entries change by supersession, never in place (invariant 3)'); END;
CREATE TRIGGER IF NOT EXISTS entry_source_no_update BEFORE UPDATE ON entry_source
BEGIN SELECT RAISE(ABORT, 'entry sources are append-only (invariant 3)'); END;
CREATE TRIGGER IF NOT EXISTS entry_source_no_delete BEFORE DELETE ON entry_source
BEGIN SELECT RAISE(ABORT, 'entry sources are append-only (invariant 3)'); END;
-- Forgetting (core/forget, spec: Forgetting; invariant 2).  Tombstones are
-- forgets and restores; a forget is in effect while no restore targets it.
CREATE TABLE IF NOT EXISTS tombstone (
  seq        INTEGER PRIMARY KEY,
  id         TEXT NOT NULL UNIQUE,  -- tmb_ + 24 hex, the same on every store
  kind       TEXT NOT NULL CHECK (kind IN ('forget', 'restore')),
  target     TEXT NOT NULL,         -- forget: an entry or event id; restore: a forget's id
  reason     TEXT NOT NULL,
  created_at INTEGER NOT NULL,      -- ms UTC
  origin     TEXT NOT NULL          -- the store that made it
);
CREATE INDEX IF NOT EXISTS tombstone_target ON tombstone(target);
CREATE TABLE IF NOT EXISTS tombstone_meta (
  id     TEXT PRIMARY KEY,          -- tombstone.id
  author TEXT NOT NULL              -- <agent>@<device>, user@<device>
) WITHOUT ROWID;
-- What each forget covers here, several forgets per item.
CREATE TABLE IF NOT EXISTS tombstone_effect (
  tombstone TEXT NOT NULL,          -- a forget's id
  item      TEXT NOT NULL,          -- an entry version's or an event's id
  item_kind TEXT NOT NULL CHECK (item_kind IN ('entry', 'event')),
  how       TEXT NOT NULL CHECK (how IN ('direct', 'listed', 'reported', 'cascade')),
  PRIMARY KEY (tombstone, item, how)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tombstone_effect_item ON tombstone_effect(item);
-- The entry versions derived from agents' memory files (spec: Native
-- memories): every store derives them from the memory streams it parses, so
-- they are never sent to another store.
CREATE TABLE IF NOT EXISTS imported_entry (
  entry_id TEXT PRIMARY KEY,        -- entry.id
  event_id TEXT NOT NULL            -- the memory stream line's event it is derived from
) WITHOUT ROWID;
-- What is hidden now, each item with one forget in effect that covers it.
-- Every read filters on these.
CREATE TABLE IF NOT EXISTS forgotten_entry (
  entry_id  TEXT PRIMARY KEY,
  tombstone TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS excluded_event (
  seq       INTEGER PRIMARY KEY,    -- event.seq, what queries filter on
  event_id  TEXT NOT NULL UNIQUE,
  tombstone TEXT NOT NULL
);
-- Administrative actions: ids and counts only, never text or reasons.
CREATE TABLE IF NOT EXISTS audit_log (
  seq     INTEGER PRIMARY KEY,
  at      INTEGER NOT NULL,
  actor   TEXT NOT NULL,
  channel TEXT NOT NULL,
  action  TEXT NOT NULL,
  details TEXT NOT NULL             -- JSON of ids and counts
);
CREATE TRIGGER IF NOT EXISTS tombstone_insert AFTER INSERT ON tombstone
BEGIN
  INSERT INTO change_log(kind, id, origin, at) VALUES ('tombstone', new.id, new.origin, new.created_at);
END;
CREATE TRIGGER IF NOT EXISTS tombstone_no_update BEFORE UPDATE ON tombstone
BEGIN SELECT RAISE(ABORT, 'tombstones are never changed (invariant 2)'); END;
CREATE TRIGGER IF NOT EXISTS tombstone_no_delete BEFORE DELETE ON tombstone
BEGIN SELECT RAISE(ABORT, 'tombstones are never deleted (invariant 2)'); END;
CREATE TRIGGER IF NOT EXISTS tombstone_meta_no_update BEFORE UPDATE ON tombstone_meta
BEGIN SELECT RAISE(ABORT, 'tombstones are never changed (invariant 2)'); END;
CREATE TRIGGER IF NOT EXISTS tombstone_meta_no_delete BEFORE DELETE ON tombstone_meta
BEGIN SELECT RAISE(ABORT, 'tombstones are never deleted (invariant 2)'); END;
CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS change_log_no_update BEFORE UPDATE ON change_log
BEGIN SELECT RAISE(ABORT, 'change_log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS change_log_no_delete BEFORE DELETE ON change_log
BEGIN SELECT RAISE(ABORT, 'change_log is append-only'); END;
)sql";

// scope_block of every event, at blocks of 2^bits arrivals: the events of a
// store older than its trigger.
std::string AddScopeBlocksSql(int bits) {
  const std::string block = "seq >> " + std::to_string(bits);
  return "INSERT OR IGNORE INTO scope_block(scope, block) SELECT DISTINCT 'project:' || project, " +
         block +
         " FROM event WHERE project IS NOT NULL UNION SELECT DISTINCT 'source:' || source, " +
         block + " FROM event";
}

// scope_block as events arrive, at blocks of 2^kScopeBlockBits arrivals
// (kScopeBlocksVersion; version 5 made it at blocks of 4,096).
std::string ScopeTriggerSql() {
  const std::string block = ScopeBlockSql("new.seq");
  return "CREATE TRIGGER event_scope AFTER INSERT ON event\n"
         "BEGIN\n"
         "  INSERT OR IGNORE INTO scope_block(scope, block)\n"
         "    SELECT 'project:' || new.project, " +
         block +
         " WHERE new.project IS NOT NULL;\n"
         "  INSERT OR IGNORE INTO scope_block(scope, block) VALUES ('source:' || new.source, " +
         block +
         ");\n"
         "END";
}

// Migration 9 (core/erase/erase.hpp): the erasure tables, and the update
// triggers of event, entry and entry_source split so that the one update
// they let through is an erasure's: the text (a quote) set to '' (NULL) of
// a row an erasure lists.  raw_chunk keeps its triggers: a rewritten frame
// is found through frame_erasure.
const char* const kErasureSql = R"sql(
CREATE TABLE erasure (
  seq        INTEGER PRIMARY KEY,
  id         TEXT NOT NULL UNIQUE,  -- ers_ + 24 hex
  forget     TEXT NOT NULL UNIQUE,  -- the forget whose coverage it erased (tombstone.id)
  reason     TEXT NOT NULL,
  author     TEXT NOT NULL,         -- user@<device>
  created_at INTEGER NOT NULL,      -- ms UTC, when it was recorded (pending)
  done_at    INTEGER,               -- ms UTC, when every step was done; NULL while pending
  lines      INTEGER NOT NULL,      -- mirror lines replaced by a filler
  events     INTEGER NOT NULL,      -- events whose text it removed
  entries    INTEGER NOT NULL,      -- entry versions whose text it removed
  frames     INTEGER NOT NULL DEFAULT 0 -- sealed frames rewritten
);
CREATE TRIGGER erasure_no_delete BEFORE DELETE ON erasure
BEGIN SELECT RAISE(ABORT, 'erasures are records: never deleted'); END;
-- The mirror lines an erasure replaced, and those it must replace in any
-- later generation of the file (through the events: erased_event).
CREATE TABLE erased_line (
  file_id INTEGER NOT NULL REFERENCES raw_file(id),
  line    INTEGER NOT NULL,         -- 1-based line of that mirror's content
  erasure INTEGER NOT NULL,         -- erasure.seq
  PRIMARY KEY (file_id, line)
) WITHOUT ROWID;
CREATE TABLE erased_event (
  seq     INTEGER PRIMARY KEY,      -- event.seq
  erasure INTEGER NOT NULL          -- erasure.seq
);
CREATE TABLE erased_entry (
  seq     INTEGER PRIMARY KEY,      -- entry.seq
  erasure INTEGER NOT NULL          -- erasure.seq
);
-- A sealed frame rewritten with fillers: its replacement, appended to the
-- same .zst.  The latest (greatest file_offset) is the frame's content.
CREATE TABLE frame_erasure (
  file_id        INTEGER NOT NULL REFERENCES raw_file(id),
  content_offset INTEGER NOT NULL,  -- the frame's raw_chunk key
  file_offset    INTEGER NOT NULL,  -- where the replacement starts in <mirror>.zst
  file_length    INTEGER NOT NULL,
  erasure        INTEGER NOT NULL,  -- erasure.seq
  PRIMARY KEY (file_id, content_offset, file_offset)
) WITHOUT ROWID;
CREATE TRIGGER frame_erasure_no_change BEFORE UPDATE ON frame_erasure
BEGIN SELECT RAISE(ABORT, 'frame_erasure is append-only'); END;
DROP TRIGGER event_no_update;
CREATE TRIGGER event_no_update BEFORE UPDATE OF seq, id, source, session, ts, project, cwd,
  git_branch, role, kind, tool_name, call_id, is_error, agent, model, file_id, line ON event
BEGIN SELECT RAISE(ABORT, 'events are append-only (invariant 3)'); END;
CREATE TRIGGER event_erase_only BEFORE UPDATE OF text ON event
WHEN NEW.text <> '' OR NOT EXISTS (SELECT 1 FROM erased_event WHERE seq = OLD.seq)
BEGIN SELECT RAISE(ABORT, 'events are append-only (invariant 3)'); END;
DROP TRIGGER entry_no_update;
CREATE TRIGGER entry_no_update BEFORE UPDATE OF seq, id, kind, confidence, author, project,
  supersedes, root, valid_from, valid_to, created_at, origin ON entry
BEGIN SELECT RAISE(ABORT, 'entries change by supersession, never in place (invariant 3)'); END;
CREATE TRIGGER entry_erase_only BEFORE UPDATE OF text ON entry
WHEN NEW.text <> '' OR NOT EXISTS (SELECT 1 FROM erased_entry WHERE seq = OLD.seq)
BEGIN SELECT RAISE(ABORT, 'entries change by supersession, never in place (invariant 3)'); END;
DROP TRIGGER entry_source_no_update;
CREATE TRIGGER entry_source_no_update BEFORE UPDATE OF entry_id, event_id ON entry_source
BEGIN SELECT RAISE(ABORT, 'entry sources are append-only (invariant 3)'); END;
CREATE TRIGGER entry_source_erase_only BEFORE UPDATE OF quote ON entry_source
WHEN NEW.quote IS NOT NULL OR NOT EXISTS (SELECT 1 FROM erased_entry JOIN entry USING (seq)
                                          WHERE entry.id = OLD.entry_id)
BEGIN SELECT RAISE(ABORT, 'entry sources are append-only (invariant 3)'); END;
)sql";

}  // namespace

const std::vector<Migration>& Migrations() {
  // Version 1 is the first schema (tests/fixtures/schema/v1.sql); a new store
  // starts at version 3 (kSchemaSql).
  static const std::vector<Migration> kMigrations = {
      // Version 2 refilled event_cjk, which version 3 moves to index.db.
      {2, "event_cjk indexes every CJK letter as a token of its own", [](Db&) {}},
      {3, "the search indexes of events move to index.db",
       [](Db& db) {
         // message_fts and event_cjk were kept by the trigger event_index, so
         // that an index SQLite 3.40 had corrupted stopped every INSERT INTO
         // event.  index.db (a new format there too) builds them again.
         db.Exec("DROP TRIGGER event_index");
         DropFts5Table(db, "message_fts");  // even one SQLite 3.40 damaged
         DropFts5Table(db, "event_cjk");
         db.Exec("DROP VIEW IF EXISTS event_message");
         // Migration 5 makes the trigger again, without them.
       }},
      {4, "request keys: a retried write gets its first answer",
       [](Db& db) {
         db.Exec(R"sql(
-- The answers of writes, by the key their client sent with them
-- (core/store/request_keys.hpp): a retry within a day is answered from
-- here and not done again.
CREATE TABLE request_key (
  key    TEXT PRIMARY KEY,          -- the client's idempotency key (at most 200 bytes)
  op     TEXT NOT NULL,             -- the operation it was sent with (remember, forget, ...)
  answer TEXT NOT NULL,             -- the operation's answer, as it was returned
  at_ms  INTEGER NOT NULL           -- when it was first answered (ms UTC)
) WITHOUT ROWID;
CREATE INDEX request_key_at ON request_key(at_ms);
)sql");
       }},
      {5, "what every open of format 3 and 4 made: entries, forgetting, the scope index",
       [](Db& db) {
         db.Exec(kVersion5Head);
         db.Exec(kEntryFtsSql);
         db.Exec(kVersion5Tail);
         if (db.QueryInt("SELECT NOT EXISTS (SELECT 1 FROM scope_block) AND "
                         "EXISTS (SELECT 1 FROM event)"))
           db.Exec(AddScopeBlocksSql(12));
       }},
      {kLeafTitlesVersion,
       "titles that wait for the session they name; sessions' models derived again",
       [](Db& db) {
         db.Exec(R"sql(
-- Titles that name the conversation holding a line (a Claude Code summary's
-- leafUuid), waiting for that line's event (core/ingest/leaf_titles.hpp).
CREATE TABLE title_wait (
  id      TEXT PRIMARY KEY,         -- the title event's id, once it is one
  source  TEXT NOT NULL,
  leaf    TEXT NOT NULL,            -- native id of the line whose session it names
  text    TEXT NOT NULL,
  manual  INTEGER NOT NULL,         -- 1 when the user gave it
  ts      INTEGER NOT NULL,         -- ms UTC
  file_id INTEGER NOT NULL REFERENCES raw_file(id), -- provenance (invariant 1)
  line    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX title_wait_source ON title_wait(source);
)sql");
         // A session's model is its latest real one: not "<synthetic>" (a
         // stand-in on the harness's lines), not a sub-agent's
         // (core/store/sessions.hpp, RealModelSql, as of this version).
         db.Exec(
             "UPDATE session SET model = (SELECT model FROM event WHERE session = session.id "
             "AND model IS NOT NULL AND model NOT LIKE '<%>' AND agent IS NULL "
             "ORDER BY ts DESC, seq DESC LIMIT 1)");
       }},
      {kSessionProjectsVersion,
       "a session keeps its project inside its first working directory; parent links",
       [](Db& db) {
         db.Exec(R"sql(
-- Where each session works (ProjectSessions, core/store/sessions.hpp): a
-- cwd inside the session's first working directory has the session's
-- project; only a move out of that tree changes it.  Derived from the
-- visible events; the project of an event is read through here.
CREATE TABLE session_cwd (
  session  TEXT NOT NULL,           -- session.id
  cwd      TEXT NOT NULL,           -- a cwd its events name
  first_ts INTEGER NOT NULL,        -- the earliest of them (ms UTC)
  project  TEXT NOT NULL,           -- the session's project in that cwd
  PRIMARY KEY (session, cwd)
) WITHOUT ROWID;
CREATE INDEX session_cwd_project ON session_cwd(project);
-- The session another session was forked from (RelinkSessions), derived
-- from its link events: meta, tool_name 'parent', the parent's id as text.
ALTER TABLE session ADD COLUMN parent TEXT;
CREATE INDEX event_parent ON event(session, seq) WHERE kind = 'meta' AND tool_name IS 'parent';
)sql");
         // Stores made before: every session's projects derived again.
         ProjectSessions(db);
         RelinkSessions(db);
       }},
      {kRefsVersion, "short references: every id's hash, in hash order",
       [](Db& db) {
         db.Exec(R"sql(
-- Short references (core/store/refs.hpp): the hash of every id, ordered,
-- so that how many characters make a reference unique, and which ids a
-- typed reference or prefix names, are index seeks.  Derived from the ids;
-- kept by the triggers below.
CREATE TABLE ref (
  h    INTEGER NOT NULL,  -- origin_ref(id): SHA-256's first 64 bits, top bit flipped
  kind INTEGER NOT NULL,  -- 0 event, 1 entry version, 2 session, 3 tombstone
  item NOT NULL,          -- event.seq, entry.seq, tombstone.seq; session.id
  PRIMARY KEY (h, kind, item)
) WITHOUT ROWID;
CREATE TRIGGER ref_event AFTER INSERT ON event
BEGIN INSERT OR IGNORE INTO ref(h, kind, item) VALUES (origin_ref(NEW.id), 0, NEW.seq); END;
CREATE TRIGGER ref_entry AFTER INSERT ON entry
BEGIN INSERT OR IGNORE INTO ref(h, kind, item) VALUES (origin_ref(NEW.id), 1, NEW.seq); END;
CREATE TRIGGER ref_session AFTER INSERT ON session
BEGIN INSERT OR IGNORE INTO ref(h, kind, item) VALUES (origin_ref(NEW.id), 2, NEW.id); END;
CREATE TRIGGER ref_tombstone AFTER INSERT ON tombstone
BEGIN INSERT OR IGNORE INTO ref(h, kind, item) VALUES (origin_ref(NEW.id), 3, NEW.seq); END;
-- The ids already here, in hash order (appending to the index is fastest).
INSERT INTO ref(h, kind, item)
  SELECT origin_ref(id), 0, seq FROM event UNION ALL
  SELECT origin_ref(id), 1, seq FROM entry UNION ALL
  SELECT origin_ref(id), 2, id FROM session UNION ALL
  SELECT origin_ref(id), 3, seq FROM tombstone
  ORDER BY 1, 2, 3;
)sql");
       }},
      {kErasureVersion, "erasure: the recorded exception to invariant 3, for secrets",
       [](Db& db) { db.Exec(kErasureSql); }},
      {kGeneratedCursorVersion,
       "generated_cursor: where a generated stream goes on from an erased line",
       [](Db& db) {
         db.Exec(R"sql(
-- A generated stream reads where to go on from its last mirrored line
-- (SourceAdapter::Generate).  When that line is a filler (core/erase), its
-- cursor is here: what Generate read from it, without its text
-- (SourceAdapter::CursorOf), kept by erase, or by ingestion when it mirrors
-- a generated line of an erased event as a filler.
CREATE TABLE generated_cursor (
  file_id INTEGER PRIMARY KEY REFERENCES raw_file(id),
  line    INTEGER NOT NULL,         -- the 1-based line of the mirror it stands for
  cursor  TEXT NOT NULL             -- SourceAdapter::CursorOf of that line
);
)sql");
       }},
      {kTokensVersion, "api_token: a hub's access tokens",
       [](Db& db) {
         db.Exec(R"sql(
-- A hub's access tokens (core/hub/tokens.hpp): the SHA-256 of each, never
-- the token.  A name has at most one active token; a revoked one stays.
CREATE TABLE api_token (
  seq        INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,         -- the device it is bound to (or a cloud agent's name)
  hash       TEXT NOT NULL UNIQUE,  -- SHA-256 of the token, lower-case hex
  created_at INTEGER NOT NULL,      -- ms UTC
  revoked_at INTEGER                -- ms UTC; NULL while it is active
);
CREATE UNIQUE INDEX api_token_active ON api_token(name) WHERE revoked_at IS NULL;
CREATE TRIGGER api_token_no_delete BEFORE DELETE ON api_token
BEGIN SELECT RAISE(ABORT, 'tokens are revoked, never deleted'); END;
CREATE TRIGGER api_token_revoke_only BEFORE UPDATE ON api_token
WHEN OLD.revoked_at IS NOT NULL OR NEW.revoked_at IS NULL OR NEW.name IS NOT OLD.name
  OR NEW.hash IS NOT OLD.hash OR NEW.created_at IS NOT OLD.created_at
BEGIN SELECT RAISE(ABORT, 'a token is only ever revoked'); END;
)sql");
       }},
      {kChangeLogIdVersion, "change_log_id: the rows change_log holds for one entry or tombstone",
       [](Db& db) { db.Exec("CREATE INDEX change_log_id ON change_log(kind, id, seq)"); }},
      {kEntryFtsInsertVersion, "entry_fts: written by the insert of an entry, not by its trigger",
       [](Db& db) {
         db.Exec(R"sql(
DROP TRIGGER entry_insert;
CREATE TRIGGER entry_insert AFTER INSERT ON entry
BEGIN
  INSERT INTO change_log(kind, id, origin, at) VALUES ('entry', new.id, new.origin, new.created_at);
END;
)sql");
       }},
      {kEventLengthVersion, "event_seq_ts: each event's length too, for ranking without docsize",
       [](Db& db) {
         db.Exec(
             "DROP INDEX event_seq_ts;"
             "CREATE INDEX event_seq_ts ON event(seq, ts, length(text));");
       }},
      {kScopeBlocksVersion, "scope_block: blocks of 256 arrivals, filled again from the events",
       [](Db& db) {
         db.Exec("DROP TRIGGER event_scope; DELETE FROM scope_block;");
         db.Exec(ScopeTriggerSql());
         // Every event's blocks: of its source, of the project its cwd
         // names, and of the project its session has in that cwd
         // (session_cwd), as the trigger and ingestion (AddArrivals) add them.
         db.Exec(AddScopeBlocksSql(kScopeBlockBits));
         AddProjectBlocks(db, 0);
       }},
      {kErasureOriginVersion, "erasure: its origin, and erasures in change_log, to replicate",
       [](Db& db) {
         db.Exec(R"sql(
-- The store that made an erasure (the same on every store it reaches), and
-- whether what it covers here is recorded yet: one received from another
-- store (core/forget/replica.hpp) is planned when it runs here.
ALTER TABLE erasure ADD COLUMN origin TEXT;
ALTER TABLE erasure ADD COLUMN planned INTEGER NOT NULL DEFAULT 1;
-- Those made before were made here: a store that forgot has its name.
UPDATE erasure SET origin = (SELECT value FROM setting WHERE key = 'store.name');
INSERT INTO change_log(kind, id, origin, at)
  SELECT 'erasure', id, origin, created_at FROM erasure
  WHERE done_at IS NOT NULL AND origin IS NOT NULL ORDER BY seq;
)sql");
       }},
  };
  return kMigrations;
}

}  // namespace origin
