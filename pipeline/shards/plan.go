package shards

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Load is what the state knows of one spec, for planning.
type Load struct {
	Path string
	// Rotations and Seconds are the spec's rotations and agent time so
	// far, all runs included.
	Rotations int
	Seconds   float64
	// Shard is the shard the spec ran in last ("2-of-4"), "" if none.
	Shard string
}

// Shard is one job of the matrix.
type Shard struct {
	// Name is "K-of-N": the job's label and its state ref's name.
	Name  string
	Index int // K, from 1
	Of    int // N
	Specs []string
	// Weight is the estimated work of its specs, in seconds (or in
	// rotations when the state knows no time).
	Weight float64
}

// Name is the name of shard k of n.
func Name(k, n int) string { return strconv.Itoa(k) + "-of-" + strconv.Itoa(n) }

// ParseName reads "K-of-N" (or "K/N").
func ParseName(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "-of-")
	if !ok {
		a, b, ok = strings.Cut(s, "/")
	}
	if ok {
		k, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("shard %q: want K-of-N (or K/N) with 1 <= K <= N", s)
	}
	return k, n, nil
}

// minRotations is the fewest rotations that verify a spec (three DONE
// without changes): the estimate for a spec the state knows nothing of.
const minRotations = 3

// Plan splits specs into at most n shards, every spec in exactly one:
//
//   - stable: a spec that ran in shard K of the same n stays there, so
//     that its state, handoff and history stay with one job;
//   - balanced: the other specs, heaviest first (then by path), each go to
//     the lightest shard (then the lowest K). A spec weighs what the state
//     knows: its agent time so far, at least its rotations (or the three
//     rotations a spec needs at least) times the mean rotation time;
//   - shards left without a spec are left out, so that no job idles.
//
// The shards come ordered by K; each one's specs by path.
func Plan(specs []Load, n int) ([]Shard, error) {
	if n < 1 {
		return nil, fmt.Errorf("plan shards: %d shards; want 1 or more", n)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("plan shards: no spec to plan")
	}
	mean := meanRotation(specs)
	shards := make([]Shard, n)
	for i := range shards {
		shards[i] = Shard{Name: Name(i+1, n), Index: i + 1, Of: n}
	}
	var free []Load
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.Path] {
			continue
		}
		seen[s.Path] = true
		k, m, err := ParseName(s.Shard)
		if err != nil || m != n {
			free = append(free, s)
			continue
		}
		shards[k-1].add(s.Path, weight(s, mean))
	}
	slices.SortStableFunc(free, func(a, b Load) int {
		return cmp.Or(cmp.Compare(weight(b, mean), weight(a, mean)), strings.Compare(a.Path, b.Path))
	})
	for _, s := range free {
		light := 0
		for i := range shards {
			if shards[i].Weight < shards[light].Weight || (shards[light].Weight == shards[i].Weight && len(shards[i].Specs) < len(shards[light].Specs)) {
				light = i
			}
		}
		shards[light].add(s.Path, weight(s, mean))
	}
	out := shards[:0]
	for _, sh := range shards {
		if len(sh.Specs) > 0 {
			slices.Sort(sh.Specs)
			out = append(out, sh)
		}
	}
	return out, nil
}

func (s *Shard) add(path string, w float64) {
	s.Specs = append(s.Specs, path)
	s.Weight += w
}

// meanRotation is the mean agent time of one rotation, 1 when the state
// knows no time (weights are then counted in rotations).
func meanRotation(specs []Load) float64 {
	var secs float64
	var rots int
	for _, s := range specs {
		if s.Seconds > 0 && s.Rotations > 0 {
			secs += s.Seconds
			rots += s.Rotations
		}
	}
	if rots == 0 {
		return 1
	}
	return secs / float64(rots)
}

// weight is a spec's estimated work.
func weight(s Load, mean float64) float64 {
	return max(s.Seconds, float64(max(s.Rotations, minRotations))*mean)
}
