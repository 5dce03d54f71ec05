// Package gitenv names the environment variables that make git work on
// another repository than the one of the folder it runs in, and those
// git hands down to the commands it runs itself (a hook, an alias,
// `git bisect run`'s command). A process started from such a command
// inherits them: its git then writes into the repository of the command
// that started it.
//
// ralph-ci's own git never sees them (internal/git builds its
// environment); the processes a run starts do not get Redirects
// (pipeline/agent.BuildEnv): the agent works on the work tree ralph-ci
// judges. The tests drop both lists first ([Drop], in their TestMain),
// so that under `git bisect run`, or a hook running go test, their git
// and the ralph-ci they start write only into what the tests made.
package gitenv

import (
	"os"
	"slices"
	"strings"
)

// Redirects are the variables that point git at another repository,
// work tree, index, object store or ref namespace than the ones it finds
// from the folder it runs in (git help git, ENVIRONMENT: "The Git
// Repository"; and what git sets for its hooks: the quarantine of a
// push, the shallow and graft files).
var Redirects = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
	"GIT_QUARANTINE_PATH", "GIT_SHALLOW_FILE", "GIT_GRAFT_FILE", "GIT_REPLACE_REF_BASE",
}

// Handed are the other variables git sets for a command it runs: a
// pre-commit hook gets GIT_INDEX_FILE (the index.lock of the commit under
// way), the author's identity and date, the configuration given with
// `git -c` (GIT_CONFIG_PARAMETERS), git's program folder, GIT_EDITOR and
// GIT_PREFIX (measured with git 2.39: TestHandedCoversAHook). The
// configuration's other variables come with them: GIT_CONFIG_COUNT's
// pairs are handedPrefixes.
var Handed = []string{
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_EXEC_PATH", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PREFIX", "GIT_REFLOG_ACTION",
	"GIT_INDEX_VERSION", "GIT_DEFAULT_HASH",
}

// handedPrefixes begin the names of GIT_CONFIG_COUNT's pairs
// (GIT_CONFIG_KEY_0, GIT_CONFIG_VALUE_0, ...).
var handedPrefixes = []string{"GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"}

// Dropped tells whether Drop unsets the variable name: one of Redirects
// or Handed.
func Dropped(name string) bool {
	if slices.Contains(Redirects, name) || slices.Contains(Handed, name) {
		return true
	}
	for _, p := range handedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Drop unsets Redirects and Handed in this process, so that the git it
// starts, and the processes those start, work on the repository of the
// folder they run in, with the configuration of its files alone. Every
// TestMain of a package whose tests run git calls it first
// (internal/layering checks it).
func Drop() {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); Dropped(name) {
			os.Unsetenv(name)
		}
	}
}
