//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	type testCase struct {
		name    string
		path    string
		limit   int64
		want    string
		wantErr error
		msg     string
	}
	for _, tc := range []testCase{
		{name: "regular file", path: write("ok", "DONE\n"), limit: 10, want: "DONE\n"},
		{name: "exactly the limit", path: write("full", "12345"), limit: 5, want: "12345"},
		{name: "over the limit", path: write("big", "123456"), limit: 5, wantErr: ErrTooLarge, msg: "over 5 bytes"},
		{name: "fifo without a writer", path: fifo, limit: 10, wantErr: ErrNotRegular, msg: "named pipe"},
		{name: "symlink to /dev/zero", path: zero, limit: 10, wantErr: ErrNotRegular, msg: "character device"},
		{name: "directory", path: dir, limit: 10, wantErr: ErrNotRegular, msg: "directory"},
		{name: "missing", path: filepath.Join(dir, "nope"), limit: 10, wantErr: fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() { got, err = Read(tc.path, tc.limit); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("Read(%s) blocked", tc.path)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("err = %q, want it to name %s and say %q", err, tc.path, tc.msg)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("Read = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestReadOptionalMissingIsNil(t *testing.T) {
	got, err := ReadOptional(filepath.Join(t.TempDir(), "nope"), 10)
	if got != nil || err != nil {
		t.Fatalf("ReadOptional(missing) = %q, %v; want nil, nil", got, err)
	}
	_, err = ReadOptional("/dev/zero", 10)
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadOptional(/dev/zero) err = %v, want ErrNotRegular", err)
	}
}
