package job

import "sync"

// maxNamed is how many hosts a run's log names as refused (by the proxy)
// or caught (past it, in the box); past it, one line says that more
// were, so that nothing an agent sends grows the log without bound.
const maxNamed = 50

// hostLog decides which refused hosts the log names: each once, and at
// most maxNamed. It keeps at most maxNamed keys.
type hostLog struct {
	mu    sync.Mutex
	named map[string]bool
	full  bool
}

// note tells whether to name key (new, and under the bound) and whether
// to say, once, that the log names no more (the first new key past it).
func (h *hostLog) note(key string) (name, noMore bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.named[key] || h.full {
		return false, false
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
