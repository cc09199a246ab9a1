package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// TestSQLiteReadsDuringWriteTransaction holds a write transaction open on
// SQLite's writer (an Once whose create waits) and reads meanwhile, from
// several goroutines and under a short deadline: the reads run on the
// readers, see the last committed state and wait for nothing.
func TestSQLiteReadsDuringWriteTransaction(t *testing.T) {
	s := MustOpen(t, SQLite)
	ctx := context.Background()
	v := fuel.Vehicle{Name: "read while writing", FuelType: "diesel"}
	if err := s.CreateVehicle(ctx, &v); err != nil {
		t.Fatal(err)
	}
	SeedRefuels(t, s, v.ID, 100)

	written, release := make(chan struct{}), make(chan struct{})
	onceErr := make(chan error, 1)
	go func() {
		_, _, err := s.Once(ctx, fuel.IdempotencyKey{Key: "k", Method: "POST", Path: "/api/refuels", RequestHash: "h"},
			func(tx fuel.Store) (fuel.StoredAnswer, error) {
				r := fuel.Refuel{VehicleID: v.ID, RefuelTime: base, Odometer: dec("1"), FuelType: "B7", Liters: dec("1"), TotalAmount: dec("1")}
				if err := tx.CreateRefuel(ctx, &r); err != nil {
					return fuel.StoredAnswer{}, err
				}
				close(written)
				<-release
				return fuel.StoredAnswer{Status: 200, Body: []byte("{}")}, nil
			})
		onceErr <- err
	}()
	select {
	case <-written:
	case err := <-onceErr:
		t.Fatalf("Once ended before its create waited: %v", err)
	}

	const readers = 8
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for i := 0; i < readers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			rs, err := s.ListRefuels(rctx, fuel.RefuelFilter{VehicleID: v.ID})
			if err == nil && len(rs) != 100 {
				err = fmt.Errorf("listed %d refuels, want the 100 committed ones", len(rs))
			}
			if err == nil {
				var st fuel.Statistics
				st, err = s.Statistics(rctx, v.ID)
				if err == nil && st.TotalRecords != 100 {
					err = fmt.Errorf("statistics of %d records, want 100", st.TotalRecords)
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(release)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("read during the write transaction: %v", err)
		}
	}
	if err := <-onceErr; err != nil {
		t.Fatal(err)
	}
	if n, err := s.CountRows(ctx, "refuels"); err != nil || n != 101 {
		t.Errorf("after commit: %d refuels (%v), want 101", n, err)
	}
}

// TestSQLiteConcurrentWriters races writers that create default vehicles
// and refuels beside readers: the one writer connection serialises them,
// so none fails (no SQLITE_BUSY), one default remains and every record
// is stored.
func TestSQLiteConcurrentWriters(t *testing.T) {
	s := MustOpen(t, SQLite)
	ctx := context.Background()
	const writers, rounds = 8, 20
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	done := make(chan struct{})
	var readersWG sync.WaitGroup
	for i := 0; i < 4; i++ {
		readersWG.Add(1)
		go func() {
			defer readersWG.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := s.ListVehicles(ctx); err != nil {
					fail(fmt.Errorf("list vehicles: %w", err))
				}
			}
		}()
	}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				v := fuel.Vehicle{Name: fmt.Sprintf("w%d-%d", w, i), FuelType: "diesel", DefaultVehicle: true}
				if err := s.CreateVehicle(ctx, &v); err != nil {
					fail(fmt.Errorf("create vehicle: %w", err))
					continue
				}
				r := fuel.Refuel{VehicleID: v.ID, RefuelTime: base, Odometer: dec("1"), FuelType: "B7", Liters: dec("1"), TotalAmount: dec("1")}
				if err := s.CreateRefuel(ctx, &r); err != nil {
					fail(fmt.Errorf("create refuel: %w", err))
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	readersWG.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	vs, err := s.ListVehicles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defaults := 0
	for _, v := range vs {
		if v.DefaultVehicle {
			defaults++
		}
	}
	if len(vs) != writers*rounds || defaults != 1 {
		t.Errorf("%d vehicles with %d defaults, want %d with 1", len(vs), defaults, writers*rounds)
	}
	if n, err := s.CountRows(ctx, "refuels"); err != nil || n != writers*rounds {
		t.Errorf("%d refuels (%v), want %d", n, err, writers*rounds)
	}
}

// TestSQLiteReadersAreReadOnly: a write sent to the read handle fails
// instead of competing with the writer.
func TestSQLiteReadersAreReadOnly(t *testing.T) {
	s := MustOpen(t, SQLite)
	if err := s.read.Exec("DELETE FROM vehicles").Error; err == nil {
		t.Fatal("a reader connection deleted rows")
	}
}

// TestSQLiteSync checks when each opening syncs the writer's commits:
// NORMAL (1) by default, FULL (2) for OpenSQLiteDurable; the readers never
// write, so their setting does not matter.
func TestSQLiteSync(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		open func(context.Context, string) (*Store, error)
		want int
	}{
		{"default", OpenSQLite, 1},
		{"durable", OpenSQLiteDurable, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.open(ctx, t.TempDir()+"/fuel.db")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got int
			if err := s.write.WithContext(ctx).Raw("PRAGMA synchronous").Row().Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("PRAGMA synchronous = %d, want %d", got, tc.want)
			}
			var mode string
			if err := s.write.WithContext(ctx).Raw("PRAGMA journal_mode").Row().Scan(&mode); err != nil || mode != "wal" {
				t.Errorf("journal_mode = %q (%v), want wal", mode, err)
			}
		})
	}
}
