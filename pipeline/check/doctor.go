package check

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/doctor"
	"github.com/ralph-ci/ralph-ci/pipeline/job"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
)

// doctorWarnings are what check finds valid but that will not work as
// expected, each with what to do. They never change the exit code.
func doctorWarnings(ctx context.Context, j *job.Trusted, p *project.Project) []string {
	cfg := p.Config
	facts := doctor.Facts{
		Agents:      map[string]doctor.Agent{},
		CostBudget:  cfg.Budgets.CostUSD,
		ReportsCost: agent.ReportsCost,
		KeyVars:     agent.KeyVars,
		HasEnv:      j.Env.HasEnv,
		Token:       j.Env.PR.Token != "",
		Delivery:    delivers(j.Mode),
		Root:        igit.Resolved(p.Root),
		Found: func(program string) bool {
			if strings.Contains(program, "/") {
				if !filepath.IsAbs(program) {
					program = filepath.Join(p.Root, program)
				}
				_, err := os.Stat(program)
				return err == nil
			}
			_, err := exec.LookPath(program)
			return err == nil
		},
	}
	for _, name := range cfg.UsedAgents() {
		if a, ok := cfg.Agents[name]; ok {
			facts.Agents[name] = doctor.Agent{Command: a.Command, Format: a.Format}
		}
	}
	if _, ok, err := j.PullRequest(); ok && err == nil {
		facts.PullRequest = true
	}
	if top, err := (deliver.Git{Dir: facts.Root}).Run(ctx, "rev-parse", "--show-toplevel"); err == nil {
		facts.TopLevel = igit.Resolved(strings.TrimSpace(top))
	}
	var out []string
	for _, w := range doctor.Check(facts) {
		out = append(out, w.String())
	}
	return out
}

// delivers is the mode's name when it delivers the work, else "".
func delivers(m deliver.Mode) string {
	if m.Delivers() {
		return m.Name
	}
	return ""
}
