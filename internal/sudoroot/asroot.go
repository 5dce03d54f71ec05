package sudoroot

import (
	"errors"
	"fmt"
	"os"

	"github.com/rs/zerolog"
)

// AsRoot runs ralph-ci's own binary again as root through passwordless
// sudo (Path, Probe, Relaunch) with args and p, and returns the exit code
// of the run as root and true; false when it could not start one (no
// sudo in a system folder, one that asks for a password, no binary to
// run): log then says why, once, and what gives the agent a user of its
// own, and the caller goes on as it is. err is a run as root that failed
// after it started, logged too.
func AsRoot(log zerolog.Logger, args []string, p Payload) (code int, ran bool, err error) {
	howto := "the agent runs as the job's user (uid " + fmt.Sprint(os.Geteuid()) + ") and reaches what it owns: give ralph-ci passwordless sudo, or run it as root, and the agent gets a user of its own (docs/security.md)"
	sudo := Path()
	if sudo == "" {
		log.Warn().Str("reason", "no sudo in a system folder").Msg("box: " + howto)
		return 0, false, nil
	}
	if err := Probe(sudo); err != nil {
		log.Warn().Str("reason", err.Error()).Msg("box: sudo asks for a password: " + howto)
		return 0, false, nil
	}
	exe, err := os.Executable()
	if err != nil {
		log.Warn().Err(err).Msg("box: cannot find ralph-ci's own binary to run it through sudo: " + howto)
		return 0, false, nil
	}
	log.Info().Str("sudo", sudo).Int("uid", os.Geteuid()).
		Msg("box: ralph-ci runs itself as root through passwordless sudo, so that the agent runs as a user of its own")
	code, err = Relaunch(sudo, exe, args, p, os.Stdin, os.Stdout, os.Stderr)
	if errors.Is(err, ErrNotStarted) { // nothing ran: go on as before
		log.Warn().Err(err).Msg("box: cannot run ralph-ci as root through sudo: " + howto)
		return 0, false, nil
	}
	if err != nil {
		log.Error().Err(err).Msg("box: running ralph-ci as root through sudo failed")
		return 0, true, err
	}
	return code, true, nil
}
