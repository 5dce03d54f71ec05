package actions

import (
	"path/filepath"
	"strings"
)

// Env is the part of the GitHub Actions environment the reporter uses.
// Read it once at the edge (EnvFrom(os.Getenv)); tests build it by hand
// with temporary files.
type Env struct {
	// Actions is true when running in GitHub Actions (GITHUB_ACTIONS=true).
	Actions bool
	// StepSummary is the job summary file to append to (GITHUB_STEP_SUMMARY).
	StepSummary string
	// Output is the step outputs file to append to (GITHUB_OUTPUT).
	Output string
	// Workspace is the checkout folder (GITHUB_WORKSPACE): annotation file
	// paths are made relative to it.
	Workspace string
}

// EnvFrom reads Env through getenv, typically os.Getenv.
func EnvFrom(getenv func(string) string) Env {
	return Env{
		Actions:     getenv("GITHUB_ACTIONS") == "true",
		StepSummary: getenv("GITHUB_STEP_SUMMARY"),
		Output:      getenv("GITHUB_OUTPUT"),
		Workspace:   getenv("GITHUB_WORKSPACE"),
	}
}

// workspacePath turns a path (absolute, or relative to the current
// folder) into one relative to the workspace with forward slashes, as
// annotations, artifact uploads and report actions expect. A path outside
// the workspace, or with no workspace known, is returned cleaned (and
// absolute when it could be made so).
func (e Env) workspacePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if e.Workspace != "" {
		if ws, err := filepath.Abs(e.Workspace); err == nil {
			if rel, err := filepath.Rel(ws, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(rel)
			}
		}
	}
	if filepath.IsAbs(p) || e.Workspace != "" {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(filepath.Clean(p))
}
