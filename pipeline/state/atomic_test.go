package state

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"time"
)

func TestWriteFileAtomic(t *testing.T) {
	d := newDir(t)
	p := d.Guardrails()
	for _, content := range []string{"first", "second, longer content", ""} {
		if err := WriteFileAtomic(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != content {
			t.Fatalf("got %q, want %q", got, content)
		}
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("perm = %v, want 0600", fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(d.Path())
	for _, e := range entries {
		if isTempName(e.Name()) {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	if err := WriteFileAtomic(filepath.Join(d.Path(), "no", "such", "dir"), nil, 0o644); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

func TestCleanTemp(t *testing.T) {
	d := newDir(t)
	old := time.Now().Add(-time.Hour)
	files := map[string]bool{ // name -> should survive
		".state.json.tmp-123":        false,
		".run.json.new-456":          false,
		".guardrails.md812345678":    false, // renameio's
		"handoffs/.k.md.tmp-9":       false,
		".state.json.tmp-fresh":      true, // too young
		"state.json":                 true,
		"guardrails.md":              true,
		"handoffs/k.md":              true,
		".run.json.recover":          true, // managed by the recovery mutex
		"handoffs/notes.tmp-1.md":    true, // not hidden: not ours
		"history/k/.001.log.tmp-123": true, // history is not cleaned
	}
	for name := range files {
		p := filepath.Join(d.Path(), filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if name != ".state.json.tmp-fresh" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := d.CleanTemp(); err != nil {
		t.Fatal(err)
	}
	for name, survive := range files {
		_, err := os.Stat(filepath.Join(d.Path(), filepath.FromSlash(name)))
		if (err == nil) != survive {
			t.Errorf("%s: exists=%v, want %v", name, err == nil, survive)
		}
	}
	if err := At(t.TempDir()).CleanTemp(); err != nil {
		t.Errorf("missing directory: %v", err)
	}
}

// TestSaveSurvivesKill9 kills a process that saves state in a tight loop,
// 20 times at varying moments. Whenever the kill lands, state.json must
// parse and be one of the complete versions written, never older than the
// last one seen, and leftover temporary files must not matter.
func TestSaveSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	d := newDir(t)
	last := 0
	for round := range 20 {
		h := startHelper(t, "saveloop", d, helperStartEnv+"="+strconv.Itoa(last+1))
		if line := h.line(t); line != "ready" {
			t.Fatalf("helper: %s", line)
		}
		// Read concurrently with the writer for a varying time, then kill.
		deadline := time.Now().Add(time.Duration(round%7)*time.Millisecond + time.Duration(round)*300*time.Microsecond)
		for reads := 0; reads == 0 || time.Now().Before(deadline); reads++ {
			last = checkLoad(t, d, last)
		}
		if err := h.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = h.cmd.Wait()
		last = checkLoad(t, d, last)
	}
	if last < 20 {
		t.Errorf("only %d saves observed; the helper did not run", last)
	}
	entries, _ := os.ReadDir(d.Path())
	leftovers := 0
	for _, e := range entries {
		if isTempName(e.Name()) {
			leftovers++
		}
	}
	t.Logf("%d saves observed, %d kills left a temporary file", last, leftovers)
	if err := d.cleanTemp(0); err != nil {
		t.Fatal(err)
	}
	entries, _ = os.ReadDir(d.Path())
	for _, e := range entries {
		if isTempName(e.Name()) {
			t.Errorf("CleanTemp left %s", e.Name())
		}
	}
	checkLoad(t, d, last)
}

// TestLoadWhileSaving reads state.json while another process saves it as
// fast as it can: every read must be a complete version, never older than
// the one read before. Save reuses the files it exchanges, so a reader can
// open state.json just as it becomes the spare (and read an older version,
// or one being rewritten) unless Load checks that it read the current file.
func TestLoadWhileSaving(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	d := newDir(t)
	h := startHelper(t, "saveloop", d, helperStartEnv+"=1")
	if line := h.line(t); line != "ready" {
		t.Fatalf("helper: %s", line)
	}
	last, reads := 0, 0
	for ; last < 2000; reads++ {
		last = checkLoad(t, d, last)
	}
	t.Logf("%d reads over %d saves", reads, last)
}

// checkLoad loads the state, checks it is exactly sampleState(iteration)
// with iteration >= min, and returns the iteration.
func checkLoad(t *testing.T, d Dir, min int) int {
	t.Helper()
	s, err := Load(d)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if s.Iteration < min {
		t.Fatalf("state went back from iteration %d to %d", min, s.Iteration)
	}
	if !reflect.DeepEqual(s, sampleState(s.Iteration)) {
		t.Fatalf("state.json at iteration %d is not the complete version written", s.Iteration)
	}
	return s.Iteration
}
