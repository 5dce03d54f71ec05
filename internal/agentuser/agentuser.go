// Package agentuser runs the agent as a user of its own where ralph-ci
// is root: every boxed process (the agent, verification commands,
// judges, reviewers) gets that user's uid and gid, so ralph-ci's memory,
// its /proc, its git folder, the job's root-only files and the agents of
// other runs are out of its reach by uid, and it cannot signal ralph-ci.
//
// Each live run holds a user of its own ([Take]): with box.user auto,
// the first of a pool of system users ([PoolNames]: [DefaultName],
// DefaultName-2, ... up to [PoolSize]) that no other run holds, created
// (useradd --system) when missing and kept; a run that finds all held
// waits for one (the pool is a machine's capacity, not a config error,
// and a run ends, killed or not, so the wait ends). A user the config
// names is held shared: every run that names it runs as it, the user's
// choice. The hold is a flock on a file of the user in [LockDir], a
// root-only folder, so the kernel lets it go when the run ends, however
// it ends. Whoever holds a user alone first kills every process of its
// uid (a killed run's leftovers) and takes back what the file records
// that a killed run gave it.
//
// A run ([Open]) gives the held user what it needs and takes it back at
// the end ([Run.Close], [Held.Release]), recording each gift in the
// user's file first:
//
//   - a HOME of its own, fresh for the run (the agent CLIs write
//     ~/.claude, ~/.codex, ~/.cache, ~/.npm there), removed at the end;
//   - the work tree: before each start ([Run.Lend]) every entry of the
//     tree becomes the user's (files git checked out, files ralph-ci
//     wrote since), and its top folder is the user's alone (mode 0700,
//     so another run's agent does not enter it); at the end every entry
//     belongs to the tree's owner again (the owner of its top folder
//     when the run started), with the top folder's mode;
//   - a way down to the tree, its HOME and the job's PATH: a folder
//     above them the user may not search (a root-only /root, a test's
//     0700 temporary folder) gets a search-only ACL entry for the user
//     (no listing: what lies below keeps its own modes). Each user has
//     its own entries, so removing them at a run's end cuts no other
//     run off; a shared user's are removed by the last run that holds
//     it. Every change of an ACL is made under one lock, as runs at once
//     change the same folders.
package agentuser

import (
	"fmt"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// DefaultName is the system user the agent runs as where ralph-ci is
// root and the config names none.
const DefaultName = "ralph-agent"

// The config's box.user values that are not a user's name.
const (
	Auto = "auto" // DefaultName where ralph-ci is root, else ralph-ci's user
	Off  = "off"  // ralph-ci's own user (the opt-out)
)

// User is the agent's user.
type User struct {
	Name     string
	UID, GID int
}

// String is "NAME (uid UID)".
func (u User) String() string { return fmt.Sprintf("%s (uid %d)", u.Name, u.UID) }

var nameRE = lazyregexp.New(`^[a-z_][a-z0-9_-]{0,31}$`)

// Pick tells which user setting (the config's box.user, "" for auto)
// asks for, for a ralph-ci whose effective uid is euid: the name of the
// user, or "" for ralph-ci's own. A name other than auto or off needs
// root, and root itself is refused (that is off).
func Pick(setting string, euid int) (string, error) {
	switch {
	case setting == "" || setting == Auto:
		if euid == 0 {
			return DefaultName, nil
		}
		return "", nil
	case setting == Off:
		return "", nil
	case setting == "root":
		return "", fmt.Errorf("box.user: root is ralph-ci's own user: say `off`")
	case !nameRE.MatchString(setting):
		return "", fmt.Errorf("box.user %q: want auto, off or a user's name", setting)
	case euid != 0:
		return "", fmt.Errorf("box.user %q: only a ralph-ci run as root can run the agent as another user", setting)
	}
	return setting, nil
}

// Toolchains are the variables that point a process with another HOME at
// toolchains ralph-ci's HOME (home) holds and a user reads without
// writing: rustup's toolchains (~/.rustup: RUSTUP_HOME), when it exists
// and the job sets none. exists tells whether a folder exists.
func Toolchains(home string, set func(string) bool, exists func(string) bool) []string {
	var env []string
	if home != "" && !set("RUSTUP_HOME") && exists(home+"/.rustup") {
		env = append(env, "RUSTUP_HOME="+home+"/.rustup")
	}
	return env
}
