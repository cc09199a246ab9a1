package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
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

	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/ingest/ingesttest"
)

// manual is the PDF of manual i: two pages that name it.
func manual(i int) []byte {
	return ingesttest.PDF(
		fmt.Sprintf("Manual %d. The oil of engine %d is changed every %d kilometres.", i, i, 10000+i),
		fmt.Sprintf("Manual %d, page two. Tyre pressure for model %d is %d.%d bar.", i, i, 2+i%2, i%10))
}

// postManual uploads a PDF and returns its MD5 (errors, not t.Fatal: it
// runs in a writer goroutine too).
func postManual(url string, pdf []byte) (string, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	w, _ := mw.CreateFormFile("file", "manual.pdf")
	w.Write(pdf)
	mw.Close()
	resp, err := http.Post(url+"/api/documents/upload", mw.FormDataContentType(), &b)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var doc struct{ FileMD5 string }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &doc) != nil {
		return "", fmt.Errorf("upload: %d %s", resp.StatusCode, body)
	}
	return doc.FileMD5, nil
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, out) != nil {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
}

func getBytes(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return b
}

// chunkRows returns every chunk row (vectors included) of the store under
// dir, by id, read on a read-only connection of its own while the service
// may be running.
func chunkRows(t *testing.T, dir string) map[string][]any {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, embedded.DBName)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, md5, page, idx, heading, text, vector FROM chunks`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]any{}
	for rows.Next() {
		var id, md5, heading, text string
		var page, idx int
		var vector []byte
		if err := rows.Scan(&id, &md5, &page, &idx, &heading, &text, &vector); err != nil {
			t.Fatal(err)
		}
		out[id] = []any{md5, page, idx, heading, text, vector}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBackupWhileServing backs up a running service while a client keeps
// uploading manuals, restores the archive into new directories, starts a
// service on them and compares every document (as the API lists it), every
// chunk (its row, vector included) and every original (as the API serves
// it): the restored manuals are the first k uploaded (before <= k <=
// after), each equal to the source's.
func TestBackupWhileServing(t *testing.T) {
	srcEnv := map[string]string{"DOCQA_STORE_PATH": filepath.Join(t.TempDir(), "vectors"), "DOCQA_FILES_DIR": filepath.Join(t.TempDir(), "files")}
	src := start(t, srcEnv)
	var order []string
	const seeded = 4
	for i := 0; i < seeded; i++ {
		id, err := postManual(src.URL, manual(i))
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, id)
	}
	var uploaded atomic.Int64
	uploaded.Store(seeded)
	ids := make(chan string, 1000)
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for i := seeded; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			id, err := postManual(src.URL, manual(i))
			if err != nil {
				done <- err
				return
			}
			ids <- id
			uploaded.Add(1)
		}
	}()
	for uploaded.Load() < seeded+2 {
		time.Sleep(time.Millisecond)
	}

	archive := filepath.Join(t.TempDir(), "docqa-backup.tar")
	var out bytes.Buffer
	var (
		err           error
		before, after int64
		rounds        int
	)
	// Backups in a row until an upload was answered during one, which is
	// the archive restored below.
	for rounds = 1; rounds <= 100; rounds++ {
		out.Reset()
		before = uploaded.Load()
		err = backupCommand(context.Background(), []string{"backup", "--to", archive, "--force"}, func(k string) string { return srcEnv[k] }, &out)
		after = uploaded.Load() + 1 // one upload may be stored and not yet answered
		if err != nil || after-1 > before {
			break
		}
	}
	close(stop)
	if werr := <-done; werr != nil {
		t.Fatalf("writer: %v", werr)
	}
	if err != nil {
		t.Fatalf("backup: %v", err)
	}
	close(ids)
	for id := range ids {
		order = append(order, id)
	}
	var line struct {
		Msg                  string
		Documents, Originals int
		TookMS               int64 `json:"took_ms"`
	}
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || line.Msg != "backup written" {
		t.Fatalf("backup said %q (%v)", out.String(), err)
	}
	t.Logf("backup %d: %d documents in %d ms; %d uploads answered during it", rounds, line.Documents, line.TookMS, after-1-before)
	if after-1 == before {
		t.Fatal("nothing was uploaded during 100 backups: the test proves nothing")
	}

	var srcDocs []map[string]any
	getJSON(t, src.URL+"/api/documents", &srcDocs)
	bySource := map[string]map[string]any{}
	for _, d := range srcDocs {
		bySource[d["fileMd5"].(string)] = d
	}

	newEnv := map[string]string{"DOCQA_STORE_PATH": filepath.Join(t.TempDir(), "restored", "vectors"),
		"DOCQA_FILES_DIR": filepath.Join(t.TempDir(), "restored", "files")}
	out.Reset()
	if err := backupCommand(context.Background(), []string{"restore", "--from", archive}, func(k string) string { return newEnv[k] }, &out); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if !strings.Contains(out.String(), `"msg":"backup restored"`) {
		t.Errorf("restore said %q", out.String())
	}
	restored := start(t, newEnv)
	var docs []map[string]any
	getJSON(t, restored.URL+"/api/documents", &docs)
	k := len(docs)
	if int64(k) < before || int64(k) > after || k != line.Documents || line.Originals != k {
		t.Fatalf("%d documents restored (the backup reported %d, %d originals), want between %d and %d",
			k, line.Documents, line.Originals, before, after)
	}
	var got []string
	for _, d := range docs {
		id := d["fileMd5"].(string)
		got = append(got, id)
		if !reflect.DeepEqual(d, bySource[id]) {
			t.Errorf("document %s: restored %v, source %v", id, d, bySource[id])
		}
		i := slices.Index(order, id)
		if i < 0 {
			t.Fatalf("document %s was never uploaded", id)
		}
		if b := getBytes(t, restored.URL+"/api/documents/"+id+"/file"); !bytes.Equal(b, manual(i)) {
			t.Errorf("original of %s: %d bytes served, differ from the upload", id, len(b))
		}
	}
	want := slices.Clone(order[:k])
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("the restored documents are not the first %d uploaded", k)
	}
	srcChunks, gotChunks := chunkRows(t, srcEnv["DOCQA_STORE_PATH"]), chunkRows(t, newEnv["DOCQA_STORE_PATH"])
	nChunks := 0
	for id, row := range srcChunks {
		if slices.Contains(got, row[0].(string)) {
			nChunks++
			if !reflect.DeepEqual(gotChunks[id], row) {
				t.Errorf("chunk %s: restored %v, source %v", id, gotChunks[id], row)
			}
		}
	}
	if nChunks != len(gotChunks) {
		t.Errorf("%d chunks restored, the source holds %d of the restored documents", len(gotChunks), nChunks)
	}
	// The restored service answers from the restored manuals and takes new ones.
	resp, err := http.Post(restored.URL+"/api/chat/stream", "application/json", strings.NewReader(`{"question":"When is the oil of engine 1 changed?"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "10001") {
		t.Errorf("chat over the restored manuals: %s", body)
	}
	if _, err := postManual(restored.URL, manual(1000)); err != nil {
		t.Fatal(err)
	}
}

// TestBackupCommandRefuses: what the commands refuse, and that a refused
// restore leaves the data locations as they were.
func TestBackupCommandRefuses(t *testing.T) {
	ctx := context.Background()
	srcEnv := map[string]string{"DOCQA_STORE_PATH": filepath.Join(t.TempDir(), "vectors"), "DOCQA_FILES_DIR": filepath.Join(t.TempDir(), "files")}
	src := start(t, srcEnv)
	if _, err := postManual(src.URL, manual(1)); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "b.tar")
	if err := backupCommand(ctx, []string{"backup", "--to", archive}, func(k string) string { return srcEnv[k] }, io.Discard); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(archive)
	truncated := filepath.Join(t.TempDir(), "truncated.tar")
	os.WriteFile(truncated, raw[:len(raw)-2000], 0o600)
	emptyEnv := map[string]string{"DOCQA_STORE_PATH": filepath.Join(t.TempDir(), "new", "vectors"), "DOCQA_FILES_DIR": filepath.Join(t.TempDir(), "new", "files")}

	milvus := map[string]string{"VECTOR_STORE": "milvus", "MILVUS_ADDRESS": "milvus.invalid:19530", "MILVUS_PASSWORD": "milvus-secret"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"backup on milvus", []string{"backup", "--to", filepath.Join(t.TempDir(), "x.tar")}, milvus, []string{"VECTOR_STORE=milvus", "milvus-backup create", "DOCQA_FILES_DIR"}},
		{"restore on milvus", []string{"restore", "--from", archive}, milvus, []string{"VECTOR_STORE=milvus", "milvus-backup restore"}},
		{"unknown store", []string{"backup", "--to", "x"}, map[string]string{"VECTOR_STORE": "redis"}, []string{"VECTOR_STORE", "redis"}},
		{"backup without --to", []string{"backup"}, srcEnv, []string{"--to FILE is required"}},
		{"restore without --from", []string{"restore", "--force"}, srcEnv, []string{"--from FILE is required"}},
		{"unknown flag", []string{"restore", "--to", "x"}, srcEnv, []string{"-to", "usage:"}},
		{"stray argument", []string{"backup", "--to", "x", "y"}, srcEnv, []string{`unexpected argument "y"`}},
		{"backup of no store", []string{"backup", "--to", filepath.Join(t.TempDir(), "x.tar")}, emptyEnv, []string{"DOCQA_STORE_PATH", "no embedded vector store to back up"}},
		{"backup over a file", []string{"backup", "--to", archive}, srcEnv, []string{"exists", "--force"}},
		{"restore over the running store", []string{"restore", "--from", archive}, srcEnv, []string{"DOCQA_STORE_PATH", "not empty", "--force"}},
		{"restore --force over the running store", []string{"restore", "--from", archive, "--force"}, srcEnv, []string{"in use", "stop it"}},
		{"restore of a truncated archive", []string{"restore", "--from", truncated}, emptyEnv, []string{"not usable, nothing was restored", "truncated"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := backupCommand(ctx, tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "milvus-secret") {
				t.Errorf("error %q shows the Milvus password", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Dir(emptyEnv["DOCQA_STORE_PATH"])); !errors.Is(err, os.ErrNotExist) {
		if names, _ := os.ReadDir(filepath.Dir(emptyEnv["DOCQA_STORE_PATH"])); len(names) > 0 {
			t.Errorf("a refused restore left %v", names)
		}
	}
	// The running service still serves its manual.
	var docs []map[string]any
	getJSON(t, src.URL+"/api/documents", &docs)
	if len(docs) != 1 {
		t.Errorf("the running service lists %d documents after the refused restores", len(docs))
	}
	if err := src.stop(); err != nil {
		t.Fatal(err)
	}

	// Stopped, its data is replaced by --force.
	other := manual(2)
	otherEnv := map[string]string{"DOCQA_STORE_PATH": filepath.Join(t.TempDir(), "vectors"), "DOCQA_FILES_DIR": filepath.Join(t.TempDir(), "files")}
	o := start(t, otherEnv)
	if _, err := postManual(o.URL, other); err != nil {
		t.Fatal(err)
	}
	otherArchive := filepath.Join(t.TempDir(), "other.tar")
	if err := backupCommand(ctx, []string{"backup", "--to", otherArchive}, func(k string) string { return otherEnv[k] }, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := backupCommand(ctx, []string{"restore", "--from", otherArchive, "--force"}, func(k string) string { return srcEnv[k] }, io.Discard); err != nil {
		t.Fatalf("restore --force: %v", err)
	}
	s := start(t, srcEnv)
	getJSON(t, s.URL+"/api/documents", &docs)
	sum := md5.Sum(other)
	if len(docs) != 1 || docs[0]["fileMd5"] != hex.EncodeToString(sum[:]) {
		t.Fatalf("after restore --force the service lists %v, want the other archive's manual alone", docs)
	}
	if names, _ := os.ReadDir(srcEnv["DOCQA_FILES_DIR"]); len(names) != 1 {
		t.Errorf("DOCQA_FILES_DIR holds %d files after restore --force, want 1", len(names))
	}
}
