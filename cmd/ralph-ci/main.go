// Command ralph-ci runs coding agents in verified Ralph loops in CI.
//
// main only parses flags and wires packages; see the pipeline, schema and
// reporters packages for the logic.
package main

import (
	"io"
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs ralph-ci with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return int(execute(args, stdin, stdout, stderr))
}
