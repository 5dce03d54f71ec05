// Command ralph-ci runs coding agents in verified Ralph loops in CI.
//
// main only parses flags and wires packages, one command per file (run,
// check, status, reset, answer, report, version); the environment is read
// once, into one struct, at the door (env.go). The logic lives below: the
// loop in pipeline/engine, the checkpoints and who may approve in
// pipeline/gate, the outputs in reporters (internal/layering pins the
// order of the packages).
package main

import (
	"io"
	"os"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	_ "github.com/ralph-ci/ralph-ci/internal/shepherd" // see main
)

// main is never reached by the shepherd that contains agents and
// commands: started as shepherd.Name, ralph-ci runs it from that
// package's init, before the inits of CUE, YAML and the GitHub client.
func main() {
	seal(os.Args)
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs ralph-ci with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	defer igit.Cleanup() // ralph-ci's own git directories
	return int(execute(args, stdin, stdout, stderr))
}
