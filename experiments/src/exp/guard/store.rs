//! The cache (Redis, or an in-process LRU) and the database (SQLite) behind the guard.

use super::*;

/// The cache in front of the database.
pub(super) enum Cache {
    Redis(redis::Connection),
    /// Unbounded, so that it keeps every row it is given, as the Redis
    /// cache (no `maxmemory`, an hour's TTL) does within a run: both caches
    /// give the same counts.
    Lru(lru::LruCache<u64, String>),
}

impl Cache {
    pub(super) fn name(&self) -> &'static str {
        match self {
            Cache::Redis(_) => "redis",
            Cache::Lru(_) => "lru",
        }
    }

    pub(super) fn get(&mut self, id: u64) -> Result<Option<String>, Error> {
        match self {
            Cache::Redis(c) => command(c, "GET", key(id)),
            Cache::Lru(c) => Ok(c.get(&id).cloned()),
        }
    }

    pub(super) fn set(&mut self, id: u64, value: &str) -> Result<(), Error> {
        match self {
            Cache::Redis(c) => command(c, "SET", (key(id), value, "EX", TTL_SECONDS)),
            Cache::Lru(c) => {
                c.put(id, value.to_owned());
                Ok(())
            }
        }
    }

    pub(super) fn del(&mut self, id: u64) -> Result<(), Error> {
        match self {
            Cache::Redis(c) => command(c, "DEL", key(id)),
            Cache::Lru(c) => {
                c.pop(&id);
                Ok(())
            }
        }
    }

    pub(super) fn clear(&mut self) -> Result<(), Error> {
        match self {
            Cache::Redis(c) => command(c, "FLUSHDB", &[] as &[&str]),
            Cache::Lru(c) => {
                c.clear();
                Ok(())
            }
        }
    }
}

/// The cache's reply to the command `name` with `args`.
fn command<T: redis::FromRedisValue>(
    c: &mut redis::Connection,
    name: &str,
    args: impl redis::ToRedisArgs,
) -> Result<T, Error> {
    let what = format!("cache {name}");
    redis::cmd(name)
        .arg(args)
        .query(c)
        .map_err(Error::store(what))
}

pub(super) fn key(id: u64) -> String {
    format!("row:{id}")
}

/// The row stored under `id`.
pub(super) fn value_of(id: u64) -> String {
    format!("user-{id}")
}

/// The database: one table of rows keyed by id. Ids are u64 and SQLite's
/// keys i64: an id is stored as its bit pattern (`as i64`), lossless both ways.
pub(super) struct Database {
    pub(super) conn: rusqlite::Connection,
}

impl Database {
    /// A database file at `path` holding the rows `0..rows`. WAL with
    /// `synchronous = NORMAL`, so that a delete commits without waiting for
    /// the disk (as a server's database would batch it).
    pub(super) fn create(path: &Path, rows: u64) -> Result<Self, Error> {
        let sql = || Error::store(format!("SQLite {}", path.display()));
        let conn = rusqlite::Connection::open(path).map_err(sql())?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
             CREATE TABLE rows (id INTEGER PRIMARY KEY, name TEXT NOT NULL); BEGIN;",
        )
        .map_err(sql())?;
        let db = Self { conn };
        for id in 0..rows {
            db.insert(id)?;
        }
        db.conn.execute_batch("COMMIT").map_err(sql())?;
        Ok(db)
    }

    pub(super) fn get(&self, id: u64) -> Result<Option<String>, Error> {
        self.conn
            .prepare_cached("SELECT name FROM rows WHERE id = ?1")
            .and_then(|mut q| q.query_row([id as i64], |row| row.get(0)).optional())
            .map_err(Error::store(format!("SQLite query of {id}")))
    }

    pub(super) fn delete(&self, id: u64) -> Result<(), Error> {
        self.conn
            .prepare_cached("DELETE FROM rows WHERE id = ?1")
            .and_then(|mut q| q.execute([id as i64]))
            .map(drop)
            .map_err(Error::store(format!("SQLite delete of {id}")))
    }

    /// Every id in the table, read with one `SELECT` (in the table's
    /// order): what a static guard is built from.
    pub(super) fn ids(&self) -> Result<Vec<u64>, Error> {
        let what = "SQLite SELECT of every id";
        let mut q = self
            .conn
            .prepare_cached("SELECT id FROM rows")
            .map_err(Error::store(what))?;
        let ids = q
            .query_map([], |row| row.get::<_, i64>(0))
            .map_err(Error::store(what))?;
        ids.map(|id| id.map(|id| id as u64))
            .collect::<Result<_, _>>()
            .map_err(Error::store(what))
    }

    pub(super) fn insert(&self, id: u64) -> Result<(), Error> {
        self.conn
            .prepare_cached("INSERT INTO rows (id, name) VALUES (?1, ?2)")
            .and_then(|mut q| q.execute((id as i64, value_of(id))))
            .map(drop)
            .map_err(Error::store(format!("SQLite insert of {id}")))
    }
}
