package cli

import (
	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/check"
)

func newAnswerCommand(opts *GlobalOptions) *cobra.Command {
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
			return check.Answer(cmd.Context(), opts.session(), args[0], args[1:])
		}),
	}
}
