package cli

import (
	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/pipeline/check"
)

func newCheckCommand(opts *GlobalOptions) *cobra.Command {
	var o check.Options
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Validate the config and every spec's front matter",
		Long: `check validates the config file and the front matter of every discovered
spec against the schemas built into ralph-ci. Every problem is printed as
file:line:col: field: message, and the exit code is 2. When all is valid it
prints one line per spec: its verification tier, stages and methods, then
a "warning:" line for what is valid but will not work as expected (an
agent CLI not on PATH, a cost budget no agent reports, a pull request's
event without a token, delivery from below the top of the repository),
each with what to do; warnings do not change the exit code.

Then it is the merge gate of the verify tier: it reads the answers given to
the checkpoints (reply comments and reactions on the pull request of the
GitHub Actions event, from authorized people only; on a laptop, the answers
given with ralph-ci answer), records the decisions, posts escalations and
updates the commit statuses. It exits 0 only when every verify-tier spec is
approved for the current head commit (or its verification was skipped
after an escalation); 6 while a checkpoint waits, 7 when one was rejected
(the spec is back at work), 8 when one escalated. --wait reads the
answers again every 15 seconds while a checkpoint waits for one (pending
or escalated), at most for the given duration; the exit code is then
where they stand.

On a schedule or workflow_dispatch (no pull request in the event) it
reads the checkpoints of the open pull requests instead, as it would on
each one's comment: those whose head has a ralph-ci/<spec> status that is
not success, at most github.max_pull_requests per run, one pass each,
each judged with its own specs (read at its head) and the approvers and
tiers of its base; no specs in the checkout is fine then. It prints
"#N<TAB>SPEC<TAB>checkpoint=..." per checkpoint read and names the pull
requests left for the next run; a pull request that cannot be read does
not stop the others. Exit: 1 if one could not be read, 3 if the API's
rate limit stopped the walk, else where the checkpoints read stand.`,
		Example: `  ralph-ci check
  ralph-ci check --config ci/ralph.yaml
  ralph-ci -C examples/quickstart check
  ralph-ci check --wait 10m          # the merge gate: wait for the human answers
  ralph-ci check --json | jq .warnings`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return check.Run(cmd.Context(), opts.session(), o)
		}),
	}
	cmd.Flags().DurationVar(&o.Wait, "wait", 0, "poll for checkpoint answers for at most `DURATION` (e.g. 10m) while any waits for one")
	// Internal, for tests: how often --wait reads the answers again. Hidden
	// because a shorter interval only spends the API's rate limit.
	cmd.Flags().DurationVar(&o.Every, "poll-interval", check.DefaultPollInterval, "internal: how often --wait reads the answers")
	_ = cmd.Flags().MarkHidden("poll-interval")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print one JSON document (config, specs, problems, warnings, the gate's output and exit code) instead of lines")
	cmd.Flags().StringVar(&opts.Deliver, "deliver", "", "with `MODE` pr or branch on a pull request, also require the state delivered for its head branch to hold every spec verified 3/3 at its head (default: delivery.mode)")
	return cmd
}
