package main

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers/gate"
	"github.com/ralph-ci/ralph-ci/reporters/github"
	"github.com/ralph-ci/ralph-ci/reporters/prcomment"
)

func newAnswerCommand(opts *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "answer SPEC 1|2|3 [feedback...]",
		Short: "Answer a verify-tier checkpoint without a pull request (a laptop)",
		Long: `answer gives the answer to the open checkpoint of SPEC, as a reply on a pull
request would: 1 (or yes) approves it for the current HEAD commit; 2 and 3
reject it (2: revise the contract, 3: more detail for the implementation)
with the feedback that follows, which the next rotations get as behavioural
context; anything else rejects it too (tighten the tests). After three
rejections the checkpoint escalates and 1, 2 or 3 chooses: re-scope, pair
(the feedback is your step-by-step guidance) or skip verification.`,
		Example: `  ralph-ci answer specs/auth.spec.md 1
  ralph-ci answer specs/auth.spec.md 3 expired tokens must return 401, not 500`,
		Args: cobra.MinimumNArgs(2),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			p, err := loadProject(opts)
			if err != nil {
				return err
			}
			sp, ok := findSpec(p, args[0])
			if !ok {
				return &usageError{fmt.Errorf("%s: no such spec (ralph-ci check lists them)", args[0])}
			}
			if sp.Tier != plan.TierVerify {
				return &usageError{fmt.Errorf("%s is of the %s tier: it has no human checkpoint", sp.Path, sp.Tier)}
			}
			dir := state.At(p.Root)
			lock, st, err := state.Open(dir, state.LockInfo{Command: "answer", Version: versionString()})
			if err != nil {
				return err
			}
			defer lock.Release()
			eff, err := gate.Answer(cmd.Context(), gate.Local{Root: p.Root, Out: opts.stdout}, sp, &st, localUser(), strings.Join(args[1:], " "), opts.log)
			if err != nil {
				return exitcode.New(exitcode.Usage, err)
			}
			if err := state.Save(dir, st); err != nil {
				return err
			}
			switch {
			case eff.Ignored != "":
				return exitcode.Printed(exitcode.Usage, fmt.Errorf("%s", eff.Ignored))
			case eff.Escalated:
				return exitcode.Printed(exitcode.Escalated, fmt.Errorf("escalated"))
			case eff.Rejected:
				return exitcode.Printed(exitcode.Rejected, fmt.Errorf("rejected"))
			}
			return nil
		}),
	}
}

// findSpec finds a spec by path (as check lists it) or id.
func findSpec(p *project.Project, name string) (plan.Spec, bool) {
	for _, sp := range p.Specs {
		if sp.Path == name || sp.ID == name {
			return sp, true
		}
	}
	return plan.Spec{}, false
}

func localUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "local"
}

// checkpointChannel is where checkpoints go: the pull request of the
// GitHub Actions event when there is one, else the terminal.
func checkpointChannel(ctx context.Context, opts *globalOptions, p *project.Project) (gate.Channel, error) {
	env := prcomment.EnvFrom(os.Getenv)
	pr, ok, err := env.PullRequest()
	if err != nil {
		return nil, err
	}
	if !ok {
		return gate.Local{Root: p.Root, Out: opts.stdout}, nil
	}
	return prcomment.New(prcomment.Options{Env: env, PR: pr, Config: p.Config.GitHub, Log: opts.log,
		Actions: github.EnvFrom(os.Getenv), Stdout: opts.stdout})
}

// gateCode is the exit code of the checkpoints' result.
func gateCode(res gate.Result) (exitcode.Code, string) {
	switch {
	case len(res.Escalated) > 0:
		return exitcode.Escalated, fmt.Sprintf("checkpoint rejected %d times; escalated, waiting for a decision (1/2/3): %v", tiers.EscalationThreshold, res.Escalated)
	case len(res.Rework) > 0:
		return exitcode.Rejected, fmt.Sprintf("checkpoint rejected; back to work: %v", res.Rework)
	case len(res.Pending) > 0:
		return exitcode.AwaitHuman, fmt.Sprintf("awaiting the human checkpoint of the verify tier: %v", res.Pending)
	}
	return exitcode.OK, "every verify-tier checkpoint is approved for the head commit"
}
