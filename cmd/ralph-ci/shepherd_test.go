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

// TestShepherdLimitsWrites: a command started by the shepherd with
// -write changes only what those paths hold (Landlock): a folder below a
// granted one and /dev/null, given as a file, work; a file or a folder
// beside them does not change (ralph-ci's own git directory is such a
// folder: job.Writable never grants it).
func TestShepherdLimitsWrites(t *testing.T) {
	if shepherd.LandlockABI() == 0 {
		t.Skip("this kernel has no Landlock")
	}
	root := t.TempDir()
	granted, denied := filepath.Join(root, "granted"), filepath.Join(root, "denied")
	for _, d := range []string{filepath.Join(granted, "sub"), denied} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(denied, "config"), []byte("ralph-ci's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `echo planted > "$1/config"; echo "config $?"; touch "$1/new"; echo "new $?"; rm -f "$1/config"; echo "rm $?"
touch "$2/sub/ok"; echo "granted $?"; echo x > /dev/null; echo "null $?"; touch "$3"; echo "beside $?"`
	cmd := &exec.Cmd{Path: e2e.RalphBinary(t), Args: shepherd.Args(0, []string{granted, "/dev/null", filepath.Join(root, "missing")},
		[]string{"/bin/sh", "-c", script, "sh", denied, granted, filepath.Join(root, "beside")})}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("shepherd: %v\n%s", err, out)
	}
	for _, want := range []string{"granted 0", "null 0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("want %q:\n%s", want, out)
		}
	}
	for _, denied := range []string{"config 0", "new 0", "rm 0", "beside 0"} {
		if strings.Contains(string(out), denied) {
			t.Errorf("the shepherd let %q through:\n%s", denied, out)
		}
	}
	if raw, _ := os.ReadFile(filepath.Join(denied, "config")); string(raw) != "ralph-ci's\n" {
		t.Errorf("the denied file holds %q", raw)
	}
}
