package network

import (
	"strings"
	"sync"
)

// maxNamed is how many hosts a run's log names as refused (by the proxy)
// or caught (past it, in the box); past it, one line says that more
// were, so that nothing an agent sends grows the log without bound.
const maxNamed = 50

// hostLog decides which refused hosts the log names: each once, and at
// most maxNamed. It keeps at most maxNamed keys.
type hostLog struct {
	// search are resolv.conf's search domains: a resolver that got "no
	// such host" for a name asks again with each appended, and that echo
	// is not named (the name itself was).
	search []string

	mu    sync.Mutex
	named map[string]bool
	full  bool
}

// note tells whether to name host, refused as kind ("proxy", "dns",
// "tcp", "udp"): new, under the bound and no search-domain echo of a
// name named; and whether to say, once, that the log names no more (the
// first new host past it).
func (h *hostLog) note(kind, host string) (name, noMore bool) {
	key := kind + " " + host
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.named[key] || h.full {
		return false, false
	}
	if kind == "dns" {
		for _, s := range h.search {
			if asked, ok := strings.CutSuffix(host, "."+s); ok && h.named["dns "+asked] {
				return false, false
			}
		}
	}
	if len(h.named) >= maxNamed {
		h.full = true
		return false, true
	}
	if h.named == nil {
		h.named = map[string]bool{}
	}
	h.named[key] = true
	return true, false
}

// searchDomains are the search domains of a resolv.conf (its "search"
// and "domain" lines), lower case, without their final dot.
func searchDomains(resolvConf string) []string {
	var out []string
	for line := range strings.Lines(resolvConf) {
		f := strings.Fields(line)
		if len(f) < 2 || (f[0] != "search" && f[0] != "domain") {
			continue
		}
		for _, d := range f[1:] {
			if d = strings.ToLower(strings.TrimSuffix(d, ".")); d != "" {
				out = append(out, d)
			}
		}
	}
	return out
}
