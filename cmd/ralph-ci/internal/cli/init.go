package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ralph-ci/ralph-ci/internal/scaffold"
)

func newInitCommand(opts *GlobalOptions) *cobra.Command {
	var agentName, testCommand string
	var names []string
	for _, a := range scaffold.Agents {
		names = append(names, a.Name)
	}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a ralph.yaml, a first spec and the two workflows into a repository",
		Long: `init sets a repository up for its first loop: a ralph.yaml for the agent
CLI of --agent, a first spec (specs/first.spec.md), the .ralph/ line of
.gitignore, and the two GitHub workflows: ralph-run.yml (the loop on pull
requests, with the step that installs the agent CLI, the secret it reads
and the permissions it needs) and ralph-check.yml (the merge gate of the
verify tier). With --agent command it also writes agent.sh, the script to
fill in with the call to your agent.

The config verifies specs with the repository's test command, guessed from
the files at its root (go.mod, Cargo.toml, package.json, pyproject.toml,
...) or given with --test-command. init never overwrites a file: when one
exists, it writes nothing and names them. Then: ralph-ci check, ralph-ci
run (see docs/getting-started.md).`,
		Example: `  ralph-ci init --agent claude
  ralph-ci init --agent codex --test-command "make test"
  ralph-ci -C path/to/repo init --agent gemini`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			var tc *string
			if cmd.Flags().Changed("test-command") {
				tc = &testCommand
			}
			return scaffold.Init(opts.Dir, agentName, tc, cmd.OutOrStdout())
		}),
	}
	cmd.Flags().StringVar(&agentName, "agent", "claude", "the agent CLI: "+strings.Join(names, ", "))
	cmd.Flags().StringVar(&testCommand, "test-command", "", "the command that runs the repository's tests (default: guessed from go.mod, package.json, ...)")
	return cmd
}
