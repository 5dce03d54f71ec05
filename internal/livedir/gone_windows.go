package livedir

import (
	"errors"

	"golang.org/x/sys/windows"
)

// gone tells whether no process has the id pid: Windows refuses to open
// an id no process has (ERROR_INVALID_PARAMETER), and a process that
// ended but whose handle another process still holds can be opened and
// is signalled. A process that may not be opened (another user's, access
// denied) is there. Windows gives a freed id to a new process soon: a
// folder whose run died then stays until the id is free again, never the
// other way round.
func gone(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}
