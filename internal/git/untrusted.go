package git

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// The doorway sweeps ralph-ci's git directory and checks the checkout
// (guard) before a command because a process ralph-ci does not trust (an
// agent, a verification command, what either started) may have changed
// them since the last one. It needs to only when one may have: between
// two commands with no such process started or alive in between, the
// directory holds what ralph-ci's git left there and the checkout's
// files what they held. A delivery rotation runs four commands after its
// agent (status, add, commit, push): the first sweeps and checks, and
// the record of what git left is taken once, when the next such process
// is about to start, instead of after each command (four sweeps and
// records were 1.2 ms of a 43.5 ms rotation: bench/delivery.sh under
// perf).
//
// It holds because every such process starts through Untrusted
// (pipeline/agent.Run, the one place ralph-ci starts one; nothing of
// ralph-ci's own writes in its git directories but its git), and is
// known gone only when its box was emptied (the kernel says so): while
// one runs, and for good once one ended without a box (a process of its
// may outlive it), every command sweeps and checks as before.
var untrusted struct {
	mu      sync.Mutex
	epoch   uint64 // moves at each start and end of such a process
	live    int    // started and not ended
	tainted bool   // one may outlive its end
}

// sweeps counts the sweeps of this process's git directories (the
// tests count them).
var sweeps atomic.Int64

// calm is the epoch now, and whether no untrusted process may be alive.
func calm() (epoch uint64, ok bool) {
	untrusted.mu.Lock()
	defer untrusted.mu.Unlock()
	return untrusted.epoch, untrusted.live == 0 && !untrusted.tainted
}

// Untrusted tells the doorway that a process ralph-ci does not trust is
// about to start, and records first what ralph-ci's git left in each of
// its git directories. Call end when the process and all it started are
// gone (gone true), or may not be (gone false: from then on every command
// sweeps and checks). On an error, start nothing: Untrusted has ended.
func Untrusted() (end func(gone bool), err error) {
	untrusted.mu.Lock()
	untrusted.epoch++
	untrusted.live++
	untrusted.mu.Unlock()
	var once sync.Once
	end = func(gone bool) {
		once.Do(func() {
			untrusted.mu.Lock()
			defer untrusted.mu.Unlock()
			untrusted.epoch++
			untrusted.live--
			untrusted.tainted = untrusted.tainted || !gone
		})
	}
	privMu.Lock()
	ps := make([]*private, 0, len(privates))
	for _, p := range privates {
		ps = append(ps, p)
	}
	privMu.Unlock()
	var errs []error
	for _, p := range ps {
		p.mu.Lock()
		if err := p.record(); err != nil {
			errs = append(errs, fmt.Errorf("record ralph-ci's own git directory %s: %w", p.dir, err))
		}
		p.mu.Unlock()
	}
	if err := errors.Join(errs...); err != nil {
		end(true)
		return func(bool) {}, err
	}
	return end, nil
}

// record takes the record of what ralph-ci's git left in p.dir that the
// last command put off (p.stale), unless a command is running: its end
// takes it then. Call it with p.mu held.
func (p *private) record() error {
	if !p.stale || p.busy > 0 {
		return nil
	}
	l, err := scan(p.dir, p.left)
	if err != nil {
		return err
	}
	p.left, p.stale = l, false
	return nil
}

// Calm reports whether no process ralph-ci does not trust may be alive
// now (none running, none ended without its box emptied): only then do
// the commands after the first skip the sweep and the check.
func Calm() bool {
	_, ok := calm()
	return ok
}
