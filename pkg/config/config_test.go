package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

type sample struct {
	Addr    string        `env:"APP_ADDR" default:":8082"`
	DBURL   string        `env:"DATABASE_URL" secret:"true"`
	APIKey  string        `env:"API_KEY" secret:"true"`
	Batch   int           `env:"BATCH" default:"32"`
	Ratio   float64       `env:"RATIO" default:"0.7"`
	Debug   bool          `env:"DEBUG"`
	Wait    time.Duration `env:"WAIT" default:"10s"`
	Origins []string      `env:"ORIGINS"`
	Nested  struct {
		Name string `env:"NESTED_NAME" default:"n"`
	}
	//lint:ignore U1000 an unexported field, which Load must pass over
	untouched string
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDefaultsAndValues(t *testing.T) {
	var c sample
	if err := Load(env(nil), &c); err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":8082" || c.Batch != 32 || c.Ratio != 0.7 || c.Wait != 10*time.Second || c.Nested.Name != "n" || c.Debug {
		t.Fatalf("defaults: %+v", c)
	}

	c = sample{}
	err := Load(env(map[string]string{
		"APP_ADDR": "127.0.0.1:0", "BATCH": "8", "DEBUG": "true", "WAIT": "250ms",
		"ORIGINS": "https://a.example, ,https://b.example", "NESTED_NAME": "x",
	}), &c)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:0" || c.Batch != 8 || !c.Debug || c.Wait != 250*time.Millisecond || c.Nested.Name != "x" {
		t.Fatalf("values: %+v", c)
	}
	if !reflect.DeepEqual(c.Origins, []string{"https://a.example", "https://b.example"}) {
		t.Fatalf("origins %q", c.Origins)
	}
}

func TestLoadErrorsNameTheVariable(t *testing.T) {
	var c sample
	err := Load(env(map[string]string{"BATCH": "many", "WAIT": "10", "DEBUG": "yes please"}), &c)
	if err == nil {
		t.Fatal("bad values accepted")
	}
	for _, name := range []string{"BATCH", "WAIT", "DEBUG"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	if Load(env(nil), c) == nil {
		t.Error("Load accepted a non-pointer")
	}
}

func TestSecretFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(path, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var c sample
	if err := Load(env(map[string]string{"API_KEY_FILE": path, "APP_ADDR_FILE": path}), &c); err != nil {
		t.Fatal(err)
	}
	if c.APIKey != "s3cret" {
		t.Fatalf("API_KEY = %q", c.APIKey)
	}
	if c.Addr != ":8082" {
		t.Fatalf("a non-secret was read from a _FILE: %q", c.Addr)
	}
	// The variable itself wins over its _FILE.
	c = sample{}
	if err := Load(env(map[string]string{"API_KEY": "direct", "API_KEY_FILE": path}), &c); err != nil || c.APIKey != "direct" {
		t.Fatalf("%q %v", c.APIKey, err)
	}
	err := Load(env(map[string]string{"API_KEY_FILE": filepath.Join(t.TempDir(), "missing")}), &c)
	if err == nil || !strings.Contains(err.Error(), "API_KEY_FILE") {
		t.Fatalf("missing secret file: %v", err)
	}
}

func TestAttrsMaskSecrets(t *testing.T) {
	c := sample{Addr: ":1", DBURL: "postgres://fuel:hunter2@db:5432/fuel?sslmode=disable", APIKey: "sk-live-123", Wait: time.Second}
	attrs := Attrs(&c)
	got := map[string]string{}
	for i := 0; i+1 < len(attrs); i += 2 {
		got[attrs[i].(string)] = attrs[i+1].(string)
	}
	if got["API_KEY"] != "***" {
		t.Errorf("API_KEY shown as %q", got["API_KEY"])
	}
	if strings.Contains(got["DATABASE_URL"], "hunter2") || !strings.Contains(got["DATABASE_URL"], "fuel:") || !strings.Contains(got["DATABASE_URL"], "db:5432") {
		t.Errorf("DATABASE_URL shown as %q", got["DATABASE_URL"])
	}
	if got["APP_ADDR"] != ":1" || got["WAIT"] != "1s" {
		t.Errorf("plain values: %v", got)
	}
	if Mask("") != "" {
		t.Error("an unset secret should show as empty")
	}
}
