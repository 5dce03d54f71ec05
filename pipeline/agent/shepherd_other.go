//go:build !linux

package agent

import "fmt"

// shepherdWorks: only Linux has child subreapers; elsewhere the command's
// process group is all ralph-ci can stop.
const shepherdWorks = false

// ShepherdMain is never started here.
func ShepherdMain([]string) int {
	fmt.Println(ShepherdName + " works on Linux only")
	return 2
}
