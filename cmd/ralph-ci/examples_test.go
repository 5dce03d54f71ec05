package main

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/ralph-ci/ralph-ci/internal/scaffold"
	"github.com/ralph-ci/ralph-ci/pipeline/deliver"
)

// Every example workflow that runs ralph-ci grants what docs/action.md says
// the job needs: comments on the pull request and commit statuses (without
// statuses: write the run's commit status gets a 403).
func TestExampleWorkflowsGrantWhatTheREADMESays(t *testing.T) {
	files, err := filepath.Glob("../../examples/workflows/*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("example workflows: %v (%d found)", err, len(files))
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Permissions map[string]string `yaml:"permissions"`
			Jobs        map[string]struct {
				Permissions map[string]string `yaml:"permissions"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(src, &wf); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if !strings.Contains(string(src), "ralph-ci/ralph-ci@") && !strings.Contains(string(src), "ralph-ci run") && !strings.Contains(string(src), "ralph-ci check") {
			continue
		}
		for name, job := range wf.Jobs {
			perms := job.Permissions
			if perms == nil {
				perms = wf.Permissions
			}
			for _, need := range []string{"statuses", "pull-requests"} {
				if perms[need] != "write" {
					t.Errorf("%s: job %s: permissions.%s = %q, want write (docs/action.md, Permissions)", filepath.Base(file), name, need, perms[need])
				}
			}
		}
	}
}

// Every workflow that runs the loop, among the examples and what `init`
// writes for each agent, grants the job's token what its delivery mode
// needs (deliver.Mode.Permissions: contents: write to push, statuses:
// write to bind the state, actions: write to dispatch
// delivery.ci_workflows, ...): the Action's deliver input, pr by default.
func TestWorkflowsGrantWhatTheirModeNeeds(t *testing.T) {
	sources := map[string][]byte{}
	files, _ := filepath.Glob("../../examples/workflows/*.yml")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources[filepath.Base(f)] = src
	}
	for _, a := range scaffold.Agents {
		written, err := scaffold.Files(a, "make test")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range written {
			if strings.HasSuffix(f.Path, ".yml") {
				sources["init --agent "+a.Name+": "+f.Path] = f.Content
			}
		}
	}
	loops := 0
	for name, src := range sources {
		var wf struct {
			Permissions map[string]string `yaml:"permissions"`
			Jobs        map[string]struct {
				Permissions map[string]string `yaml:"permissions"`
				Steps       []struct {
					Uses string            `yaml:"uses"`
					With map[string]string `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(src, &wf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for job, j := range wf.Jobs {
			perms := j.Permissions
			if perms == nil {
				perms = wf.Permissions
			}
			for _, s := range j.Steps {
				if !strings.HasPrefix(s.Uses, "ralph-ci/ralph-ci@") || cmp.Or(s.With["command"], "run") != "run" {
					continue
				}
				loops++
				mode, err := deliver.ModeNamed(cmp.Or(s.With["deliver"], "pr"))
				if err != nil {
					t.Fatalf("%s: job %s: %v", name, job, err)
				}
				for _, p := range mode.Permissions {
					if p.Access == "write" && perms[p.Scope] != "write" {
						t.Errorf("%s: job %s delivers with %s, which needs %s: write (%s); it grants %q", name, job, mode.Name, p.Scope, p.Why, perms[p.Scope])
					}
				}
			}
		}
	}
	if loops < 3 {
		t.Fatalf("found %d steps that run the loop, want the examples' and init's", loops)
	}
}
