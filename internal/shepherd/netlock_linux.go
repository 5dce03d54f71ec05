package shepherd

import (
	"github.com/landlock-lsm/go-landlock/landlock"
)

// ConnectOnly keeps this process and everything it starts from
// connecting over TCP anywhere but port (on any address: Landlock's
// network rules know ports, not hosts), with Landlock ABI 4 (Linux 6.7);
// it is where ralph-ci has no network box, the proxy's port. It fails
// where the kernel cannot: ralph-ci checks the ABI before it asks. port 0
// does nothing. Binding is left alone, so a test may still listen; UDP
// is not covered.
func ConnectOnly(port int) error {
	if port == 0 {
		return nil
	}
	return landlock.V4.RestrictNet(landlock.ConnectTCP(uint16(port)))
}
