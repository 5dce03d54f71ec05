package main

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"

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
	full := exec.Command(ralphBinary(t), "version")
	full.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, _ := full.CombinedOutput()
	if !heavyInits.Match(out) {
		t.Fatalf("ralph-ci version ran none of the heavy inits:\n%s", out)
	}
	cmd := &exec.Cmd{Path: ralphBinary(t), Args: shepherd.Args(0, []string{sh, "-c", "echo ran; exit 3"})}
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || !strings.Contains(string(out), "ran\n") {
		t.Fatalf("shepherd: %v, output:\n%s", err, out)
	}
	if m := heavyInits.FindAll(out, -1); len(m) > 0 {
		t.Errorf("the shepherd ran after heavy inits: %q", m)
	}
}
