package schema

import (
	"fmt"
	"runtime/metrics"
	"strings"
	"time"
)

// Bounds of evaluating a user's CUE config. CUE can describe huge values
// in a few lines (list.Range(0, 50000000, 1), a struct that refers to the
// level below twice, forty levels deep) and its evaluator can neither be
// cancelled nor limited (cuelang.org/go v0.17 has no option for it). So a
// CUE config is evaluated on a schema of its own in a goroutine, watched:
// past the deadline, or once the heap has grown by more than the memory
// bound, the load fails with a problem and the goroutine is abandoned.
// Every caller stops on that problem (exit 2), so the process ends soon
// after and takes the goroutine with it; the shared schema is never left
// locked by it.
const (
	// CUEDeadline bounds the time one CUE config may take to evaluate.
	CUEDeadline = 10 * time.Second
	// CUEMemory bounds the heap growth while a CUE config evaluates.
	CUEMemory = 1 << 30
)

// heapMetric is the runtime metric for live and unswept heap objects.
const heapMetric = "/memory/classes/heap/objects:bytes"

// checkBounded is check for a CUE source, within deadline and a heap
// growth of at most memory bytes. s must be a schema no one else uses.
func (s *Schema) checkBounded(def, filename string, src []byte, out any, deadline time.Duration, memory uint64) error {
	done := make(chan error, 1)
	go func() { done <- s.check(def, filename, CUE, src, out) }()
	sample := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-timer.C:
			return boundProblem(filename, fmt.Sprintf("took longer than %s", deadline))
		case <-tick.C:
			metrics.Read(sample)
			if grown := sample[0].Value.Uint64(); grown > base && grown-base > memory {
				return boundProblem(filename, fmt.Sprintf("needed more than %d MiB of memory", memory>>20))
			}
		}
	}
}

// boundMsg starts the message of a problem made by boundProblem.
const boundMsg = "evaluating this CUE file "

func boundProblem(filename, what string) Problems {
	return Problems{{File: filename, Line: 1, Col: 1, Msg: boundMsg + what +
		"; ralph-ci stopped it. A config describes a few agents and settings: remove the huge list or the deeply shared struct (list.Range, list.Repeat, references that double at each level)"}}
}

// isBoundProblem tells whether err is a bound's problem: the evaluation
// it stopped may still be running on the schema.
func isBoundProblem(err error) bool {
	ps, ok := err.(Problems)
	return ok && len(ps) == 1 && strings.HasPrefix(ps[0].Msg, boundMsg)
}
