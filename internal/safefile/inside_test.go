package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInside: a report path stays in the repository through real folders,
// folders not made yet and links that stay inside; a link to a folder
// outside, or a link as the file itself, is refused.
func TestInside(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	mustMkdir(t, filepath.Join(root, ".ralph", "real"))
	mustMkdir(t, filepath.Join(root, "docs"))
	if err := os.Symlink(outside, filepath.Join(root, ".ralph", "reports")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "docs"), filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x.xml"), filepath.Join(root, ".ralph", "real", "link.xml")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, err string
	}{
		{".ralph/real/junit.xml", ""},
		{".ralph/new/deeper/junit.xml", ""},
		{"inner/report.json", ""},
		{".ralph/reports/junit.xml", "leads outside the repository"},
		{".ralph/reports/sub/junit.xml", "leads outside the repository"},
		{".ralph/real/link.xml", "is a symbolic link"},
		{"../elsewhere/junit.xml", "leads outside the repository"},
	} {
		err := Inside(root, filepath.Join(root, tc.path))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Inside(%s) = %v, want nil", tc.path, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Inside(%s) = %v, want an error with %q", tc.path, err, tc.err)
		}
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
