package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// Replace puts the new content in place of the old, with the mode asked
// for, and leaves no temporary file beside it; a reader that opened the
// old file before keeps reading the old content whole.
func TestReplaceSwapsWholeFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.xml")
	if err := os.WriteFile(path, []byte("old report"), 0o600); err != nil {
		t.Fatal(err)
	}
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	write := func(w io.Writer) error {
		_, err := io.WriteString(w, "new report, longer than the old")
		return err
	}
	if err := Replace(path, 0o640, write); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new report, longer than the old" {
		t.Fatalf("after Replace %s holds %q, %v", path, got, err)
	}
	if fi, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640) {
		t.Errorf("mode %v, %v: want 0640 whatever the umask", fi.Mode().Perm(), err)
	}
	if old, err := io.ReadAll(reader); err != nil || string(old) != "old report" {
		t.Errorf("a reader of the old file read %q, %v: want the old content whole", old, err)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "report.xml" {
		t.Errorf("the folder holds %q: want the report alone", names)
	}
}

// A write that fails half way leaves the old file as it was and removes
// its temporary file; a missing folder is an error, not a new folder.
func TestReplaceFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte(`{"old":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := Replace(path, 0o600, func(w io.Writer) error {
		if _, err := io.WriteString(w, `{"half`); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Replace = %v, want the writer's error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != `{"old":true}` {
		t.Errorf("after a failed write %s holds %q: want the old content", path, got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("the folder holds %q: want the old file alone", names)
	}
	missing := filepath.Join(dir, "no-such-folder", "x")
	if err := Replace(missing, 0o600, func(io.Writer) error { return nil }); err == nil {
		t.Errorf("Replace into a missing folder succeeded")
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Replace made the missing folder: %v", err)
	}
}

// A folder where path should be is not replaced: the rename fails and
// the temporary file is removed.
func TestReplaceDoesNotReplaceAFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, 0o600, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err == nil {
		t.Fatal("Replace put a file over a folder")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "out" {
		t.Errorf("the folder holds %q: want the folder out alone", names)
	}
}
