// Package network is the network of every process a run starts: a box
// of its own (internal/netns) with ralph-ci's proxy (internal/modelproxy)
// as the only way out, else Landlock's rule to the proxy's port, and the
// log that names the hosts refused (each once, a bounded number). Start
// gives the run's agent.Network, which the run's host takes.
package network

import (
	"fmt"
	"net"
	"os"
	"os/exec"

	"github.com/rs/zerolog"

	"github.com/ralph-ci/ralph-ci/internal/modelproxy"
	"github.com/ralph-ci/ralph-ci/internal/netns"
	"github.com/ralph-ci/ralph-ci/internal/shepherd"
	"github.com/ralph-ci/ralph-ci/pipeline/agent"
	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
	"github.com/ralph-ci/ralph-ci/schema"
)

// noProxy is what the processes reach without the proxy: their own
// loopback (in the box, that is the box's: a test's local server works,
// the machine's services do not).
const noProxy = "localhost,127.0.0.1,::1"

// network is the run's agent.Network: the proxy, and the box it listens
// in; where there is none, the proxy's port that Landlock leaves the
// processes (connect), or nothing (network.confinement: proxy-only).
type network struct {
	box     *netns.Box
	proxy   *modelproxy.Proxy
	connect int
}

var _ agent.Network = (*network)(nil)

// Route implements agent.Network.
func (n *network) Route(upstream string, keys map[string]string) (string, map[string]string, error) {
	return n.proxy.Route(upstream, keys)
}

// Environ implements agent.Network.
func (n *network) Environ() []string {
	u := n.proxy.URL()
	return []string{"HTTP_PROXY=" + u, "HTTPS_PROXY=" + u, "http_proxy=" + u, "https_proxy=" + u,
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy}
}

// Start implements agent.Network.
func (n *network) Start(cmd *exec.Cmd) error { return n.box.Start(cmd) }

// ConnectOnly implements agent.Network.
func (n *network) ConnectOnly() int { return n.connect }

// landlockNet is the Landlock ABI that has network rules (Linux 6.7).
const landlockNet = 4

// Start starts the network of every process the run starts, for its
// host (runhost.Policy; see docs/security.md): a box of its own with
// ralph-ci's proxy as the only way out, the proxy holding the model APIs'
// keys. Without root there is no box: Landlock (ABI 4) then lets the
// processes connect over TCP to the proxy's port alone; where the kernel
// has neither, run refuses unless cfg.Confinement is proxy-only. stop
// ends the proxy and lets the box go. shepherd is the host's shepherd
// (agent.Host.Shepherd), which applies Landlock's rule; log gets what
// the network refused.
func Start(cfg schema.Network, shepherdPath string, log zerolog.Logger) (_ agent.Network, stop func(), err error) {
	n := &network{}
	box, ln, err := netns.New()
	if err != nil {
		abi, landlock := shepherd.LandlockABI(), false
		switch {
		case cfg.Confinement == "proxy-only":
			log.Warn().Err(err).Msg("network: no network box (network.confinement: proxy-only): the keys stay with ralph-ci's proxy, but agents and verification commands can connect to any host directly")
		case abi >= landlockNet && shepherdPath != "" && shepherd.Works:
			landlock = true
			log.Info().Err(err).Int("abi", abi).Msg("network: no network box (it needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN): Landlock lets agents and verification commands connect over TCP to ralph-ci's proxy's port alone (not UDP, and not a test's own server on another port)")
		default:
			return nil, nil, exitcode.New(exitcode.Failure, fmt.Errorf("network: no network box for the agents here (%w) and no Landlock network rules (Linux 6.7): the box needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN (GitHub's hosted runners with sudo, a container job with --privileged); network.confinement: proxy-only runs without one, where the keys still stay with ralph-ci's proxy but every process can connect to any host directly", err))
		}
		box = nil
		if ln, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
			return nil, nil, exitcode.New(exitcode.Failure, fmt.Errorf("network: starting the proxy: %w", err))
		}
		if landlock {
			n.connect = ln.Addr().(*net.TCPAddr).Port
		}
	}
	named := &hostLog{}
	if conf, err := os.ReadFile("/etc/resolv.conf"); err == nil { // the boxed processes' too
		named.search = searchDomains(string(conf))
	}
	say := func(kind, host, msg string) {
		name, noMore := named.note(kind, host)
		if name {
			log.Warn().Str("host", host).Str("how", kind).Msg(msg)
		}
		if noMore {
			log.Warn().Int("named", maxNamed).Msg("network: more hosts were refused; the log names no more this run")
		}
	}
	p := modelproxy.New(ln, cfg.Allow, func(host string) {
		say("proxy", host, "network: refused a connection to a host network.allow does not list; add it there to let the agents and verification commands reach it")
	})
	if box != nil {
		err := box.Catch(func(e netns.Escape) {
			if e.Proto == "dns" {
				say(e.Proto, e.Host, "network: a boxed process looked up a host itself, not through HTTPS_PROXY, and the lookup failed; to let it reach the host, add the host to network.allow and have the tool use HTTPS_PROXY")
				return
			}
			say(e.Proto, e.Host, "network: a boxed process connected to an address directly, not through HTTPS_PROXY, and the connection failed; to let it reach the address, add it to network.allow and have the tool use HTTPS_PROXY")
		})
		if err != nil {
			log.Warn().Err(err).Msg("network: the box holds, but the log will not name the hosts that processes try without the proxy")
		}
	}
	n.box, n.proxy = box, p
	log.Debug().Str("proxy", p.URL()).Bool("box", box != nil).Int("landlock_port", n.connect).Strs("allow", cfg.Allow).Msg("network: the processes reach their model APIs and the allowed hosts through ralph-ci's proxy")
	return n, func() {
		_ = p.Close()
		_ = box.Close()
	}, nil
}
