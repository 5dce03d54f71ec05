package text

// Suggest returns the allowed name closest to name, if it is close
// (an edit distance under half its length): the "did you mean" of config
// keys and of command-line flags.
func Suggest(name string, allowed []string) string {
	best, bestD := "", len(name)/2+1
	for _, a := range allowed {
		if d := distance(name, a); d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

// distance is the Levenshtein edit distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
