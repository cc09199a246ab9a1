package storetest

import (
	"context"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// TestSQLitePathIsAFreshMigratedDatabase: each path is a database of its
// own, already migrated (a vehicle is stored at once) and empty.
func TestSQLitePathIsAFreshMigratedDatabase(t *testing.T) {
	ctx := context.Background()
	open := func(path string) *store.Store {
		st, err := store.OpenSQLite(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	a, b := SQLitePath(t), SQLitePath(t)
	if a == b {
		t.Fatalf("the same path twice: %s", a)
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
}
