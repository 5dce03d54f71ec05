package job

import (
	"os"

	"github.com/ralph-ci/ralph-ci/internal/sudoroot"
)

// ForInvoker gives what writing the files paths creates to the user who
// ran ralph-ci as root through sudo (SUDO_UID and SUDO_GID: the run as
// root that internal/sudoroot starts, or a user's own sudo -E): call it
// before writing them, and the function it returns after. Reports may
// lie outside the work tree (whose every entry goes back to its owner at
// the end), and the user must be able to replace or remove them. As
// anyone else, it does nothing.
func (j *Session) ForInvoker(paths ...string) func() {
	uid, gid, ok := sudoroot.Invoker(os.Geteuid(), os.Getenv)
	if !ok {
		return func() {}
	}
	var made []string
	for _, p := range paths {
		if p != "" {
			made = append(made, sudoroot.Missing(p))
		}
	}
	return func() {
		for _, top := range made {
			if err := sudoroot.GiveBack(top, uid, gid); err != nil {
				j.Log.Warn().Err(err).Int("uid", uid).Msg("could not give a report back to the user who ran ralph-ci through sudo")
			}
		}
	}
}
