// Package netns is the network box of the processes ralph-ci starts: a
// network namespace of the run in which only its loopback exists, and on
// it one listener that ralph-ci opened there (the model-API proxy,
// internal/modelproxy). A process started in it reaches that listener and
// whatever it opens itself on its loopback, nothing else: no other host,
// and not the loopback of the machine (a job's services, an HTTP origin,
// the GitHub API's stand-ins). ralph-ci's own sockets (the proxy's
// upstream dials, git, the API) stay in its own namespace.
//
// What a process sends past the proxy fails at once, and [Box.Catch]
// tells each try (a name looked up, an address:port connected to), so
// that the log can name the host to allow.
//
// Making a network namespace takes CAP_SYS_ADMIN (root, as on GitHub's
// hosted runners with sudo, or in a container job); elsewhere [New]
// fails and the caller decides (see docs/security.md).
package netns
