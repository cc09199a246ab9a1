package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTesseract is a tesseract that answers --version and --list-langs
// with langs installed: enough for the start-up checks.
func fakeTesseract(t *testing.T, langs ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tesseract")
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo 'tesseract 5.3.0';;\n" +
		"--list-langs) echo 'List of available languages in \"/opt/tessdata/\" (2):'; printf '%s\\n' " + strings.Join(langs, " ") + ";;\nesac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func ocrHealth(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct{ OCR json.RawMessage }
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return string(h.OCR)
}

// OCR's settings decide what /health says, and a language without its data
// keeps the service from starting, naming it.
func TestRunOCRSettings(t *testing.T) {
	tess := fakeTesseract(t, "eng", "deu", "osd", "chi_sim")
	noOSD := fakeTesseract(t, "eng", "deu")
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"fixed", map[string]string{"OCR_TESSERACT": tess, "OCR_LANGUAGES": "eng+deu"}, `{"status":"ok","mode":"fixed","languages":["eng","deu"]}`},
		// The default: every installed language, chosen by the page's script.
		{"default", map[string]string{"OCR_TESSERACT": tess},
			`{"status":"ok","mode":"auto","languages":["chi_sim","deu","eng"],"scripts":{"Han":["chi_sim"],"Latin":["deu","eng"]}}`},
		{"auto without osd", map[string]string{"OCR_TESSERACT": noOSD, "OCR_LANGUAGES": "auto"},
			`{"status":"ok","mode":"auto","languages":["deu","eng"],"scripts":{}}`},
		{"missing", map[string]string{"OCR_TESSERACT": filepath.Join(t.TempDir(), "none")}, `{"status":"missing","languages":[]}`},
		{"off", map[string]string{"OCR": "off", "OCR_TESSERACT": tess}, `{"status":"off","languages":[]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := start(t, c.env)
			waitHealthy(t, s.URL)
			if got := ocrHealth(t, s.URL); got != c.want {
				t.Fatalf("ocr %s, want %s", got, c.want)
			}
			if err := s.stop(); err != nil {
				t.Fatal(err)
			}
			if c.name == "missing" && !strings.Contains(s.Log.String(), "OCR is not installed") {
				t.Fatalf("no warning logged:\n%s", s.Log)
			}
			if c.name == "auto without osd" && !strings.Contains(s.Log.String(), "tesseract-ocr-osd") {
				t.Fatalf("no warning logged:\n%s", s.Log)
			}
		})
	}

	for env, want := range map[string]map[string]string{
		`OCR: OCR language data is not installed: "kor" (no kor.traineddata in /opt/tessdata/`: {"OCR_TESSERACT": tess, "OCR_LANGUAGES": "eng+kor"},
		`OCR: "on" must be auto or off`:                   {"OCR": "on"},
		"OCR_LANGUAGES":                                   {"OCR_TESSERACT": tess, "OCR_LANGUAGES": "+"},
		`OCR_LANGUAGES: "auto+eng": auto`:                 {"OCR_TESSERACT": tess, "OCR_LANGUAGES": "auto+eng"},
		"OCR_LANGUAGES=auto and no language is installed": {"OCR_TESSERACT": fakeTesseract(t, "osd")},
		"OCR_CONCURRENCY":                                 {"OCR_TESSERACT": tess, "OCR_CONCURRENCY": "0"},
		"OCR_PAGE_TIMEOUT":                                {"OCR_TESSERACT": tess, "OCR_PAGE_TIMEOUT": "0s"},
	} {
		if err := runErr(t, want); err == nil || !strings.Contains(err.Error(), env) {
			t.Errorf("%v: err = %v, want one containing %s", want, err, env)
		}
	}
}
