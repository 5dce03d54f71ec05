package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
	"github.com/ralph-ci/ralph-ci/pipeline/doctor"
	"github.com/ralph-ci/ralph-ci/pipeline/project"
	"github.com/ralph-ci/ralph-ci/schema"
)

// doctorWarnings prints what check finds valid but that will not work as
// expected, one "warning: ..." line each, with what to do. They never
// change the exit code.
func doctorWarnings(ctx context.Context, opts *globalOptions, p *project.Project, mode string) {
	cfg := p.Config
	facts := doctor.Facts{
		Agents:      map[string]doctor.Agent{},
		CostBudget:  cfg.Budgets.CostUSD,
		ReportsCost: agent.ReportsCost,
		Token:       opts.env.pr.Token != "",
		Delivery:    mode,
		Root:        resolved(p.Root),
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
	for _, name := range usedAgents(cfg) {
		if a, ok := cfg.Agents[name]; ok {
			facts.Agents[name] = doctor.Agent{Command: a.Command, Format: a.Format}
		}
	}
	if _, ok, err := opts.env.pr.PullRequest(); ok && err == nil {
		facts.PullRequest = true
	}
	if top, err := (deliver.Git{Dir: facts.Root}).Run(ctx, "rev-parse", "--show-toplevel"); err == nil {
		facts.TopLevel = resolved(strings.TrimSpace(top))
	}
	for _, w := range doctor.Check(facts) {
		fmt.Fprintln(opts.stdout, "warning: "+w.String())
	}
}

// usedAgents are the agents the enabled stages and the layers start.
func usedAgents(cfg *schema.Config) []string {
	var names []string
	add := func(n string) {
		for _, m := range names {
			if m == n {
				return
			}
		}
		if n != "" {
			names = append(names, n)
		}
	}
	for _, st := range schema.StageNames {
		if cfg.Stages.Get(st).Enabled {
			for _, n := range cfg.StageAgents(st) {
				add(n)
			}
		}
	}
	add(cfg.Layers.Judge)
	add(cfg.Layers.Review.Agent)
	return names
}

// resolved is dir, absolute and with its links resolved (as given when
// that fails).
func resolved(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// belowTopLevel refuses delivery from a folder below the top of its git
// work tree: delivery commits (and pushes) the whole repository, so the
// agent's files outside the folder would be committed too.
func belowTopLevel(ctx context.Context, root string) error {
	top, err := (deliver.Git{Dir: root}).Run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil // not a repository: delivery says so itself
	}
	if t := resolved(strings.TrimSpace(top)); t != resolved(root) {
		return &usageError{fmt.Errorf("-C %s is below the top of its git repository %s: delivery commits the whole repository, files outside %s included; run ralph-ci at the repository's root (with ralph.yaml there), or use --deliver none (docs/troubleshooting.md#below-the-top-of-its-git-repository)", root, t, root)}
	}
	return nil
}
