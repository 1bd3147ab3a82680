package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// notifyChannel is the PostgreSQL channel of change notifications; the
// payload is the topic.
const notifyChannel = "toolgate_changes"

// migrationLock is the advisory lock key that serialises migrations.
const migrationLock = 7_318_001

// postgresDialect is PostgreSQL's: $n placeholders, migrations under an
// advisory lock, changes announced with NOTIFY.
var postgresDialect = dialect{
	name:   "postgres",
	dollar: true,
	serial: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
	lock:   fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", migrationLock),
	// Two replicas claiming at once each lock rows the other does not wait
	// for: they take different deliveries, or one of them none.
	skipLocked: " FOR UPDATE SKIP LOCKED",
	notify: func(ctx context.Context, tx *sql.Tx, topic string) error {
		_, err := tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, notifyChannel, topic)
		return err
	},
}

// OpenPostgres connects to PostgreSQL (dsn as pgx reads it, a URL or
// key=value pairs), applies the migrations and starts listening for the
// changes other replicas make. Logger, if not nil, hears of lost and
// regained listening connections.
func OpenPostgres(ctx context.Context, dsn string, logger *slog.Logger) (Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s := &sqlStore{db: db, subs: newBroker(), d: postgresDialect}
	if err := s.db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	lctx, cancel := context.WithCancel(context.Background())
	ready := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		listen(lctx, cfg, s.subs, logger, ready)
	}()
	select {
	case err := <-ready:
		if err != nil {
			cancel()
			<-done
			db.Close()
			return nil, fmt.Errorf("postgres: LISTEN: %w", err)
		}
	case <-ctx.Done():
		cancel()
		<-done
		db.Close()
		return nil, ctx.Err()
	}
	s.closers = append(s.closers, func() { cancel(); <-done })
	return s, nil
}

// listen holds a connection LISTENing on notifyChannel and publishes every
// notification; it reconnects with backoff after a failure and then
// signals every topic, since changes may have been missed. The first
// connection's result goes to ready.
func listen(ctx context.Context, cfg *pgx.ConnConfig, b *broker, logger *slog.Logger, ready chan<- error) {
	backoff := 100 * time.Millisecond
	first := true
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+notifyChannel)
		}
		if first {
			ready <- err
			if err != nil {
				if conn != nil {
					conn.Close(context.Background())
				}
				return
			}
			first = false
		} else if err == nil {
			logger.Info("store: listening for changes again")
			b.publishAll()
		}
		if err == nil {
			backoff = 100 * time.Millisecond
			for {
				n, werr := conn.WaitForNotification(ctx)
				if werr != nil {
					err = werr
					break
				}
				b.publish(n.Payload)
			}
		}
		if conn != nil {
			conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		logger.Warn("store: lost the notification connection", "err", err)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}
