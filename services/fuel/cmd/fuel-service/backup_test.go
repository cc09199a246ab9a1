package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/carhub/backend/services/fuel/internal/fuel"
	"github.com/carhub/backend/services/fuel/internal/refuelcsv"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// call sends a request with a JSON (or other) body and decodes a JSON
// answer into out (when not nil); the status must be 200.
func call(t *testing.T, method, url, contentType string, body io.Reader, out any) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, b)
		}
	}
}

// importRefuels stores n refuels of vehicle 1 through the CSV import.
func importRefuels(t *testing.T, base string, n int) {
	t.Helper()
	var csvBody bytes.Buffer
	w := refuelcsv.NewWriter(&csvBody)
	if err := w.WriteHeader(); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2001, 1, 1, 8, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		r := fuel.Refuel{VehicleID: 1, RefuelTime: start.Add(time.Duration(i) * 24 * time.Hour),
			Odometer: decimal.NewFromInt(int64(1000 + 500*i)), FuelType: "B7", Energy: fuel.Diesel,
			Liters: decimal.New(int64(3000+i%1000), -2), TotalAmount: decimal.New(int64(5000+i%777), -2),
			IsFull: i%4 != 1, StationName: fmt.Sprintf("station %d", i%13)}
		r.Normalize()
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "refuels.csv")
	part.Write(csvBody.Bytes())
	mw.Close()
	call(t, http.MethodPost, base+"/api/vehicles/1/refuels/import", mw.FormDataContentType(), &form, nil)
}

// refuelsByID lists vehicle 1's refuels through the API, as raw JSON
// objects sorted by id.
func refuelsByID(t *testing.T, base string) []map[string]any {
	t.Helper()
	var rs []map[string]any
	call(t, http.MethodGet, base+"/api/refuels?vehicle_id=1", "", nil, &rs)
	slices.SortFunc(rs, func(a, b map[string]any) int { return int(a["id"].(float64) - b["id"].(float64)) })
	return rs
}

// TestBackupWhileServing backs up the database of a running service while a
// client keeps posting refuels, restores the backup into a new directory,
// starts a service on it and compares every vehicle and refuel through
// the API: the restored refuels are the first k ever created (a state the
// source was in), k lies between the counts before and after the backup,
// and each is equal to the source's; so is each vehicle, but for the
// odometer that the later refuels moved on.
func TestBackupWhileServing(t *testing.T) {
	srcPath := filepath.Join(t.TempDir(), "src", "fuel.db")
	srcVars := map[string]string{"FUEL_SQLITE_PATH": srcPath}
	base := MustRun(t, srcVars)
	call(t, http.MethodPost, base+"/api/vehicles", "application/json",
		strings.NewReader(`{"name":"Golf","fuel_type":"diesel","default_vehicle":true}`), nil)
	call(t, http.MethodPost, base+"/api/vehicles", "application/json",
		strings.NewReader(`{"name":"Zoe","fuel_type":"electric","tank_capacity":52}`), nil)
	// Enough refuels that the backup takes a while: with 1 000 it took
	// about a second under the race detector, 143 refuels posted
	// meanwhile (3 000 made the test take 7 to 11 s, most of it comparing
	// them).
	const imported = 1000
	importRefuels(t, base, imported)

	var posted atomic.Int64
	stop := make(chan struct{})
	writerErr := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				writerErr <- nil
				return
			default:
			}
			body := fmt.Sprintf(`{"vehicle_id":1,"refuel_time":"2030-01-01T%02d:%02d:00Z","odometer":%d,"fuel_type":"B7",`+
				`"liters":40.5,"total_amount":70.47,"is_full":true,"remark":"posted during the backup %d"}`, i/60%24, i%60, 5_000_000+i, i)
			res, err := http.Post(base+"/api/refuels", "application/json", strings.NewReader(body))
			if err == nil {
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					err = fmt.Errorf("post %d: %d %s", i, res.StatusCode, b)
				}
			}
			if err != nil {
				writerErr <- err
				return
			}
			posted.Add(1)
		}
	}()
	for posted.Load() < 10 {
		time.Sleep(time.Millisecond)
	}

	dst := filepath.Join(t.TempDir(), "fuel-backup.db")
	var out bytes.Buffer
	before := imported + posted.Load() // committed, at least, when the backup began
	err := command(context.Background(), []string{"backup", "--to", dst}, env(srcVars), &out)
	after := imported + posted.Load() + 1 // committed, at most, when it ended (one post in flight)
	close(stop)
	if werr := <-writerErr; werr != nil {
		t.Fatalf("writer: %v", werr)
	}
	if err != nil {
		t.Fatalf("backup: %v", err)
	}
	var line struct {
		Msg      string
		Refuels  int64
		Vehicles int64
		TookMS   int64 `json:"took_ms"`
	}
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || line.Msg != "backup written" {
		t.Fatalf("backup said %q (%v)", out.String(), err)
	}
	t.Logf("backup of %d refuels in %d ms; %d posted in between", line.Refuels, line.TookMS, after-1-before)
	if after-1 == before {
		t.Fatal("no refuel was posted during the backup: the test proves nothing")
	}

	var wantVehicles []map[string]any
	call(t, http.MethodGet, base+"/api/vehicles", "", nil, &wantVehicles)
	source := refuelsByID(t, base)

	newVars := map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "restored", "fuel.db")}
	out.Reset()
	if err := command(context.Background(), []string{"restore", "--from", dst}, env(newVars), &out); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if !strings.Contains(out.String(), `"msg":"backup restored"`) {
		t.Errorf("restore said %q", out.String())
	}
	restoredBase := MustRun(t, newVars)
	var gotVehicles []map[string]any
	call(t, http.MethodGet, restoredBase+"/api/vehicles", "", nil, &gotVehicles)
	restored := refuelsByID(t, restoredBase)
	k := int64(len(restored))
	if k < before || k > after || k != line.Refuels {
		t.Fatalf("%d refuels restored (the backup reported %d), want between %d and %d", k, line.Refuels, before, after)
	}
	// A vehicle's current_odometer is its highest refuel reading (the Golf
	// has every refuel, the Zoe none): the restored one's is that of the
	// restored refuels, the source's moved on with the later posts.
	top := 0.0
	for _, r := range restored {
		top = max(top, r["odometer"].(float64))
	}
	for _, vs := range [][]map[string]any{gotVehicles, wantVehicles} {
		if len(vs) != 2 || vs[0]["name"] != "Golf" || vs[1]["current_odometer"] != 0.0 {
			t.Fatalf("vehicles %v: want the Golf first and the Zoe at 0 km", vs)
		}
	}
	if got := gotVehicles[0]["current_odometer"]; got != top {
		t.Errorf("restored Golf's current_odometer %v, want its last restored refuel's %v", got, top)
	}
	delete(gotVehicles[0], "current_odometer")
	delete(wantVehicles[0], "current_odometer")
	if !reflect.DeepEqual(gotVehicles, wantVehicles) {
		t.Errorf("vehicles: restored %v, source %v", gotVehicles, wantVehicles)
	}
	if !reflect.DeepEqual(restored, source[:k]) {
		for i := range restored {
			if !reflect.DeepEqual(restored[i], source[i]) {
				t.Fatalf("refuel %d: restored %v, source %v", i, restored[i], source[i])
			}
		}
	}
	var stats, wantStats map[string]any
	call(t, http.MethodGet, restoredBase+"/api/vehicles/2/statistics", "", nil, &stats)
	call(t, http.MethodGet, base+"/api/vehicles/2/statistics", "", nil, &wantStats)
	if !reflect.DeepEqual(stats, wantStats) {
		t.Errorf("statistics of the untouched vehicle: restored %v, source %v", stats, wantStats)
	}
	// The restored service takes new records.
	call(t, http.MethodPost, restoredBase+"/api/refuels", "application/json", strings.NewReader(
		`{"vehicle_id":2,"refuel_time":"2031-01-01T00:00:00Z","odometer":10,"fuel_type":"AC","liters":20,"total_amount":6,"is_full":true}`), nil)
}

// TestBackupCommandRefuses: what the commands refuse, and that a refused
// restore leaves the data location as it was.
func TestBackupCommandRefuses(t *testing.T) {
	ctx := context.Background()
	srcPath := filepath.Join(t.TempDir(), "fuel.db")
	s, err := store.OpenSQLite(ctx, srcPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateVehicle(ctx, &fuel.Vehicle{Name: "in the backup", FuelType: "diesel"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	backup := filepath.Join(t.TempDir(), "b.db")
	if err := command(ctx, []string{"backup", "--to", backup}, env(map[string]string{"FUEL_SQLITE_PATH": srcPath}), io.Discard); err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(t.TempDir(), "truncated.db")
	b, _ := os.ReadFile(backup)
	os.WriteFile(truncated, b[:len(b)-4096], 0o644)

	occupied := filepath.Join(t.TempDir(), "fuel.db")
	if err := os.WriteFile(occupied, []byte("the current database"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "fresh", "fuel.db")
	pg := "postgres://fuel:secret@db.invalid:5432/fuel"
	tests := []struct {
		name string
		args []string
		vars map[string]string
		want []string
	}{
		{"backup on postgres", []string{"backup", "--to", filepath.Join(t.TempDir(), "x")}, map[string]string{"DATABASE_URL": pg}, []string{"DATABASE_URL", "pg_dump --format=custom"}},
		{"restore on postgres", []string{"restore", "--from", backup}, map[string]string{"DATABASE_URL": pg}, []string{"DATABASE_URL", "pg_restore"}},
		{"backup without --to", []string{"backup"}, nil, []string{"--to FILE is required"}},
		{"restore without --from", []string{"restore", "--force"}, nil, []string{"--from FILE is required"}},
		{"unknown flag", []string{"backup", "--too", "x"}, nil, []string{"-too", "usage:"}},
		{"stray argument", []string{"restore", "--from", backup, "now"}, nil, []string{`unexpected argument "now"`}},
		{"unknown command", []string{"serve"}, nil, []string{`unknown command "serve"`, "usage:"}},
		{"backup of no database", []string{"backup", "--to", filepath.Join(t.TempDir(), "x")}, map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "none.db")}, []string{"FUEL_SQLITE_PATH", "no database to back up"}},
		{"backup over a file", []string{"backup", "--to", backup}, map[string]string{"FUEL_SQLITE_PATH": srcPath}, []string{"exists", "--force"}},
		{"restore over a database", []string{"restore", "--from", backup}, map[string]string{"FUEL_SQLITE_PATH": occupied}, []string{"FUEL_SQLITE_PATH", "already holds a database", "--force"}},
		{"restore of a truncated backup", []string{"restore", "--from", truncated}, map[string]string{"FUEL_SQLITE_PATH": empty}, []string{"not usable, nothing was restored"}},
		{"restore of a missing backup", []string{"restore", "--from", filepath.Join(t.TempDir(), "nope.db")}, map[string]string{"FUEL_SQLITE_PATH": empty}, []string{"no backup to restore"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := command(ctx, tt.args, env(tt.vars), io.Discard)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q shows the database password", err)
			}
		})
	}
	if got, _ := os.ReadFile(occupied); string(got) != "the current database" {
		t.Errorf("a refused restore changed the database: %q", got)
	}
	if _, err := os.Stat(filepath.Dir(empty)); err == nil {
		if names, _ := os.ReadDir(filepath.Dir(empty)); len(names) > 0 {
			t.Errorf("a refused restore left %v", names)
		}
	}
}

// TestRestoreForce: --force replaces a stopped service's database, and is
// refused while a service runs on it.
func TestRestoreForce(t *testing.T) {
	ctx := context.Background()
	srcVars := map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db")}
	s, err := store.OpenSQLite(ctx, srcVars["FUEL_SQLITE_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateVehicle(ctx, &fuel.Vehicle{Name: "from the backup", FuelType: "diesel"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	backup := filepath.Join(t.TempDir(), "b.db")
	if err := command(ctx, []string{"backup", "--to", backup}, env(srcVars), io.Discard); err != nil {
		t.Fatal(err)
	}

	vars := map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db")}
	base := MustRun(t, vars)
	call(t, http.MethodPost, base+"/api/vehicles", "application/json", strings.NewReader(`{"name":"running","fuel_type":"diesel"}`), nil)
	err = command(ctx, []string{"restore", "--from", backup, "--force"}, env(vars), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("restore --force under a running service: %v, want a refusal", err)
	}
	var vs []fuel.Vehicle
	call(t, http.MethodGet, base+"/api/vehicles", "", nil, &vs)
	if len(vs) != 1 {
		t.Fatalf("the running service lists %d vehicles after the refused restore", len(vs))
	}

	stopped := map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db")}
	old, err := store.OpenSQLite(ctx, stopped["FUEL_SQLITE_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	if err := old.CreateVehicle(ctx, &fuel.Vehicle{Name: "replaced", FuelType: "gasoline"}); err != nil {
		t.Fatal(err)
	}
	old.Close()
	if err := command(ctx, []string{"restore", "--from", backup, "--force"}, env(stopped), io.Discard); err != nil {
		t.Fatalf("restore --force: %v", err)
	}
	var got []map[string]any
	call(t, http.MethodGet, MustRun(t, stopped)+"/api/vehicles", "", nil, &got)
	if len(got) != 1 || got[0]["name"] != "from the backup" {
		t.Errorf("vehicles after restore --force: %v", got)
	}
}
