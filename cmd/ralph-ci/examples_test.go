package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
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
