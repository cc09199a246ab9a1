package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/ginprobes"
	"github.com/carhub/backend/pkg/metrics/metricstest"
	"github.com/carhub/backend/pkg/pgtest"
	"github.com/carhub/backend/services/fuel/internal/httpapi"
	"github.com/carhub/backend/services/fuel/internal/store"
)

// databases are the two stores every test here runs on.
var databases = map[string]func(t *testing.T) map[string]string{
	"sqlite": func(t *testing.T) map[string]string {
		return map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db")}
	},
	"postgres": func(t *testing.T) map[string]string {
		return map[string]string{"DATABASE_URL": pgtest.NewDatabase(t)}
	},
}

// start runs the service like MustRun but leaves stopping to the test:
// stop cancels run's context (what SIGTERM does) and returns at once;
// wait returns run's error.
func start(t *testing.T, vars map[string]string) (base string, stop func(), wait func() error) {
	t.Helper()
	vars["FUEL_ADDR"] = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	logs := newLogSink()
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, env(vars), logs) }()
	var err error
	waited := false
	wait = func() error {
		if !waited {
			err, waited = <-errc, true
		}
		return err
	}
	t.Cleanup(func() { cancel(); _ = wait() })
	select {
	case addr := <-logs.addr:
		return "http://" + addr, cancel, wait
	case err := <-errc:
		t.Fatalf("run ended before listening: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("service did not start\n%s", logs)
	}
	return "", nil, nil
}

type answer struct {
	code int
	body string
}

// fresh is a client without kept-alive connections: a request after the
// listener closed fails rather than reusing an old connection.
var fresh = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

func get(t *testing.T, url string) answer {
	t.Helper()
	res, err := fresh.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, string(b)}
}

func post(t *testing.T, url, body string, hdr ...string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := fresh.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, string(b)}
}

func readyBody(t *testing.T, a answer) ginprobes.Readiness {
	t.Helper()
	var r ginprobes.Readiness
	if err := json.Unmarshal([]byte(a.body), &r); err != nil {
		t.Fatalf("readyz body %q: %v", a.body, err)
	}
	return r
}

func TestProbesServed(t *testing.T) {
	for name, vars := range databases {
		t.Run(name, func(t *testing.T) {
			base := MustRun(t, vars(t))
			if a := get(t, base+"/livez"); a.code != 200 {
				t.Errorf("livez: %d %s", a.code, a.body)
			}
			a := get(t, base+"/readyz")
			r := readyBody(t, a)
			if a.code != 200 || r.Status != "ready" || len(r.Checks) != 2 || r.Checks[0].Name != "database" || r.Checks[1].Name != "migrations" {
				t.Errorf("readyz: %d %s", a.code, a.body)
			}
			if a := get(t, base+"/health"); a.code != 200 || !strings.Contains(a.body, `"status":"ok"`) {
				t.Errorf("health keeps its contract: %d %s", a.code, a.body)
			}
		})
	}
}

// TestLivezWithoutDatabase closes the database under the handler: liveness
// stays 200 (it touches nothing), readiness and /health turn 503, and
// readiness names the check.
func TestLivezWithoutDatabase(t *testing.T) {
	open := map[string]func(t *testing.T) (*store.Store, error){
		"sqlite": func(t *testing.T) (*store.Store, error) {
			return store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "fuel.db"))
		},
		"postgres": func(t *testing.T) (*store.Store, error) {
			return store.OpenPostgres(context.Background(), pgtest.NewDatabase(t))
		},
	}
	for name, open := range open {
		t.Run(name, func(t *testing.T) {
			st, err := open(t)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(httpapi.New(slog.New(slog.DiscardHandler), st, httpapi.Options{Probes: readiness(st)}))
			t.Cleanup(srv.Close)
			if a := get(t, srv.URL+"/readyz"); a.code != 200 {
				t.Fatalf("readyz with the database open: %d %s", a.code, a.body)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if a := get(t, srv.URL+"/livez"); a.code != 200 {
				t.Errorf("livez without a database: %d %s", a.code, a.body)
			}
			a := get(t, srv.URL+"/readyz")
			r := readyBody(t, a)
			if a.code != 503 || r.Status != "unready" {
				t.Errorf("readyz without a database: %d %s", a.code, a.body)
			}
			for _, c := range r.Checks {
				if c.Name == "database" && (c.Status != "failing" || c.Error == "") {
					t.Errorf("database check: %+v, want failing with a reason", c)
				}
			}
			if a := get(t, srv.URL+"/health"); a.code != 503 {
				t.Errorf("health without a database: %d %s", a.code, a.body)
			}
		})
	}
}

// TestDrain: on stop, /readyz is 503 at once while requests are still
// served for SHUTDOWN_DRAIN; then the listener closes and run returns nil.
func TestDrain(t *testing.T) {
	const drain = 1500 * time.Millisecond
	base, stop, wait := start(t, map[string]string{
		"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db"),
		"SHUTDOWN_DRAIN":   drain.String(),
	})
	if a := post(t, base+"/api/vehicles", `{"name":"Golf","fuel_type":"diesel"}`); a.code != 200 {
		t.Fatalf("create: %d %s", a.code, a.body)
	}
	stopped := time.Now()
	stop()
	// Readiness turns at once (OnStop runs before the drain begins).
	deadline := stopped.Add(300 * time.Millisecond)
	for {
		a := get(t, base+"/readyz")
		if a.code == 503 && readyBody(t, a).Status == "draining" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz still %d %s %s after the stop", a.code, a.body, time.Since(stopped))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Work is still served on new connections during the drain.
	for time.Since(stopped) < drain-500*time.Millisecond {
		if a := get(t, base+"/api/vehicles/1"); a.code != 200 {
			t.Fatalf("GET during the drain: %d %s", a.code, a.body)
		}
		if a := get(t, base+"/livez"); a.code != 200 {
			t.Fatalf("livez during the drain: %d %s", a.code, a.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := wait(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if d := time.Since(stopped); d < drain {
		t.Errorf("run returned %s after the stop, before the drain of %s", d, drain)
	}
	if res, err := fresh.Get(base + "/livez"); err == nil {
		res.Body.Close()
		t.Error("the service still accepts connections after the drain")
	}
}

func TestMetrics(t *testing.T) {
	for name, vars := range databases {
		t.Run(name, func(t *testing.T) {
			base := MustRun(t, vars(t))
			for _, v := range []string{`{"name":"Golf","fuel_type":"diesel"}`, `{"name":"Polo","fuel_type":"diesel"}`} {
				if a := post(t, base+"/api/vehicles", v); a.code != 200 {
					t.Fatalf("create vehicle: %d %s", a.code, a.body)
				}
			}
			for range 3 {
				if a := get(t, base+"/api/vehicles/1"); a.code != 200 {
					t.Fatalf("get: %d %s", a.code, a.body)
				}
			}
			if a := get(t, base+"/api/vehicles/987654"); a.code != 404 {
				t.Fatalf("get a missing vehicle: %d %s", a.code, a.body)
			}
			for _, p := range []string{"/api/unknown/555", "/wp-login.php"} {
				if a := get(t, base+p); a.code != 404 {
					t.Fatalf("%s: %d", p, a.code)
				}
			}
			refuel := `{"vehicle_id":1,"refuel_time":"2026-03-0%dT08:00:00Z","odometer":%d,"fuel_type":"E10","liters":40.5,"total_amount":70.47,"is_full":true}`
			for i, body := range []string{
				strings.Replace(strings.Replace(refuel, "%d", "1", 1), "%d", "12500", 1),
				strings.Replace(strings.Replace(refuel, "%d", "2", 1), "%d", "13000", 1),
			} {
				// The second is sent twice with one key: the replay creates nothing.
				for range i + 1 {
					if a := post(t, base+"/api/refuels", body, "Idempotency-Key", fmt.Sprint("metrics-test-", i)); a.code != 200 {
						t.Fatalf("create refuel: %d %s", a.code, a.body)
					}
				}
			}
			csv := get(t, base+"/api/vehicles/1/refuels.csv")
			if csv.code != 200 {
				t.Fatalf("export: %d %s", csv.code, csv.body)
			}
			importCSV(t, base+"/api/vehicles/2/refuels/import?dry_run=true", csv.body)
			importCSV(t, base+"/api/vehicles/2/refuels/import", csv.body)

			f := metricstest.MustScrape(t, base+"/metrics")
			for _, tt := range []struct {
				method, route, status string
				want                  float64
			}{
				{"GET", "/api/vehicles/:id", "200", 3},
				{"GET", "/api/vehicles/:id", "404", 1},
				{"GET", "unmatched", "404", 2},
				{"POST", "/api/vehicles", "200", 2},
				{"POST", "/api/refuels", "200", 3},
				{"POST", "/api/vehicles/:id/refuels/import", "200", 2},
			} {
				labels := map[string]string{"method": tt.method, "route": tt.route, "status": tt.status}
				if v, _ := f.Value("http_requests_total", labels); v != tt.want {
					t.Errorf("http_requests_total%v = %v, want %v", labels, v, tt.want)
				}
				if v, _ := f.Value("http_request_duration_seconds", labels); v != tt.want {
					t.Errorf("http_request_duration_seconds%v count = %v, want %v", labels, v, tt.want)
				}
			}
			for _, route := range f.LabelValues("http_requests_total", "route") {
				if strings.ContainsAny(route, "0123456789") || strings.Contains(route, "wp-login") {
					t.Errorf("route label %q carries a raw path", route)
				}
			}
			// A test binary is not stamped: version "dev".
			if v, _ := f.Value("build_info", map[string]string{"service": "fuel-service", "version": "dev", "goversion": runtime.Version()}); v != 1 {
				t.Errorf("build_info = %v, want 1 for fuel-service dev", v)
			}
			if v, _ := f.Value("fuel_refuels_created_total", nil); v != 2 {
				t.Errorf("fuel_refuels_created_total = %v, want 2 (the replay creates nothing)", v)
			}
			if v, _ := f.Value("fuel_refuels_imported_total", nil); v != 2 {
				t.Errorf("fuel_refuels_imported_total = %v, want 2 (the dry run stores nothing)", v)
			}
			for _, name := range []string{"http_requests_in_flight", "go_goroutines", "process_resident_memory_bytes"} {
				if _, ok := f[name]; !ok {
					t.Errorf("%s missing", name)
				}
			}
			if _, ok := f["go_sql_open_connections"]; !ok {
				t.Error("go_sql_open_connections missing: the store's pools are not registered")
			}
		})
	}
}

func TestMetricsOff(t *testing.T) {
	base := MustRun(t, map[string]string{"FUEL_SQLITE_PATH": filepath.Join(t.TempDir(), "fuel.db"), "METRICS": "off"})
	if a := get(t, base+"/metrics"); a.code != 404 {
		t.Errorf("/metrics with METRICS=off: %d", a.code)
	}
	if a := get(t, base+"/readyz"); a.code != 200 {
		t.Errorf("readyz with METRICS=off: %d %s", a.code, a.body)
	}
	err := run(context.Background(), env(map[string]string{"METRICS": "maybe"}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "METRICS") {
		t.Errorf("METRICS=maybe: %v, want an error naming METRICS", err)
	}
}

func importCSV(t *testing.T, url, csv string) {
	t.Helper()
	var mb bytes.Buffer
	mw := multipart.NewWriter(&mb)
	fw, _ := mw.CreateFormFile("file", "refuels.csv")
	_, _ = io.WriteString(fw, csv)
	_ = mw.Close()
	res, err := fresh.Post(url, mw.FormDataContentType(), &mb)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("import: %d %s", res.StatusCode, b)
	}
}
