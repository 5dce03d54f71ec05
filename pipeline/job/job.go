// Package job holds what the commands of one CI job share below the
// command line: the environment read once at the door (github/jobenv), the job's
// writers, log and agent host, the event read once and the job's one
// GitHub client (Session, built by Open), the project as a command loads it
// (problems printed and annotated), the checkpoint channel of the event's
// pull request, the one merge-gate status, the event and the git
// credentials of ralph-ci's own fetch and push.
//
// The commands' sequences (pipeline/run, pipeline/check, pipeline/matrix)
// build on it; cmd/ralph-ci only parses flags into their options.
package job

import (
	"errors"
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/github/jobenv"
	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/runhost"
)

// Session is one job as the commands take it, built once at the door:
// the door fills the flags every command takes, where it writes, its log,
// the environment and its part of the agent host; Open reads the GitHub
// Actions event once and builds the one client of the GitHub port
// (github.Repo) with the pull requests' side of it (github/pulls).
// Nothing below a command reads the event or builds a client: run, check
// and plan ask the session, and every pull request's channel (Channel,
// the sweep's, the merge gate's) talks to its client. Once a command
// trusts the config, Trust makes its second step (Trusted): the project
// and the delivery mode.
type Session struct {
	// Dir is -C DIR, the repository root; Config is --config FILE ("" finds
	// ralph.cue, ralph.yaml, ralph.yml or ralph.json in Dir).
	Dir, Config string
	// Stdout gets what a command prints for people and for the runner
	// (workflow commands, annotations).
	Stdout io.Writer
	Log    zerolog.Logger
	Env    jobenv.Env // read once, at the door
	// Host is the door's part of how every agent and verification
	// command starts: the secrets to mask, the model APIs' keys, the
	// shepherd. Nothing changes it after the door: a run builds its own
	// host from it, once, with its final policy (Session.RunHost).
	Host *agent.Host
	// Version is ralph-ci's version, recorded in the state's lock.
	Version string
	// Deliver is --deliver MODE of run, check and plan ("": the
	// config's delivery.mode); Session.Trust chooses the mode from it.
	Deliver string

	// hidden is the credential actions/checkout persisted, as
	// UseGitCredential took it (a fork push gives it back to origin's
	// commands), and hiddenValues its secrets, which the run's host masks.
	hidden       []igit.Credential
	hiddenValues []string

	*read // by Open
}

// RunHost builds the host every process of a run starts through, once,
// with its final policy (runhost.Build): the door's part (Host, which it
// does not change), the credential actions/checkout persisted
// (UseGitCredential) masked, and the run's policy. It logs the git
// configuration pairs of the job's environment no process gets, by key
// (never by value).
func (s *Session) RunHost(pol runhost.Policy) *agent.Host {
	for _, w := range s.Host.GitWithheld {
		s.Log.Warn().Str("variable", w.Var).Str("key", w.Key).Str("why", w.Why).
			Msg("git: a configuration pair of the job's environment that can carry a credential is withheld from the agents and verification commands (ralph-ci's own fetch and push use their own credentials)")
	}
	return runhost.Build(s.Host, s.hiddenValues, pol)
}

// Shown prints, one line each, where things stand, logs msg and returns
// the exit code (nil for OK), already shown.
func (j *Session) Shown(lines []string, code exitcode.Code, msg string) error {
	for _, line := range lines {
		fmt.Fprintln(j.Stdout, line)
	}
	if code == exitcode.OK {
		j.Log.Info().Msg(msg)
		return nil
	}
	j.Log.Warn().Str("exit", code.Class()).Msg(msg)
	return exitcode.Printed(code, errors.New(msg))
}
