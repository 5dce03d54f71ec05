package scaffold

import (
	"fmt"
	"io"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// Init is the init command: it writes the files of agentName's setup into
// root (the test command guessed from root's files when testCommand is
// nil), adds the .ralph/ line to .gitignore and says on out what it wrote
// and what to do next. It writes nothing when one of the files exists
// (exit 2); an unknown agent is a usage error.
func Init(root, agentName string, testCommand *string, out io.Writer) error {
	agent, err := AgentNamed(agentName)
	if err != nil {
		return &exitcode.UsageError{Err: err}
	}
	tc := TestCommand(root)
	if testCommand != nil {
		tc = *testCommand
	}
	files, err := Files(agent, strings.TrimSpace(tc))
	if err != nil {
		return err
	}
	if err := Write(root, files); err != nil {
		return exitcode.New(exitcode.Usage, err)
	}
	for _, f := range files {
		fmt.Fprintf(out, "wrote %s\n", f.Path)
	}
	added, err := AppendGitignore(root)
	if err != nil {
		return err
	}
	if added {
		fmt.Fprintf(out, "added %s to .gitignore\n", GitignoreLine)
	}
	fmt.Fprintln(out, nextSteps(agent, tc))
	return nil
}

// nextSteps says what to do after init.
func nextSteps(agent Agent, testCommand string) string {
	var b strings.Builder
	b.WriteString("\nNext:\n")
	if agent.Install != "" {
		fmt.Fprintf(&b, "  %s   # if %s is not installed\n", agent.Install, agent.CLI)
		fmt.Fprintf(&b, "  export %s=...   # its key; in CI, the repository secret %s\n", agent.Secret, agent.Secret)
	} else {
		b.WriteString("  edit agent.sh: call your agent there\n")
	}
	if testCommand == "" {
		b.WriteString("  (no test command found: give one in ralph.yaml, stages.coder.verification_config)\n")
	}
	b.WriteString("  ralph-ci check\n  ralph-ci run\n")
	return b.String()
}
