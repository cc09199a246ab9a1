package systemtest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/caddytest"
)

// TestExpensesThroughCaddy runs fuel-service with accounts on behind the
// real gateway: another user's expense is 404 and out of their lists and
// household statistics, the owner's statistics count it, and its CSV goes
// out and back in through the gateway.
func TestExpensesThroughCaddy(t *testing.T) {
	fuel := startService(t, map[string]string{
		"FUEL_SQLITE_PATH":     t.TempDir() + "/fuel.db",
		"AUTH_MODE":            "local",
		"AUTH_IDENTITY_SECRET": strings.Repeat("k", 40),
		"AUTH_ADMIN_USERNAME":  "root",
		"AUTH_ADMIN_PASSWORD":  "root-password",
		"SHUTDOWN_DRAIN":       "0s",
	})
	gw := caddytest.Start(t,
		"FUEL_UPSTREAM="+strings.TrimPrefix(fuel.URL, "http://"),
		"DOCQA_UPSTREAM=127.0.0.1:1", // not used here
		"WEB_ROOT="+t.TempDir(),
		"AUTH_MODE=local",
	)
	call := func(token, method, path, ctype string, body []byte, want int) []byte {
		t.Helper()
		// The gateway's 502/503 while its health check admits the new
		// upstream is retried.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
			req, err := http.NewRequest(method, gw+path, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if ctype != "" {
				req.Header.Set("Content-Type", ctype)
			}
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			res, err := (&http.Client{Timeout: time.Minute}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if (res.StatusCode == http.StatusBadGateway || res.StatusCode == http.StatusServiceUnavailable) && time.Now().Before(deadline) {
				continue
			}
			if res.StatusCode != want {
				t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, b, want)
			}
			return b
		}
	}
	jsonCall := func(token, method, path, body string, want int) map[string]any {
		t.Helper()
		b := call(token, method, path, "application/json", []byte(body), want)
		var m map[string]any
		if len(b) > 0 && b[0] == '{' {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			if err := d.Decode(&m); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	login := func(user string) string {
		t.Helper()
		return jsonCall("", "POST", "/api/auth/login", `{"username":"`+user+`","password":"`+user+`-password"}`, 200)["token"].(string)
	}
	root := jsonCall("", "POST", "/api/auth/login", `{"username":"root","password":"root-password"}`, 200)["token"].(string)
	for _, name := range []string{"ann", "bob"} {
		jsonCall(root, "POST", "/api/users", `{"username":"`+name+`","password":"`+name+`-password"}`, 201)
	}
	ann, bob := login("ann"), login("bob")

	vid := jsonCall(ann, "POST", "/api/vehicles", `{"name":"Golf","fuel_type":"diesel"}`, 200)["id"].(json.Number).String()
	other := jsonCall(ann, "POST", "/api/vehicles", `{"name":"Polo","fuel_type":"diesel"}`, 200)["id"].(json.Number).String()
	e := jsonCall(ann, "POST", "/api/expenses", `{"vehicle_id":`+vid+`,"time":"2026-03-01T09:30:00Z","category":"service","title":"Oil","amount":89.9,`+
		`"items":[{"name":"Oil 5W-30","quantity":4.5,"unit_price":12.9}],"tags":["oil"]}`, 200)
	eid := e["id"].(json.Number).String()

	jsonCall(bob, "GET", "/api/expenses/"+eid, "", 404)
	jsonCall(bob, "PUT", "/api/expenses/"+eid, `{"title":"mine"}`, 404)
	jsonCall(bob, "DELETE", "/api/expenses/"+eid, "", 404)
	if got := string(call(bob, "GET", "/api/expenses?vehicle_id="+vid, "", nil, 200)); got != "[]" {
		t.Errorf("bob lists %s", got)
	}
	if got := string(call(bob, "GET", "/api/statistics", "", nil, 200)); got != `{"start_date":null,"end_date":null,"vehicles":[],"totals":[]}` {
		t.Errorf("bob's household %s", got)
	}
	call(bob, "GET", "/api/vehicles/"+vid+"/expenses.csv", "", nil, 404)

	st := jsonCall(ann, "GET", "/api/vehicles/"+vid+"/statistics", "", 200)
	if st["expenses_amount"].(json.Number) != "89.9" || st["total_cost"].(json.Number) != "89.9" {
		t.Errorf("ann's statistics %v", st)
	}

	csvFile := call(ann, "GET", "/api/vehicles/"+vid+"/expenses.csv", "", nil, 200)
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "expenses.csv")
	part.Write(csvFile)
	mw.Close()
	res := call(ann, "POST", "/api/vehicles/"+other+"/expenses/import", mw.FormDataContentType(), form.Bytes(), 200)
	if !strings.Contains(string(res), `"imported":1`) {
		t.Errorf("import through Caddy: %s", res)
	}
	got := call(ann, "GET", "/api/expenses?vehicle_id="+other, "", nil, 200)
	if !strings.Contains(string(got), `"items":[{"name":"Oil 5W-30","part_number":"","quantity":4.5,"unit_price":12.9}],"tags":["oil"]`) {
		t.Errorf("imported expense %s", got)
	}
}
