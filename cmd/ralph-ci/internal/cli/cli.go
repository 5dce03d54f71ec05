// Package cli is the command line of ralph-ci, the body of its main
// (cmd/ralph-ci), in a package of its own so that the end-to-end test
// packages under cmd/ralph-ci/e2e can run their test binary as ralph-ci
// (internal/e2e.Main) as cmd/ralph-ci's own tests do.
//
// It is wiring: one cobra command per file (run, check, plan, status,
// reset, answer, report, init, version) parses its flags into an options
// struct and calls one function below; the environment and the tokens are
// read once, at the door (root.go, trust.go; internal/seal), into a job.Session.
// The sequences live below: run's in pipeline/run, check's in
// pipeline/check, plan's and the shards' in pipeline/matrix, what they
// share in pipeline/job (internal/layering pins the order of the
// packages).
package cli

import (
	"io"
	"os"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/seal"
	_ "github.com/ralph-ci/ralph-ci/internal/shepherd" // see Run
)

// Run is ralph-ci's main: it takes over a run as root started through
// sudo (Relaunched), seals the secrets of the process (internal/seal),
// runs Main with the process's arguments and exits with its code. It is
// never reached by the shepherd that contains agents and commands:
// started as shepherd.Name, ralph-ci runs it from that package's init,
// before the inits of CUE, YAML and the GitHub client.
func Run() {
	Relaunched(os.Args)
	seal.Seal(os.Args, sealedAway)
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs ralph-ci with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	defer igit.Cleanup() // ralph-ci's own git directories
	return int(execute(args, stdin, stdout, stderr))
}
