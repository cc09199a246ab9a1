package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carhub/backend/services/fuel/internal/filestore"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// mustAttach stores data as an attachment of the refuel, its file first.
func mustAttach(tb testing.TB, s *Store, files *filestore.Store, refuelID uint64, data []byte) fuel.Attachment {
	tb.Helper()
	key, err := files.Put(data)
	if err != nil {
		tb.Fatal(err)
	}
	a := fuel.Attachment{Record: fuel.RecordRef{Kind: fuel.RecordRefuel, ID: refuelID}, FileKey: key, FileName: "scan.pdf",
		ContentType: "application/pdf", Size: int64(len(data)), SHA256: sha256Hex(data)}
	if err := s.CreateAttachment(context.Background(), &a); err != nil {
		tb.Fatal(err)
	}
	return a
}

func randomBytes(tb testing.TB, n int) []byte {
	tb.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestBackupRestoresAttachments: the backup file carries the attachments'
// files; a restore into an empty place brings every one back byte for byte
// (its SHA-256 the recorded one), leaves out those deleted, and removes the
// store's files the restored database does not record.
func TestBackupRestoresAttachments(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, filesDir := filepath.Join(dir, "a", "fuel.db"), filepath.Join(dir, "a", "attachments")
	s := mustOpenSQLiteAt(t, path)
	files, err := filestore.Open(filesDir)
	if err != nil {
		t.Fatal(err)
	}
	v := fuel.Vehicle{Name: "Car", FuelType: "diesel"}
	if err := s.CreateVehicle(ctx, &v); err != nil {
		t.Fatal(err)
	}
	r := fuel.Refuel{VehicleID: v.ID, RefuelTime: time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC), Odometer: dec("1000"),
		FuelType: "B7", Liters: dec("40"), TotalAmount: dec("70")}
	if err := s.CreateRefuel(ctx, &r); err != nil {
		t.Fatal(err)
	}
	data := map[string][]byte{}
	var kept []fuel.Attachment
	for _, n := range []int{1, 300_000, 5 << 20} {
		a := mustAttach(t, s, files, r.ID, randomBytes(t, n))
		data[a.FileKey], kept = bytes.Clone(mustReadFile(t, files, a.FileKey)), append(kept, a)
	}
	// Deleted, its file not yet removed: not in the backup.
	deleted := mustAttach(t, s, files, r.ID, []byte("deleted"))
	if err := s.DeleteAttachment(ctx, deleted.Record, deleted.ID); err != nil {
		t.Fatal(err)
	}
	// Deleted with its file after the copy's snapshot (as by a running
	// service): its file is gone when the backup reads it.
	gone := mustAttach(t, s, files, r.ID, []byte("gone"))
	if err := os.Remove(filepath.Join(filesDir, gone.FileKey)); err != nil {
		t.Fatal(err)
	}

	backup := filepath.Join(dir, "fuel.backup")
	info, err := BackupSQLiteFiles(ctx, path, filesDir, backup, false)
	if err != nil {
		t.Fatal(err)
	}
	if info.Attachments != 3 || info.AttachmentBytes != 1+300_000+5<<20 || info.AttachmentsGone != 1 {
		t.Fatalf("backup: %+v", info.packedFiles)
	}

	// The target's file store holds a file of another database, and a
	// file that is none of the store's.
	path2, filesDir2 := filepath.Join(dir, "b", "fuel.db"), filepath.Join(dir, "b", "attachments")
	if err := os.MkdirAll(filesDir2, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(filesDir2, filestore.NewKey())
	foreign := filepath.Join(filesDir2, "README.txt")
	for _, f := range []string{stale, stale + ".thumb", foreign} {
		if err := os.WriteFile(f, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	info, err = RestoreSQLiteFiles(ctx, backup, path2, filesDir2, false)
	if err != nil {
		t.Fatal(err)
	}
	if info.Attachments != 3 || info.FilesRemoved != 2 {
		t.Fatalf("restore: %+v", info.packedFiles)
	}

	s2 := mustOpenSQLiteAt(t, path2)
	got, err := s2.Attachments(ctx, fuel.RecordRef{Kind: fuel.RecordRefuel, ID: r.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(kept) {
		t.Fatalf("restored %d attachments, want %d", len(got), len(kept))
	}
	files2, err := filestore.Open(filesDir2)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range got {
		if a != kept[i] {
			t.Errorf("attachment %d: restored %+v, want %+v", i, a, kept[i])
		}
		b := mustReadFile(t, files2, a.FileKey)
		if sha256Hex(b) != a.SHA256 || !bytes.Equal(b, data[a.FileKey]) {
			t.Errorf("attachment %d: the restored file differs (SHA-256 %s, want %s)", a.ID, sha256Hex(b), a.SHA256)
		}
	}
	entries, err := os.ReadDir(filesDir2)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"README.txt"}
	for _, a := range kept {
		want = append(want, a.FileKey)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("restored file store %v, want %v", names, want)
	}
	// The restored database is a plain one: no files in it, none listed
	// for removal.
	db := readDB(t, s2)
	if ok, err := hasTable(ctx, db, backupFilesTable); err != nil || ok {
		t.Errorf("the restored database keeps %s (%v)", backupFilesTable, err)
	}
	if n := len(DumpTable(t, db, "deleted_attachment_files")); n != 0 {
		t.Errorf("%d files listed for removal after the restore", n)
	}
}

func mustReadFile(tb testing.TB, files *filestore.Store, key string) []byte {
	tb.Helper()
	b, err := files.ReadFile(key)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestRestoreRefusesDamagedAttachments: a backup whose file does not match
// its SHA-256, or that lacks one, restores nothing: neither database nor
// files.
func TestRestoreRefusesDamagedAttachments(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, filesDir := filepath.Join(dir, "fuel.db"), filepath.Join(dir, "attachments")
	s := mustOpenSQLiteAt(t, path)
	files, err := filestore.Open(filesDir)
	if err != nil {
		t.Fatal(err)
	}
	v := fuel.Vehicle{Name: "Car", FuelType: "diesel"}
	if err := s.CreateVehicle(ctx, &v); err != nil {
		t.Fatal(err)
	}
	r := fuel.Refuel{VehicleID: v.ID, RefuelTime: time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC), Odometer: dec("1000"),
		FuelType: "B7", Liters: dec("40"), TotalAmount: dec("70")}
	if err := s.CreateRefuel(ctx, &r); err != nil {
		t.Fatal(err)
	}
	mustAttach(t, s, files, r.ID, []byte("receipt one"))
	mustAttach(t, s, files, r.ID, []byte("receipt two"))

	for _, tc := range []struct {
		name, damage, want string
	}{
		{"a changed file", "UPDATE " + backupFilesTable + " SET data = x'00' WHERE rowid = 2", "does not match its SHA-256"},
		{"a missing file", "DELETE FROM " + backupFilesTable + " WHERE rowid = 1", "holds no file for it"},
		{"no files at all", "DROP TABLE " + backupFilesTable, "records 2 attachments but holds none of their files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			backup := filepath.Join(t.TempDir(), "fuel.backup")
			if _, err := BackupSQLiteFiles(ctx, path, filesDir, backup, false); err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("sqlite", "file:"+backup)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(tc.damage); err != nil {
				t.Fatal(err)
			}
			_ = db.Close()
			target := t.TempDir()
			_, err = RestoreSQLiteFiles(ctx, backup, filepath.Join(target, "fuel.db"), filepath.Join(target, "attachments"), false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(target); len(entries) != 0 {
				t.Errorf("the refused restore left %v", entries)
			}
		})
	}
}
