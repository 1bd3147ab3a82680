package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// sqliteDialect is SQLite's: ? placeholders, migrations serialised by the
// immediate transaction itself, changes announced within the process.
var sqliteDialect = dialect{name: "sqlite", serial: "INTEGER PRIMARY KEY AUTOINCREMENT"}

// OpenSQLite opens (creating it if needed) the SQLite database at path and
// applies the migrations. It is for one replica: several processes may open
// one file, but only the process that makes a change is notified of it.
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate") // writers take the lock at BEGIN: no upgrade deadlocks
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(8)
	s := &sqlStore{db: db, d: sqliteDialect, subs: newBroker()}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	return s, nil
}
