package httpapi_test

import (
	"bufio"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/carhub/backend/services/fuel/internal/store"
)

// BenchmarkWrongPasswordChanges200 sends 200 concurrent password changes
// with a wrong current password (one signed-in user, no login limit, so
// nothing but the bound on argon2 work stands between them and the
// hashing) and reports the process's resident memory before the burst
// and at its peak (VmHWM of /proc/self/status: Linux only). Run it alone,
// in a process of its own, so that the peak is this burst's:
//
//	go test -run '^$' -bench WrongPasswordChanges200 -benchtime 1x ./services/fuel/internal/httpapi/
func BenchmarkWrongPasswordChanges200(b *testing.B) {
	s := authServer(b, store.SQLite, 0)
	root := s.login("root", "root-password")
	const n = 200
	base := procStatusMiB(b, "VmRSS")
	statuses := map[int]int{}
	for b.Loop() {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				req, _ := http.NewRequest("PUT", s.url+"/api/users/me/password",
					strings.NewReader(`{"current_password":"wrong-password","new_password":"new-password"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+root)
				res, err := http.DefaultClient.Do(req)
				code := -1
				if err == nil {
					code = res.StatusCode
					res.Body.Close()
				}
				mu.Lock()
				statuses[code]++
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	b.ReportMetric(base, "base-RSS-MiB")
	b.ReportMetric(procStatusMiB(b, "VmHWM"), "peak-RSS-MiB")
	for code, count := range statuses {
		b.ReportMetric(float64(count)/float64(b.N), "status-"+strconv.Itoa(code)+"/op")
	}
}

// procStatusMiB reads a kB field of /proc/self/status in MiB (0 where
// there is no such file).
func procStatusMiB(tb testing.TB, field string) float64 {
	tb.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
		if err != nil {
			tb.Fatalf("%s: %v", sc.Text(), err)
		}
		return kb / 1024
	}
	return 0
}
