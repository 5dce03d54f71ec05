package scaffold

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// TestInit: init writes the setup and says what next, with the test
// command it was given; an unknown agent is a usage error; an existing
// config leaves everything as it was (exit 2).
func TestInit(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	tc := "make test"
	if err := Init(dir, "command", &tc, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wrote ralph.yaml", "wrote agent.sh", "added .ralph/ to .gitignore", "edit agent.sh", "ralph-ci check"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output %q: want %q", out.String(), want)
		}
	}
	if cfg, err := os.ReadFile(filepath.Join(dir, "ralph.yaml")); err != nil || !strings.Contains(string(cfg), "make test") {
		t.Errorf("ralph.yaml %q (%v): want the test command", cfg, err)
	}
	var ue *exitcode.UsageError
	if err := Init(t.TempDir(), "no-such-agent", nil, &out); !errors.As(err, &ue) {
		t.Errorf("unknown agent: %v, want a usage error", err)
	}
	out.Reset()
	if err := Init(dir, "command", nil, &out); exitcode.Of(err) != exitcode.Usage || out.Len() != 0 {
		t.Errorf("again: %v, output %q; want exit 2 and nothing written", err, out.String())
	}
}
