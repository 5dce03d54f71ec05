//go:build unix

package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestUnderFollowsNoLink: below a lent folder, a link as the file
// itself is refused for reading and writing (ErrLink), a folder that is
// a link leading out is refused, a FIFO is refused at once, and
// ReplaceUnder replaces a link instead of writing through it. The target
// outside is never written.
func TestUnderFollowsNoLink(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "log")
	must(t, os.Symlink(secret, link))
	must(t, os.Symlink(outside, filepath.Join(root, "handoffs")))
	fifo := filepath.Join(root, "status")
	must(t, syscall.Mkfifo(fifo, 0o644))

	if _, err := OpenUnder(root, link, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); !errors.Is(err, ErrLink) {
		t.Errorf("write through a link: %v, want ErrLink", err)
	}
	if _, err := ReadUnder(root, link, 100); !errors.Is(err, ErrLink) {
		t.Errorf("read through a link: %v, want ErrLink", err)
	}
	if _, err := ReadUnder(root, fifo, 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("read a FIFO: %v, want ErrNotRegular", err)
	}
	if _, err := OpenUnder(root, fifo, os.O_WRONLY, 0); err == nil {
		t.Errorf("write a FIFO without a reader: no error")
	}
	if _, err := OpenUnder(root, filepath.Join(root, "handoffs", "a.md"), os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
		t.Errorf("write through a folder link leading out: no error")
	}
	if err := MkdirUnder(root, filepath.Join(root, "handoffs", "x"), 0o755); err == nil {
		t.Errorf("mkdir through a folder link leading out: no error")
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "mine"); return err }
	if err := ReplaceUnder(root, filepath.Join(root, "handoffs", "b.md"), 0o644, write); err == nil {
		t.Errorf("replace through a folder link leading out: no error")
	}
	if err := ReplaceUnder(root, link, 0o644, write); err != nil {
		t.Fatalf("replace a link: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("after ReplaceUnder the link is still there: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(secret); string(got) != "s3cret" {
		t.Errorf("the target outside was written: %q", got)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("files were made outside: %v", entries)
	}
	lroot := filepath.Join(t.TempDir(), "ralph")
	must(t, os.Symlink(root, lroot))
	if _, err := ReadUnder(lroot, filepath.Join(lroot, "log"), 100); !errors.Is(err, ErrLink) {
		t.Errorf("a root that is a link: %v, want ErrLink", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestLinkUnderReplacesALink: current.log planted as a link to a file
// outside is replaced by the hard link, the outside file untouched.
func TestLinkUnderReplacesALink(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	must(t, os.WriteFile(victim, []byte("root's"), 0o600))
	log := filepath.Join(root, "001.log")
	must(t, os.WriteFile(log, []byte("output"), 0o644))
	current := filepath.Join(root, "current.log")
	must(t, os.Symlink(victim, current))
	if err := LinkUnder(root, log, filepath.Join(root, ".current.log.tmp"), current); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(current); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("current.log is not the hard link: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(current); string(got) != "output" {
		t.Errorf("current.log = %q", got)
	}
	if got, _ := os.ReadFile(victim); string(got) != "root's" {
		t.Errorf("the link's target was written: %q", got)
	}
}

// TestOpenSoleUnderRefusesASecondName: a file below the lent folder that
// is another name of a file outside (a hard link) is refused for a write
// in place (ErrHardLink), as a symbolic link is (ErrLink); a file of one
// name opens, and OpenUnder still opens the hard link.
func TestOpenSoleUnderRefusesASecondName(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	must(t, os.WriteFile(victim, []byte("root's"), 0o600))
	hard := filepath.Join(root, "hard")
	must(t, os.Link(victim, hard))
	soft := filepath.Join(root, "soft")
	must(t, os.Symlink(victim, soft))
	own := filepath.Join(root, "own")
	must(t, os.WriteFile(own, []byte("mine"), 0o600))

	if _, err := OpenSoleUnder(root, hard, os.O_WRONLY, 0); !errors.Is(err, ErrHardLink) {
		t.Errorf("a hard link: %v, want ErrHardLink", err)
	}
	if _, err := OpenSoleUnder(root, soft, os.O_WRONLY, 0); !errors.Is(err, ErrLink) {
		t.Errorf("a symbolic link: %v, want ErrLink", err)
	}
	f, err := OpenSoleUnder(root, own, os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("a file of one name: %v", err)
	}
	f.Close()
	f, err = OpenUnder(root, hard, os.O_RDONLY, 0)
	if err != nil {
		t.Fatalf("OpenUnder refused a hard link: %v", err)
	}
	f.Close()
	if got, _ := os.ReadFile(victim); string(got) != "root's" {
		t.Errorf("the other name's file was written: %q", got)
	}
}
