package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"
)

// The write-ahead log's bounds on SQLite. SQLite checkpoints the WAL by
// itself after a commit that takes it past 1 000 pages, but only
// passively: it copies the pages back into the database and starts the
// WAL over only when no reader is still reading from it. Under steady
// reads beside the writes (every POST of a refuel reads too), some reader
// always is, so the WAL never starts over: 30 000 refuels posted through
// the service grew it to 0.7-0.9 GB, and every page a reader looks up walks
// its hash tables (a fifth of a POST's CPU in the profile;
// proto-docs/fuel-decisions.md, "Hot paths").
var (
	// walCheckEvery is how often the checkpointer looks at the WAL's size;
	// 0 runs none (a test's way to show the growth it prevents).
	walCheckEvery = time.Second
	// walLimit is the WAL size, in bytes, past which the checkpointer
	// restarts it, and the size SQLite truncates the file back to when it
	// restarts (journal_size_limit): SQLite's own threshold, 1 000 pages
	// of 4 KiB.
	walLimit int64 = 4 << 20
)

// busyTimeoutMS is how long, in milliseconds, a connection of the store
// waits for another's lock before SQLITE_BUSY (a writer of another
// process, a checkpoint).
const busyTimeoutMS = 10000

// checkpointWaitMS is how long a checkpoint waits for the readers still in
// the WAL: the writer connection, and so every write, waits with it.
// Readers of a request take milliseconds; a backup's VACUUM INTO reads for
// as long as the copy takes, and the checkpoint gives way to it rather than
// stall the writes (the next tick tries again).
const checkpointWaitMS = 200

// walTicks is when the checkpointer looks at the WAL: every every, by a
// ticker. A test replaces it to tick when it chooses (between two
// commits), so that what it shows does not hang on the scheduler of a
// loaded machine.
var walTicks = func(every time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(every)
	return t.C, t.Stop
}

// checkpointer restarts a SQLite database's WAL, through the writer,
// whenever the file has grown past walLimit: PRAGMA
// wal_checkpoint(RESTART) copies its pages into the database, waits (at
// most checkpointWaitMS) for the readers still reading from it, which take
// milliseconds, and makes the next commit write it from the start.
// Readers that begin meanwhile read the database file, since every page is
// back in it. Writes wait behind it on the one writer connection.
type checkpointer struct {
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
}

// startCheckpointer starts the checkpointer of the WAL file wal, whose
// database writer is the writer's pool; nil when walCheckEvery is 0.
func startCheckpointer(writer *sql.DB, wal string) *checkpointer {
	every, limit := walCheckEvery, walLimit
	if every <= 0 {
		return nil
	}
	c := &checkpointer{stop: make(chan struct{})}
	c.done.Go(func() {
		tick, stopTicks := walTicks(every)
		defer stopTicks()
		for {
			select {
			case <-c.stop:
				return
			case <-tick:
			}
			if fi, err := os.Stat(wal); err != nil || fi.Size() < limit {
				continue
			}
			if err := restartWAL(writer); err != nil {
				slog.Warn("sqlite: the write-ahead log could not be restarted; it is tried again", "wal", wal, "err", err)
			}
		}
	})
	return c
}

// restartWAL runs the checkpoint on the writer's connection, its busy
// timeout lowered to checkpointWaitMS for it. PRAGMA wal_checkpoint
// answers busy = 1 when it gave up waiting for a reader; the next tick
// tries again. Should the busy timeout not be set back, the connection is
// dropped (the pool opens a new one with the DSN's pragmas) rather than
// kept with a short one.
func restartWAL(writer *sql.DB) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := writer.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.Itoa(checkpointWaitMS)); err != nil {
		return err
	}
	var busy, frames, copied int
	err = conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(RESTART)").Scan(&busy, &frames, &copied)
	if _, resetErr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA busy_timeout = "+strconv.Itoa(busyTimeoutMS)); resetErr != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return errors.Join(err, fmt.Errorf("set the busy timeout back: %w", resetErr))
	}
	if err != nil {
		return err
	}
	if busy != 0 {
		slog.Debug("sqlite: a reader kept the write-ahead log past the checkpoint's wait; tried again at the next tick",
			"pages", frames, "copied", copied)
	}
	return nil
}

// close stops the checkpointer and waits for a checkpoint in progress.
func (c *checkpointer) close() {
	if c == nil {
		return
	}
	c.stopOnce.Do(func() { close(c.stop) })
	c.done.Wait()
}
