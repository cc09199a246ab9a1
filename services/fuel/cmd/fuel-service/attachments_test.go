package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/caddytest"
	"github.com/carhub/backend/services/fuel/internal/media/mediatest"
)

// TestAttachmentsThroughCaddyAndBackup uploads a 3 MiB receipt and a photo
// with GPS to a refuel, and an invoice to an expense, through the real
// gateway (its body limit for uploads is above
// the 1 MiB of other fuel paths), reads them back, then backs the service
// up with the backup command while it runs, restores into a new place and
// serves the restored data: every file comes back byte for byte, its
// SHA-256 the recorded one.
func TestAttachmentsThroughCaddyAndBackup(t *testing.T) {
	dir := t.TempDir()
	srcVars := map[string]string{"FUEL_SQLITE_PATH": filepath.Join(dir, "src", "fuel.db")}
	svc := MustRun(t, srcVars)
	gw := caddytest.Start(t,
		"FUEL_UPSTREAM="+strings.TrimPrefix(svc, "http://"),
		"DOCQA_UPSTREAM=127.0.0.1:1", // not used here
		"WEB_ROOT="+t.TempDir(),
	)
	send := func(base, method, path, ctype string, body []byte, want int) []byte {
		t.Helper()
		// Caddy's active health check may keep a new upstream out for a moment.
		deadline := time.Now().Add(20 * time.Second)
		for {
			req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
			if ctype != "" {
				req.Header.Set("Content-Type", ctype)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if (res.StatusCode == http.StatusBadGateway || res.StatusCode == http.StatusServiceUnavailable) && time.Now().Before(deadline) {
				time.Sleep(200 * time.Millisecond)
				continue
			}
			if res.StatusCode != want {
				t.Fatalf("%s %s: %d, want %d: %.300s", method, path, res.StatusCode, want, b)
			}
			return b
		}
	}
	upload := func(path, name string, data []byte, want int) map[string]any {
		t.Helper()
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		fw, _ := mw.CreateFormFile("file", name)
		fw.Write(data)
		mw.Close()
		var out map[string]any
		b := send(gw, "POST", path, mw.FormDataContentType(), form.Bytes(), want)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return out
	}
	var v, r map[string]any
	json.Unmarshal(send(gw, "POST", "/api/vehicles", "application/json", []byte(`{"name":"Golf","fuel_type":"diesel"}`), 200), &v)
	json.Unmarshal(send(gw, "POST", "/api/refuels", "application/json", []byte(`{"vehicle_id":`+jsonText(v["id"])+
		`,"refuel_time":"2026-05-01T08:00:00Z","odometer":1000,"fuel_type":"B7","liters":40,"total_amount":70}`), 200), &r)
	base := "/api/refuels/" + jsonText(r["id"]) + "/attachments"

	receipt := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("0123456789abcdef"), 3<<20/16)...)
	photo := mediatest.MustJPEG(t, 800, 600, mediatest.MustExif(t, true, 1))
	stored := map[string][]byte{}
	for name, data := range map[string][]byte{"receipt.pdf": receipt, "photo.jpg": photo} {
		a := upload(base, name, data, 200)
		got := send(gw, "GET", a["url"].(string), "", nil, 200)
		if sum := sha256.Sum256(got); hex.EncodeToString(sum[:]) != a["sha256"] {
			t.Fatalf("%s: read back with SHA-256 %x, answered %s", name, sum, a["sha256"])
		}
		stored[a["url"].(string)] = got
	}
	if !bytes.Equal(stored[base+"/1"], receipt) && !bytes.Equal(stored[base+"/2"], receipt) {
		t.Error("the receipt did not come back as sent")
	}
	// An expense takes attachments through the gateway too.
	var e map[string]any
	json.Unmarshal(send(gw, "POST", "/api/expenses", "application/json", []byte(`{"vehicle_id":`+jsonText(v["id"])+
		`,"time":"2026-05-02T09:00:00Z","category":"service","title":"Oil change","amount":89.9}`), 200), &e)
	ea := upload("/api/expenses/"+jsonText(e["id"])+"/attachments", "invoice.pdf", receipt[:2<<20], 200)
	stored[ea["url"].(string)] = receipt[:2<<20]
	// Over 10 MiB is refused: a 413 from the gateway, or the connection
	// closed by it before the client has written the whole body (the
	// refusal comes while the body is still being sent). Nothing is stored.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "big.pdf")
	fw.Write(append([]byte("%PDF-1.7\n"), make([]byte, 10<<20+70<<10)...))
	mw.Close()
	if res, err := http.Post(gw+base, mw.FormDataContentType(), &form); err == nil {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("an upload over 10 MiB: %d %s", res.StatusCode, b)
		}
	} else if !strings.Contains(err.Error(), "connection reset") && !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("an upload over 10 MiB: %v", err)
	}
	var before []map[string]any
	if err := json.Unmarshal(send(gw, "GET", base, "", nil, 200), &before); err != nil || len(before) != 2 {
		t.Fatalf("after the refused upload: %v, %v", before, err)
	}

	var out strings.Builder
	backup := filepath.Join(dir, "fuel.backup")
	if err := command(context.Background(), []string{"backup", "--to", backup}, env(srcVars), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"attachments":3,`) {
		t.Errorf("backup output %q does not count 3 attachments", out.String())
	}
	newVars := map[string]string{"FUEL_SQLITE_PATH": filepath.Join(dir, "restored", "fuel.db")}
	out.Reset()
	if err := command(context.Background(), []string{"restore", "--from", backup}, env(newVars), &out); err != nil {
		t.Fatal(err)
	}
	restored := MustRun(t, newVars)
	var list, expenseList []map[string]any
	if err := json.Unmarshal(send(restored, "GET", base, "", nil, 200), &list); err != nil || len(list) != 2 {
		t.Fatalf("restored list %v, %v", list, err)
	}
	if err := json.Unmarshal(send(restored, "GET", "/api/expenses/"+jsonText(e["id"])+"/attachments", "", nil, 200), &expenseList); err != nil || len(expenseList) != 1 {
		t.Fatalf("restored expense list %v, %v", expenseList, err)
	}
	list = append(list, expenseList...)
	for _, a := range list {
		got := send(restored, "GET", a["url"].(string), "", nil, 200)
		sum := sha256.Sum256(got)
		if hex.EncodeToString(sum[:]) != a["sha256"] || !bytes.Equal(got, stored[a["url"].(string)]) {
			t.Errorf("%s: restored file differs (SHA-256 %x, recorded %s)", a["url"], sum, a["sha256"])
		}
	}
}

// jsonText is a decoded JSON number as its literal.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
