// Package e2e is what the end-to-end tests of ralph-ci share: the test
// binary run as ralph-ci (Main, RalphBinary), the worlds they build (a
// pull request's repository and its GitHub, a CI run's origin, a run as
// a user of its own), the scripted agents and the files they write.
//
// The tests themselves are in cmd/ralph-ci (the scripts of
// testdata/script and the command line's own tests) and in the packages
// of cmd/ralph-ci/e2e, one per area (agents, delivery, pullrequest), each
// with its own go test timeout: run them all with
// go test ./cmd/ralph-ci/...
package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/cli"
	"github.com/ralph-ci/ralph-ci/internal/gitenv"
)

// Main is the TestMain of every end-to-end test package: it makes the
// test binary double as the ralph-ci binary, so the scripts and the tests
// (RalphBinary) run the real command line as a subprocess without
// building it again: run under the name ralph-ci, the test binary is
// ralph-ci's main (cli.Run). Run as the shepherd, internal/shepherd's init
// takes it before this. As the test process (not as ralph-ci, whose
// own handling of them is under test), it first drops the variables
// that point git at another repository (gitenv.Drop): under `git bisect
// run`, or a hook running go test, the tests' git and the ralph-ci they
// start would write into the developer's repository.
func Main(m *testing.M) {
	commands := map[string]func(){"ralph-ci": cli.Run}
	for name, f := range helperCommands {
		commands[name] = f
	}
	if _, command := commands[strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")]; !command {
		gitenv.Drop()
	}
	testscript.Main(m, commands)
}

// helperCommands are the other names the test binary answers to: the
// helpers the tests start (a simulated container's, on Linux).
var helperCommands = map[string]func(){}

// Root is the path of elem in the module's root folder (the first folder
// up from the test's own with a go.mod), so that a test reads the
// repository's files (docs, examples, action.yml, testdata) from any
// package.
func Root(t testing.TB, elem ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(append([]string{dir}, elem...)...)
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatalf("no go.mod above %s", dir)
		}
		dir = up
	}
}

// GitFolderBase is the folder holding ralph-ci's git directories
// (internal/git's, for this user).
func GitFolderBase() string { return filepath.Join("/var/tmp", "ralph-ci-"+strconv.Itoa(os.Getuid())) }
