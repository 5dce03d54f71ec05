package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/ralph-ci/ralph-ci/internal/seal"
	"github.com/ralph-ci/ralph-ci/internal/sudoroot"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
)

// consumed are the variables naming secrets the door reads once (a
// descriptor, a file it deletes): the run as root gets the secrets on
// descriptors of its own instead.
var consumed = []string{agent.TokenFDVar, agent.TokenFileVar, agent.PushTokenFDVar, agent.PushTokenFileVar, seal.FDVar}

// asRoot runs `run` again as root through passwordless sudo
// (sudoroot.AsRoot) when the config's box.user is auto, ralph-ci is
// not root and did not come through sudo, on Linux: the agent then gets
// a user of its own. It returns the exit code of the run as root and
// true, or false when run goes on as it is (no sudo, or one that asks
// for a password: the log says so once, and what gives the agent a user
// of its own). A config that does not load is left to run, which reports
// it. check, status, plan, reset, report and answer run no agent and
// never come here.
func asRoot(opts *GlobalOptions, args []string) (exitcode.Code, bool) {
	if !sudoroot.Works || os.Geteuid() == 0 {
		return 0, false
	}
	p, _ := project.Load(opts.Dir, opts.Config)
	if p == nil || p.Config == nil || !sudoroot.Wanted(p.Config.Box.User, os.Geteuid(), os.Getenv("SUDO_UID")) {
		return 0, false
	}
	env := os.Environ()
	for k, v := range opts.sealed {
		env = append(env, k+"="+v)
	}
	payload := sudoroot.Payload{Env: sudoroot.Environ(env, nil, consumed), Token: opts.Env.PR.Token, PushToken: opts.Env.PushToken}
	code, ran, err := sudoroot.AsRoot(opts.Log, args, payload)
	if err != nil {
		return exitcode.Failure, true
	}
	return exitcode.Code(code), ran
}

// relayedError ends the invoking ralph-ci with the code of its run as
// root, which printed and reported everything itself.
func relayedError(code exitcode.Code) error {
	return exitcode.Printed(code, errors.New("ran as root through sudo"))
}

// Relaunched takes over a run that asRoot started as root through sudo:
// it reads the invoking ralph-ci's environment and secrets from its pipe
// and starts ralph-ci again (exec, same process) with them, sealed
// (internal/seal): the job's environment exactly, PATH and what sudo drops
// included, with sudo's SUDO_* variables. Anything else returns at once.
// A payload that cannot be read ends the process: going on would run
// with sudo's environment instead of the job's.
func Relaunched(args []string) {
	p, err := sudoroot.Receive()
	if p == nil && err == nil {
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ralph-ci: run as root through sudo: %v\n", err)
		os.Exit(int(exitcode.Failure))
	}
	keep, moved := seal.Split(sudoroot.Environ(p.Env, os.Environ(), consumed), sealedAway)
	fds := map[string]string{}
	if p.Token != "" {
		fds[agent.TokenFDVar] = p.Token
	}
	if p.PushToken != "" {
		fds[agent.PushTokenFDVar] = p.PushToken
	}
	err = seal.Exec(args, keep, moved, fds)
	fmt.Fprintf(os.Stderr, "ralph-ci: run as root through sudo: %v\n", err)
	os.Exit(int(exitcode.Failure))
}
