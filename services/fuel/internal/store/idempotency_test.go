package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/accounts"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// TestRunPurge runs the background purge with a short ticker:
// it deletes the expired keys and password attempts while requests keep
// creating records, and returns once its context is cancelled.
func TestRunPurge(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		now := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
		clock := make(chan time.Time, 1)
		clock <- now
		s.Now = func() time.Time { t := <-clock; clock <- t; return t }
		// Three purge batches of keys: a few stored by Once, the rest
		// copies of the first made by one statement (1 100 calls of Once
		// took seconds under the race detector).
		const keys, stored = 1100, 5
		for i := 0; i < stored; i++ {
			k := fuel.IdempotencyKey{Key: fmt.Sprintf("key-%d", i), Method: "POST", Path: "/api/vehicles", RequestHash: "h"}
			if _, _, err := s.Once(ctx, k, func(fuel.Store) (fuel.StoredAnswer, error) {
				return fuel.StoredAnswer{Status: 200, Body: []byte("{}")}, nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.write.Exec(`WITH RECURSIVE n(i) AS (SELECT CAST(? AS integer) UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO idempotency_keys (user_id, idem_key, method, path, request_hash, status, body, created_at)
			SELECT k.user_id, 'key-' || n.i, k.method, k.path, k.request_hash, k.status, k.body, k.created_at
			FROM n, idempotency_keys k WHERE k.idem_key = 'key-0'`, stored, keys-1).Error; err != nil {
			t.Fatal(err)
		}
		if n, err := s.CountRows(ctx, "idempotency_keys"); err != nil || n != keys {
			t.Fatalf("%d idempotency keys (%v), want %d", n, err, keys)
		}
		if _, _, err := s.TakeAttempt(ctx, accounts.AttemptsByAddress, "198.51.100.1", 10); err != nil {
			t.Fatal(err)
		}
		<-clock
		clock <- now.Add(fuel.IdempotencyTTL + time.Minute)

		purgeCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.RunPurge(purgeCtx, time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
		}()
		// Requests go on while the purge runs.
		for {
			v := fuel.Vehicle{Name: "during purge", FuelType: "diesel"}
			if err := s.CreateVehicle(ctx, &v); err != nil {
				t.Fatal(err)
			}
			n, err := s.CountRows(ctx, "idempotency_keys")
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.CountRows(ctx, "password_attempts")
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 && m == 0 {
				break
			}
		}
		stop()
		<-done
	})
}

// TestOnceBoundStoreStaysInTransaction writes a vehicle and refuels through
// the store that Once hands to create, then reads them back through every
// read method of that store under a short deadline. The rows are not
// committed yet, so only the transaction sees them: a read that went to a
// pool would find nothing (PostgreSQL, SQLite's readers) or wait for the
// connection the transaction holds (SQLite's writer) until the deadline.
// Then the write methods run in it too, and an error of create leaves
// nothing behind.
func TestOnceBoundStoreStaysInTransaction(t *testing.T) {
	forEachDialect(t, func(t *testing.T, s *Store) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		key := func(k string) fuel.IdempotencyKey {
			return fuel.IdempotencyKey{Key: k, Method: "POST", Path: "/api/refuels", RequestHash: "h"}
		}
		// within runs one read of the bound store with a deadline well
		// below the test's: a read waiting for the pool fails here.
		within := func(t *testing.T, name string, read func(ctx context.Context) error) {
			t.Helper()
			rctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			if err := read(rctx); err != nil {
				t.Errorf("%s in the transaction: %v", name, err)
			}
		}
		const n = 3
		var vehicleID uint64
		_, _, err := s.Once(ctx, key("reads"), func(tx fuel.Store) (fuel.StoredAnswer, error) {
			v := fuel.Vehicle{Name: "in tx", FuelType: "diesel", DefaultVehicle: true}
			if err := tx.CreateVehicle(ctx, &v); err != nil {
				return fuel.StoredAnswer{}, err
			}
			vehicleID = v.ID
			var written []fuel.Refuel
			for i := 0; i < n; i++ {
				r := fuel.Refuel{VehicleID: v.ID, RefuelTime: base.Add(time.Duration(i) * time.Hour),
					Odometer: dec("1000").Add(dec("500").Mul(decimal.NewFromInt(int64(i)))), FuelType: "B7",
					Liters: dec("40"), TotalAmount: dec("60"), IsFull: true}
				if err := tx.CreateRefuel(ctx, &r); err != nil {
					return fuel.StoredAnswer{}, err
				}
				written = append(written, r)
			}

			within(t, "Vehicle", func(ctx context.Context) error {
				_, err := tx.Vehicle(ctx, v.ID)
				return err
			})
			within(t, "ListVehicles", func(ctx context.Context) error {
				vs, err := tx.ListVehicles(ctx)
				if err == nil && (len(vs) != 1 || vs[0].ID != v.ID) {
					err = fmt.Errorf("got %+v, want the vehicle written", vs)
				}
				return err
			})
			within(t, "Refuel", func(ctx context.Context) error {
				_, err := tx.Refuel(ctx, written[0].ID)
				return err
			})
			within(t, "ListRefuels", func(ctx context.Context) error {
				rs, err := tx.ListRefuels(ctx, fuel.RefuelFilter{VehicleID: v.ID})
				if err == nil && len(rs) != n {
					err = fmt.Errorf("%d refuels, want %d", len(rs), n)
				}
				return err
			})
			within(t, "Statistics", func(ctx context.Context) error {
				st, err := tx.Statistics(ctx, v.ID)
				if err == nil && (st.TotalRecords != n || st.LastRefuel == nil || st.Samples != n-1) {
					err = fmt.Errorf("got %+v, want %d records and %d samples", st, n, n-1)
				}
				return err
			})
			within(t, "MonthlyStatistics", func(ctx context.Context) error {
				ms, err := tx.MonthlyStatistics(ctx, v.ID, fuel.MonthlyQuery{})
				if err == nil && (len(ms.Months) != 1 || ms.Months[0].Records != n) {
					err = fmt.Errorf("got %+v, want one month of %d records", ms, n)
				}
				return err
			})
			within(t, "ExportRefuels", func(ctx context.Context) error {
				got := 0
				err := tx.ExportRefuels(ctx, v.ID, func(fuel.Refuel) error { got++; return nil })
				if err == nil && got != n {
					err = fmt.Errorf("exported %d, want %d", got, n)
				}
				return err
			})
			within(t, "ImportRefuels dry run", func(ctx context.Context) error {
				res, err := tx.ImportRefuels(ctx, v.ID, written, true)
				if err == nil && res.Skipped != n {
					err = fmt.Errorf("got %+v, want every record skipped as stored", res)
				}
				return err
			})
			within(t, "CountRows", func(ctx context.Context) error {
				got, err := tx.(interface {
					CountRows(context.Context, string) (int64, error)
				}).CountRows(ctx, "refuels")
				if err == nil && got != n {
					err = fmt.Errorf("%d rows, want %d", got, n)
				}
				return err
			})
			within(t, "Ping", tx.Ping)

			// The writes of the bound store, each reading its row back.
			within(t, "UpdateVehicle", func(ctx context.Context) error {
				name := "renamed"
				_, err := tx.UpdateVehicle(ctx, v.ID, fuel.VehicleUpdate{Name: &name})
				return err
			})
			within(t, "SetDefaultVehicle", func(ctx context.Context) error {
				_, err := tx.SetDefaultVehicle(ctx, v.ID)
				return err
			})
			within(t, "UpdateRefuel", func(ctx context.Context) error {
				remark := "updated"
				_, err := tx.UpdateRefuel(ctx, written[0].ID, fuel.RefuelUpdate{Remark: &remark})
				return err
			})
			within(t, "DeleteRefuel", func(ctx context.Context) error { return tx.DeleteRefuel(ctx, written[n-1].ID) })
			within(t, "ImportRefuels", func(ctx context.Context) error {
				moved := written[n-1]
				moved.RefuelTime = moved.RefuelTime.Add(24 * time.Hour)
				res, err := tx.ImportRefuels(ctx, v.ID, []fuel.Refuel{moved}, false)
				if err == nil && res.Imported != 1 {
					err = fmt.Errorf("got %+v, want one record imported", res)
				}
				return err
			})
			within(t, "nested Once", func(ctx context.Context) error {
				_, _, err := tx.Once(ctx, key("nested"), func(fuel.Store) (fuel.StoredAnswer, error) {
					return fuel.StoredAnswer{Status: 200, Body: []byte("{}")}, nil
				})
				return err
			})
			return fuel.StoredAnswer{Status: 200, Body: []byte("{}")}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Committed: the pools see what the transaction wrote.
		if got, err := s.Vehicle(ctx, vehicleID); err != nil || got.Name != "renamed" {
			t.Errorf("after commit: vehicle %+v, %v", got, err)
		}
		if n, err := s.CountRows(ctx, "refuels"); err != nil || n != 3 {
			t.Errorf("after commit: %d refuels (%v), want 3", n, err)
		}

		// An error of create rolls back every write of the bound store.
		failed := errors.New("create failed")
		_, _, err = s.Once(ctx, key("rolled back"), func(tx fuel.Store) (fuel.StoredAnswer, error) {
			v := fuel.Vehicle{Name: "rolled back", FuelType: "gasoline"}
			if err := tx.CreateVehicle(ctx, &v); err != nil {
				return fuel.StoredAnswer{}, err
			}
			r := fuel.Refuel{VehicleID: v.ID, RefuelTime: base, Odometer: dec("1"), FuelType: "95", Liters: dec("1"), TotalAmount: dec("1")}
			if err := tx.CreateRefuel(ctx, &r); err != nil {
				return fuel.StoredAnswer{}, err
			}
			return fuel.StoredAnswer{}, failed
		})
		if !errors.Is(err, failed) {
			t.Fatalf("Once = %v, want the error of create", err)
		}
		for table, want := range map[string]int64{"vehicles": 1, "refuels": 3, "idempotency_keys": 2} {
			if n, err := s.CountRows(ctx, table); err != nil || n != want {
				t.Errorf("after a failed create: %d %s (%v), want %d", n, table, err, want)
			}
		}
	})
}
