package main

import (
	"fmt"
	"os/user"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/pipeline/gate"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/state"
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
			if pr, ok, _ := opts.env.pr.PullRequest(); ok {
				return &usageError{fmt.Errorf("pull request #%d: there a checkpoint is answered on the pull request, by a reply to its comment (1 or yes approves; 2 …, 3 … or any other text rejects, with your feedback) or a reaction (+1, -1); ralph-ci answer is for a laptop (docs/checkpoints.md)", pr)}
			}
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

func localUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "local"
}
