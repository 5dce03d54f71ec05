// Command ralph-ci runs coding agents in verified Ralph loops in CI.
//
// main is a door: its body is internal/cli (one cobra command per file,
// the environment and the tokens read once, at the door), in a package of
// its own so that the end-to-end test packages (cmd/ralph-ci/e2e/...) run
// their own test binary as ralph-ci, as this package's tests do.
package main

import "github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/cli"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	cli.Version = version
	cli.Run()
}
