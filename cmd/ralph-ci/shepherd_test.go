package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
)

// heavyInits are packages ralph-ci links whose inits cost milliseconds;
// every agent and verification command start pays for a shepherd, which
// must not wait for them.
var heavyInits = regexp.MustCompile(`(?m)^init (cuelang\.org/go/(cue|internal/core/\S+)|github\.com/cockroachdb/apd/v3|google\.golang\.org/protobuf/reflect/protodesc|github\.com/google/go-github/\S+) @`)

// Started as the shepherd, the ralph-ci binary runs the command before
// the inits of CUE, apd, protobuf and the GitHub client (see
// internal/shepherd), and passes its exit status on.
func TestShepherdStartsBeforeHeavyInits(t *testing.T) {
	if !shepherd.Works {
		t.Skip("the shepherd works on " + runtime.GOOS + " only where it has child subreapers")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	// The same binary without the shepherd's name does run them: the
	// pattern matches what inittrace prints.
	full := exec.Command(e2e.RalphBinary(t), "version")
	full.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, _ := full.CombinedOutput()
	if !heavyInits.Match(out) {
		t.Fatalf("ralph-ci version ran none of the heavy inits:\n%s", out)
	}
	cmd := &exec.Cmd{Path: e2e.RalphBinary(t), Args: shepherd.Args(0, nil, []string{sh, "-c", "echo ran; exit 3"})}
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || !strings.Contains(string(out), "ran\n") {
		t.Fatalf("shepherd: %v, output:\n%s", err, out)
	}
	if m := heavyInits.FindAll(out, -1); len(m) > 0 {
		t.Errorf("the shepherd ran after heavy inits: %q", m)
	}
}

// TestShepherdDeniesWrites: a command started by the shepherd with -deny
// cannot write in that folder (Landlock), and still writes elsewhere;
// ralph-ci gives its own git directory so (job.DenyGitDirs).
func TestShepherdDeniesWrites(t *testing.T) {
	if shepherd.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	denied, err := os.MkdirTemp("/var/tmp", "ralph-ci-landlock-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(denied) })
	if err := os.WriteFile(filepath.Join(denied, "config"), []byte("ralph-ci's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	free := t.TempDir()
	script := `echo planted > "$1/config"; echo "config $?"; touch "$1/new"; echo "new $?"; touch "$2/ok"; echo "free $?"`
	cmd := &exec.Cmd{Path: e2e.RalphBinary(t), Args: shepherd.Args(0, []string{denied}, []string{"/bin/sh", "-c", script, "sh", denied, free})}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("shepherd: %v\n%s", err, out)
	}
	if got := string(out); !strings.Contains(got, "config 1") && !strings.Contains(got, "config 2") || !strings.Contains(got, "free 0") || strings.Contains(got, "new 0") {
		t.Errorf("want the denied folder unwritable and the other one writable:\n%s", out)
	}
	if raw, _ := os.ReadFile(filepath.Join(denied, "config")); string(raw) != "ralph-ci's\n" {
		t.Errorf("the denied file holds %q", raw)
	}
}
