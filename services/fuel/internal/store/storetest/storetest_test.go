package storetest

import (
	"context"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// TestFreshMigratedDatabases: each SQLitePath and each PostgresURL is a
// database of its own, already migrated (a vehicle is stored at once) and
// empty.
func TestFreshMigratedDatabases(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		newDB func(testing.TB) string
		open  func(context.Context, string) (*store.Store, error)
	}{
		{"sqlite", SQLitePath, store.OpenSQLite},
		{"postgres", PostgresURL, store.OpenPostgres},
	} {
		t.Run(tc.name, func(t *testing.T) {
			open := func(where string) *store.Store {
				st, err := tc.open(ctx, where)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = st.Close() })
				return st
			}
			a, b := tc.newDB(t), tc.newDB(t)
			if a == b {
				t.Fatalf("the same database twice: %s", a)
			}
			first := open(a)
			v := fuel.Vehicle{Name: "Golf", FuelType: "diesel"}
			if err := first.CreateVehicle(ctx, &v); err != nil {
				t.Fatalf("a vehicle in a copied database: %v", err)
			}
			if vs, err := first.ListVehicles(ctx); err != nil || len(vs) != 1 {
				t.Fatalf("the first database lists %v, %v; want the Golf", vs, err)
			}
			if vs, err := open(b).ListVehicles(ctx); err != nil || len(vs) != 0 {
				t.Fatalf("the second database lists %v, %v; want none", vs, err)
			}
		})
	}
}
