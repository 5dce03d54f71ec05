package agentuser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHardlinksProtected: a user of the agent's own is refused where
// fs.protected_hardlinks is 0 (the agent could hard-link /etc/shadow
// into the tree root reads), with the way out named; 1, or a sysctl
// that cannot be read, lets it run.
func TestHardlinksProtected(t *testing.T) {
	dir := t.TempDir()
	for value, refused := range map[string]bool{"0\n": true, "1\n": false, "2\n": false} {
		p := filepath.Join(dir, "v"+strings.TrimSpace(value))
		if err := os.WriteFile(p, []byte(value), 0o644); err != nil {
			t.Fatal(err)
		}
		err := hardlinksProtected(p)
		if refused != (err != nil) || (err != nil && !strings.Contains(err.Error(), "sysctl -w fs.protected_hardlinks=1")) {
			t.Errorf("protected_hardlinks %q: %v", strings.TrimSpace(value), err)
		}
	}
	if err := hardlinksProtected(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("an unreadable sysctl: %v", err)
	}
	if err := hardlinksProtected(protectedHardlinks); err != nil {
		t.Logf("this machine: %v", err)
	}
}
